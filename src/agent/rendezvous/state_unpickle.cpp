// unpickle_state (declared in state_pickle.hpp): a small pickle machine for the opcodes and
// globals of torch's rendezvous state, then a typed reading of the objects it built.
#include <map>
#include <memory>
#include <optional>

#include "src/agent/rendezvous/pickle_opcodes.hpp"
#include "src/agent/rendezvous/state_pickle.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

using namespace pickle_op;

/// What a pickle of the state can build.
enum class PyKind { None, Bool, Int, Str, Bytes, Tuple, Dict, Set, Class, Object, Datetime };

/// The globals a state may name; anything else is refused before it is used.
enum class PyClass { State, NodeDesc, Datetime, Timezone, Timedelta };

/// A value is an index into the machine's pool: a state of 128 nodes builds some 2,000 values,
/// and one allocation each made decoding malloc-bound (every agent decodes the state after each
/// lost compare-and-swap).
using PyRef = std::uint32_t;
constexpr PyRef k_no_value = ~PyRef{0};

struct PyValue {
  PyKind kind = PyKind::None;
  bool aware = false;        ///< Datetime with a tzinfo (torch 2.x)
  std::int64_t number = 0;   ///< Int, Bool; Datetime: microseconds since the epoch; Class
  std::string_view text;     ///< Str, Bytes: bytes of the pickle itself
  std::vector<PyRef> items;  ///< Tuple, Set; Dict: key, value, key, value…
  PyRef cls = k_no_value;    ///< Object: its class
  PyRef state = k_no_value;  ///< Object: the dict BUILD gave it
};

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorCode::Input, "rendezvous state: " + what);
}

std::string hex_byte(unsigned char c) {
  const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[c >> 4] + digits[c & 15];
}

std::string rdzv_class(const char* name) { return std::string(k_rdzv_module) + "." + name; }

std::optional<PyClass> allowed_class(const std::string& qualified) {
  static const std::map<std::string, PyClass> classes = {
      {rdzv_class("_RendezvousState"), PyClass::State},
      {rdzv_class("_NodeDesc"), PyClass::NodeDesc},
      {"datetime.datetime", PyClass::Datetime},
      {"datetime.timezone", PyClass::Timezone},
      {"datetime.timedelta", PyClass::Timedelta}};
  auto it = classes.find(qualified);
  if (it == classes.end()) return std::nullopt;
  return it->second;
}

bool is_rdzv_object_class(PyClass c) { return c == PyClass::State || c == PyClass::NodeDesc; }

/// Microseconds since the epoch of datetime.__reduce__'s 10 bytes.
std::int64_t datetime_micros(std::string_view b) {
  using namespace std::chrono;
  if (b.size() != 10) fail("a datetime payload of " + std::to_string(b.size()) + " bytes");
  auto u = [&](std::size_t i) { return static_cast<unsigned>(static_cast<unsigned char>(b[i])); };
  year_month_day ymd{year(static_cast<int>(u(0) << 8 | u(1))), month(u(2)), day(u(3))};
  if (!ymd.ok() || u(4) > 23 || u(5) > 59 || u(6) > 59) fail("an invalid datetime");
  auto t = sys_days(ymd) + hours(u(4)) + minutes(u(5)) + seconds(u(6)) +
           microseconds(u(7) << 16 | u(8) << 8 | u(9));
  return duration_cast<microseconds>(t.time_since_epoch()).count();
}

/// The pickle machine: stack, mark stack and memo, one opcode at a time, over a pool of values.
class StateUnpickler {
 public:
  explicit StateUnpickler(std::string_view bytes) : m_in(bytes) {
    m_values.reserve(bytes.size() / 4 + 16);  // a value takes 4 bytes of pickle or more
  }

  PyRef load() {
    while (true) {
      if (m_pos >= m_in.size()) fail("the pickle ends without STOP");
      m_op_at = m_pos;
      auto op = static_cast<unsigned char>(m_in[m_pos++]);
      if (op == k_stop) break;
      step(op);
    }
    if (m_stack.size() != 1 || !m_marks.empty()) fail("the pickle leaves a malformed stack");
    return m_stack.back();
  }

