#include "src/util/big_stack.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

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
