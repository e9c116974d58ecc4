#include "src/render/text_template/parse.hpp"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "src/render/go/fmt.hpp"
#include "src/render/go/strconv.hpp"
#include "src/render/text_template/lexer.hpp"
#include "src/render/text_template/literal.hpp"

namespace ejob::render::text_template {

using go::go_quote;

namespace {

using TreeSet = std::map<std::string, TreePtr, std::less<>>;

/// A port of parse.Tree's parsing methods; one Parser per tree being built (define/block
/// trees get their own, sharing the lexer's token stream).
class Parser {
 public:
  struct Shared {
    std::shared_ptr<const Source> src;
    const FuncMap* funcs;
    Lexed lexed;
    size_t next_tok = 0;
    TreeSet* set;
  };

  Parser(Shared& sh, std::string name) : m_sh(sh), m_name(std::move(name)) {}

  /// Parses the top-level text (Tree.parse + add).
  void parse_top() {
    m_vars = {"$"};
    m_root = std::make_unique<ListNode>(peek().pos);
    while (peek().type != Tok::Eof) {
      if (peek().type == Tok::LeftDelim) {
        Token delim = next();
        if (next_non_space().type == Tok::Define) {
          Parser def(m_sh, "definition");
          def.m_vars = {"$"};
          def.parse_definition();
          continue;
        }
        backup2(delim);
      }
      NodePtr n = text_or_action();
      if (n->type == NodeType::End || n->type == NodeType::Else) {
        errorf("unexpected " + end_else_string(*n));
      }
      m_root->nodes.push_back(std::move(n));
    }
    add();
  }

 private:
  // ---- token buffer (three-token lookahead, as Go's Tree) ----
  Token lex_next() {
    auto& toks = m_sh.lexed.tokens;
    if (m_sh.next_tok < toks.size()) return toks[m_sh.next_tok++];
    Token t = toks.back();  // past the end: Go yields the zero item (an error item)
    t.line = 0;
    t.type = Tok::Error;
    t.val = {};
    return t;
  }
  Token next() {
    if (m_peek_count > 0) {
      --m_peek_count;
    } else {
      m_token[0] = lex_next();
    }
    return m_token[m_peek_count];
  }
  void backup() { ++m_peek_count; }
  void backup2(Token t1) {
    m_token[1] = t1;
    m_peek_count = 2;
  }
  void backup3(Token t2, Token t1) {
    m_token[1] = t1;
    m_token[2] = t2;
    m_peek_count = 3;
  }
  Token peek() {
    if (m_peek_count > 0) return m_token[m_peek_count - 1];
    m_peek_count = 1;
    m_token[0] = lex_next();
    return m_token[0];
  }
  Token next_non_space() {
    Token t;
    do {
      t = next();
    } while (t.type == Tok::Space);
    return t;
  }
  Token peek_non_space() {
    Token t = next_non_space();
    backup();
    return t;
  }

  // ---- errors ----
  [[noreturn]] void errorf(const std::string& msg) {
    const Token& t = m_token[0];
    throw ParseError{"template: " + m_sh.src->name + ":" + std::to_string(t.line) + ": " + msg,
                     t.line, t.pos};
  }
  Token expect(Tok expected, const char* context) {
    Token t = next_non_space();
    if (t.type != expected) unexpected(t, context);
    return t;
  }
  Token expect_one_of(Tok a, Tok b, const char* context) {
    Token t = next_non_space();
    if (t.type != a && t.type != b) unexpected(t, context);
    return t;
  }
  [[noreturn]] void unexpected(const Token& t, std::string_view context) {
    if (t.type == Tok::Error) {
      std::string extra;
      if (m_action_line != 0 && m_action_line != t.line) {
        extra = " in action started at " + m_sh.src->name + ":" + std::to_string(m_action_line);
        if (t.val.ends_with(" action")) extra = extra.substr(std::string_view(" in action").size());
      }
      errorf(std::string(t.val) + extra);
    }
    errorf("unexpected " + token_string(t) + " in " + std::string(context));
  }
  static std::string end_else_string(const Node& n) {
    return n.type == NodeType::End ? "{{end}}" : "{{else}}";
  }

