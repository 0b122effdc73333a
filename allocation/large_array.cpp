#include "allocation/large_array.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

namespace allocation {
namespace {

// Freed mappings kept for reuse, up to this many bytes: each pass frees and
// re-requests arrays of the same sizes, and a fresh mapping costs a page
// fault plus a kernel clear of every 2 MiB page (a quarter of a 100k-target
// pass when nothing was kept).
constexpr std::size_t kKeepBytes = std::size_t{256} << 20;

std::atomic<std::size_t> g_mapped_total{0};

std::size_t mapped_size(std::size_t bytes) {
  return (bytes + kLargeArrayBytes - 1) / kLargeArrayBytes * kLargeArrayBytes;
}

void* map_aligned(std::size_t size) {
  // Over-map by one huge page and trim, so the array starts on a 2 MiB
  // boundary (a THP can only back an aligned 2 MiB range).
  const std::size_t span = size + kLargeArrayBytes;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kLargeArrayBytes - 1) & ~(kLargeArrayBytes - 1);
  if (aligned > start) munmap(raw, aligned - start);
  if (const std::uintptr_t tail = start + span - (aligned + size); tail > 0) {
    munmap(reinterpret_cast<void*>(aligned + size), tail);
  }
  madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

class Mappings {
 public:
  void* take(std::size_t size) {
    std::lock_guard lock(mu_);
    // Best fit among kept mappings no more than twice the size.
    auto it = kept_.lower_bound(size);
    if (it != kept_.end() && it->first <= 2 * size) {
      void* p = it->second;
      kept_bytes_ -= it->first;
      live_.emplace(p, it->first);
      kept_.erase(it);
      return p;
    }
    void* p = map_aligned(size);
    live_.emplace(p, size);
    return p;
  }

  void give_back(void* p) {
    std::lock_guard lock(mu_);
    auto it = live_.find(p);
    if (it == live_.end()) return;  // not ours: nothing safe to do
    const std::size_t size = it->second;
    live_.erase(it);
    if (kept_bytes_ + size <= kKeepBytes) {
      kept_.emplace(size, p);
      kept_bytes_ += size;
    } else {
      munmap(p, size);
    }
  }

 private:
  std::mutex mu_;
  std::map<void*, std::size_t> live_;
  std::multimap<std::size_t, void*> kept_;
  std::size_t kept_bytes_ = 0;
};

Mappings& mappings() {
  static auto* m = new Mappings();  // never destroyed: arrays may outlive statics
  return *m;
}

}  // namespace

void* large_array_allocate(std::size_t bytes) {
  if (bytes < kLargeArrayBytes) return ::operator new(bytes);
  void* p = mappings().take(mapped_size(bytes));
  g_mapped_total.fetch_add(bytes, std::memory_order_relaxed);
  return p;
}

void large_array_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kLargeArrayBytes) return ::operator delete(p);
  mappings().give_back(p);
}

std::size_t large_array_mapped_total() {
  return g_mapped_total.load(std::memory_order_relaxed);
}

}  // namespace allocation
