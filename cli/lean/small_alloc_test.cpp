// cli/lean/small_alloc.cpp, linked into this test as into ejob: blocks never overlap, runs that
// empty serve other sizes, and blocks freed by another thread come back to their owner.
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

size_t ejob_small_alloc_region_used();

namespace {

/// A block of `size` bytes filled with a byte of its own, to find overlaps when it is checked.
struct Filled {
  std::unique_ptr<unsigned char[]> data;
  size_t size = 0;
  unsigned char mark = 0;
};

Filled filled(size_t size, unsigned char mark) {
  Filled f{std::unique_ptr<unsigned char[]>(new unsigned char[size]), size, mark};
  std::memset(f.data.get(), mark, size);
  return f;
}

bool intact(const Filled& f) {
  for (size_t i = 0; i < f.size; ++i)
    if (f.data[i] != f.mark) return false;
  return true;
}

}  // namespace

TEST_CASE("small blocks of mixed sizes never overlap, whatever the order of frees") {
  std::mt19937 random(7);
  std::vector<Filled> live;
  for (int step = 0; step < 200000; ++step) {
    if (!live.empty() && random() % 3 == 0) {
      size_t i = random() % live.size();
      REQUIRE(intact(live[i]));
      live[i] = std::move(live.back());
      live.pop_back();
    } else {
      live.push_back(filled(1 + random() % 600, static_cast<unsigned char>(step)));
    }
  }
  for (const Filled& f : live) REQUIRE(intact(f));
}

TEST_CASE("runs freed by one size are used again by another") {
  std::vector<std::unique_ptr<std::byte[]>> blocks;
  for (int i = 0; i < 50000; ++i) blocks.emplace_back(new std::byte[112]);
  blocks.clear();
  size_t used = ejob_small_alloc_region_used();
  for (int i = 0; i < 100000; ++i) blocks.emplace_back(new std::byte[40]);
  // 100000 blocks of 48 bytes fit in the runs that 50000 of 112 bytes emptied.
  CHECK(ejob_small_alloc_region_used() <= used + 64 * 4096);
}

TEST_CASE("blocks freed by another thread go back to the thread that owns their run") {
  for (int round = 0; round < 20; ++round) {
    std::vector<std::byte*> blocks;
    for (int i = 0; i < 20000; ++i) blocks.push_back(new std::byte[64]);
    std::thread other([&] {
      for (std::byte* b : blocks) delete[] b;
    });
    other.join();
  }
  // Twenty rounds of 20000 blocks freed remotely reuse the first round's runs.
  size_t used = ejob_small_alloc_region_used();
  std::vector<std::byte*> blocks;
  for (int i = 0; i < 20000; ++i) blocks.push_back(new std::byte[64]);
  CHECK(ejob_small_alloc_region_used() <= used + 64 * 4096);
  for (std::byte* b : blocks) delete[] b;
}

TEST_CASE("threads allocating and freeing each other's blocks keep them whole") {
  constexpr int k_threads = 4;
  std::vector<std::vector<Filled>> made(k_threads);
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t)
    threads.emplace_back([&made, t] {
      for (int i = 0; i < 20000; ++i)
        made[t].push_back(filled(16 + (i * 37) % 480, static_cast<unsigned char>(t * 50 + i)));
    });
  for (std::thread& t : threads) t.join();
  threads.clear();
  for (int t = 0; t < k_threads; ++t)
    threads.emplace_back([&made, t] {
      for (Filled& f : made[(t + 1) % k_threads]) {
        if (!intact(f)) throw std::runtime_error("a block was overwritten");
        f.data.reset();
      }
    });
  for (std::thread& t : threads) t.join();
}
