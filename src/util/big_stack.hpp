#pragma once
/// Running a computation on a thread with a very large stack. Go's goroutine stacks grow to 1 GB,
/// so text/template, the YAML/JSON codecs and their callers render inputs nested 100000 deep
/// where ejob's recursion of the same shape would overflow an 8 MiB thread stack.

#include <cstddef>
#include <functional>

namespace ejob {

/// The stack reserved by run_on_big_stack: address space only; pages cost memory when touched.
inline constexpr std::size_t k_big_stack_bytes = std::size_t{4} << 30;

/// Runs fn on a new thread whose stack is `stack_bytes` (reserved, committed as touched), waits
/// for it, and returns fn's result or rethrows its exception. Should that stack still run out,
/// the process prints a clear `ejob: error:` line and exits with status 3 instead of crashing.
/// Where no such thread can be made, fn runs on the calling thread.
int run_on_big_stack(const std::function<int()>& fn, std::size_t stack_bytes = k_big_stack_bytes);

}  // namespace ejob
