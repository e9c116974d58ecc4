// unpickle_state (declared in state_pickle.hpp): a small pickle machine for the opcodes and
// globals of torch's rendezvous state, then a typed reading of the objects it built.
#include <map>
#include <memory>
#include <optional>

#include "ejob/agent/pickle_opcodes.hpp"
#include "ejob/agent/state_pickle.hpp"
#include "ejob/util/error.hpp"

namespace ejob::agent {
namespace {

using namespace pickle_op;

/// What a pickle of the state can build.
enum class PyKind { None, Bool, Int, Str, Bytes, Tuple, Dict, Set, Class, Object, Datetime };

struct PyValue;
using PyRef = std::shared_ptr<PyValue>;

struct PyValue {
  PyKind kind = PyKind::None;
  std::int64_t number = 0;   ///< Int, Bool; Datetime: microseconds since the epoch
  std::string text;          ///< Str, Bytes; Class: "module.name"
  std::vector<PyRef> items;  ///< Tuple, Set; Dict: key, value, key, value…
  PyRef cls, state;          ///< Object: its class and the dict BUILD gave it
  bool aware = false;        ///< Datetime with a tzinfo (torch 2.x)
};

PyRef make(PyKind kind) {
  auto v = std::make_shared<PyValue>();
  v->kind = kind;
  return v;
}

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorCode::Input, "rendezvous state: " + what);
}

std::string hex_byte(unsigned char c) {
  const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[c >> 4] + digits[c & 15];
}

/// The globals a state may name; anything else is refused before it is used.
const std::map<std::string, PyKind>& allowed_classes() {
  static const std::map<std::string, PyKind> classes = {
      {std::string(k_rdzv_module) + "._RendezvousState", PyKind::Object},
      {std::string(k_rdzv_module) + "._NodeDesc", PyKind::Object},
      {"datetime.datetime", PyKind::Datetime},
      {"datetime.timezone", PyKind::Datetime},
      {"datetime.timedelta", PyKind::Datetime}};
  return classes;
}

/// Microseconds since the epoch of datetime.__reduce__'s 10 bytes.
std::int64_t datetime_micros(const std::string& b) {
  using namespace std::chrono;
  if (b.size() != 10) fail("a datetime payload of " + std::to_string(b.size()) + " bytes");
  auto u = [&](std::size_t i) { return static_cast<unsigned>(static_cast<unsigned char>(b[i])); };
  year_month_day ymd{year(static_cast<int>(u(0) << 8 | u(1))), month(u(2)), day(u(3))};
  if (!ymd.ok() || u(4) > 23 || u(5) > 59 || u(6) > 59) fail("an invalid datetime");
  auto t = sys_days(ymd) + hours(u(4)) + minutes(u(5)) + seconds(u(6)) +
           microseconds(u(7) << 16 | u(8) << 8 | u(9));
  return duration_cast<microseconds>(t.time_since_epoch()).count();
}

/// The pickle machine: stack, mark stack and memo, one opcode at a time.
class StateUnpickler {
 public:
  explicit StateUnpickler(std::string_view bytes) : m_in(bytes) {}

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

