#include "model/job_cache.hpp"

#include <stdexcept>

#include "model/text_pack.hpp"

namespace model {

std::string JobCache::key(const char* kind, const ObjectMeta& member, const ObjectMeta& agent, int flavor,
                          std::string_view scope) {
  return key(kind, member.ns, member.name, member.uid, member.resource_version, agent, flavor, scope);
}

std::string JobCache::key(const char* kind, std::string_view ns, std::string_view name, std::string_view uid,
                          std::string_view resource_version, const ObjectMeta& agent, int flavor,
                          std::string_view scope) {
  if (uid.empty() || resource_version.empty() || agent.uid.empty() || agent.resource_version.empty()) return {};
  const char sep = '\x1f';
  const std::string_view parts[] = {kind, ns, name, uid, resource_version, agent.uid, agent.resource_version};
  std::size_t size = scope.size() + 16;
  for (std::string_view part : parts) size += part.size() + 1;
  std::string out;
  out.reserve(size);
  for (std::string_view part : parts) {
    out += part;
    out += sep;
  }
  out += std::to_string(flavor);
  out += sep;
  out += scope;
  return out;
}

std::optional<JobCache::Hit> JobCache::find(const std::string& key, const Inventory& inv) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    ++misses_;
    return std::nullopt;
  }
  bool current = it->second.entry.lookups.all_of([&](const LookupView& l) {
    AssetFind found = find_asset(inv, l.secret, std::string(l.ns), std::string(l.name), std::string(l.key));
    return found.value ? l.value == std::string_view(*found.value) : !l.value;
  });
  if (!current) {
    entries_.erase(it);  // a referenced Secret or ConfigMap changed (or came, or went)
    ++misses_;
    return std::nullopt;
  }
  it->second.used = true;
  ++hits_;
  const Entry& e = it->second.entry;
  if (!packed_) return Hit{e.yaml, &e};
  auto text = unpack_text(e.yaml, it->second.size, dictionary_);
  if (!text) throw std::logic_error("job cache: a packed text does not unpack");
  return Hit{kept_.emplace_back(std::move(*text)), &e};
}

std::string_view JobCache::store(const std::string& key, Entry entry) {
  Slot& slot = entries_[key];
  if (!packed_) {
    slot = Slot{std::move(entry), 0, true};
    return slot.entry.yaml;
  }
  if (dictionary_.empty()) dictionary_ = entry.yaml;
  std::string_view text = kept_.emplace_back(std::move(entry.yaml));
  slot = Slot{std::move(entry), text.size(), true};
  slot.entry.yaml = pack_text(text, dictionary_);
  return text;
}

std::string_view JobCache::keep(std::string text) {
  return kept_.emplace_back(std::move(text));
}

void JobCache::sweep() {
  kept_.clear();
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (!it->second.used) {
      it = entries_.erase(it);
    } else {
      it->second.used = false;
      ++it;
    }
  }
}

}  // namespace model
