// Start-up of lean executables (cmake/EjobLean.cmake): the first stretch of malloc's heap is
// mapped with one madvise instead of page fault by page fault.
//
// A page fault costs 10-25 us on the development VM (a fault-per-page loop: ~10 us a page at
// best), MADV_POPULATE_WRITE ~2 us a page. Small objects come from small_alloc.cpp's range
// (populated there); what stays on malloc's heap (large strings, C libraries) fits the first
// 128 KiB that malloc maps. Measured (bench/README.md): `ejob template` of the starter chart
// takes ~0.9 ms less CPU with this than without. Populating the read-only segments too
// (MADV_POPULATE_READ of text and rodata, ~2100 pages) cut the page faults from 149 to 86 but
// cost ~0.7 ms more than it saved, so it is not done. On kernels before 5.14 madvise refuses
// the advice and nothing changes.

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {

constexpr size_t k_heap_bytes = 64 * 1024;

uintptr_t page_down(uintptr_t a) { return a & ~uintptr_t{4095}; }
uintptr_t page_up(uintptr_t a) { return page_down(a + 4095); }

void populate(uintptr_t begin, uintptr_t end, int advice) {
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}

/// Makes malloc map its heap (with a k_heap_bytes block) and populates it, and keeps it: malloc
/// hands that memory out again instead of returning it to the system (trim threshold) or
/// mapping new (mmap threshold). One arena: ejob runs its command on a thread of its own
/// (src/util/big_stack.hpp), whose allocations would otherwise go to a second arena, away from
/// the heap populated here and grown by an mprotect call at a time (14 in a render of vault's
/// chart, and 12 more page faults); large blocks are all that reach malloc (small_alloc.cpp).
void populate_heap() {
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  void* block = std::malloc(k_heap_bytes);
  if (block == nullptr) return;
  populate(page_up(reinterpret_cast<uintptr_t>(block)),
           page_down(reinterpret_cast<uintptr_t>(sbrk(0))), MADV_POPULATE_WRITE);
  std::free(block);
}

/// Runs before the other static constructors (priority 101).
__attribute__((constructor(101))) void prefault() { populate_heap(); }

}  // namespace
