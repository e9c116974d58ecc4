#include "src/render/text_template/exec.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <exception>
#include <functional>

#include "src/render/go/fmt.hpp"

namespace ejob::render::text_template {

using go::FuncError;
using go::go_quote;
using go::GoType;
using go::List;
using go::Map;
using go::Object;
using go::Value;

namespace {

constexpr int k_max_exec_depth = 100000;
constexpr std::string_view k_dollar = "$";

// deeper than k_switch_depth therefore continue on a thread whose stack is reserved large and
// committed only as it is touched. The calling thread waits, so nothing runs concurrently.
constexpr int k_switch_depth = 48;
constexpr size_t k_big_stack = size_t{4} << 30;
thread_local int t_nesting = 0;
thread_local bool t_on_big_stack = false;

struct BigStackJob {
  std::function<void()> fn;
  std::exception_ptr error;
};

void* big_stack_main(void* arg) {
  auto* job = static_cast<BigStackJob*>(arg);
  t_on_big_stack = true;
  try {
    job->fn();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

/// Runs fn on a fresh thread with a k_big_stack stack and waits for it; rethrows its exception.
void run_on_big_stack(std::function<void()> fn) {
  void* stack = mmap(nullptr, k_big_stack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    fn();  // no address space for it: recurse here and let the OS stop a runaway template
    return;
  }
  BigStackJob job{std::move(fn), nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, stack, k_big_stack);
  pthread_t thread;
  int rc = pthread_create(&thread, &attr, big_stack_main, &job);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    munmap(stack, k_big_stack);
    job.fn();
    return;
  }
  pthread_join(thread, nullptr);
  munmap(stack, k_big_stack);
  if (job.error) std::rethrow_exception(job.error);
}

/// Runs one nested template execution, moving to a big stack when nesting gets deep.
template <class F>
void nested(F&& f) {
  ++t_nesting;
  struct Restore {
    ~Restore() { --t_nesting; }
  } restore;
  if (t_nesting >= k_switch_depth && !t_on_big_stack) {
    run_on_big_stack(std::forward<F>(f));
  } else {
    f();
  }
}

/// Go's isTrue on an indirected value.
bool truth(const Value& v) { return v.truthy(); }

}  // namespace

// ---- TemplateSet ----

void TemplateSet::associate(TreePtr tree) {
  if (is_empty_tree(tree->root.get()) && find(tree->name) != nullptr) return;
  auto it = m_trees.find(tree->name);
  if (it != m_trees.end()) {
    it->second = std::move(tree);
  } else {
    std::string name = tree->name;
    m_trees.emplace(std::move(name), std::move(tree));
  }
}

const Tree* TemplateSet::find(std::string_view name) const {
  for (const TemplateSet* s = this; s != nullptr; s = s->m_parent) {
    auto it = s->m_trees.find(name);
    if (it != s->m_trees.end()) return it->second.get();
  }
  return nullptr;
}

// ---- Executor ----

Executor::Executor(const TemplateSet& set, const Tree& tree, std::string& out, int depth)
    : m_set(set), m_tree(tree), m_out(out), m_depth(depth) {}

void Executor::run(const Value& dot) {
  EVal d{dot, false};
  m_vars.clear();
  m_vars.emplace_back(k_dollar, d);
  if (!m_tree.root) {
    m_node = nullptr;
    errorf(go_quote(m_tree.name) + " is an incomplete or empty template");
  }
  nested([&] { walk_list(d, *m_tree.root); });
}

void Executor::errorf(const std::string& msg) {
  ExecFailure f;
  if (m_node == nullptr) {
    f.message = "template: " + m_tree.name + ": " + msg;
    throw f;
  }
  const std::string& text = m_tree.src->text;
  size_t pos = std::min<size_t>(m_node->pos, text.size());
  size_t nl = text.rfind('\n', pos == 0 ? std::string::npos : pos - 1);
  if (pos == 0) nl = std::string::npos;
  size_t line_start = nl == std::string::npos ? 0 : nl + 1;
  f.file = m_tree.src->name;
  f.line =
      1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
  f.col = static_cast<int>(pos - line_start);
  size_t line_end = text.find('\n', line_start);
  f.source_line = text.substr(
      line_start, line_end == std::string::npos ? std::string::npos : line_end - line_start);
  f.message = "template: " + f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.col) +
              ": executing " + go_quote(m_tree.name) + " at <" + node_string(*m_node) + ">: " + msg;
  throw f;
}

const EVal& Executor::var_value(std::string_view name) {
  for (size_t i = m_vars.size(); i-- > 0;) {
    if (m_vars[i].first == name) return m_vars[i].second;
  }
  errorf("undefined variable: " + std::string(name));
}

void Executor::set_var(std::string_view name, const Value& v) {
  for (size_t i = m_vars.size(); i-- > 0;) {
    if (m_vars[i].first == name) {
      m_vars[i].second = EVal{v, false};
      return;
    }
  }
  errorf("undefined variable: " + std::string(name));
}

Executor::Flow Executor::walk_list(const EVal& dot, const ListNode& list) {
  for (const NodePtr& n : list.nodes) {
    Flow f = walk(dot, *n);
    if (f != Flow::Normal) return f;
  }
  return Flow::Normal;
}

Executor::Flow Executor::walk(const EVal& dot, const Node& node) {
  at(&node);
  switch (node.type) {
    case NodeType::Text: m_out.append(static_cast<const TextNode&>(node).text); return Flow::Normal;
    case NodeType::Action: {
      const auto& a = static_cast<const ActionNode&>(node);
      Value v = eval_pipeline(dot, a.pipe.get());
      if (a.pipe->decl.empty()) {
        at(&node);
        print_value(v);
      }
      return Flow::Normal;
    }
    case NodeType::Break: return Flow::Break;
    case NodeType::Continue: return Flow::Continue;
    case NodeType::If:
    case NodeType::With: return walk_if_or_with(dot, static_cast<const BranchNode&>(node));
    case NodeType::List: return walk_list(dot, static_cast<const ListNode&>(node));
    case NodeType::Range:
      walk_range(dot, static_cast<const BranchNode&>(node));
      return Flow::Normal;
    case NodeType::Template:
      walk_template(dot, static_cast<const TemplateNode&>(node));
      return Flow::Normal;
    default: errorf("unknown node: " + node_string(node));
  }
}

void Executor::print_value(const Value& v) {
  switch (v.type()) {
    case GoType::Nil: m_out += "<no value>"; return;
    case GoType::String: m_out += v.as_string(); return;
    default: m_out += format_v(v); return;
  }
}

Executor::Flow Executor::walk_if_or_with(const EVal& dot, const BranchNode& n) {
  size_t mark = m_vars.size();
  Value val = eval_pipeline(dot, n.pipe.get());
  Flow f = Flow::Normal;
  if (truth(val)) {
    if (n.type == NodeType::With) {
      f = walk_list(EVal{val, false}, *n.list);
    } else {
      f = walk_list(dot, *n.list);
    }
  } else if (n.else_list) {
    f = walk_list(dot, *n.else_list);
  }
  m_vars.resize(mark);
  return f;
}

bool Executor::range_once(const BranchNode& n, size_t mark, EVal index, EVal elem) {
  size_t ndecl = n.pipe->decl.size();
  if (ndecl > 0) m_vars[mark - 1].second = elem;
  if (ndecl > 1) m_vars[mark - 2].second = std::move(index);
  Flow f = walk_list(elem, *n.list);
  m_vars.resize(mark);
  return f != Flow::Break;
}

void Executor::walk_range(const EVal& dot, const BranchNode& n) {
  at(&n);
  size_t outer = m_vars.size();
  Value val = eval_pipeline(dot, n.pipe.get());
  if (val.is_object()) {
    Value u = val.as_object().underlying();
    if (!u.is_nil()) val = u;
  }
  size_t mark = m_vars.size();
  bool ran = false;
  if (val.is_list() || val.type() == GoType::Bytes) {
    if (val.type() == GoType::Bytes) {
      const std::string& b = val.as_string();
      for (size_t i = 0; i < b.size(); ++i) {
        ran = true;
        EVal e{Value::unsigned_integer(static_cast<unsigned char>(b[i]), GoType::Uint8), false};
        if (!range_once(n, mark, {Value::integer(static_cast<int64_t>(i)), false}, e)) break;
      }
    } else {
      bool iface = val.type() == GoType::ListAny;
      const List& l = val.as_list();
      for (size_t i = 0; i < l.size(); ++i) {
        ran = true;
        if (!range_once(n, mark, {Value::integer(static_cast<int64_t>(i)), false}, {l[i], iface})) {
          break;
        }
      }
    }
  } else if (val.is_map()) {
    bool iface = val.type() != GoType::MapString;
    for (const auto& [k, v] : val.as_map()) {
      ran = true;
      if (!range_once(n, mark, {Value::string(k), false}, {v, iface})) break;
    }
  } else if (val.is_int() || val.is_uint()) {
    if (n.pipe->decl.size() > 1) {
      errorf("can't use " + format_v(val) + " to iterate over more than one variable");
    }
    if (val.is_int()) {
      for (int64_t i = 0; i < val.as_int(); ++i) {
        ran = true;
        if (!range_once(n, mark, {}, {Value::integer(i, val.type()), false})) break;
      }
    } else {
      for (uint64_t i = 0; i < val.as_uint(); ++i) {
        ran = true;
        if (!range_once(n, mark, {}, {Value::unsigned_integer(i, val.type()), false})) break;
      }
    }
  } else if (!val.is_nil()) {
    errorf("range can't iterate over " + format_v(val));
  }
  if (!ran && n.else_list) walk_list(dot, *n.else_list);
  m_vars.resize(outer);
}

void Executor::walk_template(const EVal& dot, const TemplateNode& n) {
  at(&n);
  const Tree* t = m_set.find(n.name);
  if (t == nullptr) errorf("template " + go_quote(n.name) + " not defined");
  if (m_depth == k_max_exec_depth) {
    errorf("exceeded maximum template depth (" + std::to_string(k_max_exec_depth) + ")");
  }
  Value d = eval_pipeline(dot, n.pipe.get());
  Executor inner(m_set, *t, m_out, m_depth + 1);
  inner.m_vars.emplace_back(k_dollar, EVal{d, false});
  nested([&] { inner.walk_list(EVal{d, false}, *t->root); });
}

// ---- evaluation ----

Value Executor::eval_pipeline(const EVal& dot, const PipeNode* pipe) {
  if (pipe == nullptr) return {};
  at(pipe);
  EVal value;
  bool have = false;
  for (const auto& cmd : pipe->cmds) {
    value = eval_command(dot, *cmd, have ? &value.v : nullptr);
    value.iface = false;  // interface{} results are unwrapped after each command
    have = true;
  }
  for (std::string_view name : pipe->decl) {
    if (pipe->is_assign) {
      set_var(name, value.v);
    } else {
      m_vars.emplace_back(name, EVal{value.v, false});
    }
  }
  return std::move(value.v);
}

void Executor::not_a_function(const Args* args, const Value* final) {
  if ((args != nullptr && args->size() > 1) || final != nullptr) {
    errorf("can't give argument to non-function " + node_string(*(*args)[0]));
  }
}

EVal Executor::eval_command(const EVal& dot, const CommandNode& cmd, const Value* final) {
  const Node& first = *cmd.args[0];
  switch (first.type) {
    case NodeType::Field:
      return eval_field_node(dot, static_cast<const FieldNode&>(first), &cmd.args, final);
    case NodeType::Chain:
      return eval_chain(dot, static_cast<const ChainNode&>(first), &cmd.args, final);
    case NodeType::Identifier:
      return eval_function(dot, static_cast<const IdentifierNode&>(first), cmd, &cmd.args, final);
    case NodeType::Pipe:
      not_a_function(&cmd.args, final);
      return {eval_pipeline(dot, static_cast<const PipeNode*>(&first)), false};
    case NodeType::Variable:
      return eval_variable(dot, static_cast<const FieldNode&>(first), &cmd.args, final);
    default: break;
  }
  at(&first);
  not_a_function(&cmd.args, final);
  switch (first.type) {
    case NodeType::Bool: return {Value::boolean(static_cast<const BoolNode&>(first).value), false};
    case NodeType::Dot: return dot;
    case NodeType::Nil: errorf("nil is not a command");
    case NodeType::Number: return ideal_constant(static_cast<const NumberNode&>(first));
    case NodeType::String:
      return {Value::string(static_cast<const StringNode&>(first).text), false};
    default: errorf("can't evaluate command " + go_quote(node_string(first)));
  }
}

EVal Executor::eval_field_node(const EVal& dot, const FieldNode& f, const Args* args,
                               const Value* final) {
  at(&f);
  return eval_field_chain(dot, dot, f, f.ident, args, final);
}

EVal Executor::eval_chain(const EVal& dot, const ChainNode& c, const Args* args,
                          const Value* final) {
  at(&c);
  if (c.node->type == NodeType::Nil)
    errorf("indirection through explicit nil in " + node_string(c));
  EVal recv = eval_arg(dot, Param::Any, *c.node);
  return eval_field_chain(dot, std::move(recv), c, c.field, args, final);
}

EVal Executor::eval_variable(const EVal& dot, const FieldNode& v, const Args* args,
                             const Value* final) {
  at(&v);
  const EVal& value = var_value(v.ident[0]);
  if (v.ident.size() == 1) {
    not_a_function(args, final);
    return value;
  }
  return eval_field_chain(dot, value, v, std::span(v.ident).subspan(1), args, final);
}

EVal Executor::eval_field_chain(const EVal& dot, EVal recv, const Node& node,
                                std::span<const std::string_view> ident, const Args* args,
                                const Value* final) {
  size_t n = ident.size();
  for (size_t i = 0; i + 1 < n; ++i) recv = eval_field(dot, ident[i], node, nullptr, nullptr, recv);
  return eval_field(dot, ident[n - 1], node, args, final, recv);
}

EVal Executor::eval_function(const EVal& dot, const IdentifierNode& id, const Node& cmd,
                             const Args* args, const Value* final) {
  at(&id);
  return eval_call(dot, *id.fn, id.special, cmd, id.name, args, final, nullptr);
}

EVal Executor::eval_field(const EVal& dot, std::string_view name, const Node& node,
                          const Args* args, const Value* final, const EVal& recv) {
  if (recv.v.is_nil() && !recv.iface) return {};  // missingkey=zero: nil data yields nil
  if (recv.v.is_nil()) errorf("nil pointer evaluating interface {}." + std::string(name));
  const Value& r = recv.v;
  if (r.type() == GoType::Values) {
    if (const Function* m = values_method(name)) {
      return eval_call(dot, *m, Special::None, node, name, args, final, &r);
    }
  }
  if (r.is_object() && r.as_object().has_method(name)) {
    return eval_object_method(dot, r.as_object(), name, node, args, final);
  }
  bool has_args = (args != nullptr && args->size() > 1) || final != nullptr;
  const Value* map_val = r.is_map() ? &r : nullptr;
  Value underlying;
  if (r.is_object()) {
    Value field;
    if (r.as_object().field(name, field)) {
      if (has_args) errorf(std::string(name) + " has arguments but cannot be invoked as function");
      return {std::move(field), false};
    }
    underlying = r.as_object().underlying();
    if (underlying.is_map()) map_val = &underlying;
  }
  if (map_val != nullptr) {
    if (has_args) errorf(std::string(name) + " is not a method but has arguments");
    const Map& m = map_val->as_map();
    bool iface = map_val->type() != GoType::MapString;
    auto it = m.find(name);
    if (it != m.end()) return {it->second, iface};
    if (iface) return {Value(), true};
    return {Value::string(""), false};
  }
  errorf("can't evaluate field " + std::string(name) + " in type " +
         (recv.iface ? std::string("interface {}") : r.type_name()));
}

EVal Executor::eval_object_method(const EVal& dot, const Object& obj, std::string_view name,
                                  const Node& node, const Args* args, const Value* final) {
  std::vector<Value> argv;
  if (args != nullptr) {
    for (size_t i = 1; i < args->size(); ++i)
      argv.push_back(eval_arg(dot, Param::Any, *(*args)[i]).v);
  }
  if (final != nullptr) argv.push_back(*final);
  try {
    return {obj.call(name, argv), false};
  } catch (const FuncError& e) {
    at(&node);
    errorf("error calling " + std::string(name) + ": " + e.message);
  }
}

}  // namespace ejob::render::text_template
