// A JobCache entry's asset lookups packed into one string. Kept as
// separate strings (AssetLookup: namespace, name, key and value each) they
// were the largest part of a root's job cache, about 300 bytes for a
// monitor with basic auth.
// Contract: the views give back exactly the lookups packed, in order,
// whatever bytes their names and values hold; they point into the
// PackedLookups and live as long as it does.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/assets.hpp"

namespace model {

struct LookupView {
  bool secret = true;
  std::string_view ns, name, key;
  std::optional<std::string_view> value;  // nullopt: the object or key was missing
};

class PackedLookups {
 public:
  PackedLookups() = default;
  explicit PackedLookups(const std::vector<AssetLookup>& lookups);

  // Whether `f(const LookupView&)` holds for every lookup, in order; stops
  // at the first that does not.
  template <class F>
  bool all_of(F f) const {
    std::size_t pos = 0;
    LookupView view;
    while (next(pos, view))
      if (!f(view)) return false;
    return true;
  }
  std::vector<AssetLookup> unpack() const;
  std::size_t size_in_bytes() const { return bytes_.size(); }

 private:
  bool next(std::size_t& pos, LookupView& out) const;
  std::string bytes_;
};

}  // namespace model
