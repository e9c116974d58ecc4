#include "src/render/text_template/funcs.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

namespace ejob::render::text_template {

Env Env::system() {
  Env env;
  env.now_unix_nanos = [] {
    return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count());
  };
  // Sprig's random functions are not reproducible in Helm either; seeded from the OS when a
  // template first draws (most renders never do: opening std::random_device asks the CPU
  // what it offers, a trap to the hypervisor on a VM, and the engine is 2.5 KiB to fill).
  struct Source {
    std::mutex lock;
    std::optional<std::mt19937_64> engine;
  };
  auto source = std::make_shared<Source>();
  env.random_u64 = [source] {
    std::lock_guard<std::mutex> guard(source->lock);
    if (!source->engine) source->engine.emplace(std::random_device{}());
    return (*source->engine)();
  };
  return env;
}

}  // namespace ejob::render::text_template
