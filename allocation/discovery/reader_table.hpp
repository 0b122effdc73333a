// Internal to KubernetesIndex: which groups read a pod or service, as a
// flat open-addressing multimap from the 64-bit hash of the read object's
// key to the readers (pointers to their keys). A cluster has a key per pod
// and an event looks one up cold: one probe run in one array costs a cache
// miss or two, where a node-based map of vectors cost four or five.
// Contract: add() inserts one (key, reader) entry (callers never add the
// same pair twice); remove() erases one such entry if present;
// for_each() visits the readers of a key in no particular order. The
// table doubles before it is 3/4 full. Single-threaded.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "allocation/hash.hpp"

namespace allocation::discovery {

class ReaderTable {
 public:
  using Reader = const std::string*;

  void add(std::uint64_t key, Reader reader) {
    if ((size_ + 1) * 4 > entries_.size() * 3) grow();
    place({key, reader});
    ++size_;
  }

  void remove(std::uint64_t key, Reader reader) {
    if (entries_.empty()) return;
    std::size_t i = home(key);
    while (entries_[i].reader && !(entries_[i].key == key && entries_[i].reader == reader)) i = (i + 1) & mask_;
    if (!entries_[i].reader) return;
    // Backward-shift deletion: later entries of the run move up, so probes
    // never need tombstones.
    for (std::size_t j = (i + 1) & mask_; entries_[j].reader; j = (j + 1) & mask_) {
      if (((j - home(entries_[j].key)) & mask_) >= ((j - i) & mask_)) entries_[i] = entries_[j], i = j;
    }
    entries_[i] = {};
    --size_;
  }

  template <class F>
  void for_each(std::uint64_t key, F&& f) const {
    if (entries_.empty()) return;
    for (std::size_t i = home(key); entries_[i].reader; i = (i + 1) & mask_) {
      if (entries_[i].key == key) f(entries_[i].reader);
    }
  }

  std::size_t size() const { return size_; }

 private:
  struct Entry {
    std::uint64_t key = 0;
    Reader reader = nullptr;  // null: empty
  };

  std::size_t home(std::uint64_t key) const { return mix64(key) & mask_; }

  void place(Entry e) {
    std::size_t i = home(e.key);
    while (entries_[i].reader) i = (i + 1) & mask_;
    entries_[i] = e;
  }

  void grow() {
    std::vector<Entry> old = std::move(entries_);
    entries_.assign(std::max<std::size_t>(16, old.size() * 2), Entry{});
    mask_ = entries_.size() - 1;
    for (const Entry& e : old) {
      if (e.reader) place(e);
    }
  }

  std::vector<Entry> entries_;
  std::size_t mask_ = 0, size_ = 0;
};

}  // namespace allocation::discovery
