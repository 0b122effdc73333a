#include "model/job_cache.hpp"

namespace model {

namespace {

// The current value of a Secret/ConfigMap key, or null when the object or
// key is missing.
const std::string* current_value(const Inventory& inv, const AssetLookup& l) {
  const auto* data = asset_data(inv, l.secret, l.ns, l.name);
  if (!data) return nullptr;
  auto kv = data->find(l.key);
  return kv == data->end() ? nullptr : &kv->second;
}

}  // namespace

std::string JobCache::key(const char* kind, const ObjectMeta& member, const ObjectMeta& agent, int flavor,
                          std::string_view scope) {
  if (member.uid.empty() || member.resource_version.empty() || agent.uid.empty() || agent.resource_version.empty())
    return {};
  const char sep = '\x1f';
  return std::string(kind) + sep + member.ns + sep + member.name + sep + member.uid + sep + member.resource_version +
         sep + agent.uid + sep + agent.resource_version + sep + std::to_string(flavor) + sep + std::string(scope);
}

const JobCache::Entry* JobCache::find(const std::string& key, const Inventory& inv) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    ++misses_;
    return nullptr;
  }
  for (const AssetLookup& l : it->second.entry.lookups) {
    const std::string* now = current_value(inv, l);
    if (now ? !l.value || *now != *l.value : l.value.has_value()) {
      entries_.erase(it);  // a referenced Secret or ConfigMap changed
      ++misses_;
      return nullptr;
    }
  }
  it->second.used = true;
  ++hits_;
  return &it->second.entry;
}

const JobCache::Entry& JobCache::store(const std::string& key, Entry entry) {
  Slot& slot = entries_[key];
  slot = Slot{std::move(entry), true};
  return slot.entry;
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
