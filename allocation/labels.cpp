#include "allocation/labels.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <unordered_map>

#include "allocation/hash.hpp"
#include "allocation/label_arena.hpp"
#include "allocation/scrape_job.hpp"
#include "model/meta.hpp"

namespace allocation {
namespace {

class NameTable {
 public:
  const NameEntry* intern(std::string_view text) {
    if (const NameEntry* e = find(text)) return e;
    std::unique_lock lock(mu_);
    if (auto it = index_.find(text); it != index_.end()) return it->second;
    auto& e = entries_.emplace_back();
    e.text = std::string(text);
    e.hash = hash_bytes(text, 0x6c61626c);
    e.id = static_cast<std::uint32_t>(entries_.size());
    e.meta = text.starts_with("__meta_");
    e.seedable = text == "job" || (text.starts_with("__") && !e.meta && text != "__address__");
    index_.emplace(std::string_view(e.text), &e);
    return &e;
  }
  const NameEntry* find(std::string_view text) {
    std::shared_lock lock(mu_);
    auto it = index_.find(text);
    return it == index_.end() ? nullptr : it->second;
  }

 private:
  std::shared_mutex mu_;
  std::deque<NameEntry> entries_;  // stable addresses
  std::unordered_map<std::string_view, const NameEntry*> index_;
};

NameTable& table() {
  static NameTable* t = new NameTable();  // never destroyed: Names outlive statics
  return *t;
}

}  // namespace

Name Name::intern(std::string_view text) {
  return Name(table().intern(text));
}
Name Name::find(std::string_view text) {
  return Name(table().find(text));
}
std::string_view Name::text() const {
  return e_ ? std::string_view(e_->text) : std::string_view();
}

const Names& Names::get() {
  static const Names n{Name::intern("__address__"),
                       Name::intern("__meta_kubernetes_pod_node_name"),
                       Name::intern("__meta_kubernetes_node_name"),
                       Name::intern("__meta_kubernetes_endpoint_node_name"),
                       Name::intern("__meta_kubernetes_endpointslice_address_target_kind"),
                       Name::intern("__meta_kubernetes_endpointslice_address_target_name")};
  return n;
}

bool valid_label_name(std::string_view s) {
  return model::is_label_name(s);
}

bool valid_label_name(std::string_view s, NameValidation scheme) {
  return scheme == NameValidation::legacy ? model::is_label_name(s) : !s.empty() && valid_utf8(s);
}

// Go's utf8.ValidString: shortest forms only, no surrogates, up to U+10FFFF.
bool valid_utf8(std::string_view s) {
  // Label values are almost always ASCII: skip 8 such bytes per step.
  std::size_t i = 0;
  for (std::uint64_t w; i + 8 <= s.size(); i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ULL) break;
  }
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    const auto c1 = static_cast<unsigned char>(s[i + 1]);
    unsigned char lo = 0x80, hi = 0xBF;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    if (c1 < lo || c1 > hi) return false;
    for (std::size_t k = 2; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

LabelSet::LabelSet(std::vector<Label> labels) {
  std::vector<LabelRef> refs;
  refs.reserve(labels.size());
  for (const auto& l : labels) refs.push_back({l.name, l.value});
  *this = LabelSet(std::span<LabelRef>(refs));
}

LabelSet::LabelSet(std::span<LabelRef> labels) {
  // Stable, so the last of equal names stays last. Sets are small: an
  // insertion sort beats std::stable_sort, which allocates a buffer.
  const auto by_id = [](const LabelRef& a, const LabelRef& b) { return a.name < b.name; };
  if (labels.size() <= 64) {
    for (std::size_t i = 1; i < labels.size(); ++i)
      for (std::size_t j = i; j > 0 && by_id(labels[j], labels[j - 1]); --j) std::swap(labels[j], labels[j - 1]);
  } else {
    std::stable_sort(labels.begin(), labels.end(), by_id);
  }
  std::size_t n = 0;
  for (const LabelRef& l : labels) {
    if (n > 0 && labels[n - 1].name == l.name) --n;
    labels[n++] = l;
  }
  const auto kept = std::remove_if(labels.begin(), labels.begin() + static_cast<std::ptrdiff_t>(n),
                                   [](const LabelRef& l) { return l.value.empty() || l.name.empty(); });
  pack(std::span<const LabelRef>(labels.begin(), kept));
}

std::string_view LabelSet::Slot::value() const {
  if (size <= kInline) return {bytes, size};
  std::uint32_t offset = 0;
  std::memcpy(&offset, bytes, sizeof offset);
  return {reinterpret_cast<const char*>(this) + offset, size};
}

void LabelSet::FreeBlock::operator()(char* p) const {
  label_block_free(p, bytes);
}

LabelSet::LabelSet(const LabelSet& o) {
  std::vector<LabelRef> refs;
  refs.reserve(o.size());
  for (LabelRef l : o.labels()) refs.push_back(l);
  pack(refs);
}

void LabelSet::pack(std::span<const LabelRef> sorted) {
  const std::size_t n = sorted.size();
  const std::size_t id_bytes = ids_bytes(n);
  std::size_t long_bytes = 0;
  for (const auto& l : sorted) long_bytes += l.value.size() > kInline ? l.value.size() : 0;
  const std::size_t total = id_bytes + n * sizeof(Slot) + long_bytes;
  block_ =
      std::unique_ptr<char, FreeBlock>(n ? static_cast<char*>(label_block_allocate(total)) : nullptr, FreeBlock{total});
  auto* ids = reinterpret_cast<std::uint32_t*>(block_.get());
  auto* slots = reinterpret_cast<Slot*>(block_.get() + id_bytes);
  char* text = block_.get() + id_bytes + n * sizeof(Slot);
  const Name address = Names::get().address;
  fingerprint_ = kept_fingerprint_ = kept_names_ = 0;
  std::fill(std::begin(names_), std::end(names_), 0);
  has_seedable_ = has_invalid_kept_value_ = has_invalid_value_ = has_newline_ = address_scrapable_ = false;
  address_view_ = {};
  for (std::size_t i = 0; i < n; ++i) {
    const auto& l = sorted[i];
    ids[i] = l.name.id();
    Slot* slot = new (&slots[i]) Slot{l.name, static_cast<std::uint32_t>(l.value.size()), {}};
    if (l.value.size() <= kInline) {
      std::memcpy(slot->bytes, l.value.data(), l.value.size());
    } else {
      const auto offset = static_cast<std::uint32_t>(text - reinterpret_cast<char*>(slot));
      std::memcpy(slot->bytes, &offset, sizeof offset);
      text = std::copy(l.value.begin(), l.value.end(), text);
    }
    const auto [w1, b1, w2, b2] = filter_bits(l.name.hash());
    names_[w1] |= std::uint64_t{1} << b1;
    names_[w2] |= std::uint64_t{1} << b2;
    const std::uint64_t h = label_hash(l.name, l.value);
    fingerprint_ += h;
    has_seedable_ |= l.name.seedable();
    const bool invalid = !valid_utf8(l.value);
    has_invalid_value_ |= invalid;
    has_newline_ |= l.value.find('\n') != std::string_view::npos;
    if (!l.name.meta()) {
      kept_fingerprint_ += h;
      kept_names_ |= name_bit(l.name);
      has_invalid_kept_value_ |= invalid;
    }
    if (l.name == address) address_view_ = slot->value();
  }
  size_ = n;
  address_hash_ = hash_bytes(address_view_, 0x61646472);
  address_scrapable_ = has_port(address_view_) && address_view_.find('/') == std::string_view::npos;
}

void LabelSet::take(LabelSet& o) noexcept {
  block_ = std::move(o.block_);
  size_ = std::exchange(o.size_, 0);
  fingerprint_ = std::exchange(o.fingerprint_, 0);
  kept_fingerprint_ = std::exchange(o.kept_fingerprint_, 0);
  has_seedable_ = std::exchange(o.has_seedable_, false);
  kept_names_ = std::exchange(o.kept_names_, 0);
  std::copy(std::begin(o.names_), std::end(o.names_), std::begin(names_));
  std::fill(std::begin(o.names_), std::end(o.names_), 0);
  has_invalid_kept_value_ = std::exchange(o.has_invalid_kept_value_, false);
  has_invalid_value_ = std::exchange(o.has_invalid_value_, false);
  has_newline_ = std::exchange(o.has_newline_, false);
  address_scrapable_ = std::exchange(o.address_scrapable_, false);
  address_hash_ = std::exchange(o.address_hash_, 0);
  address_view_ = std::exchange(o.address_view_, {});
}

LabelSet::LabelSet(std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  std::vector<Label> v;
  v.reserve(labels.size());
  for (const auto& [n, val] : labels) v.push_back({Name::intern(n), std::string(val)});
  *this = LabelSet(std::move(v));
}

std::string_view LabelSet::get(Name name) const {
  const std::size_t i = index_of(name);
  return i < size_ ? slots()[i].value() : std::string_view();
}

std::shared_ptr<const LabelSet> share_label_set(LabelSet set) {
  return std::allocate_shared<const LabelSet>(ArenaAllocator<LabelSet>(), std::move(set));
}

std::uint64_t label_hash(Name name, std::string_view value) {
  return hash_bytes(value, name.hash());
}

std::vector<std::pair<std::string_view, std::string_view>> sorted_by_text(const LabelSet* group, const LabelSet* own) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  out.reserve((group ? group->size() : 0) + (own ? own->size() : 0));
  for_each_merged(group, own, [&](Name n, std::string_view v) { out.emplace_back(n.text(), v); });
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace allocation