  // ---- trees ----
  void add() {
    auto it = m_sh.set->find(m_name);
    if (it == m_sh.set->end() || is_empty_tree(it->second->root.get())) {
      auto t = std::make_shared<Tree>();
      t->name = m_name;
      t->src = m_sh.src;
      t->root = std::move(m_root);
      (*m_sh.set)[m_name] = std::move(t);
      return;
    }
    if (!is_empty_tree(m_root.get())) {
      errorf("template: multiple definition of template " + go_quote(m_name));
    }
  }

  void parse_definition() {
    const char* context = "define clause";
    Token name = expect_one_of(Tok::String, Tok::RawString, context);
    std::string unq;
    if (!unquote(name.val, unq)) errorf("invalid syntax");
    m_name = unq;
    expect(Tok::RightDelim, context);
    auto [list, end] = item_list();
    m_root = std::move(list);
    if (end->type != NodeType::End)
      errorf("unexpected " + end_else_string(*end) + " in " + context);
    add();
  }

  std::pair<std::unique_ptr<ListNode>, NodePtr> item_list() {
    auto list = std::make_unique<ListNode>(peek_non_space().pos);
    while (peek_non_space().type != Tok::Eof) {
      NodePtr n = text_or_action();
      if (n->type == NodeType::End || n->type == NodeType::Else)
        return {std::move(list), std::move(n)};
      list->nodes.push_back(std::move(n));
    }
    errorf("unexpected EOF");
  }

  NodePtr text_or_action() {
    Token t = next_non_space();
    switch (t.type) {
      case Tok::Text: return std::make_unique<TextNode>(t.pos, t.val);
      case Tok::LeftDelim: {
        m_action_line = t.line;
        NodePtr n = action();
        m_action_line = 0;
        return n;
      }
      default: unexpected(t, "input");
    }
  }

  NodePtr action() {
    Token t = next_non_space();
    switch (t.type) {
      case Tok::Block: return block_control();
      case Tok::Break: return loop_control(t, NodeType::Break, "{{break}}");
      case Tok::Continue: return loop_control(t, NodeType::Continue, "{{continue}}");
      case Tok::Else: return else_control();
      case Tok::End:
        return std::make_unique<Node>(NodeType::End, expect(Tok::RightDelim, "end").pos);
      case Tok::If: return branch_control(NodeType::If, "if");
      case Tok::Range: return branch_control(NodeType::Range, "range");
      case Tok::Template: return template_control();
      case Tok::With: return branch_control(NodeType::With, "with");
      default: break;
    }
    backup();
    Token p = peek();
    return std::make_unique<ActionNode>(p.pos, pipeline("command", Tok::RightDelim));
  }

  NodePtr loop_control(const Token& kw, NodeType type, const char* context) {
    Token t = next_non_space();
    if (t.type != Tok::RightDelim) unexpected(t, context);
    if (m_range_depth == 0) {
      errorf(std::string(context) + " outside {{range}}");
    }
    return std::make_unique<Node>(type, kw.pos);
  }

  std::unique_ptr<PipeNode> pipeline(const char* context, Tok end) {
    Token first = peek_non_space();
    auto pipe = std::make_unique<PipeNode>(first.pos, first.line);
    bool more_decls = true;
    while (more_decls) {
      more_decls = false;
      Token v = peek_non_space();
      if (v.type != Tok::Variable) break;
      next();
      Token after = peek();
      Token nx = peek_non_space();
      if (nx.type == Tok::Assign || nx.type == Tok::Declare) {
        pipe->is_assign = nx.type == Tok::Assign;
        next_non_space();
        pipe->decl.push_back(v.val);
        m_vars.push_back(v.val);
      } else if (nx.type == Tok::Char && nx.val == ",") {
        next_non_space();
        pipe->decl.push_back(v.val);
        m_vars.push_back(v.val);
        if (std::string_view(context) == "range" && pipe->decl.size() < 2) {
          Tok pk = peek_non_space().type;
          if (pk == Tok::Variable || pk == Tok::RightDelim || pk == Tok::RightParen) {
            more_decls = true;
            continue;
          }
          errorf("range can only initialize variables");
        }
        errorf(std::string("too many declarations in ") + context);
      } else if (after.type == Tok::Space) {
        backup3(v, after);
      } else {
        backup2(v);
      }
    }
    while (true) {
      Token t = next_non_space();
      if (t.type == end) {
        check_pipeline(*pipe, context);
        return pipe;
      }
      switch (t.type) {
        case Tok::Bool:
        case Tok::CharConstant:
        case Tok::Complex:
        case Tok::Dot:
        case Tok::Field:
        case Tok::Identifier:
        case Tok::Number:
        case Tok::Nil:
        case Tok::RawString:
        case Tok::String:
        case Tok::Variable:
        case Tok::LeftParen:
          backup();
          pipe->cmds.push_back(command());
          break;
        default: unexpected(t, context);
      }
    }
  }

