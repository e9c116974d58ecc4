// The fast path must give what the full parser gives, or decline. Each text is compared with
// the full parser's result for the same text plus a comment line holding a tab (which keeps
// it out of the fast path and means nothing to YAML), and with the Go-verified load cases.
#include "src/render/yaml/fast.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "src/render/go/fmt.hpp"
#include "src/render/yaml/errors.hpp"
#include "src/render/yaml/load.hpp"

namespace ejob::render::yaml {

using go::Value;

namespace {

struct LoadCase {
  std::string text;
  std::string any;  // %#v of the interface{} result
  std::string any_error;
  std::string map;
  std::string map_error;
  std::string list_error;
};

#include "src/render/yaml/testdata/yaml_load_cases.inc"

constexpr std::string_view k_full_only = "\n#\t\n";

std::string go_syntax(const Value& v) {
  Value args[] = {v};
  return sprintf("%#v", args);
}

/// %#v of the full parser's result, or its error.
std::string full(const std::string& text) {
  std::string slow_text = text + std::string(k_full_only);
  REQUIRE_FALSE(yaml::load_simple(slow_text).has_value());
  YamlDecoded d = try_load_yaml(slow_text);
  return d.error.empty() ? go_syntax(d.value) : "error: " + d.error;
}

const std::vector<std::string> k_accepted = {
    "",
    "# only a comment\n\n",
    "a: 1\nb: two\nc: true\nd: ~\ne: null\nf: 1.5\ng: 0x1F\nh: yes\ni: 2006-01-02\n",
    "a: 'it''s'\nb: \"x y\"  # c\nc: ''\n'q k': 1\n\"d k\": 2\n",
    "a: {}\nb: []\nc: {}  # none\n",
    "a:\n  b:\n    c: d\n  e: f\ng: h\n",
    "list:\n  - a\n  - 1\n  -\n  - ''\n",
    "list:\n- a\n- b\nnext: 1\n",
    "- host: x\n  paths:\n    - path: /\n      pathType: Prefix\n- host: y\n",
    "a: |\n  line 1\n\n  line 3\n    indented\nb: 1\n",
    "a: |-\n  x\n  y\n\n\nb: |\n  # not a comment\n",
    "- |\n  text\n- |-\n  more\n",
    "a:\n  scalar on next line\nb: 1\n",
    "yes: 1\non: 2\n1: a\n1.5: b\n0x10: c\n",
    "a: b # comment\nc: d#e\nf: http://x:80/y\ng: a,b[c]{d}\n",
    "a: -1\nb: -x\nc: 1_000\nd: 0777\ne: .5\nf: 1e3\n",
    "dup: 1\ndup: 2\n",
    "  indented: map\n  second: 2\n",
    "just a scalar\n",
    "- a\n- b\n",
    "a:\n  - x\n  # comment between\n  - y\n",
    "metadata:\n  annotations:\n    \"helm.sh/hook\": test\n",
    "command: ['wget']\nargs: [ \"a b\", 1, true, x.y/z , 'it''s' ]  # c\n",
    "- [a, b]\n- [\"--flag=1\", -1, 1.5, null, a b]\n",
    "a: \"x\\ny\\tz\\r\"\nb: \"say \\\"hi\\\" \\\\ \"\n",
    "s: \"{\\\"k\\\":\\\"\\u003cv\\u003e \\u0026\\u0041\\\"}\"\n\"k\\\"1\": 2\n",
    "a: [\"x\\\"y\", \"\\u0020\"]\n",
    "a: 'multi\n  line'\n",
    "rule: '!(self.mode == ''sidecar'' && x) ||\n  !has(self.y)'\nmessage: m\n",
    "a: ' x  \n\n   y  \n  z '\nb: 1\n",
    "a: 'x\n\n\n  y'\n",
    "a: 'x\n   \n  y'\n",
    "- 'a\n  b # not a comment'\n- c\n",
    "a:\n  b: 'one\n    two\n   '  # c\n  c: d\n",
    "- a:\n  - x\n  - y\n  b: 1\n- c\n",
    "versions:\n- cols:\n  - jsonPath: .x\n    name: Age\n  - name: V\n  name: v1\n  served: "
    "true\n",
    "- a:\n  - b:\n    - c\n    d: 1\n  e:\n  - f\n",
    "- a:\n  -\n  - 'x'\n",
    "description: HorizontalPodAutoscalerConfig specifies horizontal\n  scale config\nb: 1\n",
    "a:\n  b: one\n    two\n\n\n    three   \n  c: 1\n",
    "- one\n  two\n- 3\n  4\n",
    "- k: v\n    w\n  l: 1\n",
    "a: b\n  # comment\nc: d\n",
    "a: true\n  x\nb: 1\n  2\n",
    "d: a duration (e.g.\n  \"2m\", \"1h\")\ne: it\n  'is'\n",
    "f: like `kubectl apply\n  --dry-run` and\n  -1\n",
    "a: caf\xc3\xa9\n",
    "# \xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x80\x94 \xe2\x9a\xa0\xef\xb8\x8f\na: b  # "
    "\xe2\x80\x99\n",
    "k\xc3\xa9y: v\xc3\xa9\nl:\n- \xe2\x8c\x8a(n-1)/2\xe2\x8c\x8b\n",
    "a: '\xe2\x9c\xa8 x'\nb: \"\xc3\xa9\"\n\"\xc3\xa9\": 1\n",
    "a: |\n  caf\xc3\xa9\n  \xf0\x9f\x9a\x80\n",
    "a: x\xc2\xa0\nb: \xef\xbf\xbd\n",
    "d: a long\n  caf\xc3\xa9 text\n",
    "a: :8080\nb: ?x\nc: -y\n:k: 1\n?q: 2\n",
    "- :x\n- ?y\n",
    "a: |\n  x",
    "a: |-\n  x",
    "a: >\n  folded\n",
    "a: >\n  x\n  y\n\n  z\n   w\n  v\n\n\n   u\n  t\nb: 1\n",
    "a: >-\n  one\n  two\n\n\n  three\n",
    "- >\n  x\n   more\n  less\n  # text\n- >-\n  x\n",
    "a: |\n\n  x\n",
    "a: >\n\n \n  x\n  y\n",
    "a: |-\n\n\n  x\n\n  y\n",
    "key : v\nk2   :   w\n",
    "maxUnavailable : 25%\nl :\n  - 1\n",
    "affinity: |\n\n# next\nb: 1\n",
    "a:\n  affinity: |\n\n  # next\n  b: >-\n  c: |\n     \n  d: 1\n",
    "a: |\n",
    "- |-\n- x\n",
};

const std::vector<std::string> k_declined = {
    "a: [a, [b]]\n",
    "a: [a, {b: c}]\n",
    "a: [a,]\n",
    "a: [a, , b]\n",
    "a: [a: b]\n",
    "a: [a\n  , b]\n",
    "a: [a] b\n",
    "a: [- a]\n",
    "a: [ ]\n",
    "a: ['x\\y', \"x\\y\"]\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: {b: c}\n",
    "a: \"x\\ 1\"\n",
    "a: \"x\\/y\"\n",
    "a: \"x\\0\"\n",
    "a: \"\\x41\"\n",
    "a: \"\\u00e9\"\n",
    "a: \"\\u001b\"\n",
    "a: \"\\u12\"\n",
    "a: \"x\\\n  y\"\n",
    "a: '\n  line'\n",
    "a: 'x\ny'\n",
    "a:\n  b: 'x\n  y'\n",
    "a: 'x\n  y' z\n",
    "a: 'x\n  y\n",
    "a: b\n  c: d\n",
    "a: b\n  - c\n",
    "a: b # x\n  c\n",
    "a: b\n  c #d\n",
    "a: b\n  # comment\n  c\n",
    "a:\tb\n",
    "a: b\r\n",
    "---\na: 1\n",
    "a: 1\n...\n",
    "%YAML 1.1\n---\na: 1\n",
    "<<: {a: 1}\n",
    "a: |+\n  keep\n",
    "a: |2\n  x\n",
    "a: b: c\n",
    "a: 1\n b: 2\n",
    "a:\n  b: 1\n c: 2\n",
    "- a\nb: 1\n",
    "a: .inf\n",
    "? a\n: b\n",
    "a: @x\n",
    "~: 1\n",
    "a: |\n  x\n   \n",
    "- - a\n",
    "a: 'x' y\n",
    "a: >\n\n    \n  x\n",
    "a: >+\n  keep\n",
    "- >\n   more\n  less\n",
    "a: > # comment\n  x\n",
    ">\n  x\n",
    "a: x\xc2\x85y\n",
    "a: x\xe2\x80\xa8y\n",
    "a: x\xe2\x80\xa9y\n",
    "\xef\xbb\xbf"
    "a: 1\n",
    "a: \xef\xbb\xbfx\n",
    "a: \xc2\x80\n",
    "a: \xff\n",
    "a: \xc3\n",
    "a: x\xc3\n",
    "a: \xef\xbf\xbe\n",
    "a: \xed\xa0\x80\n",
    "a: \x7f\n",
    ": x\n",
    "a: : x\n",
};

TEST_CASE("yaml_fast: the simple subset gives what the full parser gives") {
  for (const std::string& text : k_accepted) {
    INFO(text);
    std::optional<Value> fast = yaml::load_simple(text);
    REQUIRE(fast.has_value());
    CHECK(go_syntax(*fast) == full(text));
  }
}

TEST_CASE("yaml_fast: anything else is left to the full parser") {
  for (const std::string& text : k_declined) {
    INFO(text);
    CHECK_FALSE(yaml::load_simple(text).has_value());
  }
}

TEST_CASE("yaml_fast: what go-yaml's reader refuses is left to the full parser") {
  // load.cpp runs the reader's check only where the fast path declines
  for (const char* text :
       {"a: \x01\n", "a: b\x7F\n", "a: \xC2\x80\n", "a: \xEF\xBF\xBE\n", "a: \xEF\xBF\xBF\n",
        "\xFF: 1\n", "a: \xC2\n", "a: \xC2x\n", "a: \xED\xA0\x80\n", "a: \xF4\x90\x80\x80\n",
        "# \x1B[0m\na: 1\n", "a: |\n  \x08\n"}) {
    INFO(text);
    size_t at = 0;
    CHECK_FALSE(go_reader_error(text, at).empty());
    CHECK_FALSE(yaml::load_simple(text).has_value());
  }
}

/// The value with the top-level keys `keep` turns down erased.
Value kept_part(Value v, TopKeyFilter keep) {
  if (!v.is_map()) return v;
  go::Map m = v.as_map();
  std::erase_if(m, [&](const auto& entry) { return !keep(entry.first); });
  return Value::map(std::move(m));
}

TEST_CASE("yaml_fast: top-level keys turned down are checked as any other and left out") {
  const TopKeyFilter keep = [](std::string_view key) { return key == "a" || key == "list"; };
  std::vector<std::string> texts = k_accepted;
  texts.insert(texts.end(), k_declined.begin(), k_declined.end());
  for (const auto& c : k_load_cases) texts.push_back(c.text);
  int left_out = 0;
  for (const std::string& text : texts) {
    INFO(text);
    const std::optional<Value> all = yaml::load_simple(text);
    const std::optional<Value> some = yaml::load_simple(text, keep);
    REQUIRE(all.has_value() == some.has_value());
    if (!all) continue;
    CHECK(go_syntax(*some) == go_syntax(kept_part(*all, keep)));
    if (go_syntax(*some) != go_syntax(*all)) ++left_out;
  }
  CHECK(left_out > 10);
}

TEST_CASE("yaml_fast: a refused byte is found wherever it stands in a long line") {
  // the bytes of a line are looked at eight at a time: put each kind of byte at each place
  const std::string value = "abcdefghijklmnopqrstuvwx";
  for (size_t at = 0; at <= value.size(); ++at) {
    for (const char* refused : {"\x01", "\x09", "\x1F", "\x7F", "\x80", "\xC3"}) {
      const std::string text = "key: " + value.substr(0, at) + refused + value.substr(at) + "\n";
      INFO(at << " " << static_cast<int>(static_cast<unsigned char>(refused[0])));
      CHECK_FALSE(yaml::load_simple(text).has_value());
    }
    const std::string accented = value.substr(0, at) + "\xC3\xA9" + value.substr(at);
    const std::optional<Value> v = yaml::load_simple("key: " + accented + "\n");
    REQUIRE(v.has_value());
    CHECK(v->as_map().at("key").as_string() == accented);
  }
}

TEST_CASE("yaml_fast: Go-verified load cases, where the fast path answers") {
  int answered = 0;
  for (const auto& c : k_load_cases) {
    INFO(c.text);
    std::optional<Value> fast = yaml::load_simple(c.text);
    if (!fast) continue;
    ++answered;
    CHECK(c.any_error.empty());
    CHECK(go_syntax(*fast) == c.any);
  }
  CHECK(answered > 10);
}

}  // namespace
}  // namespace ejob::render::yaml

namespace ejob::render::yaml {
namespace {

/// `k0:` / ` k1:` / … nested `levels` deep (one more space per level), the innermost `v: 1`.
std::string nested_mappings(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += std::string(i, ' ') + "k" + std::to_string(i) + ":\n";
  return text + std::string(levels, ' ') + "v: 1\n";
}

}  // namespace

TEST_CASE("fast path: block mappings nested 2000 deep load, as go-yaml's 10000 allow") {
  // yaml-cpp refuses such text past ~500 levels ("bad file"); go-yaml, and so Helm, read it.
  std::optional<Value> v = yaml::load_simple(nested_mappings(2000));
  REQUIRE(v.has_value());
  const Value* node = &*v;
  for (int i = 0; i < 2000; ++i) {
    auto it = node->as_map().find("k" + std::to_string(i));
    REQUIRE(it != node->as_map().end());
    node = &it->second;
  }
  CHECK(node->as_map().at("v").as_float() == 1);
}

}  // namespace ejob::render::yaml
