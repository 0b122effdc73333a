#include "k8s/client/curl_transport.hpp"

#include <algorithm>

#include "k8s/client/curl_loop.hpp"

namespace k8s {
namespace curl_detail {

void CurlTransport::start(std::shared_ptr<Transfer> t) {
  if (stopping_) {
    Result r;
    r.error = kTransportStopped;
    auto cb = std::move(t->done);
    t.reset();
    if (cb) cb(std::move(r));
    return;
  }
  if (config_.exec && !t->cred) {
    t->cred = config_.exec->current();
    if (!t->cred) return await_credential(std::move(t));
  }
  t->easy = curl_easy_init();
  curl_detail::configure(*t, config_.server, config_, options_, t->cred ? t->cred->token : token_.get());
  if (t->cred) curl_detail::configure_exec_credential(*t, *t->cred);
  dns_.attach(*t, SteadyClock::now());
  active_.emplace(t->id, t);
  curl_multi_add_handle(multi_, t->easy);
}

// The plugin runs on the credential source's worker; the transfer waits
// here, cancellable, until it answers.
void CurlTransport::await_credential(std::shared_ptr<Transfer> t) {
  StreamId id = t->id;
  waiting_.emplace(id, std::move(t));
  config_.exec->refresh_async([handle = handle_, id, this](ExecCredentialSource::Credential c, std::string error) {
    handle->post([this, id, c = std::move(c), error = std::move(error)] { credential_ready(id, c, error); });
  });
}

void CurlTransport::credential_ready(StreamId id, ExecCredentialSource::Credential c, const std::string& error) {
  auto it = waiting_.find(id);
  if (it == waiting_.end()) return;  // cancelled meanwhile
  std::shared_ptr<Transfer> t = std::move(it->second);
  waiting_.erase(it);
  if (c) {
    t->cred = std::move(c);
    return start(std::move(t));
  }
  Result r;
  r.error = error;  // status 0: the client retries with backoff, which re-runs the plugin
  Callback cb = std::move(t->done);
  t.reset();
  if (cb) cb(std::move(r));
}

// A 401 to an exec credential: drop it (unless a newer one replaced it)
// and send the request once more, which runs the plugin again.
void CurlTransport::retry_unauthorized(StreamId id) {
  auto it = active_.find(id);
  std::shared_ptr<Transfer> old = std::move(it->second);
  active_.erase(it);
  curl_multi_remove_handle(multi_, old->easy);
  config_.exec->invalidate(old->cred);
  auto t = std::make_shared<Transfer>();
  t->id = old->id;
  t->req = std::move(old->req);
  t->streaming = old->streaming;
  t->done = std::move(old->done);
  t->on_line = std::move(old->on_line);
  t->auth_retried = true;
  old.reset();
  start(std::move(t));
}

void CurlTransport::reap() {
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Transfer* t = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
    CURLcode code = msg->data.result;
    Result r = t->cancelled ? Result{} : curl_detail::result_of(*t, code);
    if (r.status == 401 && t->cred && !t->auth_retried && !stopping_) {
      retry_unauthorized(t->id);
      continue;
    }
    if (t->cancelled) r.error = kTransportCancelled;
    complete(t->id, std::move(r));
  }
}

void CurlTransport::complete(StreamId id, Result r) {
  auto it = active_.find(id);
  if (it == active_.end()) return;
  std::shared_ptr<Transfer> t = std::move(it->second);
  active_.erase(it);
  curl_multi_remove_handle(multi_, t->easy);
  Callback cb = std::move(t->done);
  t.reset();  // frees the handle before the callback may start new work
  if (cb) cb(std::move(r));
}

void CurlTransport::finish_cancelled(StreamId id) {
  Result r;
  r.error = stopping_ ? kTransportStopped : kTransportCancelled;
  if (auto it = waiting_.find(id); it != waiting_.end()) {
    Callback cb = std::move(it->second->done);
    waiting_.erase(it);
    if (cb) cb(std::move(r));
    return;
  }
  complete(id, std::move(r));
}

}  // namespace curl_detail

CurlOptions many_hosts_options(long hosts) {
  CurlOptions o;
  o.max_idle_connections = std::max(hosts, 16L);
  o.dns_cache_epoch = std::chrono::minutes(10);
  o.nice = 5;
  return o;
}

std::shared_ptr<Transport> make_curl_transport(const ClusterConfig& config, CurlOptions options) {
  return std::make_shared<curl_detail::CurlTransport>(config, std::move(options));
}

}  // namespace k8s