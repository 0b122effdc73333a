// Building a targets body by walking every target of its bucket, and the
// chunk helpers both builds use.
#include <array>
#include <optional>
#include <span>

#include "allocation/targets_body_build.hpp"

namespace allocation {
namespace body_build {
namespace {

// Walks the previous body's targets in order, looking for each new target
// at the cursor or a little ahead (targets that left): buckets keep their
// order between versions, so nearly every lookup hits at the cursor. The
// walk visits every target of the bucket, so the next chunk is fetched
// ahead of need: chunks and their fragments sit wherever each was built.
class PreviousTargets {
 public:
  explicit PreviousTargets(const TargetsBody* previous) : previous_(previous) {
    if (previous_ && !previous_->chunks().empty()) enter(0);
  }
  std::optional<ChunkHit> find(const Target& t) {
    constexpr int kWindow = 16;
    if (!previous_) return std::nullopt;
    const auto& chunks = previous_->chunks();
    std::size_t k = chunk_, m = index_;
    std::span<const BodyFragment> frags = fragments_;
    for (int step = 0; step < kWindow && k < chunks.size() && m < frags.size(); ++step) {
      const BodyFragment& f = frags[m];
      const ChunkHit at{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(m)};
      if (++m == frags.size() && ++k < chunks.size()) frags = chunks[k]->fragments(), m = 0;
      if (f.serialises(t)) {
        if (k != chunk_ && k < chunks.size()) enter(k);
        chunk_ = k, index_ = m;
        return at;
      }
    }
    return std::nullopt;
  }

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

}  // namespace

const TargetsBody::Chunk* same_chunk(const std::vector<Pending>& pending, const TargetsBody* previous) {
  if (!pending.front().hit) return nullptr;
  const std::uint32_t k = pending.front().hit->chunk;
  if (previous->chunks()[k]->fragments().size() != pending.size()) return nullptr;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const auto& hit = pending[i].hit;
    if (!hit || hit->chunk != k || hit->index != i) return nullptr;
  }
  return &previous->chunks()[k];
}

// The text is allocated once at its final size: the targets to serialise
// go to `fresh` first, so that size is known before anything is copied
// (growing the text as it is appended cost a reallocation and a copy of
// everything so far at each doubling).
TargetsBody::Chunk build_chunk(const std::vector<Pending>& pending, const TargetsBody* previous, std::string& fresh,
                               BodyBuildStats& stats) {
  struct Source {
    const char* old;  // null: the text is fresh[offset, offset + size)
    std::uint32_t offset, size;
    std::uint64_t hash;
  };
  std::array<Source, kMaxChunkTargets> sources;
  fresh.clear();
  std::size_t total = pending.size() - 1;  // the commas
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const Pending& p = pending[i];
    const BodyChunk* old = p.hit ? previous->chunks()[p.hit->chunk].get() : nullptr;
    const BodyFragment* f = old ? &old->fragments()[p.hit->index] : nullptr;
    // A delta build's hits are positions; the label sets are compared all
    // the same, so a wrong position could cost a serialisation, never bytes.
    if (f && f->serialises(*p.target)) {
      sources[i] = {old->text().data() + f->offset, 0, f->size, f->text_hash};
    } else {
      const std::size_t at = fresh.size();
      append_target_json(fresh, *p.target);
      const std::string_view piece = std::string_view(fresh).substr(at);
      sources[i] = {nullptr, static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(piece.size()),
                    fragment_hash(piece)};
      ++stats.serialised_targets;
    }
    total += sources[i].size;
  }
  std::string text;
  text.reserve(total);
  std::vector<BodyFragment> fragments;
  fragments.reserve(pending.size());
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (i > 0) text += ',';
    const Source& src = sources[i];
    const std::size_t at = text.size();
    text.append(src.old ? src.old : fresh.data() + src.offset, src.size);
    const Target& t = *pending[i].target;
    fragments.push_back(
        {t.group.get(), t.own.get(), t.labels_hash, src.hash, static_cast<std::uint32_t>(at), src.size});
  }
  ++stats.built_chunks;
  return make_chunk(std::move(text), std::move(fragments));
}

}  // namespace body_build

std::shared_ptr<const TargetsBody> build_targets_body(const Allocator& a, const JobBucket& bucket,
                                                      const TargetsBody* previous, BodyBuildStats& stats) {
  using namespace body_build;
  if (delta_applies(bucket, previous)) return build_from_delta(a, bucket, *previous, stats);
  PreviousTargets finder(previous);
  ChunkList out;
  out.chunks.reserve(previous ? previous->chunks().size() + 4 : bucket.targets.size() / 8 + 1);
  out.pending.reserve(kMaxChunkTargets);
  // A bucket's targets are spread over the whole target array: each read
  // misses the cache, so the reads are issued well ahead of their use.
  constexpr std::size_t kAhead = 12;
  const auto targets = a.targets();
  stats.read_targets += bucket.targets.size();
  for (std::size_t i = 0; i < bucket.targets.size(); ++i) {
    if (i + kAhead < bucket.targets.size()) {
      const char* ahead = reinterpret_cast<const char*>(&targets[bucket.targets[i + kAhead]]);
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + sizeof(Target) - 1);
    }
    const Target& t = targets[bucket.targets[i]];
    out.pending.push_back({&t, finder.find(t)});
    if (ends_chunk(t) || out.pending.size() == kMaxChunkTargets || i + 1 == bucket.targets.size())
      out.flush(previous, stats);
  }
  return out.finish(bucket.layout);
}

}  // namespace allocation
