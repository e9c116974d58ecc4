#include "src/render/text_template/exec.hpp"

#include <catch2/catch.hpp>
#include <cctype>
#include <cstring>

#include "src/render/text_template/parse.hpp"

namespace ejob::render::text_template {

using go::List;
using go::Map;
using go::Value;

namespace {

/// A minimal encoding/json decoder for test data: numbers become float64.
class MiniJson {
 public:
  explicit MiniJson(std::string_view s) : m_s(s) {}
  Value parse() {
    skip();
    char c = m_s[m_at];
    if (c == '{') {
      ++m_at;
      Map m;
      skip();
      if (m_s[m_at] == '}') return ++m_at, Value::map(std::move(m));
      while (true) {
        skip();
        std::string k = str();
        skip();
        ++m_at;  // ':'
        m[k] = parse();
        skip();
        if (m_s[m_at++] == '}') return Value::map(std::move(m));
      }
    }
    if (c == '[') {
      ++m_at;
      List l;
      skip();
      if (m_s[m_at] == ']') return ++m_at, Value::list(std::move(l));
      while (true) {
        l.push_back(parse());
        skip();
        if (m_s[m_at++] == ']') return Value::list(std::move(l));
      }
    }
    if (c == '"') return Value::string(str());
    if (m_s.substr(m_at, 4) == "null") return m_at += 4, Value();
    if (m_s.substr(m_at, 4) == "true") return m_at += 4, Value::boolean(true);
    if (m_s.substr(m_at, 5) == "false") return m_at += 5, Value::boolean(false);
    size_t end = m_at;
    while (end < m_s.size() && (std::isdigit(m_s[end]) || std::strchr("+-.eE", m_s[end]))) ++end;
    double d = std::stod(std::string(m_s.substr(m_at, end - m_at)));
    m_at = end;
    return Value::float64(d);
  }

 private:
  void skip() {
    while (m_at < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_at]))) ++m_at;
  }
  std::string str() {
    std::string out;
    ++m_at;
    while (m_s[m_at] != '"') out += m_s[m_at++];
    ++m_at;
    return out;
  }
  std::string_view m_s;
  size_t m_at = 0;
};

/// The functions the cases use: Go builtins plus Sprig's trunc/upper/list/dict signatures.
const FuncMap& test_funcs() {
  static const FuncMap funcs = [] {
    FuncMap m;
    register_builtins(m);
    m.add("trunc", Function{{Param::Int, Param::String}, false, false, [](const FuncArgs& a) {
                              // Sprig's trunc: negative counts keep the tail.
                              int64_t c = a[0].as_int();
                              const std::string& s = a[1].as_string();
                              auto len = static_cast<int64_t>(s.size());
                              if (c < 0 && len + c > 0) return Value::string(s.substr(len + c));
                              if (c >= 0 && len > c) return Value::string(s.substr(0, c));
                              return Value::string(s);
                            }});
    m.add("upper", Function{{Param::String}, false, false, [](const FuncArgs& a) {
                              std::string s = a[0].as_string();
                              for (char& c : s) c = static_cast<char>(std::toupper(c));
                              return Value::string(s);
                            }});
    m.add("list", Function{{Param::Any}, true, false, [](const FuncArgs& a) {
                             return Value::list(List(a.args.begin(), a.args.end()));
                           }});
    m.add("dict", Function{{Param::Any}, true, false, [](const FuncArgs& a) {
                             Map m;
                             for (size_t i = 0; i + 1 < a.size(); i += 2) {
                               m[a[i].as_string()] = a[i + 1];
                             }
                             return Value::map(std::move(m));
                           }});
    return m;
  }();
  return funcs;
}

/// Parses `text` as template "x" and executes it like the Go generator does.
std::string run(std::string_view text, const Value& data) {
  auto src = std::make_shared<Source>(Source{"x", std::string(text)});
  TemplateSet set;
  try {
    for (auto& [name, tree] : parse_source(src, test_funcs())) set.associate(tree);
  } catch (const ParseError& e) {
    return "PARSE: " + e.message;
  }
  std::string out;
  try {
    Executor(set, *set.find("x"), out).run(data);
  } catch (const ExecFailure& f) {
    return out + "EXEC: " + f.message;
  }
  return out;
}

struct Case {
  std::string_view text, data, want;
};

const Case k_cases[] = {
#include "src/render/text_template/testdata/core_exec_cases.inc"
};

}  // namespace

TEST_CASE("exec: every generated case renders what Go 1.19 renders") {
  for (const Case& c : k_cases) {
    INFO("template: " << c.text << "\ndata: " << c.data);
    CHECK(run(c.text, MiniJson(c.data).parse()) == c.want);
  }
}

// Helm is built with Go >= 1.24: `else with` (Go 1.23) and integer ranges (Go 1.22/1.24).
TEST_CASE("exec: else with chains like Go 1.23") {
  Value d = MiniJson(R"({"s": "str"})").parse();
  CHECK(run("{{ with .missing }}a{{ else with .s }}{{ . }}{{ end }}", d) == "str");
  CHECK(run("{{ with .missing }}a{{ else with .no }}b{{ else }}c{{ end }}", d) == "c");
}

TEST_CASE("exec: range over an integer constant iterates from zero") {
  CHECK(run("{{ range 3 }}{{ . }}{{ end }}", {}) == "012");
  CHECK(run("{{ range $x := 2 }}{{ $x }}{{ end }}", {}) == "01");
  CHECK(run("{{ range 0 }}x{{ else }}none{{ end }}", {}) == "none");
  CHECK(run("{{ range $i, $x := 2 }}{{ end }}", {}) ==
        "EXEC: template: x:1:19: executing \"x\" at <2>: can't use 2 to iterate over more than "
        "one variable");
}

TEST_CASE("exec: a values-file number cannot be ranged over") {
  // Go 1.19 and 1.23 agree: `range can't iterate over 42` (helm-template.md §1.4).
  CHECK(run("{{ range .n }}x{{ end }}", MiniJson(R"({"n": 42})").parse()) ==
        "EXEC: template: x:1:9: executing \"x\" at <.n>: range can't iterate over 42");
}

}  // namespace ejob::render::text_template

namespace ejob::render::text_template {

TEST_CASE("exec: runaway template recursion stops at Go's depth limit") {
  // Go 1.19: the 100000th nested {{template}} fails (deep nesting runs on a big stack).
  CHECK(run("{{ define \"r\" }}{{ template \"r\" . }}{{ end }}{{ template \"r\" . }}", {}) ==
        "EXEC: template: x:1:28: executing \"r\" at <{{template \"r\" .}}>: exceeded maximum "
        "template depth (100000)");
}

}  // namespace ejob::render::text_template
