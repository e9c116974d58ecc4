#include "src/util/big_stack.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

namespace {

// Recursion whose frames cannot be folded away: each keeps a buffer live across the call.
int descend(int n) {
  volatile char frame[256];
  frame[0] = static_cast<char>(n);
  if (n == 0) return frame[0];
  return descend(n - 1) + 1 + frame[0] - static_cast<char>(n);
}

}  // namespace

TEST_CASE("big stack: recursion far past 8 MiB (about 400 MiB of frames) completes") {
  CHECK(ejob::run_on_big_stack([] { return descend(1500000); }) == 1500000);
}

TEST_CASE("big stack: the result and exceptions come back to the caller") {
  CHECK(ejob::run_on_big_stack([] { return 7; }) == 7);
  CHECK_THROWS_WITH(ejob::run_on_big_stack([]() -> int { throw std::runtime_error("boom"); }),
                    "boom");
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
// (The sanitizers keep their own watch on stack overflows: in their builds this case is not
// compiled.)
TEST_CASE("big stack: running out of it is an error line and exit status 3, not a crash") {
  int err[2];
  REQUIRE(pipe(err) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    dup2(err[1], STDERR_FILENO);
    // 64 MiB, so that the test touches little memory: the 4 GiB stack behaves the same
    ejob::run_on_big_stack([] { return descend(1 << 30); }, std::size_t{64} << 20);
    _exit(0);
  }
  close(err[1]);
  std::string stderr_text;
  char buf[256];
  for (ssize_t n; (n = read(err[0], buf, sizeof buf)) > 0;)
    stderr_text.append(buf, static_cast<size_t>(n));
  close(err[0]);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(stderr_text ==
        "ejob: error: the input is nested too deeply: the renderer's stack (64 MiB) is "
        "exhausted\n");
}
#endif
