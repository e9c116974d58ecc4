#include "src/util/big_stack.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>

namespace ejob {
namespace {

// The lowest pages of the reserved stack stay inaccessible: running into them is what a stack
// overflow looks like, and the SIGSEGV handler tells it from any other fault by address.
constexpr std::size_t k_guard_bytes = std::size_t{1} << 20;
constexpr std::size_t k_alt_stack_bytes = std::size_t{64} << 10;

/// The message of an overflow, written before the command runs (a signal handler cannot format).
char g_overflow_message[128];
int g_overflow_length = 0;

void prepare_overflow_message(std::size_t stack_bytes) {
  const std::size_t mib = stack_bytes >> 20;
  g_overflow_length = std::snprintf(
      g_overflow_message, sizeof g_overflow_message,
      "ejob: error: the input is nested too deeply: the renderer's stack (%zu %s) is exhausted\n",
      mib >= 1024 ? mib >> 10 : mib, mib >= 1024 ? "GiB" : "MiB");
}

struct Job {
  const std::function<int()>* fn;
  int result = 0;
  std::exception_ptr error;
  char* guard_begin = nullptr;
};

// Async-signal-safe reads only: the guard range of the one big stack in use.
std::uintptr_t g_guard_begin = 0;
std::uintptr_t g_guard_end = 0;

void on_segv(int sig, siginfo_t* info, void*) {
  auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (addr >= g_guard_begin && addr < g_guard_end) {
    ssize_t n = write(STDERR_FILENO, g_overflow_message, static_cast<size_t>(g_overflow_length));
    (void)n;
    _exit(3);  // docs/exit-codes.md: bad input
  }
  signal(sig, SIG_DFL);  // any other fault: let it crash as it would have
}

/// Gives this thread an alternate signal stack (the faulting one is full) and the handler.
void install_overflow_handler(void* alt_stack) {
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = k_alt_stack_bytes;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
}

void* job_main(void* arg) {
  Job& job = *static_cast<Job*>(arg);
  // The alternate stack lives in the guard's top page range, which is made accessible for it.
  char* alt = job.guard_begin + k_guard_bytes - k_alt_stack_bytes;
  if (mprotect(alt, k_alt_stack_bytes, PROT_READ | PROT_WRITE) == 0) {
    install_overflow_handler(alt);
  }
  try {
    job.result = (*job.fn)();
  } catch (...) {
    job.error = std::current_exception();
  }
  return nullptr;
}

/// Starts job on a thread with the given stack, joins it; false when no thread could start.
bool run_thread(Job& job, char* stack, std::size_t size) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, stack + k_guard_bytes, size - k_guard_bytes);
  pthread_t thread;
  int rc = pthread_create(&thread, &attr, job_main, &job);
  pthread_attr_destroy(&attr);
  if (rc != 0) return false;
  // Signals sent to the process (SIGINT of port-forward and logs -f, SIGTERM, SIGCHLD of the
  // local supervisor) must reach the thread that runs the command, with the mask and handlers
  // it set up, as they reached the main thread before: this waiting thread blocks them all.
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  pthread_join(thread, nullptr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return true;
}

}  // namespace

int run_on_big_stack(const std::function<int()>& fn, std::size_t stack_bytes) {
  void* mem = mmap(nullptr, stack_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (mem == MAP_FAILED) return fn();
  auto* stack = static_cast<char*>(mem);
  mprotect(stack, k_guard_bytes, PROT_NONE);
  Job job{&fn};
  job.guard_begin = stack;
  prepare_overflow_message(stack_bytes);
  g_guard_begin = reinterpret_cast<std::uintptr_t>(stack);
  g_guard_end = g_guard_begin + k_guard_bytes - k_alt_stack_bytes;
  bool ran = run_thread(job, stack, stack_bytes);
  g_guard_begin = g_guard_end = 0;
  munmap(mem, stack_bytes);
  if (!ran) return fn();
  if (job.error) std::rethrow_exception(job.error);
  return job.result;
}

}  // namespace ejob
