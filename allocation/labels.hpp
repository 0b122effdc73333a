// Label names, label sets and their fingerprints, shared by targets,
// relabeling and the HTTP responses.
// Contract: a Name is an interned label name: equal texts give the same
// Name for the life of the process (names are never freed; a cluster has a
// bounded set of label names), so comparing, copying and hashing a Name is
// one word. Interning is thread-safe. A LabelSet is immutable after
// construction, holds each name once, and iterates in Name id order (not
// text order: use sorted_by_text() where text order matters). It computes
// its fingerprint and locates __address__ once, when built (by discovery),
// so the allocator's per-target work never walks the labels again.
// Fingerprints use each name's text hash, so they are identical in every
// process.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace allocation {

struct NameEntry {
  std::string text;
  std::uint64_t hash = 0;  // hash_bytes(text); stable across processes
  std::uint32_t id = 0;    // interning order; process-local
  bool meta = false;       // starts with __meta_ (deleted after relabeling)
  // job or a non-meta __ name other than __address__: a name Prometheus may
  // seed before relabeling, so a set holding one needs a closer look.
  bool seedable = false;
};

class Name {
 public:
  Name() = default;
  static Name intern(std::string_view text);
  // The existing Name for `text`, or an empty Name when never interned.
  static Name find(std::string_view text);

  bool empty() const { return e_ == nullptr; }
  std::string_view text() const;
  std::uint64_t hash() const { return e_ ? e_->hash : 0; }
  std::uint32_t id() const { return e_ ? e_->id : 0; }
  bool meta() const { return e_ && e_->meta; }
  bool seedable() const { return e_ && e_->seedable; }

  friend bool operator==(Name a, Name b) { return a.e_ == b.e_; }
  friend bool operator<(Name a, Name b) { return a.id() < b.id(); }

 private:
  explicit Name(const NameEntry* e) : e_(e) {}
  const NameEntry* e_ = nullptr;
};

// Well-known names, interned once.
struct Names {
  static const Names& get();
  Name address, pod_node, node_name, endpoint_node, slice_kind, slice_name;
};

// A label as callers build one (owning).
struct Label {
  Name name;
  std::string value;
};

// A label as a LabelSet stores it: the value points into the set's block.
struct LabelRef {
  Name name;
  std::string_view value;
};

// Prometheus's legacy label name rule: [a-zA-Z_][a-zA-Z0-9_]*.
bool valid_label_name(std::string_view s);

// Which label names a job accepts (metric_name_validation_scheme):
// Prometheus 3's default, any non-empty valid UTF-8, or the legacy rule.
enum class NameValidation { utf8, legacy };
bool valid_label_name(std::string_view s, NameValidation scheme);
bool valid_utf8(std::string_view s);

// Layout: one heap block per set holds the id array get() searches, then
// one 32-byte slot per label (its Name and its value, inline when at most 20
// bytes, else an offset to the value bytes at the end of the block). A
// target's labels sit on consecutive cache lines and pages, and get()
// touches the id lines plus one slot line for a short value.
class LabelSet {
  struct alignas(32) Slot {
    Name name;
    std::uint32_t size = 0;
    // The value when size <= kInline, else its byte offset from this slot.
    char bytes[20];
    std::string_view value() const;
  };
  static constexpr std::uint32_t kInline = sizeof(Slot::bytes);
  struct FreeBlock {
    std::size_t bytes;  // no initialiser: unique_ptr value-initialises it
    void operator()(char* p) const;
  };

 public:
  // The labels in Name id order, as (Name, value view) pairs.
  class View {
   public:
    View(const Slot* slots, std::size_t n) : s_(slots), n_(n) {}
    std::size_t size() const { return n_; }
    LabelRef operator[](std::size_t i) const { return {s_[i].name, s_[i].value()}; }
    struct iterator {
      const Slot* s;
      LabelRef operator*() const { return {s->name, s->value()}; }
      iterator& operator++() {
        ++s;
        return *this;
      }
      bool operator==(const iterator&) const = default;
    };
    iterator begin() const { return {s_}; }
    iterator end() const { return {s_ + n_}; }

