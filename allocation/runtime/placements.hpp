// Where each target sits and which reallocation put it there, for the
// operator's /debug/targets: a ledger updated after every reallocate.
// Contract: pure. update() walks the Allocator's targets once and allocates
// only for targets that are new or moved (stamped with that update's seq
// and cause); others keep their Placement. Targets that share a job and
// address (they differ only in labels) share one placement, as they share
// a placement key in the Allocator. snapshot() is shared and immutable:
// one pointer per target, in no particular order (sorted() orders a copy
// by job, then address, for readers).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "allocation/allocator.hpp"

namespace allocation::runtime {

struct Placement {
  std::string id;  // job + '\0' + address: the ledger's key
  std::string job, address;
  std::string collector;                     // "" = unassigned
  std::uint64_t seq = 0;                     // the reallocate input that last placed it
  std::shared_ptr<const std::string> cause;  // what that reallocate followed (describe() of an input)
};

using PlacementPtr = std::shared_ptr<const Placement>;
using Placements = std::vector<PlacementPtr>;

class PlacementLedger {
 public:
  PlacementLedger() : snapshot_(std::make_shared<const Placements>()) {}
  void update(const Allocator& allocator, std::uint64_t seq, const std::string& cause);
  std::shared_ptr<const Placements> snapshot() const { return snapshot_; }
  std::size_t size() const { return placed_.size(); }

 private:
  struct Slot {
    PlacementPtr placement;
    std::uint64_t seen = 0;  // the update that last saw the target
  };
  std::unordered_map<std::string_view, Slot> placed_;  // keys view each Placement's id
  std::uint64_t updates_ = 0;
  std::string scratch_;
  std::shared_ptr<const Placements> snapshot_;
};

// A copy of `placements` ordered by job, then address.
Placements sorted(const Placements& placements);

}  // namespace allocation::runtime
