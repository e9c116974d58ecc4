// Go's Node.String() texts (text/template/parse/node.go) and parse.IsEmptyTree.

#include "src/render/go/fmt.hpp"
#include "src/render/text_template/parse.hpp"

namespace ejob::render::text_template {

using go::go_quote;

bool is_empty_tree(const ListNode* root) {
  if (root == nullptr) return true;
  for (const NodePtr& n : root->nodes) {
    if (n->type != NodeType::Text) return false;
    for (char c : static_cast<const TextNode&>(*n).text) {
      if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'))
        return false;
    }
  }
  return true;
}

namespace {

void write_pipe(const PipeNode& p, std::string& out);

void write_idents(const std::vector<std::string_view>& ids, bool leading_dot, std::string& out) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0 || leading_dot) out += '.';
    out += ids[i];
  }
}

void write_list(const ListNode* l, std::string& out) {
  if (l == nullptr) return;
  for (const NodePtr& n : l->nodes) write_node(*n, out);
}

void write_pipe(const PipeNode& p, std::string& out) {
  if (!p.decl.empty()) {
    for (size_t i = 0; i < p.decl.size(); ++i) {
      if (i > 0) out += ", ";
      out += p.decl[i];
    }
    out += " := ";
  }
  for (size_t i = 0; i < p.cmds.size(); ++i) {
    if (i > 0) out += " | ";
    write_node(*p.cmds[i], out);
  }
}

}  // namespace

void write_node(const Node& n, std::string& out) {
  switch (n.type) {
    case NodeType::Text: out += static_cast<const TextNode&>(n).text; return;
    case NodeType::Action:
      out += "{{";
      write_pipe(*static_cast<const ActionNode&>(n).pipe, out);
      out += "}}";
      return;
    case NodeType::If:
    case NodeType::Range:
    case NodeType::With: {
      const auto& b = static_cast<const BranchNode&>(n);
      out += n.type == NodeType::If ? "{{if " : n.type == NodeType::Range ? "{{range " : "{{with ";
      write_pipe(*b.pipe, out);
      out += "}}";
      write_list(b.list.get(), out);
      if (b.else_list) {
        out += "{{else}}";
        write_list(b.else_list.get(), out);
      }
      out += "{{end}}";
      return;
    }
    case NodeType::Template: {
      const auto& t = static_cast<const TemplateNode&>(n);
      out += "{{template ";
      out += go_quote(t.name);
      if (t.pipe) {
        out += ' ';
        write_pipe(*t.pipe, out);
      }
      out += "}}";
      return;
    }
    case NodeType::Break: out += "{{break}}"; return;
    case NodeType::Continue: out += "{{continue}}"; return;
    case NodeType::List: write_list(static_cast<const ListNode*>(&n), out); return;
    case NodeType::Pipe: write_pipe(static_cast<const PipeNode&>(n), out); return;
    case NodeType::Command: {
      const auto& c = static_cast<const CommandNode&>(n);
      for (size_t i = 0; i < c.args.size(); ++i) {
        if (i > 0) out += ' ';
        if (c.args[i]->type == NodeType::Pipe) {
          out += '(';
          write_node(*c.args[i], out);
          out += ')';
        } else {
          write_node(*c.args[i], out);
        }
      }
      return;
    }
    case NodeType::Field: write_idents(static_cast<const FieldNode&>(n).ident, true, out); return;
    case NodeType::Variable:
      write_idents(static_cast<const FieldNode&>(n).ident, false, out);
      return;
    case NodeType::Chain: {
      const auto& c = static_cast<const ChainNode&>(n);
      if (c.node->type == NodeType::Pipe) {
        out += '(';
        write_node(*c.node, out);
        out += ')';
      } else {
        write_node(*c.node, out);
      }
      write_idents(c.field, true, out);
      return;
    }
    case NodeType::Identifier: out += static_cast<const IdentifierNode&>(n).name; return;
    case NodeType::Dot: out += '.'; return;
    case NodeType::Nil: out += "nil"; return;
    case NodeType::Bool: out += static_cast<const BoolNode&>(n).value ? "true" : "false"; return;
    case NodeType::Number: out += static_cast<const NumberNode&>(n).text; return;
    case NodeType::String: out += static_cast<const StringNode&>(n).quoted; return;
    case NodeType::End: out += "{{end}}"; return;
    case NodeType::Else: out += "{{else}}"; return;
  }
}

std::string node_string(const Node& n) {
  std::string out;
  write_node(n, out);
  return out;
}

}  // namespace ejob::render::text_template
