#include "src/render/text_template/funcs.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <random>

namespace ejob::render::text_template {

Env Env::system() {
  Env env;
  env.now_unix_nanos = [] {
    return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count());
  };
  // Sprig's random functions are not reproducible in Helm either; seeded from the OS.
  auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
  auto lock = std::make_shared<std::mutex>();
  env.random_u64 = [engine, lock] {
    std::lock_guard<std::mutex> guard(*lock);
    return (*engine)();
  };
  return env;
}

}  // namespace ejob::render::text_template
