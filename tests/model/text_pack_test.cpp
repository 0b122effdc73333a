// pack_text and unpack_text: every text comes back byte for byte, with or
// without a dictionary, and a packing read with the wrong size or
// dictionary, or cut short, is refused rather than returned wrong.
#include <catch2/catch.hpp>

#include <string>

#include "model/text_pack.hpp"

namespace {

std::string job(int i) {
  std::string n = std::to_string(i);
  return "- job_name: serviceMonitor/ns-" + n + "/sm-" + n +
         "/0\n  honor_labels: false\n  kubernetes_sd_configs:\n  - role: endpoints\n    namespaces:\n      names:\n"
         "      - ns-" +
         n + "\n  relabel_configs:\n  - source_labels: [job]\n    target_label: __tmp_prometheus_job_name\n";
}

}  // namespace

TEST_CASE("packed texts unpack to the same bytes", "[codec]") {
  const std::string dict = job(0);
  std::string binary;
  for (int c = 0; c < 256; ++c) binary += static_cast<char>(c);
  for (const std::string& text : {std::string(), job(1), job(12345), binary, std::string(20000, 'x') + job(7)}) {
    for (const std::string& d : {std::string(), dict, std::string(9000, 'y') + dict}) {
      std::string packed = model::pack_text(text, d);
      auto back = model::unpack_text(packed, text.size(), d);
      REQUIRE(back);
      CHECK(*back == text);
      CHECK(model::pack_text(text, d) == packed);  // deterministic
    }
  }
}

TEST_CASE("a dictionary of a similar text makes a packing smaller", "[codec]") {
  const std::string text = job(2);
  CHECK(model::pack_text(text, job(1)).size() < model::pack_text(text).size());
  CHECK(model::pack_text(text, job(1)).size() < text.size() / 3);
}

TEST_CASE("a packing read with another size or dictionary, or cut short, is refused", "[codec]") {
  const std::string text = job(3), dict = job(1);
  const std::string packed = model::pack_text(text, dict);
  CHECK_FALSE(model::unpack_text(packed, text.size() - 1, dict));
  CHECK_FALSE(model::unpack_text(packed, text.size() + 1, dict));
  CHECK_FALSE(model::unpack_text(packed.substr(0, packed.size() / 2), text.size(), dict));
  // Back references into another dictionary of the same length read other
  // bytes (raw deflate carries no check of the dictionary).
  auto other = model::unpack_text(packed, text.size(), std::string(dict.size(), 'z'));
  CHECK((!other || *other != text));
}
