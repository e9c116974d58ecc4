#include "src/render/helm/glob.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "src/util/error.hpp"

namespace ejob::render::helm {
namespace {

TEST_CASE("render: filepath.Match stars stop at slashes") {
  CHECK(filepath_match("*.yaml", "a.yaml"));
  CHECK_FALSE(filepath_match("*.yaml", "dir/a.yaml"));
  CHECK(filepath_match("templates/*", "templates/x.yaml"));
  CHECK(filepath_match("a?c", "abc"));
  CHECK_FALSE(filepath_match("a?c", "a/c"));
  CHECK(filepath_match("[a-c]x", "bx"));
  CHECK(filepath_match("[^a-c]x", "dx"));
  CHECK(filepath_match(R"(\*)", "*"));
  CHECK(filepath_match("templates/.?*", "templates/.hidden"));
  CHECK_FALSE(filepath_match("templates/.?*", "templates/."));
}

/// Every short pattern (optionally starting with `*`) and name over a small alphabet: the fast
/// paths for literal and `*literal` patterns give what the general matcher gives for the same
/// pattern with its last character written as a class (`a` as `[a]`).
TEST_CASE("render: filepath.Match fast paths agree with the general matcher") {
  const std::string alphabet = "a.~/";
  auto all = [&](size_t max_len) {
    std::vector<std::string> out{""};
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].size() < max_len)
        for (char c : alphabet) out.push_back(out[i] + c);
    return out;
  };
  std::vector<std::string> names = all(4);
  int checked = 0;
  for (const std::string& body : all(3)) {
    if (body.empty() || body.back() == '/') continue;
    for (const std::string& pattern : {body, "*" + body}) {
      std::string general = pattern.substr(0, pattern.size() - 1) + "[" + pattern.back() + "]";
      for (const std::string& name : names) {
        if (filepath_match(pattern, name) != filepath_match(general, name)) {
          INFO(pattern << " " << name);
          CHECK(filepath_match(pattern, name) == filepath_match(general, name));
        }
        ++checked;
      }
    }
  }
  CHECK(checked > 10000);
}

TEST_CASE("render: filepath.Match reports a malformed pattern") {
  try {
    filepath_match("[", "x");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "syntax error in pattern");
  }
  CHECK_THROWS_AS(filepath_match("a[", "b"), Error);
}

TEST_CASE("render: gobwas globs know ** and {a,b}") {
  CHECK(Glob::compile("files/*.txt").match("files/a.txt"));
  CHECK_FALSE(Glob::compile("files/*.txt").match("files/sub/a.txt"));
  CHECK(Glob::compile("files/**.txt").match("files/sub/a.txt"));
  CHECK(Glob::compile("**").match("x/y/z"));
  CHECK(Glob::compile("{a,b}/*.conf").match("b/x.conf"));
  CHECK_FALSE(Glob::compile("{a,b}/*.conf").match("c/x.conf"));
  CHECK(Glob::compile("[!a]?").match("bc"));
  CHECK(Glob::compile("f[0-9].txt").match("f7.txt"));
  CHECK_THROWS_AS(Glob::compile("{a,b"), Error);
  CHECK(Glob::compile_or_all("[oops").match("any/thing"));
}

}  // namespace
}  // namespace ejob::render::helm
