#include "allocation/targets_body.hpp"

#include <cstdio>

#include "allocation/hash.hpp"
#include "allocation/label_arena.hpp"
#include "allocation/responses.hpp"
#include "model/codec.hpp"
#include "model/http_sd.hpp"

namespace allocation {
namespace {

constexpr std::string_view kOpen = "[", kSeparator = ",", kClose = "]\n";

std::string chunks_etag(const std::vector<TargetsBody::Chunk>& chunks) {
  if (chunks.empty()) return body_etag("[]\n");
  std::vector<std::uint64_t> hashes;
  hashes.reserve(chunks.size());
  for (const auto& c : chunks) hashes.push_back(c->hash());
  const std::string_view bytes(reinterpret_cast<const char*>(hashes.data()), hashes.size() * sizeof hashes[0]);
  char buf[24];
  std::snprintf(buf, sizeof buf, "\"%016llx\"", static_cast<unsigned long long>(hash_bytes(bytes, 0x63686e6b)));
  return buf;
}

}  // namespace

void append_target_json(std::string& out, const Target& t) {
  out += "{\"targets\":[";
  append_json_string(out, t.address);
  out += "],\"labels\":{";
  bool first = true;
  for (const auto& [name, value] : sorted_by_text(t.group.get(), t.own.get())) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, name);
    out += ':';
    append_json_string(out, value);
  }
  out += "}}";
}

std::shared_ptr<const BodyChunk> make_chunk(std::string text, std::vector<BodyFragment> fragments) {
  return std::allocate_shared<const BodyChunk>(ArenaAllocator<BodyChunk>{}, std::move(text), std::move(fragments));
}

std::uint64_t fragment_hash(std::string_view text) {
  return hash_bytes(text, 0x74787473);
}

namespace {

std::uint64_t chunk_hash(const std::string& text, const std::vector<BodyFragment>& fragments) {
  if (fragments.empty()) return fragment_hash(text);
  std::uint64_t hashes[kMaxChunkTargets];
  std::size_t n = 0;
  std::uint64_t h = 0;
  for (const BodyFragment& f : fragments) {
    hashes[n++] = f.text_hash;
    if (n == kMaxChunkTargets) h = hash_bytes({reinterpret_cast<const char*>(hashes), n * sizeof hashes[0]}, h), n = 0;
  }
  return hash_bytes({reinterpret_cast<const char*>(hashes), n * sizeof hashes[0]}, h ^ 0x66726167);
}

}  // namespace

BodyChunk::BodyChunk(std::string text, std::vector<BodyFragment> fragments)
    : text_(std::move(text)), hash_(chunk_hash(text_, fragments)), fragments_(std::move(fragments)) {}

TargetsBody::TargetsBody(std::vector<Chunk> chunks, std::vector<std::uint32_t> starts, std::uint64_t layout)
    : chunks_(std::move(chunks)), starts_(std::move(starts)), layout_(layout), etag_(chunks_etag(chunks_)) {
  size_ = kOpen.size() + kClose.size() + (chunks_.empty() ? 0 : chunks_.size() - 1);
  for (const auto& c : chunks_) size_ += c->text().size();
  gzip_etag_ = model::gzip_etag(etag_);
}

const std::shared_ptr<const TargetsBody>& TargetsBody::empty() {
  static const auto body = std::make_shared<const TargetsBody>(std::vector<Chunk>{});
  return body;
}

std::vector<std::string_view> TargetsBody::pieces() const {
  std::vector<std::string_view> out;
  out.reserve(2 * chunks_.size() + 2);
  out.push_back(kOpen);
  for (std::size_t i = 0; i < chunks_.size(); ++i) {
    if (i > 0) out.push_back(kSeparator);
    out.push_back(chunks_[i]->text());
  }
  out.push_back(kClose);
  return out;
}

std::string TargetsBody::str() const {
  std::string out;
  out.reserve(size_);
  for (std::string_view p : pieces()) out += p;
  return out;
}

void TargetsBody::append_array(std::string& out) const {
  const auto all = pieces();
  for (std::size_t i = 0; i + 1 < all.size(); ++i) out += all[i];
  out += kClose.substr(0, 1);
}

const std::string& TargetsBody::gzipped() const {
  // Level 1: most of the default level's gain on label-heavy JSON for a
  // fraction of its CPU (as the integrations SD endpoint).
  std::call_once(gzip_once_, [this] { gzipped_ = model::gzip_compress_pieces(pieces(), 1); });
  return gzipped_;
}

}  // namespace allocation
