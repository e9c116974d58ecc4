#include "src/agent/rendezvous/state_pickle.hpp"

#include <map>
#include <optional>

#include "src/agent/rendezvous/pickle_opcodes.hpp"

namespace ejob::agent {
namespace {

using namespace pickle_op;

/// CPython's _pickle.c constants: items per MARK…SETITEMS batch, and the size after which a
/// frame is closed at the next object boundary.
constexpr std::size_t k_batch_size = 1000;
constexpr std::size_t k_frame_target = 64 * 1024;

void put_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

/// The 10 bytes of `datetime.__reduce__`: year (big-endian u16), month, day, hour, minute,
/// second, microsecond (big-endian u24).
std::string datetime_bytes(UtcTime t) {
  using namespace std::chrono;
  auto day = floor<days>(t);
  year_month_day ymd{day};
  hh_mm_ss<microseconds> hms{t - day};
  auto year = static_cast<unsigned>(static_cast<int>(ymd.year()));
  auto micro = static_cast<unsigned>(hms.subseconds().count());
  std::string out;
  for (unsigned v :
       {year >> 8, year & 0xff, static_cast<unsigned>(ymd.month()),
        static_cast<unsigned>(ymd.day()), static_cast<unsigned>(hms.hours().count()),
        static_cast<unsigned>(hms.minutes().count()), static_cast<unsigned>(hms.seconds().count()),
        micro >> 16, (micro >> 8) & 0xff, micro & 0xff})
    out.push_back(static_cast<char>(v));
  return out;
}

/// A protocol-4 pickler for one DynamicState, following _pickle.c's choices (opcodes, memo,
/// batches, frames) for the object graph torch builds.
class StatePickler {
 public:
  std::string dump(const DynamicState& s) {
    m_out = {static_cast<char>(k_proto), 4};
    save_state(s);
    write(k_stop);
    commit_frame();
    return m_out;
  }

 private:
  /// Writes opcode bytes, opening a frame (header filled in later) when none is open.
  void write(std::string_view bytes) {
    if (m_frame_start == std::string::npos) {
      m_frame_start = m_out.size();
      m_out.append(9, '\0');
    }
    m_out.append(bytes);
  }
  void write(unsigned char opcode) { write(std::string_view(reinterpret_cast<char*>(&opcode), 1)); }

  /// Fills in the open frame's header; a frame shorter than 4 bytes loses its header.
  void commit_frame() {
    if (m_frame_start == std::string::npos) return;
    std::size_t length = m_out.size() - m_frame_start - 9;
    if (length >= 4) {
      std::string header(1, static_cast<char>(k_frame));
      put_le(header, length, 8);
      m_out.replace(m_frame_start, 9, header);
    } else {
      m_out.erase(m_frame_start, 9);
    }
    m_frame_start = std::string::npos;
  }

  /// _Pickler_OpcodeBoundary: runs after every saved object.
  void end_object() {
    if (m_frame_start != std::string::npos && m_out.size() - m_frame_start - 9 >= k_frame_target)
      commit_frame();
  }

  void memoize() {
    write(k_memoize);
    ++m_memo_size;
  }

  /// An opcode with a 1-byte argument below 256, else `wide` with a 4-byte one.
  void write_sized(unsigned char narrow, unsigned char wide, std::uint64_t n) {
    char op[5] = {static_cast<char>(narrow), static_cast<char>(n)};
    std::size_t length = 2;
    if (n >= 256) {
      op[0] = static_cast<char>(wide);
      for (int i = 0; i < 4; ++i) op[1 + i] = static_cast<char>((n >> (8 * i)) & 0xff);
      length = 5;
    }
    write(std::string_view(op, length));
  }

  void memo_get(std::uint32_t index) { write_sized(k_binget, k_long_binget, index); }

  void save_str(std::string_view text) {
    write_sized(k_short_binunicode, k_binunicode, text.size());
    m_out.append(text);  // the frame write_sized opened
    memoize();
    end_object();
  }

