#include "actors/allocation/targets_endpoint.hpp"

#include <algorithm>
#include <future>

#include "allocation/responses.hpp"
#include "model/http_sd.hpp"
#include "model/log_format.hpp"
#include "model/parse.hpp"
#include "model/sha256.hpp"
#include "model/yaml_emit.hpp"

namespace actors {
namespace {

constexpr std::chrono::steady_clock::duration kAcceptedFor = std::chrono::minutes(1);
constexpr std::chrono::steady_clock::duration kRefusedFor = std::chrono::seconds(10);

HttpResponse plain_answer(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

const k8s::Resource& token_reviews() {
  static const k8s::Resource r{"authentication.k8s.io", "v1", "tokenreviews", "TokenReview", false};
  return r;
}

std::string review_body(const std::string& token) {
  model::Value spec = model::Value::obj({{"token", token}, {"audiences", model::Value::arr({kTargetsAudience})}});
  return model::to_json(model::Value::obj(
      {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"}, {"spec", std::move(spec)}}));
}

TokenReviewResult read_review(const k8s::Result& r) {
  TokenReviewResult out;
  if (r.status != 201 && r.status != 200) {
    out.error = "TokenReview failed: HTTP " + std::to_string(r.status) + (r.error.empty() ? "" : ": " + r.error);
    return out;
  }
  try {
    model::Value v = model::parse_json(r.body, "TokenReview");
    const model::Value* status = v.find("status");
    out.answered = true;
    const model::Value* ok = status ? status->find("authenticated") : nullptr;
    out.authenticated = ok && ok->is_bool() && ok->as_bool();
    const model::Value* user = status ? status->find("user") : nullptr;
    const model::Value* name = user ? user->find("username") : nullptr;
    if (name && name->is_string()) out.username = name->as_string();
  } catch (const std::exception& e) {
    out.answered = false;
    out.error = std::string("TokenReview answer unreadable: ") + e.what();
  }
  return out;
}

std::optional<std::string> bearer_token_of(const HttpRequest& request) {
  const std::string* h = request.header("Authorization");
  const std::string prefix = "Bearer ";
  if (!h || h->size() <= prefix.size() || h->compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  return h->substr(prefix.size());
}

const std::string* query_param(const HttpRequest& request, const char* name) {
  auto it = request.params.find(name);
  return it == request.params.end() || it->second.empty() ? nullptr : &it->second;
}

// Gzipped when the client accepts it (Prometheus does), compressed once
// per body on its first such request.
HttpResponse targets_answer(const HttpRequest& request, const ShardTargets& body) {
  const std::string* accept = request.header("Accept-Encoding");
  const bool gzip = accept && model::accepts_gzip(*accept);
  const std::string& etag = gzip ? body->gzip_etag() : body->etag();
  HttpResponse r;
  r.headers["ETag"] = etag;
  r.headers["Cache-Control"] = "no-cache";
  r.headers["Vary"] = "Accept-Encoding";
  r.content_type = "application/json";
  const std::string* match = request.header("If-None-Match");
  if (match && model::etag_matches(*match, etag)) {
    r.status = 304;
    return r;
  }
  if (gzip) {
    r.headers["Content-Encoding"] = "gzip";
    r.shared_body = std::shared_ptr<const std::string>(body, &body->gzipped());
  } else {
    r.pieces = HttpResponse::Pieces{body, body->pieces(), body->size()};
  }
  return r;
}

}  // namespace

TokenReviewer make_token_reviewer(k8s::Client& client, std::chrono::milliseconds timeout) {
  return [&client, timeout](const std::string& token) {
    auto done = std::make_shared<std::promise<k8s::Result>>();
    std::future<k8s::Result> result = done->get_future();
    client.create(token_reviews(), "", review_body(token), [done](k8s::Result r) { done->set_value(std::move(r)); });
    if (result.wait_for(timeout) != std::future_status::ready)
      return TokenReviewResult{false, false, {}, "TokenReview timed out"};
    return read_review(result.get());
  };
}

TokenReviewCache::TokenReviewCache(TokenReviewer reviewer, Clock now)
    : reviewer_(std::move(reviewer)), now_(std::move(now)) {}

TokenReviewResult TokenReviewCache::review(const std::string& token) {
  const std::string key = model::sha256_hex(token);
  const auto now = now_();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.until > now) return it->second.result;
    if (it != entries_.end()) entries_.erase(it);
  }
  TokenReviewResult r = reviewer_(token);
  if (!r.answered) return r;
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.size() > 10000) entries_.clear();  // bounded: tokens rotate hourly
  entries_[key] = {r, now + (r.authenticated ? kAcceptedFor : kRefusedFor)};
  return r;
}

// Replicas allocate on their own, and their histories can differ: only the
// leader answers, so no target lands on two shards. The connection is
// closed so the client's next poll reconnects through the Service, which
// selects the leader (--leader-pod-label); meanwhile Prometheus keeps the
// targets it has.
namespace {

HttpResponse standby_answer() {
  HttpResponse r = plain_answer(503, "standby: only the leader serves targets\n");
  r.headers["Connection"] = "close";
  r.headers["Retry-After"] = "1";
  return r;
}

}  // namespace

HttpResponse targets_response(const HttpRequest& request, const AgentTargetsLookup& lookup, TokenReviewCache& tokens) {
  auto agent = agent_param(request, true);
  if (auto* error = std::get_if<HttpResponse>(&agent)) return *error;
  const auto& [ns, name] = std::get<1>(agent);
  const std::string* job = query_param(request, "job");
  const std::string* shard = query_param(request, "shard");
  if (!job || !shard) return plain_answer(400, "missing query parameter: job=JOB and shard=N are required\n");
  // Authenticated first: an anonymous client learns nothing, not even
  // which agents exist.
  std::optional<std::string> token = bearer_token_of(request);
  if (!token) {
    HttpResponse r = plain_answer(401, "a Bearer token of the agent's ServiceAccount is required\n");
    r.headers["WWW-Authenticate"] = "Bearer";
    return r;
  }
  TokenReviewResult review = tokens.review(*token);
  if (!review.answered) return plain_answer(503, review.error + "\n");
  if (!review.authenticated)
    return plain_answer(401, std::string("the token is not valid for the audience ") + kTargetsAudience + "\n");
  std::optional<AgentLookup> found = lookup(ns, name);
  if (!found) return plain_answer(404, "GrafanaAgent " + ns + "/" + name + " has no consistent or node sharding\n");
  if (review.username != "system:serviceaccount:" + ns + ":" + found->service_account)
    return plain_answer(403, review.username + " may not read the targets of GrafanaAgent " + ns + "/" + name + "\n");
  if (!found->targets)
    return plain_answer(503, "the first allocation of GrafanaAgent " + ns + "/" + name + " is pending\n");
  const AgentTargets& t = *found->targets;
  if (std::find(t.shards.begin(), t.shards.end(), *shard) == t.shards.end())
    return plain_answer(404, "GrafanaAgent " + ns + "/" + name + " has no shard \"" + *shard + "\"\n");
  auto it = t.answers.find({*job, *shard});
  return targets_answer(request, it == t.answers.end() ? allocation::TargetsBody::empty() : it->second);
}

HttpResponse debug_targets_response(const HttpRequest& request, const AgentTargetsLookup& lookup) {
  auto agent = agent_param(request, true);
  if (auto* error = std::get_if<HttpResponse>(&agent)) return *error;
  const auto& [ns, name] = std::get<1>(agent);
  std::optional<AgentLookup> found = lookup(ns, name);
  if (!found) return plain_answer(404, "GrafanaAgent " + ns + "/" + name + " has no consistent or node sharding\n");
  if (!found->targets)
    return plain_answer(503, "the first allocation of GrafanaAgent " + ns + "/" + name + " is pending\n");
  const AgentTargets& t = *found->targets;
  std::string out = "{\"agent\":" + model::json_string(ns + "/" + name) + ",\"shards\":[";
  for (std::size_t i = 0; i < t.shards.size(); ++i) out += (i ? "," : "") + model::json_string(t.shards[i]);
  out += "],\"targets\":[";
  bool first = true;
  for (const auto& p : allocation::runtime::sorted(*t.placements)) {
    out += first ? "\n" : ",\n";
    first = false;
    out += "{\"job\":" + model::json_string(p->job) + ",\"target\":" + model::json_string(p->address) +
           ",\"shard\":" + (p->collector.empty() ? std::string("null") : model::json_string(p->collector)) +
           ",\"placedAtSeq\":" + std::to_string(p->seq) +
           ",\"placedBy\":" + model::json_string(p->cause ? *p->cause : std::string()) + "}";
  }
  out += "]}\n";
  HttpResponse r = plain_answer(200, std::move(out));
  r.content_type = "application/json";
  return r;
}

namespace {

AgentTargetsLookup lookup_in(const AgentAllocations& allocations) {
  return [&allocations](const std::string& ns, const std::string& name) { return allocations.lookup(ns, name); };
}

}  // namespace

void add_targets_route(OperatorHttpServer& http, const AgentAllocations& allocations, TokenReviewCache& tokens,
                       std::function<bool()> leading) {
  http.add_get(kTargetsPath, [lookup = lookup_in(allocations), &tokens, leading](const HttpRequest& r) {
    if (leading && !leading()) return standby_answer();
    return targets_response(r, lookup, tokens);
  });
}

void add_debug_targets_route(OperatorHttpServer& http, const AgentAllocations& allocations) {
  http.add_get(kDebugTargetsPath,
               [lookup = lookup_in(allocations)](const HttpRequest& r) { return debug_targets_response(r, lookup); });
}

}  // namespace actors