   private:
    const Slot* s_;
    std::size_t n_;
  };

  LabelSet() = default;
  // Sorts by Name id; on duplicate names the last one wins. Empty values
  // are dropped (Prometheus treats an empty value as an absent label).
  explicit LabelSet(std::vector<Label> labels);
  // The same from views, whose bytes are copied; reorders `labels`.
  explicit LabelSet(std::span<LabelRef> labels);
  LabelSet(std::initializer_list<std::pair<std::string_view, std::string_view>> labels);
  LabelSet(const LabelSet& o);
  LabelSet& operator=(const LabelSet& o) {
    if (this != &o) *this = LabelSet(o);
    return *this;
  }
  LabelSet(LabelSet&& o) noexcept { take(o); }
  LabelSet& operator=(LabelSet&& o) noexcept {
    if (this != &o) take(o);
    return *this;
  }

  View labels() const { return {slots(), size_}; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The value of `name`, or "" when absent.
  std::string_view get(Name name) const;
  // The index of `name` in labels(), or size() when absent; value_at(i) is
  // labels()[i].value.
  std::size_t index_of(Name name) const {  // inline: the filter's hot path
    const std::uint32_t id = name.id();
    if (id == 0 || !may_hold(name)) return size_;
    const std::size_t i = position(id);
    return i < size_ && ids()[i] == id ? i : size_;
  }
  std::string_view value_at(std::size_t i) const { return slots()[i].value(); }
  // Wrapping sum of label_hash over the labels (order-independent).
  std::uint64_t fingerprint() const { return fingerprint_; }
  // The same sum over the labels whose names are not __meta_*.
  std::uint64_t kept_fingerprint() const { return kept_fingerprint_; }
  // Whether any name is seedable (see NameEntry::seedable).
  bool has_seedable() const { return has_seedable_; }
  // A one-word filter of the names that are not __meta_*: bit (id % 64)
  // is set for each, so a clear bit proves a name absent.
  std::uint64_t kept_names() const { return kept_names_; }
  static std::uint64_t name_bit(Name n) { return std::uint64_t{1} << (n.id() & 63); }
  // Whether a label that is not __meta_* has a value that is not UTF-8.
  bool has_invalid_kept_value() const { return has_invalid_kept_value_; }
  // Whether every value, __meta_* ones included, is UTF-8.
  bool all_values_utf8() const { return !has_invalid_value_; }
  // Whether no value holds '\n' (which "." in a relabel regex refuses).
  bool all_values_single_line() const { return !has_newline_; }
  // Whether `v` points into this set's storage (a view get() returned).
  bool holds(std::string_view v) const {
    const auto p = reinterpret_cast<std::uintptr_t>(v.data()), b = reinterpret_cast<std::uintptr_t>(block_.get());
    return p - b < block_.get_deleter().bytes;  // unsigned: p < b wraps high
  }
  // The __address__ value ("" when absent) and its hash_bytes.
  std::string_view address() const { return address_view_; }
  std::uint64_t address_hash() const { return address_hash_; }
  // Whether that address passes the checks Prometheus makes after
  // relabeling without change: it has a port (has_port) and no '/'.
  bool address_scrapable() const { return address_scrapable_; }
  // The label names' ids in labels() order (sets built from the same names
  // have equal arrays, which lets a caller reuse lookups between them).
  std::span<const std::uint32_t> name_ids() const { return {ids(), size_}; }
  // Hints for sweeps over many cold label sets: prefetch_ids() starts
  // loading the id array index_of() searches; once that has arrived,
  // prefetch_at(index_of(name)) starts loading the slot get(name) reads.
  // Always inlined, as FlatIndex::prefetch (flat_index.hpp says why).
  [[gnu::always_inline]] void prefetch_ids() const {
    const auto* bytes = reinterpret_cast<const char*>(ids());
    for (std::size_t b = 0; b < size_ * sizeof(std::uint32_t); b += 64) __builtin_prefetch(bytes + b);
  }
  [[gnu::always_inline]] void prefetch_at(std::size_t i) const { __builtin_prefetch(&slots()[i]); }
  // False proves `name` absent without touching the labels: a 256-bit
  // filter over all names (two bits each, from the name's text hash).
  bool may_hold(Name name) const {
    const auto [w1, b1, w2, b2] = filter_bits(name.hash());
    return (names_[w1] >> b1) & (names_[w2] >> b2) & 1;
  }

 private:
  // The two (word, bit) places of a name hash in names_.
  struct FilterBits {
    unsigned w1, b1, w2, b2;
  };
  static FilterBits filter_bits(std::uint64_t h) {
    return {unsigned(h >> 6) & 3, unsigned(h) & 63, unsigned(h >> 14) & 3, unsigned(h >> 8) & 63};
  }
  // Builds the block from labels sorted by Name id, unique, non-empty.
  void pack(std::span<const LabelRef> sorted);
  void take(LabelSet& o) noexcept;
  // Index of the first id >= `id` (size() when none).
  std::size_t position(std::uint32_t id) const {
    // Branch-free lower bound: label sets are small and lookups unpredictable.
    const std::uint32_t* const ids = this->ids();
    const std::uint32_t* base = ids;
    std::size_t n = size_;
    if (n == 0) return 0;
    while (n > 1) {
      const std::size_t half = n / 2;
      base = base[half - 1] < id ? base + half : base;
      n -= half;
    }
    return static_cast<std::size_t>(base - ids) + (*base < id ? 1 : 0);
  }

  // The block: ids (slots()[i].name.id(), packed for lookups) padded to a
  // slot boundary, the slots, then the long values.
  static std::size_t ids_bytes(std::size_t n) {
    return (n * sizeof(std::uint32_t) + sizeof(Slot) - 1) / sizeof(Slot) * sizeof(Slot);
  }
  const std::uint32_t* ids() const { return reinterpret_cast<const std::uint32_t*>(block_.get()); }
  const Slot* slots() const { return reinterpret_cast<const Slot*>(block_.get() + ids_bytes(size_)); }

  std::unique_ptr<char, FreeBlock> block_;
  std::size_t size_ = 0;
  std::uint64_t fingerprint_ = 0;
  std::uint64_t kept_fingerprint_ = 0;
  std::uint64_t kept_names_ = 0;
  std::uint64_t names_[4] = {};  // see may_hold()
  std::uint64_t address_hash_ = 0;
  bool has_seedable_ = false;
  bool has_invalid_kept_value_ = false;
  bool has_invalid_value_ = false;
  bool has_newline_ = false;
  bool address_scrapable_ = false;
  std::string_view address_view_;  // into the block (read without touching it)
};

// A shared, immutable LabelSet whose object (with its reference counts)
// lives in the label arena beside the blocks, so a sweep over many targets
// touches huge pages only (see label_arena.hpp). Use it wherever discovery
// builds sets; make_shared works too, only slower to sweep.
std::shared_ptr<const LabelSet> share_label_set(LabelSet set);

// Hash of one label; a label set's fingerprint is the wrapping sum of its
// labels' hashes, so it does not depend on iteration order.
std::uint64_t label_hash(Name name, std::string_view value);

// Calls f(Name, std::string_view) for the union of `group` and `own`, where
// `own` wins on equal names (Prometheus's precedence: a target's labels win
// over its group's). Either may be null. Iterates in Name id order.
template <class F>
void for_each_merged(const LabelSet* group, const LabelSet* own, F&& f) {
  static const LabelSet none;
  auto g = (group ? group : &none)->labels();
  auto o = (own ? own : &none)->labels();
  std::size_t i = 0, j = 0;
  while (i < g.size() || j < o.size()) {
    if (j == o.size() || (i < g.size() && g[i].name < o[j].name)) {
      f(g[i].name, std::string_view(g[i].value));
      ++i;
    } else {
      if (i < g.size() && g[i].name == o[j].name) ++i;
      f(o[j].name, std::string_view(o[j].value));
      ++j;
    }
  }
}

// The merged labels as (text, value) pairs in text order (for output).
std::vector<std::pair<std::string_view, std::string_view>> sorted_by_text(const LabelSet* group, const LabelSet* own);

}  // namespace allocation