  void check_pipeline(const PipeNode& pipe, const char* context) {
    if (pipe.cmds.empty()) errorf(std::string("missing value for ") + context);
    for (size_t i = 1; i < pipe.cmds.size(); ++i) {
      switch (pipe.cmds[i]->args[0]->type) {
        case NodeType::Bool:
        case NodeType::Dot:
        case NodeType::Nil:
        case NodeType::Number:
        case NodeType::String:
          errorf("non executable command in pipeline stage " + std::to_string(i + 1));
        default: break;
      }
    }
  }

  NodePtr branch_control(NodeType type, const char* context) {
    size_t vars_mark = m_vars.size();
    auto node = std::make_unique<BranchNode>(type, 0);
    node->pipe = pipeline(context, Tok::RightDelim);
    node->pos = node->pipe->pos;
    if (type == NodeType::Range) ++m_range_depth;
    auto [list, next_node] = item_list();
    if (type == NodeType::Range) --m_range_depth;
    node->list = std::move(list);
    if (next_node->type == NodeType::Else) {
      // `else if` / `else with` chain: parse the inner control as the sole else node.
      if ((type == NodeType::If && peek().type == Tok::If) ||
          (type == NodeType::With && peek().type == Tok::With)) {
        next();
        node->else_list = std::make_unique<ListNode>(next_node->pos);
        node->else_list->nodes.push_back(type == NodeType::If
                                             ? branch_control(NodeType::If, "if")
                                             : branch_control(NodeType::With, "with"));
      } else {
        auto [else_list, end] = item_list();
        if (end->type != NodeType::End) errorf("expected end; found " + end_else_string(*end));
        node->else_list = std::move(else_list);
      }
    }
    m_vars.resize(vars_mark);
    return node;
  }

  NodePtr else_control() {
    Token pk = peek_non_space();
    if (pk.type == Tok::If || pk.type == Tok::With)
      return std::make_unique<Node>(NodeType::Else, pk.pos);
    Token t = expect(Tok::RightDelim, "else");
    return std::make_unique<Node>(NodeType::Else, t.pos);
  }

  NodePtr block_control() {
    const char* context = "block clause";
    Token t = next_non_space();
    std::string name = template_name(t, context);
    auto pipe = pipeline(context, Tok::RightDelim);
    Parser block(m_sh, name);
    block.m_vars = {"$"};
    auto [list, end] = block.item_list();
    if (end->type != NodeType::End)
      errorf("unexpected " + end_else_string(*end) + " in " + context);
    block.m_root = std::move(list);
    block.add();
    auto node = std::make_unique<TemplateNode>(t.pos, name);
    node->pipe = std::move(pipe);
    return node;
  }

  NodePtr template_control() {
    const char* context = "template clause";
    Token t = next_non_space();
    std::string name = template_name(t, context);
    std::unique_ptr<PipeNode> pipe;
    if (next_non_space().type != Tok::RightDelim) {
      backup();
      pipe = pipeline(context, Tok::RightDelim);
    }
    auto node = std::make_unique<TemplateNode>(t.pos, name);
    node->pipe = std::move(pipe);
    return node;
  }

  std::string template_name(const Token& t, const char* context) {
    if (t.type != Tok::String && t.type != Tok::RawString) unexpected(t, context);
    std::string s;
    if (!unquote(t.val, s)) errorf("invalid syntax");
    return s;
  }

