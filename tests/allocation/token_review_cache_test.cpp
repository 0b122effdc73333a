// The operator's targets endpoint: TokenReview answers remembered on an
// injected clock, and the order of its checks (actors/allocation/
// targets_endpoint.hpp).
#include <catch2/catch.hpp>

#include "actors/allocation/targets_endpoint.hpp"
#include "model/codec.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct FakeReviews {
  Clock::time_point now{};
  std::map<std::string, actors::TokenReviewResult> answers;  // token -> answer; others fail
  int calls = 0;
  actors::TokenReviewCache cache{[this](const std::string& token) {
                                   ++calls;
                                   auto it = answers.find(token);
                                   if (it != answers.end()) return it->second;
                                   return actors::TokenReviewResult{false, false, "", "TokenReview: HTTP 503"};
                                 },
                                 [this] { return now; }};
};

actors::TokenReviewResult accepted(const std::string& user) {
  return {true, true, user, ""};
}

actors::HttpRequest request(const std::string& agent, const std::string& token) {
  actors::HttpRequest r;
  r.path = actors::kTargetsPath;
  r.params = {{"agent", agent}, {"job", "j"}, {"shard", "0"}};
  if (!token.empty()) r.headers.emplace("Authorization", "Bearer " + token);
  return r;
}

}  // namespace

TEST_CASE("TokenReview answers are remembered a minute when accepted, ten seconds when refused, never when failed",
          "[allocation][tokenreview]") {
  FakeReviews f;
  f.answers["good"] = accepted("system:serviceaccount:mon:agent");
  f.answers["bad"] = {true, false, "", ""};
  CHECK(f.cache.review("good").authenticated);
  f.now += 59s;
  CHECK(f.cache.review("good").authenticated);
  CHECK(f.calls == 1);
  f.now += 2s;
  CHECK(f.cache.review("good").authenticated);
  CHECK(f.calls == 2);

  CHECK(!f.cache.review("bad").authenticated);
  f.now += 9s;
  CHECK(!f.cache.review("bad").authenticated);
  CHECK(f.calls == 3);
  f.now += 2s;
  f.cache.review("bad");
  CHECK(f.calls == 4);

  CHECK(!f.cache.review("down").answered);
  CHECK(!f.cache.review("down").answered);
  CHECK(f.calls == 6);  // a failure is asked again every time
  f.answers["down"] = accepted("system:serviceaccount:mon:agent");
  CHECK(f.cache.review("down").authenticated);  // the API server is back
}

TEST_CASE("the targets endpoint authenticates before it tells anything, and a failed review is never a pass",
          "[allocation][tokenreview]") {
  FakeReviews f;
  f.answers["agent"] = accepted("system:serviceaccount:mon:agent");
  f.answers["other"] = accepted("system:serviceaccount:mon:other");
  f.answers["bad"] = {true, false, "", ""};
  auto lookup = [](const std::string& ns, const std::string& name) -> std::optional<actors::AgentLookup> {
    if (ns != "mon" || name != "agent") return std::nullopt;
    return actors::AgentLookup{nullptr, "agent"};  // known, first allocation pending
  };
  auto status = [&](const std::string& agent, const std::string& token) {
    return actors::targets_response(request(agent, token), lookup, f.cache).status;
  };
  CHECK(status("mon/nobody", "") == 401);  // not 404: an anonymous client learns nothing
  CHECK(status("mon/nobody", "bad") == 401);
  CHECK(status("mon/nobody", "down") == 503);
  CHECK(status("mon/agent", "down") == 503);
  CHECK(status("mon/nobody", "agent") == 404);
  CHECK(status("mon/agent", "other") == 403);
  actors::HttpResponse pending = actors::targets_response(request("mon/agent", "agent"), lookup, f.cache);
  CHECK(pending.status == 503);
  CHECK(pending.body.find("pending") != std::string::npos);
}

TEST_CASE("the targets endpoint sends a shard's chunks as they are, or gzipped once for clients that accept it",
          "[allocation][tokenreview][chunks]") {
  FakeReviews f;
  f.answers["agent"] = accepted("system:serviceaccount:mon:agent");
  std::vector<allocation::TargetsBody::Chunk> chunks;
  for (const char* text : {R"({"targets":["a:1"],"labels":{}})", R"({"targets":["b:1"],"labels":{}})"})
    chunks.push_back(std::make_shared<const allocation::BodyChunk>(text, std::vector<allocation::BodyFragment>{}));
  const auto body = std::make_shared<const allocation::TargetsBody>(std::move(chunks));
  auto targets = std::make_shared<actors::AgentTargets>();
  targets->shards = {"0"};
  targets->answers[{"j", "0"}] = body;
  auto lookup = [&](const std::string&, const std::string&) -> std::optional<actors::AgentLookup> {
    return actors::AgentLookup{targets, "agent"};
  };
  auto answer = [&](std::multimap<std::string, std::string> headers) {
    actors::HttpRequest r = request("mon/agent", "agent");
    r.headers.insert(headers.begin(), headers.end());
    return actors::targets_response(r, lookup, f.cache);
  };
  const std::string plain = R"([{"targets":["a:1"],"labels":{}},{"targets":["b:1"],"labels":{}}])"
                            "\n";
  const actors::HttpResponse identity = answer({});
  REQUIRE(identity.pieces);
  std::string joined;
  for (auto v : identity.pieces->views) joined += v;
  CHECK(joined == plain);
  CHECK(identity.pieces->size == plain.size());
  CHECK(identity.headers.at("ETag") == body->etag());
  CHECK(identity.headers.count("Content-Encoding") == 0);
  const actors::HttpResponse zipped = answer({{"Accept-Encoding", "gzip"}});
  REQUIRE(zipped.shared_body);
  CHECK(model::gzip_decompress(*zipped.shared_body) == plain);
  CHECK(zipped.headers.at("Content-Encoding") == "gzip");
  CHECK(zipped.headers.at("Vary") == "Accept-Encoding");
  CHECK(answer({{"Accept-Encoding", "gzip"}}).shared_body.get() == zipped.shared_body.get());  // compressed once
  CHECK(answer({{"Accept-Encoding", "gzip"}, {"If-None-Match", body->gzip_etag()}}).status == 304);
  CHECK(answer({{"If-None-Match", body->gzip_etag()}}).status == 200);
  CHECK(answer({{"Accept-Encoding", "gzip;q=0"}}).pieces);
}
