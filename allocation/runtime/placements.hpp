// Where each target sits and which reallocation put it there, for the
// operator's /debug/targets: a ledger updated after every reallocate.
// Contract: pure. update() is O(targets); a target (job, address) that is
// new, or on another collector than at the previous update, is stamped with
// that update's seq and cause; others keep theirs. Targets that share a
// job and address (they differ only in labels) share one placement, as
// they share a placement key in the Allocator. list() is sorted by job,
// then address.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "allocation/allocator.hpp"

namespace allocation::runtime {

struct Placement {
  std::string job, address;
  std::string collector;                     // "" = unassigned
  std::uint64_t seq = 0;                     // the reallocate input that last placed it
  std::shared_ptr<const std::string> cause;  // what that reallocate followed (describe() of an input)
};

class PlacementLedger {
 public:
  void update(const Allocator& allocator, std::uint64_t seq, const std::string& cause);
  std::vector<Placement> list() const;
  std::size_t size() const { return placed_.size(); }

 private:
  struct Entry {
    std::string job, address, collector;
    std::uint64_t seq = 0;
    std::shared_ptr<const std::string> cause;
  };
  std::unordered_map<std::string, Entry> placed_;  // by job + '\0' + address
};

}  // namespace allocation::runtime
