// SHA-256 (FIPS 180-4) and HMAC-SHA256, implemented here so the journal's
// keyed secret redaction and the writer's config-hash annotation need no
// crypto dependency.
// Contract: pure; streaming (update any number of times, then finish once)
// or one-shot; digests are 32 raw bytes, hex output is lower-case.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace model {

class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256();
  void update(std::string_view bytes);
  // Pads and returns the digest; the object must not be updated afterwards.
  Digest finish();

 private:
  void block(const std::uint8_t* p);

  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t buf_len_ = 0;
  std::uint64_t total_bytes_ = 0;
};

std::string to_hex(const Sha256::Digest& d);
// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);
// HMAC-SHA256 (RFC 2104) of `bytes` under `key` (any length).
Sha256::Digest hmac_sha256(std::string_view key, std::string_view bytes);

}  // namespace model
