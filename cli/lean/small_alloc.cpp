// operator new/delete for lean executables (cmake/EjobLean.cmake): objects of up to 512 bytes
// come from 4 KiB runs of one size each, carved from one reserved address range; anything
// larger, and everything once the range is used up, from malloc.
//
// The renderer allocates many small short-lived objects (parse nodes, map entries, strings):
// glibc's malloc and free were 38% of the instructions of an in-process render of the starter
// chart. A free-list hit here is a few instructions.
//
// Each run keeps its own free list and count of live blocks and belongs to one thread cache; a
// run whose blocks all came back returns to a pool shared by every size. The first version
// kept one free list per size for good, so memory once used for 112-byte map nodes (the deep
// copies of values that coalescing makes and drops) never held anything else: the big chart's
// peak RSS carried ~2 MiB of such stranded runs (bench/README.md). A block freed by a thread
// other than its run's owner goes, lock-free, on the run's remote list, and the run on its
// owner's list of runs to look at, which the owner goes through when it is out of room. The
// thread caches are static slots, never freed: a thread takes one at its first allocation and
// gives it up when it exits, and the next thread takes it over with its runs, so that frees
// after a thread's exit still reach live lists. Memory is never returned to the system
// (ejob's processes are short).

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

struct ThreadCache;

/// The head of a run; its blocks follow.
struct alignas(k_granule) Run {
  ThreadCache* owner;
  FreeBlock* free;                 // freed by the owner
  std::atomic<FreeBlock*> remote;  // freed by other threads
  char* bump;                      // [bump, end of run) was never handed out
  Run* prev;                       // in the owner's list of runs with room (in_room)
  Run* next;                       // ... or in the pool of empty runs
  Run* pending_next;               // in the owner's list of runs to look at (queued)
  uint32_t size_class;
  uint32_t live;  // handed out, and not yet back on `free`
  bool in_room;
  std::atomic<bool> queued;
};

/// A thread's runs: per size, the one it allocates from and a list of others with room.
struct ThreadCache {
  Run* current[k_classes];
  Run* room[k_classes];
  std::atomic<Run*> pending;  // runs with remote frees, pushed by the freeing threads
  std::atomic<bool> taken;    // by a live thread
};

struct Region {
  char* begin = nullptr;
  std::atomic<size_t> used{0};
};

Region g_region;

constexpr size_t k_caches = 64;  // threads beyond that many at once use malloc
ThreadCache g_caches[k_caches];

thread_local ThreadCache* t_cache = nullptr;
thread_local bool t_exited = false;

/// Gives the thread's cache up when the thread exits (constructed when it takes one).
struct CacheRelease {
  ~CacheRelease() {
    t_exited = true;
    if (ThreadCache* t = t_cache) {
      t_cache = nullptr;
      t->taken.store(false, std::memory_order_release);
    }
  }
};

thread_local CacheRelease t_release;

/// Takes a free cache slot for the thread; nullptr when none is free, or while the thread
/// exits (its frees then go to the runs' owners as other threads' do).
__attribute__((noinline)) ThreadCache* claim_cache() {
  if (t_exited || g_region.begin == nullptr) return nullptr;
  for (ThreadCache& c : g_caches) {
    bool taken = false;
    if (c.taken.compare_exchange_strong(taken, true, std::memory_order_acq_rel)) {
      static_cast<void>(&t_release);  // registers its destructor
      t_cache = &c;
      return t_cache;
    }
  }
  return nullptr;
}

ThreadCache* cache() {
  ThreadCache* t = t_cache;
  return t != nullptr ? t : claim_cache();
}

/// Empty runs, for any size; taken and given back under a spin lock, which only a thread out
/// of room in a size, or a run emptying, takes.
struct EmptyRuns {
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
  Run* head = nullptr;
};

EmptyRuns g_empty;

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

bool in_region(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto b = reinterpret_cast<uintptr_t>(g_region.begin);
  return b != 0 && a >= b && a - b < k_reserve;
}

Run* run_of(void* p) {
  return reinterpret_cast<Run*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{k_run - 1});
}

size_t block_size(size_t c) { return (c + 1) * k_granule; }

void link_room(ThreadCache& t, Run* r) {
  r->prev = nullptr;
  r->next = t.room[r->size_class];
  if (r->next != nullptr) r->next->prev = r;
  t.room[r->size_class] = r;
  r->in_room = true;
}

void unlink_room(ThreadCache& t, Run* r) {
  (r->prev != nullptr ? r->prev->next : t.room[r->size_class]) = r->next;
  if (r->next != nullptr) r->next->prev = r->prev;
  r->in_room = false;
}

void lock_empty() {
  while (g_empty.lock.test_and_set(std::memory_order_acquire)) {
  }
}

void unlock_empty() { g_empty.lock.clear(std::memory_order_release); }

/// An empty run of class c owned by t, from the pool or new from the region; nullptr when the
/// region is used up.
Run* take_empty_run(ThreadCache& t, size_t c) {
  lock_empty();
  Run* r = g_empty.head;
  if (r != nullptr) g_empty.head = r->next;
  unlock_empty();
  if (r == nullptr) {
    size_t at = g_region.used.fetch_add(k_run, std::memory_order_relaxed);
    if (at + k_run > k_reserve) return nullptr;
    r = new (g_region.begin + at) Run{};
  }
  r->owner = &t;
  r->free = nullptr;
  r->remote.store(nullptr, std::memory_order_relaxed);
  r->bump = reinterpret_cast<char*>(r) + sizeof(Run);
  r->size_class = static_cast<uint32_t>(c);
  r->live = 0;
  r->in_room = false;
  r->queued.store(false, std::memory_order_relaxed);
  return r;
}

