// Internal: where LabelSet blocks (and targets-body chunks) live.
// Discovery output for 100k targets is ~150 MB of small blocks; in 4 KiB
// pages every target a sweep visits costs a TLB miss (a nested page walk
// on a VM), which dominated the relabel filter. The arena carves blocks,
// in allocation order, out of 2 MiB chunks mapped with transparent huge
// pages requested, so the sets discovery builds one after another share
// pages and TLB entries.
// Contract: thread-safe. label_block_allocate(n) returns 64-byte-aligned
// storage for n bytes; label_block_free must get the same n. Blocks up to
// kLabelBlockMax bytes come from the arena (rounded up to 64 bytes and
// recycled per size class; chunks are kept for reuse, never unmapped), larger
// ones from aligned operator new.
#pragma once

#include <cstddef>

namespace allocation {

inline constexpr std::size_t kLabelBlockMax = 8192;

void* label_block_allocate(std::size_t bytes);
void label_block_free(void* p, std::size_t bytes) noexcept;
// Bytes of arena chunks mapped so far (for tests and RSS accounting).
std::size_t label_arena_mapped();

// A std allocator over the arena, for allocate_shared: the object and its
// reference count share one block, and objects made one after another
// share pages (every LabelSet; every BodyChunk, whose counts a publish
// writes by the thousand).
template <class T>
struct ArenaAllocator {
  using value_type = T;
  ArenaAllocator() = default;
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>&) {}  // NOLINT: rebinding, as std::allocator
  T* allocate(std::size_t n) { return static_cast<T*>(label_block_allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { label_block_free(p, n * sizeof(T)); }
  friend bool operator==(const ArenaAllocator&, const ArenaAllocator&) { return true; }
};

}  // namespace allocation
