// Internal: an open-addressing map from a 64-bit hash to a 32-bit slot,
// built once per target set (one allocation, no per-entry nodes), then
// edited in place by incremental updates (assign, erase) while it stays
// at most 3/4 full (room()).
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
  // many targets do not fit in cache). Always inlined: GCC 12 finds a
  // function that only prefetches free of side effects and deletes calls
  // to it that it did not inline early, prefetch and all.
  [[gnu::always_inline]] void prefetch(std::uint64_t key) const { __builtin_prefetch(&entries_[mix64(key) & mask_]); }

  // Sets key's slot; key must be present.
  void assign(std::uint64_t key, std::uint32_t slot) {
    for (std::size_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
      if (entries_[i].key == key && entries_[i].slot != kNone) return void(entries_[i].slot = slot);
    }
  }

  // Removes key (present or not). Backward-shift deletion: the entries of
  // the probe run after it move up, so find() never needs tombstones.
  void erase(std::uint64_t key) {
    std::size_t i = mix64(key) & mask_;
    while (entries_[i].slot != kNone && entries_[i].key != key) i = (i + 1) & mask_;
    if (entries_[i].slot == kNone) return;
    for (std::size_t j = (i + 1) & mask_; entries_[j].slot != kNone; j = (j + 1) & mask_) {
      const std::size_t home = mix64(entries_[j].key) & mask_;
      // Entry j may fill hole i unless its home lies cyclically in (i, j].
      if (((j - home) & mask_) >= ((j - i) & mask_)) entries_[i] = entries_[j], i = j;
    }
    entries_[i] = Entry{0, kNone};
  }

  // How many entries fit in all before probes get long (3/4 full).
  std::size_t room() const { return entries_.size() / 4 * 3; }

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
