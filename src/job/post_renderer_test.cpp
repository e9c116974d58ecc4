#include "src/job/post_renderer.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

namespace ejob::job {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

TEST_CASE("post-renderer: a name is looked up in PATH and made absolute") {
  std::string cat = find_post_renderer("cat");
  CHECK(cat.starts_with("/"));
  CHECK(cat.ends_with("/cat"));
  CHECK(find_post_renderer("/bin/../bin/cat") == "/bin/cat");
  CHECK(error_of([] { find_post_renderer("no-such-renderer-x"); }) ==
        "invalid argument \"no-such-renderer-x\" for \"--post-renderer\" flag: unable to find "
        "binary at no-such-renderer-x: exec: \"no-such-renderer-x\": executable file not found "
        "in $PATH");
  CHECK(error_of([] { find_post_renderer("./nope"); }) ==
        "invalid argument \"./nope\" for \"--post-renderer\" flag: unable to find binary at "
        "./nope: exec: \"./nope\": stat ./nope: No such file or directory");
}

TEST_CASE("post-renderer: stdin to stdout, however large, while the child writes back") {
  std::string big;
  for (int i = 0; i < 200000; ++i) big += "line " + std::to_string(i) + "\n";
  CHECK(run_post_renderer(find_post_renderer("cat"), {}, big) == big);
  CHECK(run_post_renderer(find_post_renderer("sed"), {"s/a/b/"}, "a\n") == "b\n");
  CHECK(run_post_renderer(find_post_renderer("echo"), {"x"}, "") == "x\n");
}

TEST_CASE("post-renderer: a failure is Helm's message with the stderr and the exit status") {
  std::string sh = find_post_renderer("sh");
  CHECK(error_of([&] {
          run_post_renderer(sh, {"-c", "echo oops >&2; exit 3"}, "in");
        }) == "error while running post render on files: error while running command " + sh +
                  ". error output:\noops\n: exit status 3");
  // A renderer that exits without reading its input is not a crash of ours (SIGPIPE).
  std::string big(1 << 20, 'x');
  CHECK(run_post_renderer(sh, {"-c", "exit 0"}, big).empty());
}

}  // namespace
}  // namespace ejob::job
