#include "src/agent/preemption/aws_instance_action.hpp"

#include <nlohmann/json.hpp>

#include "src/agent/base/log.hpp"
#include "src/agent/preemption/cloud_time.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

/// The token lives six hours (the most IMDS grants); it is renewed a minute before.
constexpr int k_token_ttl_s = 21600;
constexpr auto k_token_renew_before = std::chrono::seconds(60);

[[noreturn]] void bad_document(const std::string& what, std::string_view body) {
  throw Error(ErrorCode::Input, "AWS " + what + ": unexpected answer: " + std::string(body));
}

/// The string member `key` of a JSON object document; nullopt when absent.
std::optional<std::string> member(std::string_view body, const char* key) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

}  // namespace

PreemptionNotice aws_notice(std::string_view body) {
  std::optional<std::string> action = member(body, "action");
  std::optional<std::string> time = member(body, "time");
  std::optional<SysTime> deadline = time ? parse_rfc3339(*time) : std::nullopt;
  if (!action || action->empty() || !deadline) bad_document("spot instance-action", body);
  return PreemptionNotice{Cloud::Aws, *action, "", *deadline};
}

SysTime aws_rebalance_time(std::string_view body) {
  std::optional<std::string> time = member(body, "noticeTime");
  std::optional<SysTime> at = time ? parse_rfc3339(*time) : std::nullopt;
  if (!at) bad_document("rebalance recommendation", body);
  return *at;
}

std::string AwsWatcher::describe() const {
  return std::string("AWS spot instance-action (") + (m_v1 ? "IMDSv1" : "IMDSv2") + ")";
}

bool AwsWatcher::renew_token(long timeout_ms) {
  MetadataRequest put{"PUT",
                      std::string(k_aws_token_path),
                      {{"X-aws-ec2-metadata-token-ttl-seconds", std::to_string(k_token_ttl_s)}}};
  put.timeout_ms = timeout_ms;
  MetadataReply reply = m_http.send(put);
  if (!reply.answered(200) || reply.body.empty()) return false;
  m_token = reply.body;
  m_token_renew_at = Clock::now() + std::chrono::seconds(k_token_ttl_s) - k_token_renew_before;
  return true;
}

Detection AwsWatcher::detect() {
  if (renew_token(k_detect_timeout_ms)) return Detection::Found;
  // Without a token, only an instance that still allows IMDSv1 answers a plain read.
  MetadataRequest get{"GET", std::string(k_aws_instance_id_path)};
  get.timeout_ms = k_detect_timeout_ms;
  MetadataReply reply = m_http.send(get);
  if (reply.end != MetadataEnd::Answered) return Detection::Unreachable;
  if (!reply.answered(200) || reply.body.empty()) return Detection::Absent;
  m_v1 = true;
  return Detection::Found;
}

MetadataReply AwsWatcher::get(std::string_view path) {
  MetadataRequest get{"GET", std::string(path)};
  get.timeout_ms = k_request_timeout_ms;
  if (!m_v1) get.headers = {{"X-aws-ec2-metadata-token", m_token}};
  MetadataReply reply = m_http.send(get);
  if (reply.answered(401)) m_token.clear();  // expired: the next poll asks for a new one
  return reply;
}

std::optional<PreemptionNotice> AwsWatcher::poll() {
  if (!m_v1 && (m_token.empty() || Clock::now() >= m_token_renew_at) &&
      !renew_token(k_request_timeout_ms))
    throw Error(ErrorCode::Transport, "PUT " + std::string(k_aws_token_path) + " at " +
                                          m_http.where() + ": no session token");
  MetadataReply action = get(k_aws_instance_action_path);
  if (action.answered(200)) return aws_notice(action.body);
  if (!action.answered(404))
    metadata_failure(m_http, "GET " + std::string(k_aws_instance_action_path), action);
  check_rebalance();
  return std::nullopt;
}

/// Logs a rebalance recommendation once: the interruption notice may follow, or not.
void AwsWatcher::check_rebalance() {
  if (m_rebalance_logged) return;
  MetadataReply reply = get(k_aws_rebalance_path);
  if (!reply.answered(200)) return;  // 404: none; a failure here changes nothing
  m_rebalance_logged = true;
  log_info("spot notices: AWS recommends rebalancing this instance (noticeTime " +
           format_rfc3339(aws_rebalance_time(reply.body)) +
           "): an interruption notice may follow; training goes on");
}

}  // namespace ejob::agent
