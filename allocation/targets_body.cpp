#include "allocation/targets_body.hpp"

#include <cstdio>
#include <mutex>
#include <new>

#include "allocation/hash.hpp"
#include "allocation/responses.hpp"
#include "model/codec.hpp"
#include "model/http_sd.hpp"

namespace allocation {
namespace {

constexpr std::string_view kOpen = "[", kSeparator = ",", kClose = "]\n";

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// Blocks of one size carved from 64 KiB slabs, with a free list. Slabs are
// never returned: the pool stays at the most chunks ever alive at once,
// which a running allocator reaches again at its next full publish.
// Chunks are freed on whichever thread drops the last body holding them.
class BlockPool {
 public:
  explicit BlockPool(std::size_t size) : size_((size + 15) / 16 * 16) {}
  void* get() {
    std::lock_guard lock(mutex_);
    if (free_) {
      void* p = free_;
      free_ = *static_cast<void**>(p);
      if (free_) __builtin_prefetch(free_);  // the next pop's read (chunks are made in runs)
      return p;
    }
    // A distance, not next_ + size_: before the first slab next_ is null.
    if (static_cast<std::size_t>(end_ - next_) < size_) {
      next_ = static_cast<char*>(::operator new (kSlab, std::align_val_t{64}));
      end_ = next_ + kSlab;
    }
    void* p = next_;
    next_ += size_;
    return p;
  }
  void put(void* p) {
    std::lock_guard lock(mutex_);
    *static_cast<void**>(p) = free_;
    free_ = p;
  }

 private:
  static constexpr std::size_t kSlab = 64 * 1024;
  std::mutex mutex_;
  std::size_t size_;
  void* free_ = nullptr;
  char *next_ = nullptr, *end_ = nullptr;
};

template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}  // NOLINT: rebinding, as std::allocator
  static BlockPool& pool() {
    static_assert(alignof(T) <= 16);
    static BlockPool* p = new BlockPool(sizeof(T));  // never destroyed: chunks may outlive static destruction
    return *p;
  }
  // AddressSanitizer sees only the pool's slabs, not a freed chunk read
  // afterwards: its builds allocate each chunk on its own.
  T* allocate(std::size_t n) {
    if (n != 1 || kSanitized) return static_cast<T*>(::operator new(n * sizeof(T)));
    return static_cast<T*>(pool().get());
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n != 1 || kSanitized) return ::operator delete(p);
    pool().put(p);
  }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
};

std::string chunks_etag(const std::vector<TargetsBody::Chunk>& chunks) {
  if (chunks.empty()) return body_etag("[]\n");
  std::vector<std::uint64_t> hashes;
  hashes.reserve(chunks.size());
  for (const auto& c : chunks) hashes.push_back(c->hash());
  const std::string_view bytes(reinterpret_cast<const char*>(hashes.data()), hashes.size() * sizeof hashes[0]);
  char buf[24];
  std::snprintf(buf, sizeof buf, "\"%016llx\"", static_cast<unsigned long long>(hash_bytes(bytes, 0x63686e6b)));
  return buf;
}

}  // namespace

void append_target_json(std::string& out, const Target& t) {
  out += "{\"targets\":[";
  append_json_string(out, t.address);
  out += "],\"labels\":{";
  bool first = true;
  for (const auto& [name, value] : sorted_by_text(t.group.get(), t.own.get())) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, name);
    out += ':';
    append_json_string(out, value);
  }
  out += "}}";
}

std::shared_ptr<const BodyChunk> make_chunk(std::string text, std::vector<BodyFragment> fragments) {
  return std::allocate_shared<const BodyChunk>(PoolAllocator<BodyChunk>{}, std::move(text), std::move(fragments));
}

std::uint64_t fragment_hash(std::string_view text) {
  return hash_bytes(text, 0x74787473);
}

namespace {

std::uint64_t chunk_hash(const std::string& text, const std::vector<BodyFragment>& fragments) {
  if (fragments.empty()) return hash_bytes(text, 0x74787473);
  std::uint64_t hashes[kMaxChunkTargets];
  std::size_t n = 0;
  std::uint64_t h = 0;
  for (const BodyFragment& f : fragments) {
    hashes[n++] = f.text_hash;
    if (n == kMaxChunkTargets) h = hash_bytes({reinterpret_cast<const char*>(hashes), n * sizeof hashes[0]}, h), n = 0;
  }
  return hash_bytes({reinterpret_cast<const char*>(hashes), n * sizeof hashes[0]}, h ^ 0x66726167);
}

}  // namespace

BodyChunk::BodyChunk(std::string text, std::vector<BodyFragment> fragments)
    : text_(std::move(text)), hash_(chunk_hash(text_, fragments)), fragments_(std::move(fragments)) {}

TargetsBody::TargetsBody(std::vector<Chunk> chunks, std::vector<std::uint32_t> starts, std::uint64_t layout)
    : chunks_(std::move(chunks)), starts_(std::move(starts)), layout_(layout), etag_(chunks_etag(chunks_)) {
  size_ = kOpen.size() + kClose.size() + (chunks_.empty() ? 0 : chunks_.size() - 1);
  for (const auto& c : chunks_) size_ += c->text().size();
  gzip_etag_ = model::gzip_etag(etag_);
}

const std::shared_ptr<const TargetsBody>& TargetsBody::empty() {
  static const auto body = std::make_shared<const TargetsBody>(std::vector<Chunk>{});
  return body;
}

std::vector<std::string_view> TargetsBody::pieces() const {
  std::vector<std::string_view> out;
  out.reserve(2 * chunks_.size() + 2);
  out.push_back(kOpen);
  for (std::size_t i = 0; i < chunks_.size(); ++i) {
    if (i > 0) out.push_back(kSeparator);
    out.push_back(chunks_[i]->text());
  }
  out.push_back(kClose);
  return out;
}

std::string TargetsBody::str() const {
  std::string out;
  out.reserve(size_);
  for (std::string_view p : pieces()) out += p;
  return out;
}

void TargetsBody::append_array(std::string& out) const {
  const auto all = pieces();
  for (std::size_t i = 0; i + 1 < all.size(); ++i) out += all[i];
  out += kClose.substr(0, 1);
}

const std::string& TargetsBody::gzipped() const {
  // Level 1: most of the default level's gain on label-heavy JSON for a
  // fraction of its CPU (as the integrations SD endpoint).
  std::call_once(gzip_once_, [this] { gzipped_ = model::gzip_compress_pieces(pieces(), 1); });
  return gzipped_;
}

}  // namespace allocation
