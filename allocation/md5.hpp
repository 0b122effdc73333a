// MD5 (RFC 1321), for Prometheus's hashmod relabel action only; not for
// security.
// Contract: md5() returns the 16-byte digest of `data`; hashmod_value()
// returns what Prometheus's hashmod computes: the digest's last 8 bytes read
// big-endian, modulo `modulus` (which must be non-zero).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace allocation {

std::array<std::uint8_t, 16> md5(std::string_view data);
std::uint64_t hashmod_value(std::string_view data, std::uint64_t modulus);

}  // namespace allocation
