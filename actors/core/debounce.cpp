#include "actors/core/debounce.hpp"

#include <algorithm>

namespace actors::core {

Debouncer::Time Debouncer::note(Time now) {
  if (!first_) {
    first_ = now;
  } else {
    ++coalesced_;
  }
  deadline_ = std::min(now + delay_, *first_ + max_wait_);
  return *deadline_;
}

void Debouncer::fire() {
  first_.reset();
  deadline_.reset();
}

}  // namespace actors::core
