// Byte encodings used for Secret data: base64 (RFC 4648, standard alphabet,
// as the Kubernetes API uses) and gzip.
// Contract: pure functions; decode failures return std::nullopt.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace model {

std::string base64_encode(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);
// gzip with a zero mtime and no file name, so the same input and level
// always give the same bytes. Levels as zlib's: -1 (its default, 6), 1-9.
std::string gzip_compress(std::string_view bytes, int level = -1);
// The same bytes, or std::nullopt as soon as they would exceed `limit`:
// compression stops there, so a try at a fast level costs little when it
// misses.
std::optional<std::string> gzip_compress_within(std::string_view bytes, int level, std::size_t limit);
std::optional<std::string> gzip_decompress(std::string_view bytes);

// gzip of the pieces' bytes joined, without joining them; the bytes are
// gzip_compress's of the joined input at the same level.
std::string gzip_compress_pieces(std::span<const std::string_view> pieces, int level = -1);

}  // namespace model