  std::unique_ptr<CommandNode> command() {
    auto cmd = std::make_unique<CommandNode>(peek_non_space().pos);
    while (true) {
      peek_non_space();  // skip leading spaces
      NodePtr op = operand();
      if (op) cmd->args.push_back(std::move(op));
      Token t = next();
      if (t.type == Tok::Space) continue;
      if (t.type == Tok::RightDelim || t.type == Tok::RightParen) {
        backup();
      } else if (t.type != Tok::Pipe) {
        unexpected(t, "operand");
      }
      break;
    }
    if (cmd->args.empty()) errorf("empty command");
    return cmd;
  }

  NodePtr operand() {
    NodePtr node = term();
    if (!node) return nullptr;
    if (peek().type == Tok::Field) {
      auto chain = std::make_unique<ChainNode>(peek().pos, nullptr);
      std::vector<std::string_view> fields;
      while (peek().type == Tok::Field) fields.push_back(next().val.substr(1));
      switch (node->type) {
        case NodeType::Field: {
          // .a + .b.c -> one field node; Go rebuilds it from the chain's text.
          auto& f = static_cast<FieldNode&>(*node);
          auto merged = std::make_unique<FieldNode>(NodeType::Field, chain->pos);
          merged->ident = f.ident;
          for (auto fv : fields) split_idents(fv, merged->ident);
          return merged;
        }
        case NodeType::Variable: {
          auto& f = static_cast<FieldNode&>(*node);
          auto merged = std::make_unique<FieldNode>(NodeType::Variable, chain->pos);
          merged->ident = f.ident;
          for (auto fv : fields) split_idents(fv, merged->ident);
          return merged;
        }
        case NodeType::Bool:
        case NodeType::String:
        case NodeType::Number:
        case NodeType::Nil:
        case NodeType::Dot: errorf("unexpected . after term " + go_quote(node_string(*node)));
        default:
          chain->node = std::move(node);
          for (auto fv : fields) split_idents(fv, chain->field);
          return chain;
      }
    }
    return node;
  }

