#include "model/member_key.hpp"

#include <array>
#include <atomic>
#include <functional>
#include <mutex>
#include <unordered_set>

namespace model {

namespace {

// Beyond these the table stops growing: its worst case stays a few MB.
constexpr std::size_t kMaxInternedLength = 96;
constexpr std::size_t kMaxInternedKeys = 1 << 16;
constexpr std::size_t kShards = 16;

struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct Shard {
  std::mutex mutex;
  // Node-based: an element's address survives rehashing, and MemberKeys hold it.
  std::unordered_set<std::string, TextHash, std::equal_to<>> texts;
};

struct Table {
  std::array<Shard, kShards> shards;
  std::atomic<std::size_t> count{0};
};

// Never destroyed: Values in static storage may outlive any destructor order.
// "" is interned first, so a default key never depends on the table's room.
Table& table() {
  static Table* t = [] {
    auto* made = new Table;
    made->shards[TextHash{}(std::string_view()) % kShards].texts.emplace();
    made->count = 1;
    return made;
  }();
  return *t;
}

const std::string* intern_slow(std::string_view text, std::size_t hash) {
  Table& t = table();
  Shard& shard = t.shards[hash % kShards];
  std::lock_guard lock(shard.mutex);
  if (auto it = shard.texts.find(text); it != shard.texts.end()) return &*it;
  if (t.count.load(std::memory_order_relaxed) >= kMaxInternedKeys) return nullptr;
  t.count.fetch_add(1, std::memory_order_relaxed);
  return &*shard.texts.emplace(text).first;
}

// Most lookups hit this per-thread cache of recent keys, without a lock.
const std::string* intern(std::string_view text) {
  constexpr std::size_t kSlots = 512;
  thread_local std::array<const std::string*, kSlots> cache{};
  std::size_t hash = TextHash{}(text);
  const std::string*& slot = cache[(hash >> 7) % kSlots];
  if (slot && *slot == text) return slot;
  const std::string* found = intern_slow(text, hash);
  if (found) slot = found;
  return found;
}

}  // namespace

const std::string& MemberKey::empty_text() {
  static const std::string* empty = intern("");
  return *empty;
}

std::uintptr_t MemberKey::make(std::string_view text) {
  const std::string* p = text.size() <= kMaxInternedLength ? intern(text) : nullptr;
  return p ? reinterpret_cast<std::uintptr_t>(p) : make_owned(text);
}

std::uintptr_t MemberKey::make_owned(std::string_view text) {
  return reinterpret_cast<std::uintptr_t>(new std::string(text)) | 1;
}

void MemberKey::release() {
  if (owned()) delete reinterpret_cast<std::string*>(bits_ & ~std::uintptr_t{1});
}

MemberKey& MemberKey::operator=(const MemberKey& other) {
  if (this == &other) return *this;
  std::uintptr_t next = other.owned() ? make_owned(other.str()) : other.bits_;
  release();
  bits_ = next;
  return *this;
}

MemberKey& MemberKey::operator=(MemberKey&& other) noexcept {
  if (this == &other) return *this;
  release();
  bits_ = other.bits_;
  other.bits_ = reinterpret_cast<std::uintptr_t>(&empty_text());
  return *this;
}

}  // namespace model