  /// A string Python shares (an interned field name, a module name): memo reference after
  /// its first use.
  void save_shared_str(std::string_view text) {
    if (auto it = m_shared.find(text); it != m_shared.end()) {
      memo_get(it->second);
      end_object();
      return;
    }
    m_shared.emplace(text, m_memo_size);
    save_str(text);
  }

  void save_int(std::int64_t v) {
    std::string op;
    if (v >= 0 && v <= 0xff) {
      op = {static_cast<char>(k_binint1), static_cast<char>(v)};
    } else if (v >= 0 && v <= 0xffff) {
      op = {static_cast<char>(k_binint2)};
      put_le(op, static_cast<std::uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op = {static_cast<char>(k_binint)};
      put_le(op, static_cast<std::uint64_t>(v), 4);
    } else {
      op = long1(v);
    }
    write(op);
    end_object();
  }

  /// LONG1: the shortest little-endian two's complement of v, as encode_long writes it.
  static std::string long1(std::int64_t v) {
    std::string digits;
    auto u = static_cast<std::uint64_t>(v);
    for (int i = 0; i < 8; ++i) digits.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
    while (digits.size() > 1) {
      auto last = static_cast<unsigned char>(digits.back());
      auto prev = static_cast<unsigned char>(digits[digits.size() - 2]);
      if ((last == 0 && !(prev & 0x80)) || (last == 0xff && (prev & 0x80)))
        digits.pop_back();
      else
        break;
    }
    return std::string{static_cast<char>(k_long1), static_cast<char>(digits.size())} + digits;
  }

  void save_simple(unsigned char opcode) {
    write(opcode);
    end_object();
  }

  /// save_global with protocol 4: module and name strings, STACK_GLOBAL, memoized class (by
  /// its name: no two classes of a state share one).
  void save_class(std::string_view module, std::string_view name, bool shared_module) {
    if (auto it = m_classes.find(name); it != m_classes.end()) {
      memo_get(it->second);
      end_object();
      return;
    }
    if (shared_module)
      save_shared_str(module);
    else
      save_str(module);
    save_str(name);
    write(k_stack_global);
    m_classes.emplace(name, m_memo_size);
    memoize();
    end_object();
  }

  /// `copyreg.__newobj__` reduction: class, empty args, NEWOBJ, memoized object; the caller
  /// then saves the field dict and writes BUILD.
  void begin_object(std::string_view name) {
    save_class(k_rdzv_module, name, true);
    save_simple(k_empty_tuple);
    write(k_newobj);
    memoize();
  }

  void save_node(const NodeDesc& node) {
    if (auto it = m_nodes.find(node); it != m_nodes.end()) {
      memo_get(it->second);
      end_object();
      return;
    }
    begin_object("_NodeDesc");
    m_nodes[node] = m_memo_size - 1;
    save_items(3, [&](std::size_t i) {
      if (i == 0) save_shared_str(m_torch2 ? "addr" : "fqdn"), save_str(node.fqdn);
      if (i == 1) save_shared_str("pid"), save_int(node.pid);
      if (i == 2) save_shared_str("local_id"), save_int(node.local_id);
    });
    write(k_build);
    end_object();
  }

  /// `datetime(…)` from its 10 bytes; for torch 2.x with `timezone.utc` as second argument.
  void save_datetime(UtcTime t) {
    save_class("datetime", "datetime", true);
    std::string bytes = datetime_bytes(t);
    write_sized(k_short_binbytes, k_binbytes, bytes.size());
    m_out.append(bytes);
    memoize();
    end_object();
    if (m_torch2) save_utc();
    save_reduced(m_torch2 ? k_tuple2 : k_tuple1);
  }

  /// The arguments tuple (already on the stack), then REDUCE, as save_reduce writes them.
  void save_reduced(unsigned char tuple_op) {
    write(tuple_op);
    memoize();
    end_object();
    write(k_reduce);
    memoize();
    end_object();
  }

  /// `timezone(timedelta(0, 0, 0))`: Python's one `timezone.utc` object, so written once and
  /// a memo reference after.
  void save_utc() {
    if (m_utc) {
      memo_get(*m_utc);
      end_object();
      return;
    }
    save_class("datetime", "timezone", true);
    save_class("datetime", "timedelta", true);
    for (int i = 0; i < 3; ++i) save_int(0);
    save_reduced(k_tuple3);
    save_reduced(k_tuple1);
    m_utc = m_memo_size - 1;
  }

  /// An exact dict (EMPTY_DICT, memo, items) as batch_dict_exact writes it: one item with
  /// SETITEM, else MARK … SETITEMS per batch of 1000 (an exact multiple ends with an empty
  /// batch).
  template <typename SaveItem>
  void save_items(std::size_t count, SaveItem save_item) {
    write(k_empty_dict);
    memoize();
    if (count == 1) {
      save_item(0);
      write(k_setitem);
    } else if (count > 1) {
      std::size_t i = 0;
      do {
        write(k_mark);
        std::size_t end = std::min(count, i + k_batch_size);
        std::size_t in_batch = end - i;
        for (; i < end; ++i) save_item(i);
        write(k_setitems);
        if (in_batch < k_batch_size) break;
      } while (true);
    }
    end_object();
  }

  /// A set as save_set writes it: EMPTY_SET, memo, MARK … ADDITEMS per batch of 1000.
  void save_set(const std::vector<NodeDesc>& nodes) {
    write(k_empty_set);
    memoize();
    std::size_t i = 0;
    while (!nodes.empty()) {
      write(k_mark);
      std::size_t end = std::min(nodes.size(), i + k_batch_size);
      std::size_t in_batch = end - i;
      for (; i < end; ++i) save_node(nodes[i]);
      write(k_additems);
      if (in_batch < k_batch_size) break;
    }
    end_object();
  }

  void save_state(const DynamicState& s) {
    m_torch2 = s.dialect == RdzvDialect::Torch2;
    begin_object("_RendezvousState");
    // torch 2.x's __init__ assigns redundancy_list between wait_list and last_heartbeats.
    save_items(m_torch2 ? 8 : 7, [&](std::size_t i) {
      if (m_torch2 && i == 6) {
        save_shared_str("redundancy_list");
        save_set(s.redundancy_list);
      } else {
        save_field(s, m_torch2 && i == 7 ? 6 : i);
      }
    });
    write(k_build);
    end_object();
  }

  void save_field(const DynamicState& s, std::size_t i) {
    static const char* const names[] = {"round",        "complete",  "deadline",       "closed",
                                        "participants", "wait_list", "last_heartbeats"};
    save_shared_str(names[i]);
    switch (i) {
      case 0: save_int(s.round); break;
      case 1: save_simple(s.complete ? k_newtrue : k_newfalse); break;
      case 2: s.deadline ? save_datetime(*s.deadline) : save_simple(k_none); break;
      case 3: save_simple(s.closed ? k_newtrue : k_newfalse); break;
      case 4:
        save_items(s.participants.size(), [&](std::size_t j) {
          save_node(s.participants[j].first);
          save_int(s.participants[j].second);
        });
        break;
      case 5: save_set(s.wait_list); break;
      default:
        save_items(s.last_heartbeats.size(), [&](std::size_t j) {
          save_node(s.last_heartbeats[j].first);
          save_datetime(s.last_heartbeats[j].second);
        });
    }
  }

  std::string m_out;
  std::size_t m_frame_start = std::string::npos;
  std::uint32_t m_memo_size = 0;
  bool m_torch2 = false;
  std::optional<std::uint32_t> m_utc;  ///< memo slot of timezone.utc once written
  std::map<std::string, std::uint32_t, std::less<>> m_shared;
  std::map<std::string, std::uint32_t, std::less<>> m_classes;
  std::map<NodeDesc, std::uint32_t> m_nodes;
};

}  // namespace

std::string pickle_state(const DynamicState& state) { return StatePickler().dump(state); }

}  // namespace ejob::agent
