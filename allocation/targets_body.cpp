#include "allocation/targets_body.hpp"

#include <cstdio>
#include <optional>
#include <span>

#include "allocation/hash.hpp"
#include "allocation/responses.hpp"
#include "model/codec.hpp"
#include "model/http_sd.hpp"

namespace allocation {
namespace {

constexpr std::string_view kOpen = "[", kSeparator = ",", kClose = "]\n";

// Content-defined cuts: about one target in eight ends a chunk. The
// identity hash is the same in every process, so replicas agree.
bool ends_chunk(const Target& t) {
  return (t.hash * 0x9e3779b97f4a7c15ULL) >> 61 == 0;
}

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

// Walks the previous body's targets in order, looking for each new target
// at the cursor or a little ahead (targets that left): buckets keep their
// order between versions, so nearly every lookup hits at the cursor. The
// walk visits every target of the bucket, so the next chunk is fetched
// ahead of need: chunks and their fragments sit wherever each was built.
class PreviousTargets {
 public:
  struct Hit {
    std::uint32_t chunk = 0, index = 0;
  };
  explicit PreviousTargets(const TargetsBody* previous) : previous_(previous) {
    if (previous_ && !previous_->chunks().empty()) enter(0);
  }
  std::optional<Hit> find(const Target& t) {
    constexpr int kWindow = 16;
    if (!previous_) return std::nullopt;
    const auto& chunks = previous_->chunks();
    std::size_t k = chunk_, m = index_;
    std::span<const BodyFragment> frags = fragments_;
    for (int step = 0; step < kWindow && k < chunks.size() && m < frags.size(); ++step) {
      const BodyFragment& f = frags[m];
      const Hit at{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(m)};
      if (++m == frags.size() && ++k < chunks.size()) frags = chunks[k]->fragments(), m = 0;
      if (f.own == t.own && f.group == t.group) {
        if (k != chunk_ && k < chunks.size()) enter(k);
        chunk_ = k, index_ = m;
        return at;
      }
    }
    return std::nullopt;
  }
  const BodyChunk& chunk(std::uint32_t k) const { return *previous_->chunks()[k]; }
  const TargetsBody::Chunk& shared(std::uint32_t k) const { return previous_->chunks()[k]; }

 private:
  void enter(std::size_t k) {
    const auto& chunks = previous_->chunks();
    fragments_ = chunks[k]->fragments();
    if (k + 1 < chunks.size()) {
      const BodyChunk* next = chunks[k + 1].get();
      __builtin_prefetch(next);
      __builtin_prefetch(reinterpret_cast<const char*>(next) + 64);
      if (k + 2 < chunks.size()) __builtin_prefetch(chunks[k + 2].get());
    }
    for (std::size_t i = 0; i < fragments_.size(); i += 2) __builtin_prefetch(&fragments_[i]);
  }
  const TargetsBody* previous_;
  std::size_t chunk_ = 0, index_ = 0;
  std::span<const BodyFragment> fragments_;
};

struct Pending {
  const Target* target;
  std::optional<PreviousTargets::Hit> hit;
};

// The previous chunk these targets are, exactly, if any.
const TargetsBody::Chunk* same_chunk(const std::vector<Pending>& pending, const PreviousTargets& previous) {
  if (!pending.front().hit) return nullptr;
  const std::uint32_t k = pending.front().hit->chunk;
  if (previous.chunk(k).fragments().size() != pending.size()) return nullptr;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const auto& hit = pending[i].hit;
    if (!hit || hit->chunk != k || hit->index != i) return nullptr;
  }
  return &previous.shared(k);
}

TargetsBody::Chunk build_chunk(const std::vector<Pending>& pending, const PreviousTargets& previous,
                               BodyBuildStats& stats) {
  std::string text;
  std::vector<BodyFragment> fragments;
  fragments.reserve(pending.size());
  for (const Pending& p : pending) {
    if (!text.empty()) text += ',';
    const std::size_t at = text.size();
    if (p.hit) {
      const BodyChunk& old = previous.chunk(p.hit->chunk);
      const BodyFragment& f = old.fragments()[p.hit->index];
      text.append(old.text(), f.offset, f.size);
    } else {
      append_target_json(text, *p.target);
      ++stats.serialised_targets;
    }
    fragments.push_back(
        {p.target->group, p.target->own, static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(text.size() - at)});
  }
  ++stats.built_chunks;
  return std::make_shared<const BodyChunk>(std::move(text), std::move(fragments));
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

BodyChunk::BodyChunk(std::string text, std::vector<BodyFragment> fragments)
    : text_(std::move(text)), hash_(hash_bytes(text_, 0x74787473)), fragments_(std::move(fragments)) {}

TargetsBody::TargetsBody(std::vector<Chunk> chunks) : chunks_(std::move(chunks)), etag_(chunks_etag(chunks_)) {
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

std::shared_ptr<const TargetsBody> build_targets_body(const Allocator& a, const JobBucket& bucket,
                                                      const TargetsBody* previous, BodyBuildStats& stats) {
  PreviousTargets finder(previous);
  std::vector<TargetsBody::Chunk> chunks;
  chunks.reserve(previous ? previous->chunks().size() + 4 : bucket.targets.size() / 8 + 1);
  std::vector<Pending> pending;
  pending.reserve(kMaxChunkTargets);
  // A bucket's targets are spread over the whole target array: each read
  // misses the cache, so the reads are issued well ahead of their use.
  constexpr std::size_t kAhead = 12;
  const auto targets = a.targets();
  for (std::size_t i = 0; i < bucket.targets.size(); ++i) {
    if (i + kAhead < bucket.targets.size()) {
      const char* ahead = reinterpret_cast<const char*>(&targets[bucket.targets[i + kAhead]]);
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + sizeof(Target) - 1);
    }
    const Target& t = targets[bucket.targets[i]];
    pending.push_back({&t, finder.find(t)});
    if (!ends_chunk(t) && pending.size() < kMaxChunkTargets && i + 1 < bucket.targets.size()) continue;
    const TargetsBody::Chunk* same = same_chunk(pending, finder);
    chunks.push_back(same ? *same : build_chunk(pending, finder, stats));
    pending.clear();
  }
  return std::make_shared<const TargetsBody>(std::move(chunks));
}

}  // namespace allocation
