// Internal: the rendezvous score of consistent-hashing and its vectorised
// top-two kernel (scores of kLanes targets at once, one lane per target).
// Contract: score() and top_two() give identical results on every CPU
// (AVX-512, AVX2 and scalar clones of the same code).
#pragma once

#include <cstddef>
#include <cstdint>

namespace allocation {

inline constexpr std::size_t kLanes = 16;

inline std::uint32_t fold(std::uint64_t x) {
  return static_cast<std::uint32_t>(x ^ (x >> 32));
}

// The rendezvous score of (target, collector): a 32-bit mix, so a row of
// scores vectorises (8 or 16 lanes). Ties are broken by the 64-bit seed.
inline std::uint32_t score(std::uint32_t key, std::uint32_t seed) {
  std::uint32_t x = key ^ seed;
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// The indices of the best and second-best collectors (by score, collectors
// in index order) of kLanes targets; ambiguous[l] != 0 when lane l had a
// tie or a zero second score, and must then be ranked exactly.
void top_two(const std::uint32_t* __restrict keys, const std::uint32_t* __restrict seeds, std::size_t n,
             std::uint32_t* __restrict first, std::uint32_t* __restrict second, std::uint32_t* __restrict ambiguous);

}  // namespace allocation
