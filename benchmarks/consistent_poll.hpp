// consistent_bench's polling measurement: what the agents' http_sd polls
// cost the operator's targets endpoint. Closed-loop clients, each on one
// keep-alive connection, ask for (job, shard) answers as fast as they are
// answered, with the Bearer token of the agent's ServiceAccount (checked
// by the real TokenReview path, cached as in the operator).
// Contract: blocks for `seconds`; every answer must be 200 (or 304 with
// `etag`), anything else is counted as an error and reported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace consistent_bench {

struct PollOptions {
  std::string host;
  int port = 0;
  std::string token;
  std::vector<std::string> queries;  // path?query of each (job, shard)
  double seconds = 5;
  int clients = 2;
  bool etag = false;  // send If-None-Match with the last ETag (304 when unchanged)
};

struct PollResult {
  std::uint64_t requests = 0, errors = 0, bytes = 0;
  double seconds = 0, p50_ms = 0, p99_ms = 0, max_ms = 0;
  double cpu_seconds = 0;  // the whole process (server and clients)
};

PollResult measure_polling(const PollOptions& o);

}  // namespace consistent_bench
