// The operator's targets endpoint for shardingStrategy consistent and node,
// /operator/api/v1/metrics/targets?agent=NS/NAME&job=JOB&shard=ID, which
// each shard's (or node pod's) http_sd configs poll
// (model/scrape/operator_sd.hpp).
// Contract: only the agent's own ServiceAccount may read its targets: the
// Bearer token is checked with a TokenReview for the audience
// kTargetsAudience (answers cached by TokenReviewCache: a minute when
// accepted, ten seconds when refused, on an injected clock). Answers:
// 400 for a missing parameter, 401 without a valid token (checked before
// anything about the agent is told), 403 for another account, 404 for an
// agent without consistent sharding or an unknown shard, 503 before the
// agent's first allocation or from a standby replica (Prometheus keeps its
// last targets), else 200 with the target allocator's per-collector body
// (`[]` for a job without targets on that shard), a strong ETag, and 304
// when If-None-Match names it. A TokenReview that fails (the API server is
// down) is a 503, never a pass.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "actors/allocation/agent_allocations.hpp"
#include "actors/http/server.hpp"
#include "model/scrape/operator_sd.hpp"

namespace actors {

inline constexpr const char* kTargetsPath = "/operator/api/v1/metrics/targets";
// The audience of the agents' projected tokens, as the workloads render it.
inline constexpr const char* kTargetsAudience = model::scrape::kOperatorTokenAudience;

struct TokenReviewResult {
  bool answered = false;       // false: the review itself failed (error says why)
  bool authenticated = false;  // the token is valid for the audience
  std::string username;        // e.g. system:serviceaccount:NS:NAME
  std::string error;
};
using TokenReviewer = std::function<TokenReviewResult(const std::string& token)>;

// A TokenReview through `client` (blocks the calling thread, which must not
// be the client's I/O thread, for up to `timeout`).
TokenReviewer make_token_reviewer(k8s::Client& client, std::chrono::milliseconds timeout);

// Remembers answered reviews by the token's SHA-256; failed reviews are
// not remembered.
class TokenReviewCache {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  TokenReviewCache(TokenReviewer reviewer, Clock now = std::chrono::steady_clock::now);
  TokenReviewResult review(const std::string& token);

 private:
  struct Entry {
    TokenReviewResult result;
    std::chrono::steady_clock::time_point until;
  };
  TokenReviewer reviewer_;
  Clock now_;
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

using AgentTargetsLookup = std::function<std::optional<AgentLookup>(const std::string& ns, const std::string& name)>;

HttpResponse targets_response(const HttpRequest& request, const AgentTargetsLookup& lookup, TokenReviewCache& tokens);

inline constexpr const char* kDebugTargetsPath = "/debug/targets";

// /debug/targets?agent=NS/NAME: every target of a consistent agent, as JSON
// {"agent", "shards", "targets": [{"job", "target", "shard" (null when
// unassigned), "placedAtSeq", "placedBy"}]}, sorted by job and target.
// placedAtSeq is the reallocate input (in the agent's allocation journal)
// that last moved the target; placedBy the first input it followed. Like
// /debug/hierarchy it needs no token (addresses only, no labels). 400
// without agent, 404 for an agent without consistent sharding, 503 before
// its first allocation.
HttpResponse debug_targets_response(const HttpRequest& request, const AgentTargetsLookup& lookup);

// Serve kTargetsPath or kDebugTargetsPath from `allocations` on
// `http` (before it starts); allocations and tokens must outlive the server.
// With `leading`, a replica that does not lead answers 503 and closes the
// connection (its allocation is not the one the agents follow).
void add_targets_route(OperatorHttpServer& http, const AgentAllocations& allocations, TokenReviewCache& tokens,
                       std::function<bool()> leading = {});
void add_debug_targets_route(OperatorHttpServer& http, const AgentAllocations& allocations);

}  // namespace actors