  [[nodiscard]] const PyValue& operator[](PyRef v) const { return m_values[v]; }

 private:
  std::string_view take(std::size_t n) {
    if (m_in.size() - m_pos < n)
      fail("the pickle ends inside the opcode at byte " + std::to_string(m_op_at));
    std::string_view out = m_in.substr(m_pos, n);
    m_pos += n;
    return out;
  }

  std::uint64_t take_le(int n) {
    std::string_view b = take(static_cast<std::size_t>(n));
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(b[i]);
    return v;
  }

  PyRef make(PyKind kind) {
    m_values.emplace_back().kind = kind;
    return static_cast<PyRef>(m_values.size() - 1);
  }

  PyValue& value(PyRef v) { return m_values[v]; }

  PyRef pop() {
    if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back()))
      fail(at() + "pops an empty stack");
    PyRef v = m_stack.back();
    m_stack.pop_back();
    return v;
  }

  PyRef top() {
    if (m_stack.empty()) fail(at() + "needs a value on the stack");
    return m_stack.back();
  }

  std::string at() const { return "opcode at byte " + std::to_string(m_op_at) + " "; }

  void push(PyRef v) { m_stack.push_back(v); }

  void push_number(PyKind kind, std::int64_t n) {
    PyRef v = make(kind);
    value(v).number = n;
    push(v);
  }

  void push_text(PyKind kind, std::size_t n) {
    std::string_view text = take(n);
    PyRef v = make(kind);
    value(v).text = text;
    push(v);
  }

  /// Python's memo is a dict; here a slot far beyond what the pickle could fill (no pickler of
  /// a state writes one) is refused rather than allocated.
  void memo_put(std::uint64_t index) {
    if (index >= m_in.size() + 256)
      fail(at() + "sets memo slot " + std::to_string(index) + ", beyond any the pickle can fill");
    if (index >= m_memo.size()) m_memo.resize(index + 1, k_no_value);
    if (m_memo[index] == k_no_value) ++m_memo_count;
    m_memo[index] = top();
  }

  void memo_get(std::uint64_t index) {
    if (index >= m_memo.size() || m_memo[index] == k_no_value)
      fail(at() + "reads memo slot " + std::to_string(index) + ", never set");
    push(m_memo[index]);
  }

  void step(unsigned char op) {
    if (step_scalar(op) || step_memo(op) || step_container(op) || step_object(op)) return;
    fail("pickle opcode " + hex_byte(op) + " at byte " + std::to_string(m_op_at) +
         " is not one a torch rendezvous state uses");
  }

  bool step_scalar(unsigned char op) {
    switch (op) {
      case k_proto:
        if (auto v = static_cast<unsigned char>(take(1)[0]); v < 2 || v > 5)
          fail("pickle protocol " + std::to_string(v) + " is not supported");
        return true;
      case k_frame: take_le(8); return true;  // frames only bound reads; contents follow inline
      case k_none: push(make(PyKind::None)); return true;
      case k_newtrue:
      case k_newfalse: push_number(PyKind::Bool, op == k_newtrue); return true;
      case k_binint1: push_number(PyKind::Int, static_cast<std::int64_t>(take_le(1))); return true;
      case k_binint2: push_number(PyKind::Int, static_cast<std::int64_t>(take_le(2))); return true;
      case k_binint: push_number(PyKind::Int, static_cast<std::int32_t>(take_le(4))); return true;
      case k_long1: push_number(PyKind::Int, long1(take_le(1))); return true;
      case k_short_binunicode: push_text(PyKind::Str, take_le(1)); return true;
      case k_binunicode: push_text(PyKind::Str, take_le(4)); return true;
      case k_short_binbytes: push_text(PyKind::Bytes, take_le(1)); return true;
      case k_binbytes: push_text(PyKind::Bytes, take_le(4)); return true;
      default: return false;
    }
  }

  std::int64_t long1(std::size_t n) {
    if (n > 8) fail(at() + "holds an integer wider than 64 bits");
    std::string_view b = take(n);
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = v << 8 | static_cast<unsigned char>(b[i]);
    if (n > 0 && n < 8 && (static_cast<unsigned char>(b[n - 1]) & 0x80)) v |= ~0ULL << (8 * n);
    return static_cast<std::int64_t>(v);
  }

  bool step_memo(unsigned char op) {
    switch (op) {
      case k_memoize: memo_put(m_memo_count); return true;  // len(memo), as Python
      case k_binput: memo_put(take_le(1)); return true;
      case k_long_binput: memo_put(take_le(4)); return true;
      case k_binget: memo_get(take_le(1)); return true;
      case k_long_binget: memo_get(take_le(4)); return true;
      default: return false;
    }
  }

  bool step_container(unsigned char op) {
    switch (op) {
      case k_mark: m_marks.push_back(m_stack.size()); return true;
      case k_empty_tuple: push(make(PyKind::Tuple)); return true;
      case k_tuple1:
      case k_tuple2:
      case k_tuple3: make_tuple(op - k_tuple1 + 1); return true;
      case k_empty_dict: push(make(PyKind::Dict)); return true;
      case k_empty_set: push(make(PyKind::Set)); return true;
      case k_setitem: {
        if (m_stack.size() < (m_marks.empty() ? 0 : m_marks.back()) + 2)
          fail(at() + "pops an empty stack");
        add_items(PyKind::Dict, m_stack.size() - 2);
        return true;
      }
      case k_setitems: add_items(PyKind::Dict, pop_mark()); return true;
      case k_additems: add_items(PyKind::Set, pop_mark()); return true;
      default: return false;
    }
  }

  /// Ends the innermost MARK; returns where its items start on the stack.
  std::size_t pop_mark() {
    if (m_marks.empty()) fail(at() + "has no MARK");
    std::size_t from = m_marks.back();
    m_marks.pop_back();
    return from;
  }

  void make_tuple(int n) {
    PyRef t = make(PyKind::Tuple);
    value(t).items.resize(static_cast<std::size_t>(n));
    for (int i = n; i-- > 0;) value(t).items[static_cast<std::size_t>(i)] = pop();
    push(t);
  }

  /// Moves the stack's values from `from` on into the container just below them.
  void add_items(PyKind kind, std::size_t from) {
    auto first = m_stack.begin() + static_cast<std::ptrdiff_t>(from);
    std::size_t count = m_stack.size() - from;
    if (from == 0) fail(at() + "needs a value on the stack");
    PyValue& target = value(m_stack[from - 1]);
    if (target.kind != kind) fail(at() + "adds items to something that is not a container");
    if (kind == PyKind::Dict && count % 2 != 0) fail(at() + "has a key without a value");
    target.items.insert(target.items.end(), first, m_stack.end());
    m_stack.resize(from);
  }

  bool step_object(unsigned char op) {
    switch (op) {
      case k_stack_global: stack_global(); return true;
      case k_newobj: newobj(); return true;
      case k_build: build(); return true;
      case k_reduce: reduce(); return true;
      default: return false;
    }
  }

  void stack_global() {
    PyRef name = pop(), module = pop();
    if (value(name).kind != PyKind::Str || value(module).kind != PyKind::Str)
      fail(at() + "names a global without strings");
    std::string qualified = std::string(value(module).text) + "." + std::string(value(name).text);
    std::optional<PyClass> cls = allowed_class(qualified);
    if (!cls)
      fail("the pickle names the global " + qualified + ", which a rendezvous state never holds");
    push_number(PyKind::Class, static_cast<std::int64_t>(*cls));
  }

  [[nodiscard]] bool is_class(PyRef v, bool (*which)(PyClass)) const {
    return m_values[v].kind == PyKind::Class && which(static_cast<PyClass>(m_values[v].number));
  }

  void newobj() {
    PyRef args = pop(), cls = pop();
    if (!is_class(cls, is_rdzv_object_class) || value(args).kind != PyKind::Tuple ||
        !value(args).items.empty())
      fail(at() + "creates something other than torch's rendezvous classes");
    PyRef obj = make(PyKind::Object);
    value(obj).cls = cls;
    push(obj);
  }

  void build() {
    PyRef state = pop();
    PyValue& obj = value(top());
    if (obj.kind != PyKind::Object || obj.state != k_no_value || value(state).kind != PyKind::Dict)
      fail(at() + "sets fields on something that is not a fresh object");
    obj.state = state;
  }

  void reduce();
  std::int64_t reduced_datetime(PyClass cls, const std::vector<PyRef>& a, bool& aware);

  std::string_view m_in;
  std::size_t m_pos = 0;
  std::size_t m_op_at = 0;
  std::vector<PyValue> m_values;
  std::vector<PyRef> m_stack;
  std::vector<std::size_t> m_marks;
  std::vector<PyRef> m_memo;
  std::uint64_t m_memo_count = 0;  ///< slots set
};

