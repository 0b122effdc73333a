// The vectorised top-two kernel of consistent-hashing (see rendezvous.hpp).
#include "allocation/rendezvous.hpp"

#include <algorithm>

namespace allocation {

// The two best collectors of kLanes targets at once: one lane per target,
// collectors in index order, so GCC vectorises the lane loop (8 or 16
// lanes) with no cross-lane merge. ambiguous[l] flags a lane where a tie
// (any score equal to the running best or second best) or a zero second
// score makes the result order-dependent; the caller then ranks exactly.
// Clang has no per-function optimize attribute (and warns on it); it
// vectorises this loop at the build's -O2 anyway.
#if defined(__clang__)
#define AO_TOP_TWO_ATTRIBUTES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AO_TOP_TWO_ATTRIBUTES __attribute__((target_clones("avx512f", "avx2", "default"), optimize("O3")))
#endif
AO_TOP_TWO_ATTRIBUTES void top_two(const std::uint32_t* __restrict keys, const std::uint32_t* __restrict seeds,
                                   std::size_t n, std::uint32_t* __restrict first, std::uint32_t* __restrict second,
                                   std::uint32_t* __restrict ambiguous) {
  std::uint32_t b1[kLanes] = {}, b2[kLanes] = {}, i1[kLanes] = {}, i2[kLanes] = {}, tie[kLanes] = {};
  for (std::size_t c = 0; c < n; ++c) {
    const std::uint32_t seed = seeds[c], index = static_cast<std::uint32_t>(c);
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::uint32_t x = score(keys[l], seed);
      tie[l] |= static_cast<std::uint32_t>(x == b1[l]) | static_cast<std::uint32_t>(x == b2[l]);
      const std::uint32_t top = x > b1[l] ? ~0u : 0u, next = x > b2[l] ? ~0u : 0u;
      i2[l] = (top & i1[l]) | (~top & ((next & index) | (~next & i2[l])));
      b2[l] = std::max(b2[l], std::min(b1[l], x));
      i1[l] = (top & index) | (~top & i1[l]);
      b1[l] = std::max(b1[l], x);
    }
  }
  for (std::size_t l = 0; l < kLanes; ++l) {
    first[l] = i1[l];
    second[l] = i2[l];
    ambiguous[l] = tie[l] | static_cast<std::uint32_t>(b2[l] == 0);
  }
}

}  // namespace allocation
