#include "src/job/log_resume.hpp"

#include <cctype>
#include <chrono>

#include "src/kubeapi/exec_plugin.hpp"

namespace ejob::job {

std::optional<LogStamp> parse_log_stamp(const std::string& text) {
  const auto whole = kubeapi::parse_rfc3339(text);
  if (!whole) return std::nullopt;
  const int64_t seconds =
      std::chrono::duration_cast<std::chrono::seconds>(whole->time_since_epoch()).count();
  int32_t nanos = 0;
  const size_t dot = text.find('.');
  if (dot != std::string::npos) {
    int digits = 0;
    for (size_t i = dot + 1; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
         ++i, ++digits)
      if (digits < 9) nanos = nanos * 10 + (text[i] - '0');
    for (; digits < 9; ++digits) nanos *= 10;
  }
  return LogStamp{seconds, nanos};
}

bool LogResume::seen(const LogStamp& stamp) {
  if (m_last_text.empty()) return false;
  if (stamp < m_last) return true;
  if (stamp == m_last && m_skip > 0) {
    --m_skip;
    return true;
  }
  return false;
}

std::vector<std::string> LogResume::take(std::vector<std::string> lines) {
  std::vector<std::string> out;
  for (std::string& line : lines) {
    const size_t space = line.find(' ');
    const std::string time = line.substr(0, space);
    const auto stamp = parse_log_stamp(time);
    if (!stamp) {  // not the kubelet's "TIME TEXT": nothing to compare, nothing to strip
      out.push_back(std::move(line));
      continue;
    }
    if (seen(*stamp)) continue;
    m_skip = 0;  // past the overlap: whatever follows is new
    m_count = *stamp == m_last && !m_last_text.empty() ? m_count + 1 : 1;
    m_last = *stamp;
    m_last_text = time;
    if (m_keep == KeepTimestamps::No) line.erase(0, space == std::string::npos ? space : space + 1);
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace ejob::job
