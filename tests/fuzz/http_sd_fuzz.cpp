// Fuzzes the http_sd response path of the target allocator
// (allocation/discovery/http_sd.hpp): the body a remote HTTP SD endpoint
// returns, parsed into target groups, plus the Content-Type check and the
// http_sd_configs entry parser.
// Input: line 1 is the Content-Type header value, the rest the body; the
// whole input is also read as a YAML http_sd_configs entry.
// Contract checked: everything throws only DiscoveryError (a body or config
// the allocator must refuse), never anything else, and never crashes.
#include <cstdint>
#include <string>
#include <vector>

#include "allocation/discovery/http_sd.hpp"
#include "model/parse.hpp"
#include "tests/fuzz/fuzz_util.hpp"

namespace disc = allocation::discovery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest = fuzz::as_text(data, size);
  std::string_view content_type = fuzz::take_line(rest);
  try {
    disc::check_http_sd_response(200, content_type);
  } catch (const disc::DiscoveryError&) {
  }
  try {
    std::vector<disc::SourcedGroup> groups = disc::parse_http_sd(rest, "http://sd.example:8080/targets");
    for (const auto& g : groups) (void)g.group;
  } catch (const disc::DiscoveryError&) {
  }
  try {
    model::ParseLimits limits;
    limits.max_depth = 32;
    limits.max_nodes = 10'000;
    auto docs = model::parse_documents(fuzz::as_text(data, size), "fuzz", limits);
    if (!docs.empty()) (void)disc::parse_http_sd_config(docs[0].value, "http_sd_configs[0]");
  } catch (const model::ParseError&) {
  } catch (const disc::DiscoveryError&) {
  }
  return 0;
}