  static void split_idents(std::string_view s, std::vector<std::string_view>& out) {
    size_t start = 0;
    while (true) {
      size_t dot = s.find('.', start);
      out.push_back(
          s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
      if (dot == std::string_view::npos) return;
      start = dot + 1;
    }
  }

  NodePtr term() {
    Token t = next_non_space();
    switch (t.type) {
      case Tok::Identifier: {
        const Function* fn = m_sh.funcs->find(t.val);
        if (fn == nullptr) errorf("function " + go_quote(t.val) + " not defined");
        Special sp = t.val == "and" ? Special::And : t.val == "or" ? Special::Or : Special::None;
        return std::make_unique<IdentifierNode>(t.pos, t.val, fn, sp);
      }
      case Tok::Dot: return std::make_unique<Node>(NodeType::Dot, t.pos);
      case Tok::Nil: return std::make_unique<Node>(NodeType::Nil, t.pos);
      case Tok::Variable: return use_var(t);
      case Tok::Field: {
        auto f = std::make_unique<FieldNode>(NodeType::Field, t.pos);
        split_idents(t.val.substr(1), f->ident);
        return f;
      }
      case Tok::Bool: return std::make_unique<BoolNode>(t.pos, t.val == "true");
      case Tok::CharConstant:
      case Tok::Complex:
      case Tok::Number: return number(t);
      case Tok::LeftParen: {
        // Go 1.26 bounds the nesting (maxStackDepth), which also keeps this recursion off the
        // end of the stack.
        if (m_paren_depth >= k_max_paren_depth) errorf("max expression depth exceeded");
        ++m_paren_depth;
        auto p = pipeline("parenthesized pipeline", Tok::RightParen);
        --m_paren_depth;
        return p;
      }
      case Tok::String:
      case Tok::RawString: {
        std::string s;
        if (!unquote(t.val, s)) errorf("invalid syntax");
        return std::make_unique<StringNode>(t.pos, t.val, std::move(s));
      }
      default: break;
    }
    backup();
    return nullptr;
  }

  NodePtr use_var(const Token& t) {
    auto v = std::make_unique<FieldNode>(NodeType::Variable, t.pos);
    split_idents(t.val, v->ident);
    for (auto name : m_vars) {
      if (name == v->ident[0]) return v;
    }
    errorf("undefined variable " + go_quote(v->ident[0]));
  }

  /// parse.newNumber: which of int, uint and float the constant is exactly.
  NodePtr number(const Token& t) {
    auto n = std::make_unique<NumberNode>(t.pos, t.val);
    std::string_view text = t.val;
    if (t.type == Tok::CharConstant) {
      char_number(*n, text);
      return n;
    }
    if (t.type == Tok::Complex) {
      n->is_complex = true;  // the executor refuses complex constants
      return n;
    }
    if (!text.empty() && text.back() == 'i') {
      double f = 0;
      if (parse_float(text.substr(0, text.size() - 1), f)) {
        if (f != 0) {
          n->is_complex = true;
        } else {
          n->is_float = n->is_int = n->is_uint = true;
        }
        return n;
      }
    }
    uint64_t u = 0;
    int64_t i = 0;
    if (parse_integer(text, false, i, u)) {
      n->is_uint = true;
      n->u64 = u;
    }
    if (parse_integer(text, true, i, u)) {
      n->is_int = true;
      n->i64 = i;
      if (i == 0) {
        n->is_uint = true;  // in case of -0
        n->u64 = 0;
      }
    }
    if (n->is_int) {
      n->is_float = true;
      n->f64 = static_cast<double>(n->i64);
    } else if (n->is_uint) {
      n->is_float = true;
      n->f64 = static_cast<double>(n->u64);
    } else {
      float_number(*n, text);
    }
    if (!n->is_int && !n->is_uint && !n->is_float)
      errorf("illegal number syntax: " + go_quote(text));
    return n;
  }

  /// A character constant ('a', '\n', '\u00e9'): its rune, exactly an int, a uint and a float.
  void char_number(NumberNode& n, std::string_view text) {
    size_t at = 1;
    char32_t r = 0;
    bool as_byte = false;
    if (text.size() < 2 || !unquote_char(text, at, '\'', r, as_byte)) errorf("invalid syntax");
    if (text.substr(at) != "'") errorf("malformed character constant: " + std::string(text));
    n.is_int = n.is_uint = n.is_float = true;
    n.i64 = r;
    n.u64 = r;
    n.f64 = r;
  }

  /// A constant that is no integer: a float, also an int or uint where it is one exactly; an
  /// integer too large for 64 bits is an overflow.
  void float_number(NumberNode& n, std::string_view text) {
    double f = 0;
    if (!parse_float(text, f)) return;
    if (text.find_first_of(".eEpP") == std::string_view::npos)
      errorf("integer overflow: " + go_quote(text));
    n.is_float = true;
    n.f64 = f;
    if (f >= -9223372036854775808.0 && f < 9223372036854775808.0 &&
        static_cast<double>(static_cast<int64_t>(f)) == f) {
      n.is_int = true;
      n.i64 = static_cast<int64_t>(f);
    }
    if (f >= 0 && f < 18446744073709551616.0 &&
        static_cast<double>(static_cast<uint64_t>(f)) == f) {
      n.is_uint = true;
      n.u64 = static_cast<uint64_t>(f);
    }
  }

  Shared& m_sh;
  std::string m_name;
  std::unique_ptr<ListNode> m_root;
  std::array<Token, 3> m_token{};
  int m_peek_count = 0;
  std::vector<std::string_view> m_vars;
  int m_action_line = 0;
  int m_range_depth = 0;
  static constexpr int k_max_paren_depth = 10000;  ///< text/template/parse's maxStackDepth
  int m_paren_depth = 0;                           ///< nested parenthesized pipelines
};

}  // namespace

TreeSet parse_source(std::shared_ptr<const Source> src, const FuncMap& funcs) {
  TreeSet set;
  Parser::Shared sh{src, &funcs, {}, 0, &set};
  lex(src->text, sh.lexed);
  Parser top(sh, src->name);
  top.parse_top();
  return set;
}

}  // namespace ejob::render::text_template
