// Internal to targets_body*.cpp: the pieces both ways of building a body
// share (the walk over every target in targets_body_build.cpp, the build
// from a bucket's delta in targets_body_delta.cpp).
// Contract: a ChunkHit names a target's fragment in the previous body; a
// chunk is ended by ends_chunk() or kMaxChunkTargets, wherever it starts.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "allocation/targets_body.hpp"

namespace allocation::body_build {

// Content-defined cuts: about one target in eight ends a chunk. The
// identity hash is the same in every process, so replicas agree.
inline bool ends_chunk(const Target& t) {
  return (t.hash * 0x9e3779b97f4a7c15ULL) >> 61 == 0;
}

struct ChunkHit {
  std::uint32_t chunk = 0, index = 0;
};

struct Pending {
  const Target* target;
  std::optional<ChunkHit> hit;
};

// The previous chunk these targets are, exactly, if any.
const TargetsBody::Chunk* same_chunk(const std::vector<Pending>& pending, const TargetsBody* previous);

// A new chunk of these targets, copying the text of each hit whose label
// sets are the target's and serialising the others (into `fresh`, scratch
// space the caller keeps between chunks).
TargetsBody::Chunk build_chunk(const std::vector<Pending>& pending, const TargetsBody* previous, std::string& fresh,
                               BodyBuildStats& stats);

// The chunks of a body being built and where each begins in the bucket.
struct ChunkList {
  std::vector<TargetsBody::Chunk> chunks;
  std::vector<std::uint32_t> starts;
  std::vector<Pending> pending;
  std::string fresh;    // build_chunk's scratch
  std::size_t end = 0;  // bucket position after the last chunk

  // Ends the chunk `pending` holds: a previous one when it is the same.
  void flush(const TargetsBody* previous, BodyBuildStats& stats) {
    const TargetsBody::Chunk* same = previous ? same_chunk(pending, previous) : nullptr;
    share(same ? *same : build_chunk(pending, previous, fresh, stats), pending.size());
    pending.clear();
  }
  void share(const TargetsBody::Chunk& chunk, std::size_t targets) {
    chunks.push_back(chunk);
    starts.push_back(static_cast<std::uint32_t>(end));
    end += targets;
  }
  std::shared_ptr<const TargetsBody> finish(std::uint64_t layout) {
    starts.push_back(static_cast<std::uint32_t>(end));
    return std::make_shared<const TargetsBody>(std::move(chunks), std::move(starts), layout);
  }
};

// Whether `previous` was built from the layout the bucket's delta starts at.
bool delta_applies(const JobBucket& b, const TargetsBody* previous);
// The body from the delta (precondition: delta_applies).
std::shared_ptr<const TargetsBody> build_from_delta(const Allocator& a, const JobBucket& b, const TargetsBody& previous,
                                                    BodyBuildStats& stats);

}  // namespace allocation::body_build
