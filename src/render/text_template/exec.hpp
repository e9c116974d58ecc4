#pragma once
/// The executor of Go's text/template (text/template/exec.go) with missingkey=zero: walks a
/// parsed tree with a data value and appends the output. Values keep one bit of Go's static
/// typing that changes behaviour: whether a value sits in an `interface{}` slot (an element of
/// a map[string]interface{} or []interface{} before a pipeline unwraps it). Field access
/// through a nil interface is `nil pointer evaluating interface {}.x`, through a nil value is
/// silently nil, and `can't evaluate field x in type interface {}` names the slot's type.

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/render/go/value.hpp"
#include "src/render/text_template/funcs.hpp"
#include "src/render/text_template/parse.hpp"

namespace ejob::render::text_template {

/// Go's set of associated templates (template.common.tmpl): name → tree.
class TemplateSet {
 public:
  TemplateSet() = default;
  /// A clone of `parent` (Go's Template.Clone) that shares its trees: new associations stay
  /// in the clone. The parent must outlive it and stay unchanged meanwhile.
  explicit TemplateSet(const TemplateSet* parent)
      : m_parent(parent), m_funcs(parent != nullptr ? parent->m_funcs : nullptr) {}

  /// Go's associate: a tree replaces one of the same name unless its body is empty.
  void associate(TreePtr tree);
  [[nodiscard]] const Tree* find(std::string_view name) const;
  /// The function map the templates were parsed with (Go keeps it in the set, too).
  void set_funcs(const FuncMap* funcs) { m_funcs = funcs; }
  [[nodiscard]] const FuncMap* funcs() const { return m_funcs; }

 private:
  std::map<std::string, TreePtr, std::less<>> m_trees;
  const TemplateSet* m_parent = nullptr;
  const FuncMap* m_funcs = nullptr;
};

/// A Go execution error: the whole `template: …` text and the node it points at.
struct ExecFailure {
  std::string message;
  std::string file;  ///< ParseName of the tree holding the node (empty if none)
  int line = 0;
  int col = 0;  ///< Go's 0-based byte column
  std::string source_line;
};

class Executor;

/// What a function call sees of the executor (declared in funcs.hpp).
struct CallContext {
  Executor* exec = nullptr;
  /// Bit i set: argument i came from an interface{} slot (Go reflect.Interface kind); the
  /// reflect.Value builtins (len, index, …) distinguish a nil interface from no value.
  uint64_t iface_mask = 0;
  /// The receiver of a method call (chartutil.Values methods), else null.
  const go::Value* receiver = nullptr;
  /// For the `call` builtin: how Go >= 1.24 names the callee in its errors (the first
  /// argument's node text, or the piped value's reflect.Value.String()).
  std::string callee;
};

/// A value as the executor holds it: the Go value and whether it sits in an interface slot.
struct EVal {
  go::Value v;
  bool iface = false;
};

/// Executes templates of one set. Cheap to construct; one per template execution.
class Executor {
 public:
  /// `depth` counts nested {{template}} calls (Go's maxExecDepth guard).
  Executor(const TemplateSet& set, const Tree& tree, std::string& out, int depth = 0);

  /// Runs the tree with `dot` as data (`$` too). Throws ExecFailure.
  void run(const go::Value& dot);

  [[nodiscard]] const TemplateSet& set() const { return m_set; }

 private:
  enum class Flow : uint8_t { Normal, Break, Continue };
  using Args = std::vector<NodePtr>;

  [[noreturn]] void errorf(const std::string& msg);
  void at(const Node* n) { m_node = n; }

  Flow walk(const EVal& dot, const Node& node);
  Flow walk_list(const EVal& dot, const ListNode& list);
  Flow walk_if_or_with(const EVal& dot, const BranchNode& n);
  void walk_range(const EVal& dot, const BranchNode& n);
  bool range_once(const BranchNode& n, size_t mark, EVal index, EVal elem);
  void walk_template(const EVal& dot, const TemplateNode& n);

  go::Value eval_pipeline(const EVal& dot, const PipeNode* pipe);
  EVal eval_command(const EVal& dot, const CommandNode& cmd, const go::Value* final);
  EVal eval_field_node(const EVal& dot, const FieldNode& f, const Args* args,
                       const go::Value* final);
  EVal eval_chain(const EVal& dot, const ChainNode& c, const Args* args, const go::Value* final);
  EVal eval_variable(const EVal& dot, const FieldNode& v, const Args* args, const go::Value* final);
  EVal eval_field_chain(const EVal& dot, EVal recv, const Node& node,
                        std::span<const std::string_view> ident, const Args* args,
                        const go::Value* final);
  EVal eval_field(const EVal& dot, std::string_view name, const Node& node, const Args* args,
                  const go::Value* final, const EVal& recv);
  EVal eval_function(const EVal& dot, const IdentifierNode& id, const Node& cmd, const Args* args,
                     const go::Value* final);
  EVal eval_call(const EVal& dot, const Function& fn, Special sp, const Node& node,
                 std::string_view name, const Args* args, const go::Value* final,
                 const go::Value* receiver);
  EVal eval_object_method(const EVal& dot, const go::Object& obj, std::string_view name,
                          const Node& node, const Args* args, const go::Value* final);
  EVal eval_arg(const EVal& dot, Param typ, const Node& n);
  /// A constant argument (bool, number, string node) as a value of type `typ`.
  EVal constant_arg(Param typ, const Node& n);
  EVal validate_type(EVal value, Param typ);
  EVal ideal_constant(const NumberNode& n);
  void not_a_function(const Args* args, const go::Value* final);
  void print_value(const go::Value& v);

  const EVal& var_value(std::string_view name);
  void set_var(std::string_view name, const go::Value& v);

  const TemplateSet& m_set;
  const Tree& m_tree;
  std::string& m_out;
  int m_depth;
  const Node* m_node = nullptr;
  std::vector<std::pair<std::string_view, EVal>> m_vars;
};

/// The method `name` of chartutil.Values (YAML, Table, AsMap, Encode, PathValue), or null.
/// The receiver reaches the implementation as CallContext::receiver. Defined in
/// exec_values.cpp.
const Function* values_method(std::string_view name);

}  // namespace ejob::render::text_template
