// Short texts kept in memory deflated: the job cache holds each monitor's
// scrape jobs (about 1.6 KB of YAML) for as long as the monitor is
// unchanged, and most of that text repeats from one monitor to the next.
// Contract: pure and deterministic; unpack_text(pack_text(t, d), t.size(), d)
// == t for any text and dictionary. The streams are reused per thread, so a
// call allocates only its result. The dictionary (may be empty) primes the
// window with text like the input; unpacking needs the same one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace model {

std::string pack_text(std::string_view text, std::string_view dictionary = {});
// The text, or std::nullopt when `packed` is not what pack_text gave for
// `size` bytes and this dictionary.
std::optional<std::string> unpack_text(std::string_view packed, std::size_t size, std::string_view dictionary = {});

}  // namespace model
