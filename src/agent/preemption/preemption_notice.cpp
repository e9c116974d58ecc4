#include "src/agent/preemption/preemption_notice.hpp"

namespace ejob::agent {

std::optional<NoticeSource> parse_notice_source(std::string_view word) {
  if (word == "auto") return NoticeSource::Auto;
  if (word == "azure") return NoticeSource::Azure;
  if (word == "aws") return NoticeSource::Aws;
  if (word == "gce") return NoticeSource::Gce;
  if (word == "off") return NoticeSource::Off;
  return std::nullopt;
}

std::string_view cloud_name(Cloud cloud) {
  switch (cloud) {
    case Cloud::Azure: return "azure";
    case Cloud::Aws: return "aws";
    case Cloud::Gce: return "gce";
  }
  return "?";
}

std::optional<Cloud> cloud_of(NoticeSource source) {
  switch (source) {
    case NoticeSource::Azure: return Cloud::Azure;
    case NoticeSource::Aws: return Cloud::Aws;
    case NoticeSource::Gce: return Cloud::Gce;
    default: return std::nullopt;
  }
}

}  // namespace ejob::agent
