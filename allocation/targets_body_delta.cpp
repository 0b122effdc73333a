// Building a targets body from its bucket's delta (JobBucket::dropped and
// ::inserted) against the body of the bucket's previous layout.
#include <algorithm>
#include <span>

#include "allocation/targets_body_build.hpp"

namespace allocation::body_build {
namespace {

// A build from the bucket's delta against the body of its previous layout:
// a previous chunk that starts where a new chunk starts and holds no
// dropped or inserted entry is shared without reading its targets; only
// the targets around the changes are read. Positions: p in the bucket, q
// in the previous layout.
class DeltaBuild {
 public:
  DeltaBuild(const Allocator& a, const JobBucket& b, const TargetsBody& previous, BodyBuildStats& stats)
      : targets_(a.targets()), b_(b), previous_(previous), starts_(previous.starts()), stats_(stats) {}

  std::shared_ptr<const TargetsBody> run() {
    const std::size_t n = b_.targets.size();
    out_.pending.reserve(kMaxChunkTargets);
    out_.chunks.reserve(previous_.chunks().size() + 4);
    out_.starts.reserve(previous_.chunks().size() + 5);
    while (p_ < n) {
      while (d_ < b_.dropped.size() && b_.dropped[d_] == q_) ++q_, ++d_;
      if (out_.pending.empty() && share_next()) continue;
      fetch_ahead();
      take_one();
      const Target& t = *out_.pending.back().target;
      if (ends_chunk(t) || out_.pending.size() == kMaxChunkTargets || p_ == n) out_.flush(&previous_, stats_);
    }
    ++stats_.delta_builds;
    return out_.finish(b_.layout);
  }

 private:
  bool inserted_at(std::size_t p) const { return i_ < b_.inserted.size() && b_.inserted[i_] == p; }

  // The targets a rebuilt chunk reads lie anywhere in the target array, a
  // cache miss each: they are requested a few positions before their turn
  // (a chunk is about eight targets, so most of one at its first target).
  void fetch_ahead() {
    constexpr std::size_t kAhead = 8;
    const std::size_t until = std::min(b_.targets.size(), p_ + kAhead);
    for (fetched_ = std::max(fetched_, p_); fetched_ < until; ++fetched_) {
      const char* t = reinterpret_cast<const char*>(&targets_[b_.targets[fetched_]]);
      __builtin_prefetch(t);
      __builtin_prefetch(t + sizeof(Target) - 1);
    }
  }

  // Shares the previous chunk starting at q_, when nothing inside it changed.
  bool share_next() {
    const auto& chunks = previous_.chunks();
    while (k_ < chunks.size() && starts_[k_] < q_) ++k_;
    if (k_ == chunks.size() || starts_[k_] != q_ || inserted_at(p_)) return false;
    const std::size_t len = starts_[k_ + 1] - q_;
    const bool last = k_ + 1 == chunks.size();
    if (last && p_ + len != b_.targets.size()) return false;  // its end was the bucket's, not a cut
    if (d_ < b_.dropped.size() && b_.dropped[d_] < q_ + len) return false;
    if (i_ < b_.inserted.size() && b_.inserted[i_] < p_ + len) return false;
    // Sharing writes each chunk's reference count, which make_shared keeps
    // just before the chunk; chunks lie wherever they were built.
    if (k_ + 8 < chunks.size()) __builtin_prefetch(reinterpret_cast<const char*>(chunks[k_ + 8].get()) - 16, 1);
    out_.share(chunks[k_], len);
    p_ += len, q_ += len, ++k_;
    return true;
  }

  void take_one() {
    const Target& t = targets_[b_.targets[p_]];
    ++stats_.read_targets;
    std::optional<ChunkHit> hit;
    if (inserted_at(p_)) {
      ++i_;
      hit = find_dropped(t);
    } else {
      hit = at(q_++);
    }
    out_.pending.push_back({&t, hit});
    ++p_;
  }

  ChunkHit at(std::size_t q) const {
    const auto k = std::upper_bound(starts_.begin(), starts_.end(), q) - starts_.begin() - 1;
    return {static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(q - starts_[k])};
  }

  // An inserted entry is often a dropped one with new labels or a new
  // order: its text may be in the previous body at a dropped position near
  // the cursor.
  std::optional<ChunkHit> find_dropped(const Target& t) const {
    constexpr std::size_t kWindow = 8;
    const auto& dropped = b_.dropped;
    for (std::size_t step = 0; step < kWindow; ++step) {
      for (std::size_t j : {d_ - 1 - step, d_ + step}) {
        if (j >= dropped.size()) continue;  // also catches d_ - 1 - step below zero
        const ChunkHit hit = at(dropped[j]);
        const BodyFragment& f = previous_.chunks()[hit.chunk]->fragments()[hit.index];
        if (f.serialises(t)) return hit;
      }
    }
    return std::nullopt;
  }

  std::span<const Target> targets_;
  const JobBucket& b_;
  const TargetsBody& previous_;
  const std::vector<std::uint32_t>& starts_;
  BodyBuildStats& stats_;
  ChunkList out_;
  std::size_t p_ = 0, q_ = 0, d_ = 0, i_ = 0, k_ = 0, fetched_ = 0;
};

}  // namespace

bool delta_applies(const JobBucket& b, const TargetsBody* previous) {
  if (!previous || b.previous_layout == 0 || previous->layout() != b.previous_layout) return false;
  const auto& starts = previous->starts();
  return starts.size() == previous->chunks().size() + 1 &&
         starts.back() + b.inserted.size() == b.targets.size() + b.dropped.size();
}

std::shared_ptr<const TargetsBody> build_from_delta(const Allocator& a, const JobBucket& b, const TargetsBody& previous,
                                                    BodyBuildStats& stats) {
  return DeltaBuild(a, b, previous, stats).run();
}

}  // namespace allocation::body_build
