#include "ejob/render/glob.hpp"

#include <catch2/catch.hpp>

#include "ejob/util/error.hpp"

namespace ejob::render {
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
}  // namespace ejob::render
