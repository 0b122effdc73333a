// The integrations SD endpoint's pieces that need no aggregator: ETag
// matching and the cap on polls in progress.
#include <catch2/catch.hpp>

#include <future>
#include <thread>

#include "actors/http/sd_endpoint.hpp"
#include "model/codec.hpp"
#include "model/http_sd.hpp"

using actors::HttpResponse;
using actors::SdPollLimit;

TEST_CASE("If-None-Match matches lists, weak tags and the wildcard", "[http][sd]") {
  CHECK(model::etag_matches("\"abc\"", "\"abc\""));
  CHECK(model::etag_matches(" \"x\" , W/\"abc\"", "\"abc\""));
  CHECK(model::etag_matches("*", "\"abc\""));
  CHECK_FALSE(model::etag_matches("\"abd\"", "\"abc\""));
  CHECK_FALSE(model::etag_matches("", "\"abc\""));
  CHECK_FALSE(model::etag_matches(",,", "\"abc\""));
}

TEST_CASE("polls past the cap are answered 503 at once, and a finished poll frees its place", "[http][sd]") {
  SdPollLimit limit(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto first = std::async(std::launch::async, [&] {
    return limit.serve([&] {
      released.wait();
      return HttpResponse{200, "merged\n"};
    });
  });
  while (limit.active() == 0) std::this_thread::yield();  // the first poll holds the only place
  HttpResponse refused = limit.serve([] { return HttpResponse{200, "never\n"}; });
  CHECK(refused.status == 503);
  CHECK(refused.headers.at("Retry-After") == "1");
  CHECK(refused.body.find("too many integrations SD polls") != std::string::npos);
  CHECK(limit.active() == 1);
  release.set_value();
  CHECK(first.get().status == 200);
  CHECK(limit.active() == 0);
  CHECK(limit.serve([] { return HttpResponse{200, "again\n"}; }).status == 200);
}

TEST_CASE("Accept-Encoding asks for gzip by name or wildcard, unless its weight is zero", "[http][sd]") {
  using actors::accepts_gzip;
  CHECK(accepts_gzip("gzip"));
  CHECK(accepts_gzip("deflate, GZIP;q=0.5"));
  CHECK(accepts_gzip(" x-gzip "));
  CHECK(accepts_gzip("*"));
  CHECK(accepts_gzip("br;q=1, *;q=0.1"));
  CHECK_FALSE(accepts_gzip(""));
  CHECK_FALSE(accepts_gzip("identity"));
  CHECK_FALSE(accepts_gzip("gzip;q=0"));
  CHECK_FALSE(accepts_gzip("gzip; q=0.000"));
  CHECK_FALSE(accepts_gzip("*, gzip;q=0"));  // the named coding overrides the wildcard
  CHECK_FALSE(accepts_gzip("*;q=0"));
  CHECK_FALSE(accepts_gzip("gzipped"));
}

TEST_CASE("gzip-accepting polls get the merge compressed once, with its own ETag", "[http][sd]") {
  std::string body = "[";
  for (int i = 0; i < 2000; ++i)
    body += std::string(i ? "," : "") + R"({"targets":["10.0.0.)" + std::to_string(i % 250) + R"(:9100"],"labels":{}})";
  body += "]";
  auto answer = std::make_shared<const actors::SdAnswer>(body, "\"abc\"");
  int polls = 0;
  actors::SdPoll poll = [&](const std::string&) {
    ++polls;
    return answer;
  };
  actors::HttpRequest request;
  request.path = actors::kIntegrationsSdPath;
  request.headers.emplace("Accept-Encoding", "gzip");
  HttpResponse zipped = actors::integrations_sd_response(poll, request);
  REQUIRE(zipped.shared_body);
  CHECK(zipped.headers.at("Content-Encoding") == "gzip");
  CHECK(zipped.headers.at("ETag") == "\"abc-gzip\"");
  CHECK(zipped.headers.at("Vary") == "Accept-Encoding");
  CHECK(zipped.shared_body->size() * 5 < body.size());
  CHECK(model::gzip_decompress(*zipped.shared_body) == body);
  HttpResponse again = actors::integrations_sd_response(poll, request);
  CHECK(again.shared_body.get() == zipped.shared_body.get());  // compressed once per merge

  request.headers.emplace("If-None-Match", "\"abc-gzip\"");
  CHECK(actors::integrations_sd_response(poll, request).status == 304);

  actors::HttpRequest plain;
  plain.path = actors::kIntegrationsSdPath;
  plain.headers.emplace("If-None-Match", "\"abc-gzip\"");  // the other representation's tag
  HttpResponse identity = actors::integrations_sd_response(poll, plain);
  CHECK(identity.status == 200);
  CHECK(identity.headers.count("Content-Encoding") == 0);
  CHECK(identity.headers.at("ETag") == "\"abc\"");
  REQUIRE(identity.shared_body);
  CHECK(*identity.shared_body == body);
  CHECK(polls == 4);
}
