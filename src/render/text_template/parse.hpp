#pragma once
/// The syntax tree and parser of Go's text/template (text/template/parse: parse.go, node.go).
/// One source text yields its own tree plus one tree per `define`/`block`; the error messages,
/// their line numbers and the node texts used in execution errors are Go's.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/render/text_template/funcs.hpp"

namespace ejob::render::text_template {

/// Go's parse.NodeType subset that templates produce (comments are dropped: they never
/// execute and count as empty, see is_empty_tree).
enum class NodeType : uint8_t {
  Text,
  Action,
  If,
  Range,
  With,
  Template,
  Break,
  Continue,
  List,
  Pipe,
  Command,
  Field,
  Variable,
  Chain,
  Identifier,
  Dot,
  Nil,
  Bool,
  Number,
  String,
  End,   ///< parser-internal
  Else,  ///< parser-internal
};

/// A node; `pos` is the byte offset in its source text.
struct Node {
  NodeType type;
  uint32_t pos;
  Node(NodeType t, uint32_t p) : type(t), pos(p) {}
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
};
using NodePtr = std::unique_ptr<Node>;

struct ListNode : Node {
  std::vector<NodePtr> nodes;
  explicit ListNode(uint32_t p) : Node(NodeType::List, p) {}
};

struct TextNode : Node {
  std::string_view text;  ///< view into the source text
  TextNode(uint32_t p, std::string_view t) : Node(NodeType::Text, p), text(t) {}
};

struct CommandNode;

struct PipeNode : Node {
  int line;
  bool is_assign = false;
  std::vector<std::string_view> decl;  ///< declared variable names (`$x`)
  std::vector<std::unique_ptr<CommandNode>> cmds;
  PipeNode(uint32_t p, int l) : Node(NodeType::Pipe, p), line(l) {}
};

struct ActionNode : Node {
  std::unique_ptr<PipeNode> pipe;
  ActionNode(uint32_t p, std::unique_ptr<PipeNode> pp)
      : Node(NodeType::Action, p), pipe(std::move(pp)) {}
};

/// if / range / with.
struct BranchNode : Node {
  std::unique_ptr<PipeNode> pipe;
  std::unique_ptr<ListNode> list;
  std::unique_ptr<ListNode> else_list;  ///< may be null
  BranchNode(NodeType t, uint32_t p) : Node(t, p) {}
};

struct TemplateNode : Node {
  std::string name;
  std::unique_ptr<PipeNode> pipe;  ///< may be null
  TemplateNode(uint32_t p, std::string n) : Node(NodeType::Template, p), name(std::move(n)) {}
};

struct CommandNode : Node {
  std::vector<NodePtr> args;
  explicit CommandNode(uint32_t p) : Node(NodeType::Command, p) {}
};

/// `.a.b` (idents without dots), `$x.a.b` (first ident is the variable), `(x).a.b`.
struct FieldNode : Node {
  std::vector<std::string_view> ident;
  FieldNode(NodeType t, uint32_t p) : Node(t, p) {}
};

struct ChainNode : Node {
  NodePtr node;
  std::vector<std::string_view> field;
  ChainNode(uint32_t p, NodePtr n) : Node(NodeType::Chain, p), node(std::move(n)) {}
};

/// How the executor treats a function name (and/or short-circuit; see exec.cpp).
enum class Special : uint8_t { None, And, Or };

struct IdentifierNode : Node {
  std::string_view name;
  const Function* fn;  ///< resolved at parse time (FuncMap entries are never moved)
  Special special;
  IdentifierNode(uint32_t p, std::string_view n, const Function* f, Special s)
      : Node(NodeType::Identifier, p), name(n), fn(f), special(s) {}
};

struct BoolNode : Node {
  bool value;
  BoolNode(uint32_t p, bool v) : Node(NodeType::Bool, p), value(v) {}
};

/// A numeric constant with every representation Go's parser derives from it.
struct NumberNode : Node {
  std::string_view text;
  bool is_int = false, is_uint = false, is_float = false, is_complex = false;
  int64_t i64 = 0;
  uint64_t u64 = 0;
  double f64 = 0;
  NumberNode(uint32_t p, std::string_view t) : Node(NodeType::Number, p), text(t) {}
};

struct StringNode : Node {
  std::string_view quoted;  ///< original text with quotes (node String())
  std::string text;         ///< unquoted value
  StringNode(uint32_t p, std::string_view q, std::string t)
      : Node(NodeType::String, p), quoted(q), text(std::move(t)) {}
};

/// The text of one parsed file, shared by its trees: ParseName for messages and the text the
/// node positions index.
struct Source {
  std::string name;
  std::string text;
};

/// One named template: a file's own body or a `define`/`block`.
struct Tree {
  std::string name;
  std::shared_ptr<const Source> src;
  std::unique_ptr<ListNode> root;
};
using TreePtr = std::shared_ptr<const Tree>;

/// Go's parse error: `template: NAME:LINE: MSG` in `message`, plus where it points.
struct ParseError {
  std::string message;
  int line = 0;
  uint32_t pos = 0;
};

/// Parses `src` (named src->name) and returns its trees: the file's own tree and every
/// define/block, combined by Go's treeSet rule (a non-empty redefinition within one text is
/// `template: multiple definition of template "x"`). Throws ParseError.
std::map<std::string, TreePtr, std::less<>> parse_source(std::shared_ptr<const Source> src,
                                                         const FuncMap& funcs);

/// parse.IsEmptyTree: only white space text (and comments).
bool is_empty_tree(const ListNode* root);

/// Go's Node.String() for error messages (`.a.b`, `include "x" .`, `{{template "x" .}}`).
void write_node(const Node& n, std::string& out);
std::string node_string(const Node& n);

}  // namespace ejob::render::text_template
