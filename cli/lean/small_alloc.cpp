// operator new/delete for lean executables (cmake/EjobLean.cmake): objects of up to 512 bytes
// come from per-thread free lists over 4 KiB runs of one size each, carved from one reserved
// address range; anything larger, and everything once the range is used up, from malloc.
//
// The renderer allocates many small short-lived objects (parse nodes, map entries, strings):
// glibc's malloc and free were 38% of the instructions of an in-process render of the starter
// chart. A free-list hit here is a few instructions. Blocks freed by another thread join that
// thread's lists. Memory is never returned to the system (ejob's processes are short).
//
// Measured (bench/README.md; CPU medians of interleaved runs on the 2-core development VM):
// `ejob template` of the starter chart runs 0.98 M fewer instructions (3.50 M -> 2.52 M) and
// takes ~0.55 ms less CPU than with malloc alone; the in-process render is ~1.7x faster.
// Populating the first 256 KiB of the range up front (a template uses ~230 KiB) is worth
// ~0.8 ms of the process: a page fault costs 10-25 us on this VM, populating a page ~2 us.
// The range was 4 GiB at first: merely reserving that much cost every process ~0.6 ms, so it
// is 64 MiB (a thousand in-process renders use under 200 KiB of it).

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr size_t k_granule = 16;  // the default new alignment
constexpr size_t k_max_small = 512;
constexpr size_t k_classes = k_max_small / k_granule;
constexpr size_t k_run = 4096;                  // one size class per run, run-aligned
constexpr size_t k_reserve = size_t{64} << 20;  // address space, not memory
constexpr size_t k_populated = 256 * 1024;      // mapped up front (see prefault.cpp)

struct FreeBlock {
  FreeBlock* next;
};

/// A run starts with its size class; its blocks follow.
struct RunHeader {
  size_t size_class;
  size_t pad;
};
static_assert(sizeof(RunHeader) == k_granule);

struct Region {
  char* begin = nullptr;
  std::atomic<size_t> used{0};
};

Region g_region;

/// Reserved before other static constructors run (priority 101); until then, and when the
/// reservation fails, everything goes to malloc.
__attribute__((constructor(101))) void reserve_region() {
  void* p = mmap(nullptr, k_reserve, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return;
#ifdef MADV_POPULATE_WRITE
  madvise(p, k_populated, MADV_POPULATE_WRITE);
#else
  madvise(p, k_populated, 23);  // MADV_POPULATE_WRITE (Linux 5.14); refused before
#endif
  g_region.begin = static_cast<char*>(p);
}

struct ThreadCache {
  FreeBlock* free[k_classes] = {};
  char* next[k_classes] = {};
  char* end[k_classes] = {};
};

thread_local ThreadCache t_cache;

bool in_region(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto b = reinterpret_cast<uintptr_t>(g_region.begin);
  return b != 0 && a >= b && a - b < k_reserve;
}

/// A block of class `c` from a new run, or nullptr when the region is used up.
void* from_new_run(ThreadCache& t, size_t c) {
  size_t at = g_region.used.fetch_add(k_run, std::memory_order_relaxed);
  if (at + k_run > k_reserve) return nullptr;
  char* run = g_region.begin + at;
  reinterpret_cast<RunHeader*>(run)->size_class = c;
  size_t size = (c + 1) * k_granule;
  t.next[c] = run + sizeof(RunHeader) + size;
  t.end[c] = run + k_run;
  return run + sizeof(RunHeader);
}

void* allocate(size_t n) {
  if (n <= k_max_small && g_region.begin != nullptr) {
    size_t c = n == 0 ? 0 : (n - 1) / k_granule;
    ThreadCache& t = t_cache;
    if (FreeBlock* b = t.free[c]) {
      t.free[c] = b->next;
      return b;
    }
    size_t size = (c + 1) * k_granule;
    if (t.next[c] != nullptr && static_cast<size_t>(t.end[c] - t.next[c]) >= size) {
      void* p = t.next[c];
      t.next[c] += size;
      return p;
    }
    if (void* p = from_new_run(t, c)) return p;
  }
  return std::malloc(n == 0 ? 1 : n);
}

void release(void* p) noexcept {
  if (p == nullptr) return;
  if (!in_region(p)) {
    std::free(p);
    return;
  }
  auto run = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{k_run - 1};
  size_t c = reinterpret_cast<const RunHeader*>(run)->size_class;
  ThreadCache& t = t_cache;
  auto* b = static_cast<FreeBlock*>(p);
  b->next = t.free[c];
  t.free[c] = b;
}

void* allocate_or_throw(size_t n) {
  void* p = allocate(n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(size_t n) { return allocate_or_throw(n); }
void* operator new[](size_t n) { return allocate_or_throw(n); }
void* operator new(size_t n, const std::nothrow_t& /*tag*/) noexcept { return allocate(n); }
void* operator new[](size_t n, const std::nothrow_t& /*tag*/) noexcept { return allocate(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, size_t /*n*/) noexcept { release(p); }
void operator delete[](void* p, size_t /*n*/) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t& /*tag*/) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t& /*tag*/) noexcept { release(p); }
