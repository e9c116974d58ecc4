#include "ejob/render/parse.hpp"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "ejob/render/go_fmt.hpp"
#include "ejob/render/go_strconv.hpp"
#include "ejob/render/lexer.hpp"

namespace ejob::render {
namespace {

// ---- Go literal syntax (strconv.Unquote, UnquoteChar, ParseInt/ParseUint/ParseFloat) ----

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// strconv.UnquoteChar: decodes one (possibly escaped) character of s at `at`. Returns false
/// on invalid syntax. `multibyte` tells whether the result is a rune (vs a single byte \x/\ooo).
bool unquote_char(std::string_view s, size_t& at, char quote, char32_t& r, bool& as_byte) {
  as_byte = false;
  auto c = static_cast<unsigned char>(s[at]);
  if (c == static_cast<unsigned char>(quote) && (quote == '\'' || quote == '"')) return false;
  if (c >= 0x80) {
    go::Rune d = go::decode_rune(s.substr(at));
    at += d.width;
    r = d.r;
    return true;
  }
  if (c != '\\') {
    ++at;
    r = c;
    return true;
  }
  if (at + 1 >= s.size()) return false;
  char e = s[at + 1];
  at += 2;
  switch (e) {
    case 'a': r = '\a'; return true;
    case 'b': r = '\b'; return true;
    case 'f': r = '\f'; return true;
    case 'n': r = '\n'; return true;
    case 'r': r = '\r'; return true;
    case 't': r = '\t'; return true;
    case 'v': r = '\v'; return true;
    case '\\': r = '\\'; return true;
    case '\'':
    case '"':
      if (e != quote) return false;
      r = static_cast<unsigned char>(e);
      return true;
    case 'x':
    case 'u':
    case 'U': {
      size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      if (at + n > s.size()) return false;
      uint32_t v = 0;
      for (size_t i = 0; i < n; ++i) {
        int d = hex_digit(s[at + i]);
        if (d < 0) return false;
        v = v << 4 | static_cast<uint32_t>(d);
      }
      at += n;
      if (e == 'x') {
        r = v;
        as_byte = true;
        return true;
      }
      if (v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) return false;
      r = v;
      return true;
    }
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
      uint32_t v = static_cast<uint32_t>(e - '0');
      if (at + 2 > s.size()) return false;
      for (size_t i = 0; i < 2; ++i) {
        char d = s[at + i];
        if (d < '0' || d > '7') return false;
        v = v * 8 + static_cast<uint32_t>(d - '0');
      }
      at += 2;
      if (v > 255) return false;
      r = v;
      as_byte = true;
      return true;
    }
    default: return false;
  }
}

/// strconv.Unquote for "…" and `…` literals; false = invalid syntax.
bool unquote(std::string_view in, std::string& out) {
  out.clear();
  if (in.size() < 2) return false;
  char q = in.front();
  if (q != in.back()) return false;
  std::string_view body = in.substr(1, in.size() - 2);
  if (q == '`') {
    if (body.find('`') != std::string_view::npos) return false;
    for (char c : body) {
      if (c != '\r') out += c;
    }
    return true;
  }
  if (q != '"') return false;
  if (body.find('\n') != std::string_view::npos) return false;
  size_t at = 0;
  while (at < body.size()) {
    char32_t r = 0;
    bool as_byte = false;
    if (!unquote_char(body, at, '"', r, as_byte)) return false;
    if (as_byte || r < 0x80) {
      out += static_cast<char>(r);
    } else {
      go::append_rune(out, r);
    }
  }
  return true;
}

bool underscore_ok(std::string_view s) {
  char saw = '^';
  size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0') {
    char l = static_cast<char>(s[1] | 0x20);
    if (l == 'b' || l == 'o' || l == 'x') {
      i = 2;
      saw = '0';
      hex = l == 'x';
    }
  }
  for (; i < s.size(); ++i) {
    char c = s[i];
    char l = static_cast<char>(c | 0x20);
    if ((c >= '0' && c <= '9') || (hex && l >= 'a' && l <= 'f')) {
      saw = '0';
      continue;
    }
    if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

/// strconv.ParseUint(s, 0, 64) / ParseInt(s, 0, 64).
bool parse_integer(std::string_view s, bool is_signed, int64_t& i, uint64_t& u) {
  if (s.empty()) return false;
  bool neg = false;
  std::string_view body = s;
  if (is_signed && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body.empty()) return false;
  int base = 10;
  if (body[0] == '0') {
    if (body.size() >= 3 && (body[1] | 0x20) == 'x') {
      base = 16;
      body.remove_prefix(2);
    } else if (body.size() >= 3 && (body[1] | 0x20) == 'o') {
      base = 8;
      body.remove_prefix(2);
    } else if (body.size() >= 3 && (body[1] | 0x20) == 'b') {
      base = 2;
      body.remove_prefix(2);
    } else {
      base = 8;
      body.remove_prefix(1);
    }
  }
  uint64_t v = 0;
  bool any = false;
  bool seen_underscore = false;
  for (char c : body) {
    if (c == '_') {
      seen_underscore = true;
      continue;
    }
    int d = hex_digit(c);
    if (d < 0 || d >= base) return false;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) return false;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    any = true;
  }
  if (!any && !(base == 8 && body.empty())) return false;
  if (seen_underscore && !underscore_ok(s)) return false;
  if (!is_signed) {
    u = v;
    return true;
  }
  if (neg) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    i = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    i = static_cast<int64_t>(v);
  }
  return true;
}

