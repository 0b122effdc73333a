#include "allocation/labels.hpp"

#include <algorithm>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "allocation/hash.hpp"
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

LabelSet::LabelSet(std::vector<Label> labels) : labels_(std::move(labels)) {
  std::stable_sort(labels_.begin(), labels_.end(), [](const Label& a, const Label& b) { return a.name < b.name; });
  std::vector<Label> out;
  out.reserve(labels_.size());
  for (auto& l : labels_) {
    if (!out.empty() && out.back().name == l.name) out.pop_back();
    out.push_back(std::move(l));
  }
  std::erase_if(out, [](const Label& l) { return l.value.empty() || l.name.empty(); });
  labels_ = std::move(out);
  finish();
}

void LabelSet::finish() {
  const Name address = Names::get().address;
  fingerprint_ = 0;
  address_view_ = {};
  ids_.resize(labels_.size());
  for (std::size_t i = 0; i < labels_.size(); ++i) {
    ids_[i] = labels_[i].name.id();
    fingerprint_ += label_hash(labels_[i].name, labels_[i].value);
    if (labels_[i].name == address) address_view_ = labels_[i].value;
  }
  address_hash_ = hash_bytes(address_view_, 0x61646472);
}

LabelSet::LabelSet(std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  std::vector<Label> v;
  v.reserve(labels.size());
  for (const auto& [n, val] : labels) v.push_back({Name::intern(n), std::string(val)});
  *this = LabelSet(std::move(v));
}

std::size_t LabelSet::position(std::uint32_t id) const {
  // Branch-free lower bound: label sets are small and lookups unpredictable.
  const std::uint32_t* base = ids_.data();
  std::size_t n = ids_.size();
  if (n == 0) return 0;
  while (n > 1) {
    const std::size_t half = n / 2;
    base = base[half - 1] < id ? base + half : base;
    n -= half;
  }
  return static_cast<std::size_t>(base - ids_.data()) + (*base < id ? 1 : 0);
}

std::string_view LabelSet::get(Name name) const {
  const std::uint32_t id = name.id();
  if (id == 0) return {};
  const std::size_t i = position(id);
  return i < ids_.size() && ids_[i] == id ? std::string_view(labels_[i].value) : std::string_view();
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
