#include "model/job_cache.hpp"

#include <stdexcept>

#include "model/text_pack.hpp"

namespace model {
namespace {

constexpr char kSeparator = '\x1f';
constexpr char kTextPart = '\x02', kUuidPart = '\x01';

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// A canonical lowercase UUID (what the API server issues as metadata.uid)
// as its 16 bytes, or false for any other text.
bool pack_uuid(std::string_view s, char (&out)[16]) {
  if (s.size() != 36) return false;
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
      continue;
    }
    int hi = hex_digit(s[i]), lo = i + 1 < s.size() ? hex_digit(s[i + 1]) : -1;
    if (hi < 0 || lo < 0) return false;
    out[n++] = static_cast<char>(hi << 4 | lo);
    ++i;
  }
  return n == 16;
}

// Each part is tagged, so the key stays one-to-one with its parts: a UUID
// as its 16 bytes (the two uids are most of a key's length, and a key is
// held per cached member), any other text up to a separator.
void append_part(std::string& out, std::string_view part) {
  char bytes[16];
  if (pack_uuid(part, bytes)) {
    out += kUuidPart;
    out.append(bytes, sizeof bytes);
  } else {
    out += kTextPart;
    out += part;
    out += kSeparator;
  }
}

}  // namespace

std::string JobCache::key(const char* kind, const ObjectMeta& member, const ObjectMeta& agent, int flavor,
                          std::string_view scope) {
  return key(kind, member.ns, member.name, member.uid, member.resource_version, agent, flavor, scope);
}

std::string JobCache::key(const char* kind, std::string_view ns, std::string_view name, std::string_view uid,
                          std::string_view resource_version, const ObjectMeta& agent, int flavor,
                          std::string_view scope) {
  if (uid.empty() || resource_version.empty() || agent.uid.empty() || agent.resource_version.empty()) return {};
  const std::string_view parts[] = {kind, ns, name, uid, resource_version, agent.uid, agent.resource_version};
  std::size_t size = scope.size() + 16;
  for (std::string_view part : parts) size += part.size() + 2;
  std::string out;
  out.reserve(size);
  for (std::string_view part : parts) append_part(out, part);
  out += std::to_string(flavor);
  out += kSeparator;
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
