// Internal: an std::allocator replacement for the allocator's big per-pass
// arrays (target items, the duplicate table, strategy inputs), whose first
// touch dominates a pass on a VM: 100k targets fault in ~20 MB of fresh
// 4 KiB pages per pass. Arrays of at least kLargeArrayBytes get their own
// 2 MiB-aligned mapping with transparent huge pages requested
// (MADV_HUGEPAGE; a no-op where THP is off), so they fault once per 2 MiB.
// Freed mappings are kept (up to 256 MiB) and reused by later requests of
// up to their size, so a pass that repeats the last one's sizes neither
// faults nor waits for the kernel to clear pages.
// Contract: behaves as std::allocator<T> (stateless, all instances equal);
// smaller arrays come from operator new. Memory only: no file I/O.
#pragma once

#include <cstddef>
#include <new>

namespace allocation {

inline constexpr std::size_t kLargeArrayBytes = std::size_t{1} << 21;

void* large_array_allocate(std::size_t bytes);
void large_array_free(void* p, std::size_t bytes) noexcept;
// Bytes requested through large arrays so far, reused mappings included (for allocation counts in
// benchmarks, which hook operator new and would miss these).
std::size_t large_array_mapped_total();

template <class T>
struct LargeArrayAllocator {
  using value_type = T;
  LargeArrayAllocator() = default;
  template <class U>
  LargeArrayAllocator(const LargeArrayAllocator<U>&) {}  // NOLINT: rebinding, as std::allocator

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(large_array_allocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { large_array_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const LargeArrayAllocator<U>&) const {
    return true;
  }
};

}  // namespace allocation
