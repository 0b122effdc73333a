// Internal to the curl transport: one request or stream as a curl easy
// handle, and the bearer-token source. Contract: everything here runs on
// the transport's loop thread; configure() sets every option of the
// handle (URL, method and body, headers with the token, timeouts, TCP
// keepalive, TLS), and result_of() turns a finished transfer into a Result.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "k8s/client/config.hpp"
#include "k8s/client/curl_transport.hpp"

namespace k8s::curl_detail {

// One request or stream, owned by the loop thread once submitted.
struct Transfer {
  StreamId id = 0;
  Request req;
  bool streaming = false;
  Callback done;
  LineHandler on_line;
  CURL* easy = nullptr;
  std::shared_ptr<CURLSH> dns;  // the DNS cache this handle uses (DnsCache), released after the handle
  curl_slist* headers = nullptr;
  std::string body;
  std::chrono::milliseconds retry_after{0};
  LineSplitter lines;
  bool cancelled = false;
  std::shared_ptr<const ExecCredential> cred;  // the exec credential it was sent with, if any
  bool auth_retried = false;                   // already resent once after a 401 with a fresh credential
  bool too_large = false;                      // the body passed req.max_body: the write callback ended the transfer
  char errbuf[CURL_ERROR_SIZE] = {};

  ~Transfer() {
    if (headers) curl_slist_free_all(headers);
    if (easy) curl_easy_cleanup(easy);
  }
};

// The epoch DNS cache of CurlOptions::dns_cache_epoch. Handles share one
// curl share object (loop thread only, so no lock callbacks); a new one is
// started every epoch, and the old one is freed with its last handle.
class DnsCache {
 public:
  explicit DnsCache(std::chrono::seconds epoch) : epoch_(epoch) {}
  // Gives the handle the current cache; nothing when the epoch is 0.
  void attach(Transfer& t, std::chrono::steady_clock::time_point now);

 private:
  std::chrono::seconds epoch_;
  std::shared_ptr<CURLSH> share_;
  std::chrono::steady_clock::time_point since_{};
};

// The bearer token, re-read from its file when the file's mtime or size
// changes; while the file is missing or unreadable the last token stays.
class TokenSource {
 public:
  TokenSource(std::string token, std::string file) : token_(std::move(token)), file_(std::move(file)) {}
  const std::string& get();

 private:
  std::string token_, file_;
  std::filesystem::file_time_type mtime_{};
  std::uintmax_t size_ = 0;
  bool read_once_ = false;
};

void configure(Transfer& t, const std::string& server, const ClusterConfig& config, const CurlOptions& options,
               const std::string& token);
// The exec plugin's token and client certificate, instead of the config's.
void configure_exec_credential(Transfer& t, const ExecCredential& c);
Result result_of(Transfer& t, CURLcode code);

}  // namespace k8s::curl_detail
