#include "src/util/keep.hpp"

#include <atomic>
#include <mutex>
#include <vector>

namespace ejob {

namespace {

std::atomic<bool> g_keeping{false};

/// Never destroyed, so that what it holds is not freed at exit either; a leak checker sees
/// it reachable.
struct Kept {
  std::mutex lock;
  std::vector<std::shared_ptr<const void>> objects;
};

Kept& kept() {
  static Kept* const k_kept = new Kept;
  return *k_kept;
}

}  // namespace

void keep_until_exit(std::shared_ptr<const void> object) {
  if (!g_keeping.load(std::memory_order_relaxed) || !object) return;
  Kept& k = kept();
  const std::lock_guard<std::mutex> hold(k.lock);
  k.objects.push_back(std::move(object));
}

void set_keep_until_exit(bool on) { g_keeping.store(on); }

}  // namespace ejob
