// A collector's targets of one job, the body of
// /jobs/{job}/targets?collector_id=, kept in chunks so that the next
// version of the body shares every chunk whose targets did not change:
// publishing then costs what changed, not the size of every body.
// Contract: a TargetsBody is immutable once built and may be read from any
// thread. Its bytes are "[" + the chunks' texts joined by "," + "]\n",
// exactly collector_targets_json's. A chunk ends after a target whose
// identity hash has its top three bits clear, or after kMaxChunkTargets
// targets, so where the cuts fall depends only on the targets: every
// process serving the same targets cuts the same chunks and gives the same
// entity tag, a hash of the chunks' hashes. The gzip form is compressed
// on first use, once per body (not per request, as httplib would).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "allocation/allocator.hpp"

namespace allocation {

inline constexpr std::size_t kMaxChunkTargets = 64;

// Appends one target's JSON object ({"targets":[...],"labels":{...}}).
void append_target_json(std::string& out, const Target& t);
// BodyFragment::text_hash of a target's JSON object.
std::uint64_t fragment_hash(std::string_view text);

// Where one target's JSON object sits in its chunk's text, and the label
// sets it was serialised from. The sets are not held (a reference count
// each would be two locked writes to cold lines per target copied): a
// fragment is the text of a target whose sets are at the same addresses
// and whose labels_hash (the sets' fingerprints) is the same, so a set
// freed and another built at its address with other labels is told apart.
struct BodyFragment {
  const LabelSet* group = nullptr;
  const LabelSet* own = nullptr;
  std::uint64_t labels = 0;     // Target::labels_hash
  std::uint64_t text_hash = 0;  // of the fragment's bytes (see BodyChunk::hash)
  std::uint32_t offset = 0, size = 0;

  bool serialises(const Target& t) const {
    return own == t.own.get() && group == t.group.get() && labels == t.labels_hash;
  }
};

class BodyChunk {
 public:
  BodyChunk(std::string text, std::vector<BodyFragment> fragments);
  const std::string& text() const { return text_; }
  // A hash of the fragments' text hashes in order (of the text itself for
  // a chunk without fragments): a rebuilt chunk hashes only the targets it
  // serialised afresh, not the text it copied.
  std::uint64_t hash() const { return hash_; }
  const std::vector<BodyFragment>& fragments() const { return fragments_; }

 private:
  std::string text_;
  std::uint64_t hash_;
  std::vector<BodyFragment> fragments_;
};

// A new chunk. Chunks and their reference counts live in the label arena
// (label_arena.hpp): a publish shares every unchanged chunk of every body
// it rebuilds (one count increment each, and a decrement when the previous
// body goes), and packed together those counts sit on a few huge pages
// instead of one page each beside the chunk's text.
std::shared_ptr<const BodyChunk> make_chunk(std::string text, std::vector<BodyFragment> fragments);

class TargetsBody {
 public:
  using Chunk = std::shared_ptr<const BodyChunk>;
  // `starts`: where each chunk's targets begin in the bucket, then the
  // bucket's size (chunks.size() + 1 entries), and `layout` the bucket's
  // layout they were built from; a body without them (empty, 0) is never
  // a base for a delta build.
  explicit TargetsBody(std::vector<Chunk> chunks, std::vector<std::uint32_t> starts = {}, std::uint64_t layout = 0);
  // "[]\n", shared.
  static const std::shared_ptr<const TargetsBody>& empty();

  const std::vector<Chunk>& chunks() const { return chunks_; }
  const std::vector<std::uint32_t>& starts() const { return starts_; }
  std::uint64_t layout() const { return layout_; }
  std::size_t size() const { return size_; }
  const std::string& etag() const { return etag_; }
  // The bytes in order, as views into this body and static storage.
  std::vector<std::string_view> pieces() const;
  std::string str() const;
  // The body without its final newline, appended to `out` (a JSON array).
  void append_array(std::string& out) const;

  // The same bytes gzip-compressed (level 1), by the first caller
  // (thread-safe).
  const std::string& gzipped() const;
  // etag() for the gzip form (another representation, another tag).
  const std::string& gzip_etag() const { return gzip_etag_; }

 private:
  std::vector<Chunk> chunks_;
  std::vector<std::uint32_t> starts_;
  std::uint64_t layout_ = 0;
  std::size_t size_ = 0;
  std::string etag_, gzip_etag_;
  mutable std::once_flag gzip_once_;
  mutable std::string gzipped_;
};

struct BodyBuildStats {
  std::size_t serialised_targets = 0;  // written afresh, not copied from `previous`
  std::size_t built_chunks = 0;        // new chunks (the rest were shared)
  std::size_t delta_builds = 0;        // bodies built from the bucket's delta
  std::size_t read_targets = 0;        // targets the builds read (a delta build skips shared chunks)
};

// The body of `bucket`, sharing `previous`'s chunks where their targets are
// the same (same label sets, same order) and copying the text of every
// other target it already served; `previous` may be null. When `previous`
// was built from the bucket's previous layout, only the targets around the
// bucket's delta are read; otherwise every target is.
std::shared_ptr<const TargetsBody> build_targets_body(const Allocator& a, const JobBucket& bucket,
                                                      const TargetsBody* previous, BodyBuildStats& stats);

}  // namespace allocation