/// REDUCE: only the datetime module's constructors, evaluated here to a Datetime value (a
/// timedelta and a timezone become their offsets in microseconds).
void StateUnpickler::reduce() {
  PyRef args = pop(), cls = pop();
  auto is_datetime_class = [](PyClass c) { return !is_rdzv_object_class(c); };
  if (!is_class(cls, is_datetime_class) || value(args).kind != PyKind::Tuple)
    fail(at() + "calls something other than a datetime constructor");
  bool aware = false;
  std::int64_t micros =
      reduced_datetime(static_cast<PyClass>(value(cls).number), value(args).items, aware);
  PyRef out = make(PyKind::Datetime);
  value(out).number = micros;
  value(out).aware = aware;
  push(out);
}

std::int64_t StateUnpickler::reduced_datetime(PyClass cls, const std::vector<PyRef>& a,
                                              bool& aware) {
  auto is = [&](std::size_t i, PyKind k) { return a.size() > i && value(a[i]).kind == k; };
  auto n = [&](std::size_t i) { return value(a[i]).number; };
  if (cls == PyClass::Timedelta && a.size() == 3 && is(0, PyKind::Int) && is(1, PyKind::Int) &&
      is(2, PyKind::Int))
    return (n(0) * 86400 + n(1)) * 1000000 + n(2);
  if (cls == PyClass::Timezone && a.size() == 1 && is(0, PyKind::Datetime)) return n(0);
  if (cls == PyClass::Datetime && (a.size() == 1 || a.size() == 2) && is(0, PyKind::Bytes) &&
      (a.size() == 1 || is(1, PyKind::Datetime))) {
    aware = a.size() == 2;
    return datetime_micros(value(a[0]).text) - (aware ? n(1) : 0);
  }
  const char* names[] = {"", "", "datetime.datetime", "datetime.timezone", "datetime.timedelta"};
  fail(at() + "calls " + names[static_cast<int>(cls)] +
       " with arguments it never takes in a state");
}

