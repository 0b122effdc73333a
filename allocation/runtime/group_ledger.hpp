// runtime::State's record of what each discovery source gave the Allocator
// at the last reallocate, so that a later one can replace only the groups
// that changed (Allocator::update_targets) instead of reprocessing all.
// A source is a segment: the static targets, one http_sd or file_sd source
// (replaced whole by each answer), or one kubernetes_sd consumer, whose
// groups are kept by source key. For each it keeps the identities
// (Target::hash) its targets kept through the relabel filter and how many
// the filter found invalid.
// Contract: Target::order = segment << 48 | group number << 24 | index in
// the group. Segments are numbered in the order State lists its targets,
// and a keyed segment's group numbers increase with the keys, so orders
// increase in that order, which is the order the Allocator serves. A full
// pass (clear, then append in order) numbers keyed groups with gaps; a new
// group later takes a number between its neighbours', or gets none when
// there is no room left (the caller then makes a full pass, which
// renumbers). ok() turns false when a count outgrows its field; the
// numbering is then not to be trusted until the next full pass.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "allocation/target.hpp"

namespace allocation::runtime {

class GroupLedger {
 public:
  static constexpr unsigned kIndexBits = 24, kNumberBits = 24, kSegmentBits = 16;
  struct Group {
    std::uint64_t number = 0;
    std::vector<std::uint64_t> hashes;  // identities kept by the filter
    std::size_t invalid = 0;            // targets the filter found invalid
  };

  // Forgets everything: a full pass follows.
  void clear();
  bool ok() const { return ok_; }
  // Opens the next segment for source `id`; keyed segments hold groups by key.
  std::uint32_t add_segment(const std::string& id, bool keyed);
  std::optional<std::uint32_t> segment(const std::string& id) const;

  // A whole segment's targets (its groups numbered 0, 1, ...), appended to
  // `out`; the segment's previous identities go to `removed`.
  void replace_whole(std::uint32_t segment, Name job, const std::vector<TargetGroup>& groups, TargetList& out,
                     std::vector<std::uint64_t>& removed);
  // Static targets, copied with their orders (group 0, index i).
  void append_static(std::uint32_t segment, const TargetList& targets, TargetList& out);
  // A full pass's groups of a keyed segment, in key order, numbered with gaps.
  void append_keyed(std::uint32_t segment, Name job, const std::vector<std::string>& keys,
                    const std::vector<TargetGroup>& groups, TargetList& out);
  // One changed group of a keyed segment (`group` null or empty: gone).
  // Returns false when a new group finds no free number between its
  // neighbours (nothing is then appended).
  bool replace_keyed(std::uint32_t segment, Name job, const std::string& key, const TargetGroup* group, TargetList& out,
                     std::vector<std::uint64_t>& removed);

  // After the filter: records the identities of `kept` and the invalid
  // count of every group appended since the last call (both in order).
  void record(const TargetList& kept, const std::vector<std::uint64_t>& invalid_orders);
  std::size_t invalid() const { return invalid_; }

 private:
  struct Segment {
    bool keyed = false;
    Group whole;                          // unkeyed segments
    std::map<std::string, Group> groups;  // keyed segments, by source key
  };
  struct Pending {
    std::uint64_t base;  // order >> kIndexBits
    Group* group;
  };
  bool fits(std::uint64_t numbers, const std::vector<TargetGroup>& groups);
  void take(Group& g, std::vector<std::uint64_t>& removed);

  std::deque<Segment> segments_;  // a deque: pending_ points into it while segments are added
  std::map<std::string, std::uint32_t> segment_of_;
  std::vector<Pending> pending_;
  std::size_t invalid_ = 0;
  bool ok_ = true;
};

}  // namespace allocation::runtime
