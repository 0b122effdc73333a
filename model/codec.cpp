#include "model/codec.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

namespace model {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string base64_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned n = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i < in.size()) {
    unsigned n = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) n |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view in) {
  static const std::array<int, 256> table = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = i;
    return t;
  }();
  std::string out;
  out.reserve(in.size() / 4 * 3);
  unsigned buf = 0;
  int bits = 0;
  std::size_t padding = 0;
  for (char c : in) {
    if (c == '\n' || c == '\r') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding) return std::nullopt;  // data after padding
    int v = table[static_cast<unsigned char>(c)];
    if (v < 0) return std::nullopt;
    buf = (buf << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buf >> bits) & 0xff);
    }
  }
  if (padding > 2 || bits >= 6) return std::nullopt;
  return out;
}

namespace {

// A deflate stream writing gzip; throws when zlib refuses the level or has
// no memory.
void start_gzip(z_stream& zs, int level) {
  // windowBits 15 + 16 selects the gzip wrapper; zlib writes mtime 0.
  if (const int init = deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY); init != Z_OK) {
    if (init == Z_MEM_ERROR) throw std::bad_alloc();
    throw std::invalid_argument("gzip: zlib refused level " + std::to_string(level));
  }
}

}  // namespace

std::optional<std::string> gzip_compress_within(std::string_view in, int level, std::size_t limit) {
  z_stream zs{};
  start_gzip(zs, level);
  const std::size_t bound = deflateBound(&zs, static_cast<uLong>(in.size())) + 32;
  // The output grows as needed rather than starting at deflateBound: that
  // is the input's size again (agent.yml is megabytes), all of it zeroed
  // and faulted in, for a result that is usually a twentieth of it. zlib's
  // bytes do not depend on how the output space is handed to it.
  std::string out(std::min({bound, limit + 1, in.size() / 8 + 4096}), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + zs.total_out);
    zs.avail_out = static_cast<uInt>(out.size() - zs.total_out);
    rc = deflate(&zs, Z_FINISH);
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;  // the end, or zlib refused
    if (zs.total_out > limit || out.size() > limit || out.size() >= bound) break;
    out.resize(std::min({out.size() * 2, bound, limit + 1}));
  }
  const bool done = rc == Z_STREAM_END && zs.total_out <= limit;
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (!done) return std::nullopt;
  return out;
}

std::string gzip_compress(std::string_view in, int level) {
  // Without a limit only zlib itself can fail (a bad level, no memory).
  auto out = gzip_compress_within(in, level, std::numeric_limits<std::size_t>::max() - 1);
  if (!out) throw std::runtime_error("gzip: zlib failed at level " + std::to_string(level));
  return std::move(*out);
}

std::optional<std::string> gzip_decompress(std::string_view in) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return std::nullopt;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

std::string gzip_compress_pieces(std::span<const std::string_view> pieces, int level) {
  z_stream zs{};
  start_gzip(zs, level);
  std::size_t total = 0;
  for (auto p : pieces) total += p.size();
  std::string out(total / 8 + 4096, '\0');
  int rc = Z_OK;
  for (std::size_t i = 0; i <= pieces.size() && rc == Z_OK; ++i) {
    const bool last = i == pieces.size();  // a last call with no input finishes the stream
    zs.next_in = last ? nullptr : reinterpret_cast<Bytef*>(const_cast<char*>(pieces[i].data()));
    zs.avail_in = last ? 0 : static_cast<uInt>(pieces[i].size());
    do {
      if (zs.total_out == out.size()) out.resize(out.size() * 2);
      zs.next_out = reinterpret_cast<Bytef*>(out.data() + zs.total_out);
      zs.avail_out = static_cast<uInt>(out.size() - zs.total_out);
      rc = deflate(&zs, last ? Z_FINISH : Z_NO_FLUSH);
    } while (rc == Z_OK && (zs.avail_in > 0 || zs.avail_out == 0 || last));
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && !last) rc = Z_OK;  // no progress possible: the piece is in
  }
  const bool done = rc == Z_STREAM_END;
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (!done) throw std::runtime_error("gzip: zlib failed at level " + std::to_string(level));
  return out;
}

}  // namespace model
