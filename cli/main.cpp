#include "cli/run.hpp"
#include "src/util/big_stack.hpp"

// The whole command runs on a big stack: templates, values and schemas nested as deep as Go's
// 1 GB goroutine stacks allow are rendered (or refused with Go's errors) instead of overflowing.
int main(int argc, char** argv) {
  return ejob::run_on_big_stack([&] { return ejob::cli::run(argc, argv); });
}
