#include "model/packed_lookups.hpp"

#include <stdexcept>

namespace model {

namespace {

constexpr unsigned char kSecret = 1, kHasValue = 2;

// A length as 7-bit groups, low first, then the bytes.
void put(std::string& out, std::string_view field) {
  std::size_t n = field.size();
  do {
    unsigned char byte = n & 0x7f;
    n >>= 7;
    out.push_back(static_cast<char>(n ? byte | 0x80 : byte));
  } while (n);
  out.append(field);
}

std::string_view take(std::string_view bytes, std::size_t& pos) {
  std::size_t n = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (pos >= bytes.size() || shift > 56) throw std::logic_error("packed lookups: truncated length");
    auto byte = static_cast<unsigned char>(bytes[pos++]);
    n |= static_cast<std::size_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) break;
  }
  if (n > bytes.size() - pos) throw std::logic_error("packed lookups: truncated field");
  std::string_view out = bytes.substr(pos, n);
  pos += n;
  return out;
}

}  // namespace

PackedLookups::PackedLookups(const std::vector<AssetLookup>& lookups) {
  for (const AssetLookup& l : lookups) {
    bytes_.push_back(static_cast<char>((l.secret ? kSecret : 0) | (l.value ? kHasValue : 0)));
    put(bytes_, l.ns);
    put(bytes_, l.name);
    put(bytes_, l.key);
    if (l.value) put(bytes_, *l.value);
  }
  bytes_.shrink_to_fit();
}

bool PackedLookups::next(std::size_t& pos, LookupView& out) const {
  if (pos >= bytes_.size()) return false;
  auto flags = static_cast<unsigned char>(bytes_[pos++]);
  out.secret = flags & kSecret;
  out.ns = take(bytes_, pos);
  out.name = take(bytes_, pos);
  out.key = take(bytes_, pos);
  out.value = flags & kHasValue ? std::optional<std::string_view>(take(bytes_, pos)) : std::nullopt;
  return true;
}

std::vector<AssetLookup> PackedLookups::unpack() const {
  std::vector<AssetLookup> out;
  all_of([&](const LookupView& l) {
    out.push_back({l.secret, std::string(l.ns), std::string(l.name), std::string(l.key),
                   l.value ? std::optional<std::string>(*l.value) : std::nullopt});
    return true;
  });
  return out;
}

}  // namespace model