/// Where a run of t that is not its current one belongs after blocks came back to it: the
/// pool when it is empty (and on no list of runs to look at), else the list of runs with room.
__attribute__((noinline)) void settle(ThreadCache& t, Run* r) {
  if (r == t.current[r->size_class]) return;
  if (r->live == 0 && !r->queued.load(std::memory_order_seq_cst)) {
    if (r->in_room) unlink_room(t, r);
    lock_empty();
    r->next = g_empty.head;
    g_empty.head = r;
    unlock_empty();
  } else if (r->free != nullptr && !r->in_room) {
    link_room(t, r);
  }
}

/// The blocks other threads freed in r, back on its own list.
void take_remote(Run* r) {
  FreeBlock* b = r->remote.exchange(nullptr, std::memory_order_seq_cst);
  while (b != nullptr) {
    FreeBlock* next = b->next;
    b->next = r->free;
    r->free = b;
    --r->live;
    b = next;
  }
}

/// The runs other threads freed blocks in since the last look.
void take_pending(ThreadCache& t) {
  Run* r = t.pending.exchange(nullptr, std::memory_order_acquire);
  while (r != nullptr) {
    Run* next = r->pending_next;
    r->queued.store(false, std::memory_order_seq_cst);  // before taking: later frees requeue
    take_remote(r);
    settle(t, r);
    r = next;
  }
}

/// A block of run r (of class c), or nullptr when r is full.
void* from_run(Run* r, size_t c) {
  if (FreeBlock* b = r->free) {
    r->free = b->next;
    ++r->live;
    return b;
  }
  if (static_cast<size_t>(reinterpret_cast<char*>(r) + k_run - r->bump) < block_size(c))
    return nullptr;
  void* p = r->bump;
  r->bump += block_size(c);
  ++r->live;
  return p;
}

/// The thread's current run of class c being full: its remote frees, else a run with room,
/// else an empty one, becomes current (a full run is in no list until a block of it is freed).
Run* next_run(ThreadCache& t, size_t c) {
  Run* r = t.current[c];
  if (r != nullptr && r->remote.load(std::memory_order_relaxed) != nullptr) {
    take_remote(r);
    if (r->free != nullptr) return r;
  }
  if (t.pending.load(std::memory_order_relaxed) != nullptr) take_pending(t);
  r = t.room[c];
  if (r != nullptr)
    unlink_room(t, r);
  else
    r = take_empty_run(t, c);
  if (r != nullptr) t.current[c] = r;
  return r;
}

/// Size class of a block of n bytes (n <= k_max_small; 0 bytes as 1).
size_t class_of(size_t n) { return (n - (n != 0 ? 1 : 0)) / k_granule; }

__attribute__((noinline)) void* allocate_slow(size_t n) {
  if (n <= k_max_small)
    if (ThreadCache* t = cache()) {
      size_t c = class_of(n);
      if (Run* r = t->current[c])
        if (void* p = from_run(r, c)) return p;
      if (Run* r = next_run(*t, c)) return from_run(r, c);
    }
  return std::malloc(n == 0 ? 1 : n);
}

/// The common case inline: a block of the thread's current run of the size.
__attribute__((always_inline)) inline void* allocate(size_t n) {
  ThreadCache* t = t_cache;
  if (n <= k_max_small && t != nullptr)
    if (Run* r = t->current[class_of(n)])
      if (void* p = from_run(r, class_of(n))) return p;
  return allocate_slow(n);
}

/// A block freed by a thread that does not own its run; the first one waiting puts the run on
/// its owner's list of runs to look at.
__attribute__((noinline)) void release_remote(Run* r, FreeBlock* b) {
  FreeBlock* head = r->remote.load(std::memory_order_relaxed);
  do {
    b->next = head;
  } while (!r->remote.compare_exchange_weak(head, b, std::memory_order_seq_cst,
                                            std::memory_order_relaxed));
  if (r->queued.exchange(true, std::memory_order_seq_cst)) return;
  ThreadCache* owner = r->owner;
  Run* pending = owner->pending.load(std::memory_order_relaxed);
  do {
    r->pending_next = pending;
  } while (!owner->pending.compare_exchange_weak(pending, r, std::memory_order_release,
                                                 std::memory_order_relaxed));
}

/// A block freed by a thread without a cache (none free, or exiting).
__attribute__((noinline)) void release_without_cache(Run* r, FreeBlock* b) {
  ThreadCache* t = cache();
  if (t == nullptr || r->owner != t) {
    release_remote(r, b);
    return;
  }
  b->next = r->free;
  r->free = b;
  --r->live;
  settle(*t, r);
}

/// The common case inline: a block of one of the thread's own runs.
__attribute__((always_inline)) inline void release(void* p) noexcept {
  if (p == nullptr) return;
  if (!in_region(p)) {
    std::free(p);
    return;
  }
  Run* r = run_of(p);
  auto* b = static_cast<FreeBlock*>(p);
  ThreadCache* t = t_cache;
  if (t == nullptr) return release_without_cache(r, b);
  if (r->owner != t) return release_remote(r, b);
  b->next = r->free;
  r->free = b;
  --r->live;
  if (t->current[r->size_class] != r) settle(*t, r);
}

void* allocate_or_throw(size_t n) {
  void* p = allocate(n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

/// Bytes of the reserved range handed out as runs so far (cli/lean/small_alloc_test.cpp).
size_t ejob_small_alloc_region_used() { return g_region.used.load(std::memory_order_relaxed); }

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
