#pragma once
/// AWS's Spot Instance interruption notice through the instance metadata service, IMDSv2:
/// `PUT /latest/api/token` with `X-aws-ec2-metadata-token-ttl-seconds` gives a session token
/// that every later request carries as `X-aws-ec2-metadata-token` (a 401 means it expired);
/// `GET /latest/meta-data/spot/instance-action` is 404 until the instance is to be interrupted,
/// then `{"action": "terminate"|"stop"|"hibernate", "time": "<RFC 3339 UTC>"}`, two minutes
/// ahead. `/latest/meta-data/events/recommendations/rebalance` (`{"noticeTime": …}`) says the
/// instance is at elevated risk of interruption: logged, not acted upon (no deadline). An
/// instance that still allows IMDSv1 answers without a token too; one whose IMDSv2 hop limit
/// is 1 drops the token's answer on its way into a container, and then only IMDSv1 can work.

#include <optional>
#include <string>
#include <string_view>

#include "src/agent/preemption/cloud_watcher.hpp"

namespace ejob::agent {

inline constexpr std::string_view k_aws_token_path = "/latest/api/token";
inline constexpr std::string_view k_aws_instance_action_path =
    "/latest/meta-data/spot/instance-action";
inline constexpr std::string_view k_aws_rebalance_path =
    "/latest/meta-data/events/recommendations/rebalance";
inline constexpr std::string_view k_aws_instance_id_path = "/latest/meta-data/instance-id";

/// The notice an instance-action document gives. Throws ejob::Error(Input) when `body` is not
/// one (no action, or a time that is not RFC 3339).
PreemptionNotice aws_notice(std::string_view body);

/// The noticeTime of a rebalance recommendation. Throws ejob::Error(Input) when `body` is not
/// one.
SysTime aws_rebalance_time(std::string_view body);

/// CloudWatcher over IMDSv2 (IMDSv1 when the token cannot be had but plain reads answer).
class AwsWatcher : public CloudWatcher {
 public:
  explicit AwsWatcher(MetadataHttp& http) : m_http(http) {}
  [[nodiscard]] Cloud cloud() const override { return Cloud::Aws; }
  [[nodiscard]] std::string describe() const override;
  Detection detect() override;
  std::optional<PreemptionNotice> poll() override;

 private:
  MetadataReply get(std::string_view path);
  bool renew_token(long timeout_ms);
  void check_rebalance();

  MetadataHttp& m_http;
  std::string m_token;  ///< empty: IMDSv1
  bool m_v1 = false;
  std::chrono::steady_clock::time_point m_token_renew_at;
  bool m_rebalance_logged = false;
};

}  // namespace ejob::agent
