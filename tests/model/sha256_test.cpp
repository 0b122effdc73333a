#include <catch2/catch.hpp>

#include "model/sha256.hpp"

using model::Sha256;
using model::sha256_hex;

TEST_CASE("SHA-256 matches the FIPS 180-4 example vectors", "[actors][sha256]") {
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstn"
            "opqrstu") == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST_CASE("SHA-256 of one million 'a' (streamed in uneven chunks)", "[actors][sha256]") {
  Sha256 h;
  std::string chunk(997, 'a');
  std::size_t left = 1'000'000;
  while (left > 0) {
    std::size_t n = std::min(left, chunk.size());
    h.update(std::string_view(chunk).substr(0, n));
    left -= n;
  }
  CHECK(model::to_hex(h.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("SHA-256 streaming equals one-shot around the padding boundaries", "[actors][sha256]") {
  for (std::size_t len : {55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 128u}) {
    std::string data;
    for (std::size_t i = 0; i < len; ++i) data += static_cast<char>('a' + i % 26);
    Sha256 h;
    for (std::size_t i = 0; i < len; i += 7) h.update(std::string_view(data).substr(i, 7));
    INFO("length " << len);
    CHECK(model::to_hex(h.finish()) == sha256_hex(data));
  }
  // 56 bytes forces the length into a second padding block.
  CHECK(sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}

TEST_CASE("HMAC-SHA256 matches the RFC 4231 test vectors", "[actors][sha256]") {
  using model::hmac_sha256;
  using model::to_hex;
  CHECK(to_hex(hmac_sha256(std::string(20, '\x0b'), "Hi There")) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(to_hex(hmac_sha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // A key longer than the block is hashed first.
  CHECK(to_hex(hmac_sha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}