  PyRef pop() {
    if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back()))
      fail(at() + "pops an empty stack");
    PyRef v = m_stack.back();
    m_stack.pop_back();
    return v;
  }

  PyRef& top() {
    if (m_stack.empty()) fail(at() + "needs a value on the stack");
    return m_stack.back();
  }

  std::vector<PyRef> pop_mark() {
    if (m_marks.empty()) fail(at() + "has no MARK");
    std::vector<PyRef> items(m_stack.begin() + static_cast<std::ptrdiff_t>(m_marks.back()),
                             m_stack.end());
    m_stack.resize(m_marks.back());
    m_marks.pop_back();
    return items;
  }

  std::string at() const { return "opcode at byte " + std::to_string(m_op_at) + " "; }

  void push(PyRef v) { m_stack.push_back(std::move(v)); }

  void push_int(std::int64_t n) {
    PyRef v = make(PyKind::Int);
    v->number = n;
    push(v);
  }

  void push_text(PyKind kind, std::size_t n) {
    PyRef v = make(kind);
    v->text = std::string(take(n));
    push(v);
  }

  void memo_put(std::uint64_t index) { m_memo[index] = top(); }

  void memo_get(std::uint64_t index) {
    auto it = m_memo.find(index);
    if (it == m_memo.end()) fail(at() + "reads memo slot " + std::to_string(index) + ", never set");
    push(it->second);
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
      case k_newfalse: {
        PyRef v = make(PyKind::Bool);
        v->number = op == k_newtrue;
        push(v);
        return true;
      }
      case k_binint1: push_int(static_cast<std::int64_t>(take_le(1))); return true;
      case k_binint2: push_int(static_cast<std::int64_t>(take_le(2))); return true;
      case k_binint: push_int(static_cast<std::int32_t>(take_le(4))); return true;
      case k_long1: push_int(long1(static_cast<std::size_t>(take_le(1)))); return true;
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
      case k_memoize: memo_put(m_memo.size()); return true;
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
        PyRef value = pop(), key = pop();
        add_items(PyKind::Dict, {key, value});
        return true;
      }
      case k_setitems: add_items(PyKind::Dict, pop_mark()); return true;
      case k_additems: add_items(PyKind::Set, pop_mark()); return true;
      default: return false;
    }
  }

  void make_tuple(int n) {
    PyRef t = make(PyKind::Tuple);
    t->items.resize(static_cast<std::size_t>(n));
    for (int i = n; i-- > 0;) t->items[static_cast<std::size_t>(i)] = pop();
    push(t);
  }

  void add_items(PyKind kind, const std::vector<PyRef>& items) {
    PyRef& target = top();
    if (target->kind != kind) fail(at() + "adds items to something that is not a container");
    if (kind == PyKind::Dict && items.size() % 2 != 0) fail(at() + "has a key without a value");
    target->items.insert(target->items.end(), items.begin(), items.end());
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
    if (name->kind != PyKind::Str || module->kind != PyKind::Str)
      fail(at() + "names a global without strings");
    std::string qualified = module->text + "." + name->text;
    if (!allowed_classes().count(qualified))
      fail("the pickle names the global " + qualified + ", which a rendezvous state never holds");
    PyRef cls = make(PyKind::Class);
    cls->text = qualified;
    push(cls);
  }

  void newobj() {
    PyRef args = pop(), cls = pop();
    if (cls->kind != PyKind::Class || allowed_classes().at(cls->text) != PyKind::Object ||
        args->kind != PyKind::Tuple || !args->items.empty())
      fail(at() + "creates something other than torch's rendezvous classes");
    PyRef obj = make(PyKind::Object);
    obj->cls = cls;
    push(obj);
  }

  void build() {
    PyRef state = pop();
    PyRef& obj = top();
    if (obj->kind != PyKind::Object || obj->state || state->kind != PyKind::Dict)
      fail(at() + "sets fields on something that is not a fresh object");
    obj->state = state;
  }

  void reduce();

  std::string_view m_in;
  std::size_t m_pos = 0;
  std::size_t m_op_at = 0;
  std::vector<PyRef> m_stack;
  std::vector<std::size_t> m_marks;
  std::map<std::uint64_t, PyRef> m_memo;
};

/// REDUCE: only the datetime module's constructors, evaluated here to a Datetime value (a
/// timedelta and a timezone become their offsets in microseconds).
void StateUnpickler::reduce() {
  PyRef args = pop(), cls = pop();
  if (cls->kind != PyKind::Class || args->kind != PyKind::Tuple ||
      allowed_classes().at(cls->text) != PyKind::Datetime)
    fail(at() + "calls something other than a datetime constructor");
  PyRef out = make(PyKind::Datetime);
  const auto& a = args->items;
  auto is = [&](std::size_t i, PyKind k) { return a.size() > i && a[i]->kind == k; };
  if (cls->text == "datetime.timedelta" && a.size() == 3 && is(0, PyKind::Int) &&
      is(1, PyKind::Int) && is(2, PyKind::Int)) {
    out->number = (a[0]->number * 86400 + a[1]->number) * 1000000 + a[2]->number;
  } else if (cls->text == "datetime.timezone" && a.size() == 1 && is(0, PyKind::Datetime)) {
    out->number = a[0]->number;
  } else if (cls->text == "datetime.datetime" && (a.size() == 1 || a.size() == 2) &&
             is(0, PyKind::Bytes) && (a.size() == 1 || is(1, PyKind::Datetime))) {
    out->number = datetime_micros(a[0]->text) - (a.size() == 2 ? a[1]->number : 0);
    out->aware = a.size() == 2;
  } else {
    fail(at() + "calls " + cls->text + " with arguments it never takes in a state");
  }
  push(out);
}

/// Fields of an object, by name, in the order written.
std::vector<std::pair<std::string, PyRef>> fields(const PyRef& obj, const std::string& cls) {
  if (obj->kind != PyKind::Object || obj->cls->text != std::string(k_rdzv_module) + "." + cls ||
      !obj->state)
    fail("expected a " + cls + " object");
  std::vector<std::pair<std::string, PyRef>> out;
  const auto& kv = obj->state->items;
  for (std::size_t i = 0; i + 1 < kv.size(); i += 2) {
    if (kv[i]->kind != PyKind::Str) fail("a " + cls + " field name is not a string");
    out.emplace_back(kv[i]->text, kv[i + 1]);
  }
  return out;
}