/// Reads the typed state out of the objects, noting which torch's dialect each part is in:
/// one state holds only one (Python could not compare its naive and aware times).
class StateReader {
 public:
  explicit StateReader(const StateUnpickler& pool) : m_pool(pool) {}

  DynamicState read(PyRef root) {
    std::size_t seen = 0;
    for_fields(root, PyClass::State, "_RendezvousState", [&](std::string_view name, PyRef value) {
      read_field(name, value);
      ++seen;
    });
    bool torch2 = m_dialect == RdzvDialect::Torch2;
    if (seen != (torch2 ? 8U : 7U))
      fail("_RendezvousState has " + std::to_string(seen) + " fields, not " +
           (torch2 ? "8 (torch 2.x)" : "7 (torch 1.13)"));
    m_state.dialect = m_dialect.value_or(RdzvDialect::Torch1_13);
    return std::move(m_state);
  }

 private:
  /// Calls `each(name, value)` for the fields of an object, in the order written.
  template <typename Each>
  void for_fields(PyRef obj, PyClass cls, const char* cls_name, Each each) const {
    const PyValue& o = m_pool[obj];
    if (o.kind != PyKind::Object || static_cast<PyClass>(m_pool[o.cls].number) != cls ||
        o.state == k_no_value)
      fail(std::string("expected a ") + cls_name + " object");
    const auto& kv = m_pool[o.state].items;
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2) {
      if (m_pool[kv[i]].kind != PyKind::Str)
        fail(std::string("a ") + cls_name + " field name is not a string");
      each(m_pool[kv[i]].text, kv[i + 1]);
    }
  }

  const PyValue& expect(PyRef v, PyKind kind, std::string_view what) const {
    if (m_pool[v].kind != kind) fail(std::string(what) + " has an unexpected type");
    return m_pool[v];
  }

  /// Notes that `what` is in dialect `d`; fails when an earlier part was in the other.
  void note(RdzvDialect d, std::string_view what) {
    if (m_dialect && *m_dialect != d)
      fail(std::string(what) + " is torch " + (d == RdzvDialect::Torch2 ? "2.x" : "1.13") +
           "'s, but the state's earlier fields are torch " +
           (d == RdzvDialect::Torch2 ? "1.13" : "2.x") + "'s");
    m_dialect = d;
  }

  UtcTime to_time(PyRef v, std::string_view what) {
    const PyValue& t = expect(v, PyKind::Datetime, what);
    note(t.aware ? RdzvDialect::Torch2 : RdzvDialect::Torch1_13, what);
    return UtcTime(std::chrono::microseconds(t.number));
  }

  NodeDesc to_node(PyRef v) {
    NodeDesc node;
    int seen = 0;
    for_fields(v, PyClass::NodeDesc, "_NodeDesc", [&](std::string_view name, PyRef value) {
      if (name == "fqdn" || name == "addr") {
        bool addr = name == "addr";
        const char* what = addr ? "_NodeDesc.addr" : "_NodeDesc.fqdn";
        note(addr ? RdzvDialect::Torch2 : RdzvDialect::Torch1_13, what);
        node.fqdn = expect(value, PyKind::Str, what).text;
      } else if (name == "pid") {
        node.pid = expect(value, PyKind::Int, "_NodeDesc.pid").number;
      } else if (name == "local_id") {
        node.local_id = expect(value, PyKind::Int, "_NodeDesc.local_id").number;
      } else {
        fail("_NodeDesc has an unknown field '" + std::string(name) + "'");
      }
      ++seen;
    });
    if (seen != 3) fail("a _NodeDesc lacks fields");
    return node;
  }

  std::vector<NodeDesc> to_nodes(PyRef v, std::string_view what) {
    std::vector<NodeDesc> out;
    for (PyRef node : expect(v, PyKind::Set, what).items) out.push_back(to_node(node));
    return out;
  }

  /// The key/value pairs of a dict field, as `each(key, value)`.
  template <typename Each>
  void for_items(PyRef v, std::string_view what, Each each) const {
    const auto& kv = expect(v, PyKind::Dict, what).items;
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2) each(kv[i], kv[i + 1]);
  }

  void read_field(std::string_view name, PyRef v) {
    DynamicState& s = m_state;
    if (name == "round") {
      s.round = expect(v, PyKind::Int, "round").number;
    } else if (name == "complete") {
      s.complete = expect(v, PyKind::Bool, "complete").number != 0;
    } else if (name == "closed") {
      s.closed = expect(v, PyKind::Bool, "closed").number != 0;
    } else if (name == "deadline") {
      if (m_pool[v].kind != PyKind::None) s.deadline = to_time(v, "deadline");
    } else if (name == "participants") {
      for_items(v, "participants", [&](PyRef k, PyRef rank) {
        s.participants.emplace_back(to_node(k), expect(rank, PyKind::Int, "a rank").number);
      });
    } else if (name == "wait_list") {
      s.wait_list = to_nodes(v, "wait_list");
    } else if (name == "redundancy_list") {
      note(RdzvDialect::Torch2, "the field redundancy_list");
      s.redundancy_list = to_nodes(v, "redundancy_list");
    } else if (name == "last_heartbeats") {
      for_items(v, "last_heartbeats", [&](PyRef k, PyRef t) {
        s.last_heartbeats.emplace_back(to_node(k), to_time(t, "a heartbeat"));
      });
    } else {
      fail("_RendezvousState has an unknown field '" + std::string(name) + "'");
    }
  }

  const StateUnpickler& m_pool;
  DynamicState m_state;
  std::optional<RdzvDialect> m_dialect;
};

}  // namespace

DynamicState unpickle_state(std::string_view bytes) {
  StateUnpickler machine(bytes);
  PyRef root = machine.load();
  return StateReader(machine).read(root);
}

}  // namespace ejob::agent
