#include "allocation/large_array.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>

namespace allocation {
namespace {

std::atomic<std::size_t> g_mapped_total{0};

std::size_t mapped_size(std::size_t bytes) {
  return (bytes + kLargeArrayBytes - 1) / kLargeArrayBytes * kLargeArrayBytes;
}

}  // namespace

void* large_array_allocate(std::size_t bytes) {
  if (bytes < kLargeArrayBytes) return ::operator new(bytes);
  // Over-map by one huge page and trim, so the array starts on a 2 MiB
  // boundary (a THP can only back an aligned 2 MiB range).
  const std::size_t size = mapped_size(bytes), span = size + kLargeArrayBytes;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kLargeArrayBytes - 1) & ~(kLargeArrayBytes - 1);
  if (aligned > start) munmap(raw, aligned - start);
  if (const std::uintptr_t tail = start + span - (aligned + size); tail > 0) {
    munmap(reinterpret_cast<void*>(aligned + size), tail);
  }
  madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
  g_mapped_total.fetch_add(bytes, std::memory_order_relaxed);
  return reinterpret_cast<void*>(aligned);
}

void large_array_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kLargeArrayBytes) return ::operator delete(p);
  munmap(p, mapped_size(bytes));
}

std::size_t large_array_mapped_total() {
  return g_mapped_total.load(std::memory_order_relaxed);
}

}  // namespace allocation
