// Fuzzes the http_sd response paths: the target allocator's
// (allocation/discovery/http_sd.hpp: the body a remote HTTP SD endpoint
// returns, parsed into target groups, plus the Content-Type check and the
// http_sd_configs entry parser) and the integrations SD aggregator's (a
// pod's answer read by sd::read_answer and merged).
// Input: line 1 is the Content-Type header value, the rest the body; the
// whole input is also read as a YAML http_sd_configs entry.
// Contract checked: everything throws only DiscoveryError (a body or config
// the allocator must refuse), never anything else, and never crashes; the
// aggregator never throws, and what it merges parses back to the same
// number of groups.
#include <cstdint>
#include <string>
#include <vector>

#include "allocation/discovery/http_sd.hpp"
#include "model/parse.hpp"
#include "sd/aggregator.hpp"
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
  sd::PodAnswer answer{{{"ns", "agent"}, "10.0.0.1:8080"}, 200, std::string(content_type), std::string(rest)};
  sd::PodResult pod = sd::read_answer(answer);
  const std::size_t groups = pod.groups.size();
  sd::Fragments fragments;
  fragments.emplace(answer.pod, sd::Fragment(sd::pod_fragment(answer.pod, std::move(pod.groups))));
  const std::string merged = sd::merge(fragments, std::nullopt);
  if (model::parse_http_sd(merged, "merged").size() != groups) fuzz::fuzz_fail("merge lost or added groups");
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
