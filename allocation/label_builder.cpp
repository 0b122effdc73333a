#include "allocation/label_builder.hpp"

#include <algorithm>

namespace allocation {

void LabelBuilder::reset(const LabelSet* group, const LabelSet* own, std::span<const LabelRef> seeds) {
  group_ = group;
  own_ = own;
  seeds_ = seeds;
  memo_index_ = {};
  add_.clear();
  del_.clear();
  arena_used_ = 0;
}

bool LabelBuilder::deleted(Name name) const {
  return std::find(del_.begin(), del_.end(), name) != del_.end();
}

const std::string_view* LabelBuilder::added(Name name) const {
  for (const auto& a : add_) {
    if (a.first == name) return &a.second;
  }
  return nullptr;
}

std::string_view LabelBuilder::base_get(Name name) const {
  // Sets keep their address in the object: no search of their cold labels.
  if (name == address_) {
    const std::string_view own = own_ ? own_->address() : std::string_view();
    return !own.empty() || !group_ ? own : group_->address();
  }
  if (name.id() < memo_index_.size()) {
    if (const int k = memo_index_[name.id()]; k >= 0) return memo_values_[k];
  }
  std::string_view v = own_ ? own_->get(name) : std::string_view();
  if (v.empty() && group_) v = group_->get(name);
  if (!v.empty()) return v;
  for (const auto& s : seeds_) {
    if (s.name == name) return s.value;
  }
  return {};
}

void LabelBuilder::set(Name name, std::string_view value) {
  if (value.empty()) return del(name);
  if (arena_used_ == arena_.size()) arena_.emplace_back();
  std::string& slot = arena_[arena_used_++];
  slot.assign(value);
  set_view(name, slot);
}

void LabelBuilder::del(Name name) {
  std::erase_if(add_, [&](const Entry& e) { return e.first == name; });
  del_.push_back(name);
}

std::size_t LabelBuilder::snapshot(std::vector<Entry>& out) const {
  out.clear();
  for_each_merged(group_, own_, [&](Name n, std::string_view v) {
    if (!deleted(n) && !added(n)) out.emplace_back(n, v);
  });
  const std::size_t discovered = out.size();
  for (const auto& s : seeds_) {
    const bool shadowed = (own_ && !own_->get(s.name).empty()) || (group_ && !group_->get(s.name).empty());
    if (!shadowed && !deleted(s.name) && !added(s.name)) out.emplace_back(s.name, s.value);
  }
  // Keep the base in Name id order, as the labelmap tie-break expects.
  std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(discovered), out.end(),
                     [](const Entry& a, const Entry& b) { return a.first < b.first; });
  const std::size_t base_count = out.size();
  out.insert(out.end(), add_.begin(), add_.end());
  return base_count;
}

std::vector<std::pair<std::string, std::string>> LabelBuilder::sorted() const {
  std::vector<Entry> entries;
  snapshot(entries);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [n, v] : entries) out.emplace_back(std::string(n.text()), std::string(v));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace allocation
