// The operator's integrations SD endpoint, GET or HEAD
// /operator/api/v1/metrics/integrations/sd[?agent=NAMESPACE/NAME]: every
// integrations pod's targets merged into one Prometheus http_sd body.
// Contract: the handler validates the query (400 naming the problem), asks
// the aggregator through SdPoll ("" for every GrafanaAgent, else
// "NAMESPACE/NAME"), and answers 200 with the body and its ETag (gzipped,
// with its own ETag, when Accept-Encoding allows), or 304 when
// If-None-Match names that ETag, or 503 when the aggregator did not answer
// in time (SdPoll returned null). Needs neither CAF nor k8s/.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "actors/http/server.hpp"
#include "model/http_sd.hpp"

namespace actors {

inline constexpr const char* kIntegrationsSdPath = "/operator/api/v1/metrics/integrations/sd";

// One merge's answer. Pollers that accept gzip (Prometheus's Go client
// does) get the body compressed once per merge, not once per poll: fifty
// pollers of an 800 KB merge otherwise send 40 MB of JSON.
class SdAnswer {
 public:
  SdAnswer(std::string body, std::string etag) : body(std::move(body)), etag(std::move(etag)) {}
  // Compressed on first use; thread-safe. Its ETag is `etag` with "-gzip"
  // inside the quotes, as a different representation needs its own tag.
  const std::shared_ptr<const std::string>& gzipped() const;
  std::string gzip_etag() const;

  const std::string body;
  const std::string etag;  // quoted, as the ETag header carries it

 private:
  mutable std::once_flag gzip_once_;
  mutable std::shared_ptr<const std::string> gzipped_;
};

using model::accepts_gzip;  // the SD endpoint's callers know it from here

// Shared, so fifty pollers of one merge send one copy of its bytes.
using SdPoll = std::function<std::shared_ptr<const SdAnswer>(const std::string& agent)>;

HttpResponse integrations_sd_response(const SdPoll& poll, const HttpRequest& request);

// Caps the SD polls in progress at once. A poll can hold an HTTP worker
// until the pods' timeout, so without a cap many pollers and hanging pods
// could take every worker from /healthz and /readyz. Past the cap a poll
// is answered 503 with Retry-After: 1 at once. Thread-safe.
class SdPollLimit {
 public:
  explicit SdPollLimit(int max) : max_(max) {}
  HttpResponse serve(const std::function<HttpResponse()>& poll);
  int active() const { return active_.load(); }

 private:
  int max_;
  std::atomic<int> active_{0};
};

}  // namespace actors
