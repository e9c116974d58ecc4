#pragma once
/// The JSON value of `…/rdzv/active_version` (§1.3 of the protocol notes), read and written
/// exactly as torch's etcd rendezvous does: Python's `json.dumps` separators (", " and ": "),
/// fields in Python's insertion order, `version` a string, `participants` ints,
/// `keep_alives` full etcd key paths, `num_workers_waiting` an int.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ejob::agent {

/// One rendezvous round's state; absent fields are not written.
struct RdzvState {
  std::string status;  ///< setup, joinable, frozen, final or closed
  std::optional<std::string> version;
  std::optional<std::vector<int>> participants;
  std::optional<std::vector<std::string>> keep_alives;
  std::optional<int> num_workers_waiting;
};

/// Python's json.dumps of a string (ensure_ascii: non-ASCII as \uXXXX).
std::string py_json_string(std::string_view utf8);

/// Serialises a state the way json.dumps(state) does.
std::string to_json(const RdzvState& state);

/// Parses and checks a state read from etcd. Throws ejob::Error(Input) naming what is wrong
/// and quoting the value, e.g. `malformed rendezvous state (participants must be a list of
/// integers): {"status": ...}`.
RdzvState parse_rdzv_state(const std::string& text);

}  // namespace ejob::agent
