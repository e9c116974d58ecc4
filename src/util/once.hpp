#pragma once
/// Running something once, from any thread, as std::call_once does, without its system call:
/// under call_once, glibc's pthread_once wakes waiters with a futex call every time it has run
/// a function, whether a thread waits or not. A render that reads 55 chart files when first
/// needed made 55 of them, and a system call is dear on this VM's kernel (bench/README.md). An
/// atomic flag is read on the way in; the mutex is taken only until the first run succeeds.

#include <atomic>
#include <mutex>

namespace ejob {

class Once {
 public:
  /// Runs `f` unless a call has already returned from it. A throw leaves it not run: the
  /// next call tries again (as with call_once).
  template <typename Function>
  void run(Function&& f) {
    if (m_done.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_done.load(std::memory_order_relaxed)) return;
    f();
    m_done.store(true, std::memory_order_release);
  }

 private:
  std::atomic<bool> m_done{false};
  std::mutex m_mutex;
};

}  // namespace ejob
