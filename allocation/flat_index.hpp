// Internal: an open-addressing map from a 64-bit hash to a 32-bit slot,
// built once per target set (one allocation, no per-entry nodes).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "allocation/hash.hpp"
#include "allocation/large_array.hpp"

namespace allocation {

class FlatIndex {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;

  explicit FlatIndex(std::size_t expected = 0) { reset(expected); }

  void reset(std::size_t expected) {
    const std::size_t cap = std::bit_ceil(std::max<std::size_t>(16, expected * 2));
    entries_.assign(cap, Entry{0, kNone});
    mask_ = cap - 1;
  }

  // Inserts key -> slot unless key is present; returns the stored slot.
  std::uint32_t insert(std::uint64_t key, std::uint32_t slot) {
    for (std::size_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
      Entry& e = entries_[i];
      if (e.slot == kNone) {
        e = {key, slot};
        return slot;
      }
      if (e.key == key) return e.slot;
    }
  }

  // Starts loading the entry insert(key)/find(key) reads first (tables of
  // many targets do not fit in cache).
  void prefetch(std::uint64_t key) const { __builtin_prefetch(&entries_[mix64(key) & mask_]); }

  std::uint32_t find(std::uint64_t key) const {
    for (std::size_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
      const Entry& e = entries_[i];
      if (e.slot == kNone) return kNone;
      if (e.key == key) return e.slot;
    }
  }

 private:
  struct Entry {
    std::uint64_t key;
    std::uint32_t slot;
  };
  std::vector<Entry, LargeArrayAllocator<Entry>> entries_;
  std::size_t mask_ = 0;
};

}  // namespace allocation
