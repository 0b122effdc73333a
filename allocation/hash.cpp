#include "allocation/hash.hpp"

#include <bit>
#include <cstring>

namespace allocation {
namespace {

std::uint64_t load_le(const char* p, std::size_t n) {
  std::uint64_t w = 0;
  std::memcpy(&w, p, n);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

std::uint64_t load32(const unsigned char* p) {
  std::uint32_t w;
  std::memcpy(&w, p, 4);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap32(w);
  return w;
}

// The same word as load_le(p, n) for 0 < n < 8, without a libc memcpy call
// or a byte loop (hashed label values are short, so the tail is most of
// the work): two overlapping loads whose shared bytes agree, so OR-ing
// them gives each byte its place.
std::uint64_t load_tail(const unsigned char* p, std::size_t n) {
  if (n >= 4) return load32(p) | (load32(p + n - 4) << (8 * (n - 4)));
  const std::size_t mid = n / 2;
  return std::uint64_t{p[0]} | (std::uint64_t{p[mid]} << (8 * mid)) | (std::uint64_t{p[n - 1]} << (8 * (n - 1)));
}

std::uint64_t step(std::uint64_t h, std::uint64_t w) {
  w *= 0x87c37b91114253d5ULL;
  w = std::rotl(w, 31);
  w *= 0x4cf5ad432745937fULL;
  h ^= w;
  h = std::rotl(h, 27) * 5 + 0x52dce729;
  return h;
}

}  // namespace

std::uint64_t hash_bytes(std::string_view bytes, std::uint64_t seed) {
  std::uint64_t h = seed ^ (bytes.size() * 0x9e3779b97f4a7c15ULL);
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  for (; n >= 8; p += 8, n -= 8) h = step(h, load_le(p, 8));
  if (n > 0) h = step(h, load_tail(reinterpret_cast<const unsigned char*>(p), n) ^ (std::uint64_t{n} << 59));
  return mix64(h ^ bytes.size());
}

}  // namespace allocation