const PyRef& expect(const PyRef& v, PyKind kind, const std::string& what) {
  if (v->kind != kind) fail(what + " has an unexpected type");
  return v;
}

/// The key/value pairs of a dict field.
std::vector<std::pair<PyRef, PyRef>> dict_items(const PyRef& v, const std::string& what) {
  expect(v, PyKind::Dict, what);
  std::vector<std::pair<PyRef, PyRef>> out;
  for (std::size_t i = 0; i + 1 < v->items.size(); i += 2)
    out.emplace_back(v->items[i], v->items[i + 1]);
  return out;
}

/// Reads the typed state out of the objects, noting which torch's dialect each part is in:
/// one state holds only one (Python could not compare its naive and aware times).
class StateReader {
 public:
  DynamicState read(const PyRef& root) {
    std::size_t seen = 0;
    for (const auto& [name, value] : fields(root, "_RendezvousState")) {
      read_field(name, value);
      ++seen;
    }
    bool torch2 = m_dialect == RdzvDialect::Torch2;
    if (seen != (torch2 ? 8U : 7U))
      fail("_RendezvousState has " + std::to_string(seen) + " fields, not " +
           (torch2 ? "8 (torch 2.x)" : "7 (torch 1.13)"));
    m_state.dialect = m_dialect.value_or(RdzvDialect::Torch1_13);
    return m_state;
  }

 private:
  /// Notes that `what` is in dialect `d`; fails when an earlier part was in the other.
  void note(RdzvDialect d, const std::string& what) {
    if (m_dialect && *m_dialect != d)
      fail(what + " is torch " + (d == RdzvDialect::Torch2 ? "2.x" : "1.13") +
           "'s, but the state's earlier fields are torch " +
           (d == RdzvDialect::Torch2 ? "1.13" : "2.x") + "'s");
    m_dialect = d;
  }

  UtcTime to_time(const PyRef& v, const std::string& what) {
    expect(v, PyKind::Datetime, what);
    note(v->aware ? RdzvDialect::Torch2 : RdzvDialect::Torch1_13, what);
    return UtcTime(std::chrono::microseconds(v->number));
  }

  NodeDesc to_node(const PyRef& v) {
    NodeDesc node;
    int seen = 0;
    for (const auto& [name, value] : fields(v, "_NodeDesc")) {
      if (name == "fqdn" || name == "addr") {
        note(name == "addr" ? RdzvDialect::Torch2 : RdzvDialect::Torch1_13, "_NodeDesc." + name);
        node.fqdn = expect(value, PyKind::Str, "_NodeDesc." + name)->text;
      } else if (name == "pid") {
        node.pid = expect(value, PyKind::Int, "_NodeDesc.pid")->number;
      } else if (name == "local_id") {
        node.local_id = expect(value, PyKind::Int, "_NodeDesc.local_id")->number;
      } else {
        fail("_NodeDesc has an unknown field '" + name + "'");
      }
      ++seen;
    }
    if (seen != 3) fail("a _NodeDesc lacks fields");
    return node;
  }

  std::vector<NodeDesc> to_nodes(const PyRef& v, const std::string& what) {
    std::vector<NodeDesc> out;
    for (const auto& node : expect(v, PyKind::Set, what)->items) out.push_back(to_node(node));
    return out;
  }

  void read_field(const std::string& name, const PyRef& v) {
    DynamicState& s = m_state;
    if (name == "round") {
      s.round = expect(v, PyKind::Int, "round")->number;
    } else if (name == "complete") {
      s.complete = expect(v, PyKind::Bool, "complete")->number != 0;
    } else if (name == "closed") {
      s.closed = expect(v, PyKind::Bool, "closed")->number != 0;
    } else if (name == "deadline") {
      if (v->kind != PyKind::None) s.deadline = to_time(v, "deadline");
    } else if (name == "participants") {
      for (const auto& [k, rank] : dict_items(v, "participants"))
        s.participants.emplace_back(to_node(k), expect(rank, PyKind::Int, "a rank")->number);
    } else if (name == "wait_list") {
      s.wait_list = to_nodes(v, "wait_list");
    } else if (name == "redundancy_list") {
      note(RdzvDialect::Torch2, "the field redundancy_list");
      s.redundancy_list = to_nodes(v, "redundancy_list");
    } else if (name == "last_heartbeats") {
      for (const auto& [k, t] : dict_items(v, "last_heartbeats"))
        s.last_heartbeats.emplace_back(to_node(k), to_time(t, "a heartbeat"));
    } else {
      fail("_RendezvousState has an unknown field '" + name + "'");
    }
  }

  DynamicState m_state;
  std::optional<RdzvDialect> m_dialect;
};

}  // namespace

DynamicState unpickle_state(std::string_view bytes) {
  return StateReader().read(StateUnpickler(bytes).load());
}

}  // namespace ejob::agent
