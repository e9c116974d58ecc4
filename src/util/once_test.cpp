#include "src/util/once.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <thread>
#include <vector>

using ejob::Once;

TEST_CASE("once: the function runs one time, whichever threads ask") {
  Once once;
  std::atomic<int> runs{0};
  std::atomic<int> saw_done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        once.run([&] { ++runs; });
        // whoever returns from run sees what the run did
        if (runs.load() == 1) ++saw_done;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(runs == 1);
  CHECK(saw_done == 8000);
}

TEST_CASE("once: a throw leaves it not run, and the next call runs it") {
  Once once;
  int runs = 0;
  CHECK_THROWS_AS(once.run([&] {
    ++runs;
    throw std::runtime_error("unreadable");
  }),
                  std::runtime_error);
  once.run([&] { ++runs; });
  once.run([&] { ++runs; });
  CHECK(runs == 2);
}
