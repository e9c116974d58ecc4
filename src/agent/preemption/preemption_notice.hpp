#pragma once
/// What a cloud says before it takes a spot VM away, in one shape for the three clouds the
/// agent watches: which cloud, its own name for the event, and the moment the VM goes.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace ejob::agent {

/// A cloud whose metadata service announces preemptions.
enum class Cloud { Azure, Aws, Gce };

/// `--spot-notices`: detect the cloud, watch one, or none.
enum class NoticeSource { Auto, Azure, Aws, Gce, Off };

using SysTime = std::chrono::system_clock::time_point;

/// One notice.
struct PreemptionNotice {
  Cloud cloud = Cloud::Azure;
  /// The cloud's word: Azure's EventType (`Preempt`, `Terminate`), AWS's action (`terminate`,
  /// `stop`, `hibernate`), GCE's `PREEMPTED` or its maintenance event
  /// (`TERMINATE_ON_HOST_MAINTENANCE`).
  std::string event;
  std::string event_id;  ///< Azure's EventId (what an acknowledgement names); empty elsewhere
  SysTime deadline;      ///< when the VM goes away (Azure NotBefore, AWS time, GCE estimated)
};

/// The source a `--spot-notices` word names; nullopt for another word.
std::optional<NoticeSource> parse_notice_source(std::string_view word);

/// `azure`, `aws`, `gce`.
std::string_view cloud_name(Cloud cloud);

/// The cloud a source names; nullopt for Auto and Off.
std::optional<Cloud> cloud_of(NoticeSource source);

}  // namespace ejob::agent
