#include "model/text_pack.hpp"

#include <zlib.h>

#include <new>
#include <stdexcept>

namespace model {
namespace {

// Raw deflate (no header: the caller keeps the size) with a 4 KiB window:
// a text is a few KB, and the small window keeps the stream's state at
// about 20 KB instead of 256 KB. Level 1: the text is packed once per
// change of its monitor, on the root's thread.
constexpr int kWindowBits = 12;
constexpr int kMemLevel = 4;
constexpr std::size_t kMaxDictionary = std::size_t{1} << kWindowBits;

std::string_view tail(std::string_view dictionary) {
  return dictionary.size() > kMaxDictionary ? dictionary.substr(dictionary.size() - kMaxDictionary) : dictionary;
}

Bytef* bytes(std::string_view s) {
  return reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
}

struct Deflater {
  z_stream zs{};
  Deflater() {
    if (deflateInit2(&zs, 1, Z_DEFLATED, -kWindowBits, kMemLevel, Z_DEFAULT_STRATEGY) != Z_OK) throw std::bad_alloc();
  }
  ~Deflater() { deflateEnd(&zs); }
};

struct Inflater {
  z_stream zs{};
  Inflater() {
    if (inflateInit2(&zs, -kWindowBits) != Z_OK) throw std::bad_alloc();
  }
  ~Inflater() { inflateEnd(&zs); }
};

}  // namespace

std::string pack_text(std::string_view text, std::string_view dictionary) {
  thread_local Deflater d;
  z_stream& zs = d.zs;
  deflateReset(&zs);
  dictionary = tail(dictionary);
  if (!dictionary.empty()) deflateSetDictionary(&zs, bytes(dictionary), static_cast<uInt>(dictionary.size()));
  std::string out(deflateBound(&zs, static_cast<uLong>(text.size())), '\0');
  zs.next_in = bytes(text);
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  // deflateBound is enough for one Z_FINISH call.
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("pack_text: deflate did not finish");
  out.resize(zs.total_out);
  out.shrink_to_fit();
  return out;
}

std::optional<std::string> unpack_text(std::string_view packed, std::size_t size, std::string_view dictionary) {
  thread_local Inflater i;
  z_stream& zs = i.zs;
  inflateReset(&zs);
  dictionary = tail(dictionary);
  if (!dictionary.empty() && inflateSetDictionary(&zs, bytes(dictionary), static_cast<uInt>(dictionary.size())) != Z_OK)
    return std::nullopt;
  std::string out(size, '\0');
  zs.next_in = bytes(packed);
  zs.avail_in = static_cast<uInt>(packed.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (inflate(&zs, Z_FINISH) != Z_STREAM_END || zs.total_out != size || zs.avail_in != 0) return std::nullopt;
  return out;
}

}  // namespace model
