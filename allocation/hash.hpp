// Stable 64-bit hashing for targets, label sets and collectors.
// Contract: results depend only on the bytes hashed (little-endian word
// order on every host), never on the process, pointer values or library
// versions, so two allocator replicas compute identical hashes and
// therefore identical assignments.
#pragma once

#include <cstdint>
#include <string_view>

namespace allocation {

// A bijective 64-bit finaliser (xor-shift/multiply); good avalanche.
inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  return x;
}

// Order-dependent combination of two hashes.
inline std::uint64_t hash_combine(std::uint64_t a, std::uint64_t b) {
  return mix64(a * 0x9e3779b97f4a7c15ULL + b + 0x632be59bd9b4e019ULL);
}

// Hashes a byte string (8 bytes per step, then a final mix).
std::uint64_t hash_bytes(std::string_view bytes, std::uint64_t seed = 0);

// A uniform double in [0, 1) from a hash.
inline double unit_interval(std::uint64_t h) {
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

}  // namespace allocation
