#include "allocation/label_arena.hpp"

#include <array>
#include <cstdint>
#include <mutex>
#include <new>

#include "allocation/large_array.hpp"

namespace allocation {
namespace {

constexpr std::size_t kLine = 64;
constexpr std::size_t kChunk = kLargeArrayBytes;  // one huge page
constexpr std::align_val_t kAlign{kLine};

class Arena {
 public:
  void* allocate(std::size_t bytes) {
    const std::size_t cls = (bytes + kLine - 1) / kLine;
    std::lock_guard lock(mu_);
    if (FreeBlock* f = free_[cls]) {
      free_[cls] = f->next;
      // Freed blocks are cold; sets are built in runs (a group's targets),
      // so the next pop's read is started now.
      if (f->next) __builtin_prefetch(f->next);
      return f;
    }
    const std::size_t size = cls * kLine;
    // Compared as a distance: before the first chunk next_ is null, and
    // null + size is undefined behaviour (UBSan under tests/fuzz).
    if (static_cast<std::size_t>(end_ - next_) < size) refill();
    void* p = next_;
    next_ += size;
    return p;
  }

  void free(void* p, std::size_t bytes) {
    const std::size_t cls = (bytes + kLine - 1) / kLine;
    std::lock_guard lock(mu_);
    free_[cls] = new (p) FreeBlock{free_[cls]};
  }

  std::size_t mapped() {
    std::lock_guard lock(mu_);
    return mapped_;
  }

 private:
  struct FreeBlock {
    FreeBlock* next;
  };

  // The rest of the current chunk is abandoned (at most kLabelBlockMax
  // bytes, under 0.4% of a chunk).
  void refill() {
    auto* chunk = static_cast<char*>(large_array_allocate(kChunk));
    next_ = chunk;
    end_ = chunk + kChunk;
    mapped_ += kChunk;
  }

  std::mutex mu_;
  char* next_ = nullptr;
  char* end_ = nullptr;
  std::size_t mapped_ = 0;
  std::array<FreeBlock*, kLabelBlockMax / kLine + 1> free_{};
};

Arena& arena() {
  static auto* a = new Arena();  // never destroyed: label sets may outlive statics
  return *a;
}

}  // namespace

void* label_block_allocate(std::size_t bytes) {
  if (bytes > kLabelBlockMax) return ::operator new(bytes, kAlign);
  return arena().allocate(bytes);
}

void label_block_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes > kLabelBlockMax) return ::operator delete(p, kAlign);
  arena().free(p, bytes);
}

std::size_t label_arena_mapped() {
  return arena().mapped();
}

}  // namespace allocation
