#include "actors/http/sd_endpoint.hpp"

#include "model/codec.hpp"
#include "model/http_sd.hpp"

namespace actors {

const std::shared_ptr<const std::string>& SdAnswer::gzipped() const {
  // Level 1: a 1,000-pod SD body shrinks 27-fold at it, for a fraction of the
  // default level's CPU, and a merge may be replaced every second.
  std::call_once(gzip_once_, [this] { gzipped_ = std::make_shared<const std::string>(model::gzip_compress(body, 1)); });
  return gzipped_;
}

std::string SdAnswer::gzip_etag() const {
  return model::gzip_etag(etag);
}

HttpResponse SdPollLimit::serve(const std::function<HttpResponse()>& poll) {
  if (active_.fetch_add(1) >= max_) {
    active_.fetch_sub(1);
    HttpResponse r{503, "too many integrations SD polls in progress; retry shortly\n"};
    r.headers["Retry-After"] = "1";
    return r;
  }
  struct Leave {
    std::atomic<int>& n;
    ~Leave() { n.fetch_sub(1); }
  } leave{active_};
  return poll();
}

HttpResponse integrations_sd_response(const SdPoll& poll, const HttpRequest& request) {
  auto agent = agent_param(request, false);
  if (auto* error = std::get_if<HttpResponse>(&agent)) return *error;
  const auto& [ns, name] = std::get<1>(agent);
  std::shared_ptr<const SdAnswer> answer = poll(ns.empty() ? "" : ns + "/" + name);
  HttpResponse r;
  if (!answer) {
    r.status = 503;
    r.body = "the integrations SD aggregator did not answer in time\n";
    return r;
  }
  const std::string* ae = request.header("Accept-Encoding");
  bool gzip = ae && accepts_gzip(*ae);
  std::string etag = gzip ? answer->gzip_etag() : answer->etag;
  r.headers["ETag"] = etag;
  r.headers["Cache-Control"] = "no-cache";  // revalidate: the merge changes as pods do
  r.headers["Vary"] = "Accept-Encoding";
  const std::string* inm = request.header("If-None-Match");
  if (inm && model::etag_matches(*inm, etag)) {
    r.status = 304;
    return r;
  }
  if (gzip) {
    r.shared_body = answer->gzipped();
    r.headers["Content-Encoding"] = "gzip";
  } else {
    r.shared_body = std::shared_ptr<const std::string>(answer, &answer->body);
  }
  r.content_type = "application/json";
  return r;
}

}  // namespace actors
