#pragma once
/// torchrun 1.13's dynamic rendezvous state (`dynamic_rendezvous._RendezvousState`), the object
/// every agent of a c10d or etcd-v2 rendezvous reads, changes and writes back whole
/// (protocols/torch-c10d.md §4.3). Containers keep Python's iteration order, so that a state read
/// and written back unchanged pickles to the same bytes.

#include <chrono>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ejob::agent {

/// A naive UTC `datetime.datetime` (microsecond resolution), as torch 1.13's `utcnow()`.
using UtcTime = std::chrono::time_point<std::chrono::system_clock, std::chrono::microseconds>;

/// The current time as a UtcTime.
UtcTime utc_now();

/// `_NodeDesc`: one agent of the rendezvous. Ordered as Python orders the dataclass (by the
/// tuple fqdn, pid, local_id; str compares by code point, i.e. by UTF-8 bytes).
struct NodeDesc {
  std::string fqdn;
  std::int64_t pid = 0;
  std::int64_t local_id = 0;

  auto operator<=>(const NodeDesc&) const = default;
};

/// `fqdn_pid_localid`, as torch prints a node.
std::string to_string(const NodeDesc& node);

/// Which torch's rendezvous a state belongs to (protocols/torch-c10d.md §4.3, §8): torch 2.x
/// names a node's host `addr` (1.13: `fqdn`), adds `redundancy_list` and writes UTC-aware
/// datetimes (1.13: naive). Python cannot mix the two, so a state is written in one.
enum class RdzvDialect { Torch1_13, Torch2 };

/// `_RendezvousState`.
struct DynamicState {
  RdzvDialect dialect = RdzvDialect::Torch1_13;
  std::int64_t round = 0;
  bool complete = false;
  std::optional<UtcTime> deadline;
  bool closed = false;
  /// dict _NodeDesc -> group rank (0 until the round completes), in insertion order.
  std::vector<std::pair<NodeDesc, std::int64_t>> participants;
  /// set of _NodeDesc, in the order read (Python's set order is its own business).
  std::vector<NodeDesc> wait_list;
  /// 2.x only: set of _NodeDesc that found the round full and wait for a free slot.
  std::vector<NodeDesc> redundancy_list;
  /// dict _NodeDesc -> last keep-alive, in insertion order.
  std::vector<std::pair<NodeDesc, UtcTime>> last_heartbeats;

  bool operator==(const DynamicState&) const = default;
};

}  // namespace ejob::agent