/// strconv.ParseFloat(s, 64) for the forms the lexer lets through.
bool parse_float(std::string_view s, double& f) {
  std::string clean;
  bool hex = false;
  {
    std::string_view b = s;
    if (!b.empty() && (b[0] == '+' || b[0] == '-')) b.remove_prefix(1);
    hex = b.size() >= 2 && b[0] == '0' && (b[1] | 0x20) == 'x';
    if (b.size() >= 2 && b[0] == '0' && ((b[1] | 0x20) == 'o' || (b[1] | 0x20) == 'b')) {
      return false;
    }
  }
  if (s.find('_') != std::string_view::npos && !underscore_ok(s)) return false;
  for (char c : s) {
    if (c != '_') clean += c;
  }
  if (hex && clean.find_first_of("pP") == std::string::npos) return false;
  if (!hex && clean.find_first_of("pP") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(clean.c_str(), &end);
  if (end != clean.c_str() + clean.size()) return false;
  if (errno == ERANGE && std::isinf(v)) return false;
  f = v;
  return true;
}

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
      case Tok::LeftParen: return pipeline("parenthesized pipeline", Tok::RightParen);
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

  NodePtr number(const Token& t) {
    auto n = std::make_unique<NumberNode>(t.pos, t.val);
    std::string_view text = t.val;
    if (t.type == Tok::CharConstant) {
      size_t at = 1;
      char32_t r = 0;
      bool as_byte = false;
      if (text.size() < 2 || !unquote_char(text, at, '\'', r, as_byte)) errorf("invalid syntax");
      if (text.substr(at) != "'") errorf("malformed character constant: " + std::string(text));
      n->is_int = n->is_uint = n->is_float = true;
      n->i64 = r;
      n->u64 = r;
      n->f64 = r;
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
      double f = 0;
      if (parse_float(text, f)) {
        if (text.find_first_of(".eEpP") == std::string_view::npos) {
          errorf("integer overflow: " + go_quote(text));
        }
        n->is_float = true;
        n->f64 = f;
        if (f >= -9223372036854775808.0 && f < 9223372036854775808.0 &&
            static_cast<double>(static_cast<int64_t>(f)) == f) {
          n->is_int = true;
          n->i64 = static_cast<int64_t>(f);
        }
        if (f >= 0 && f < 18446744073709551616.0 &&
            static_cast<double>(static_cast<uint64_t>(f)) == f) {
          n->is_uint = true;
          n->u64 = static_cast<uint64_t>(f);
        }
      }
    }
    if (!n->is_int && !n->is_uint && !n->is_float)
      errorf("illegal number syntax: " + go_quote(text));
    return n;
  }

  Shared& m_sh;
  std::string m_name;
  std::unique_ptr<ListNode> m_root;
  std::array<Token, 3> m_token{};
  int m_peek_count = 0;
  std::vector<std::string_view> m_vars;
  int m_action_line = 0;
  int m_range_depth = 0;
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

}  // namespace ejob::render
