#include "src/agent/preemption/preempt_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "src/agent/preemption/cloud_time.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {

SysTime exit_by_time(SysTime deadline, std::chrono::milliseconds grace, SysTime now) {
  if (deadline - grace > now) return deadline - grace;
  if (deadline > now) return deadline;
  return now + grace;
}

std::string preempt_file_json(const PreemptionNotice& notice, SysTime exit_by,
                              const std::string& signal) {
  // ordered_json: the fields in the order the contract lists them.
  nlohmann::ordered_json doc = {{"cloud", cloud_name(notice.cloud)},
                                {"event", notice.event},
                                {"event_id", notice.event_id},
                                {"deadline", format_rfc3339(notice.deadline)},
                                {"deadline_epoch", epoch_seconds(notice.deadline)},
                                {"exit_by", format_rfc3339(exit_by)},
                                {"exit_by_epoch", epoch_seconds(exit_by)},
                                {"signal", signal}};
  return doc.dump() + "\n";
}

void write_preempt_file(const std::string& path, const std::string& text) {
  std::string temporary = path + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(ErrorCode::Io, "cannot write " + temporary + ": " + std::strerror(errno));
  bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  int saved = errno;
  ::close(fd);
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0)
    throw Error(ErrorCode::Io,
                "cannot write " + path + ": " + std::strerror(written ? errno : saved));
}

}  // namespace ejob::agent
