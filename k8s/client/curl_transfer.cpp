#include "k8s/client/curl_transfer.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include "k8s/client/status.hpp"

namespace k8s::curl_detail {
namespace {

void set_blob(CURL* easy, CURLoption option, const std::string& data) {
  curl_blob blob{const_cast<char*>(data.data()), data.size(), CURL_BLOB_COPY};
  curl_easy_setopt(easy, option, &blob);
}

// One allocation for the whole body when its length is announced, with
// room for the padding simdjson wants when the client scans a list.
void reserve_body(Transfer& t) {
  curl_off_t length = -1;
  if (curl_easy_getinfo(t.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK && length > 0 &&
      length < (curl_off_t{1} << 32) && (!t.req.max_body || static_cast<std::size_t>(length) <= t.req.max_body))
    t.body.reserve(static_cast<std::size_t>(length) + 64);
}
std::size_t on_write(char* data, std::size_t size, std::size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  std::size_t len = size * n;
  if (t.cancelled) return len;
  long code = 0;
  curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &code);
  if (!t.streaming || code < 200 || code >= 300) {
    if (t.req.max_body && t.body.size() + len > t.req.max_body) {
      t.too_large = true;
      return 0;  // curl ends the transfer with CURLE_WRITE_ERROR
    }
    if (t.body.empty()) reserve_body(t);
    t.body.append(data, len);
    return len;
  }
  t.lines.feed(std::string_view(data, len), [&t](std::string_view line) {
    if (!t.cancelled && t.on_line) t.on_line(line);
  });
  return len;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  std::string_view h(data, size * n);
  if (h.rfind("HTTP/", 0) == 0) t.retry_after = std::chrono::milliseconds(0);  // a new response
  constexpr std::string_view kName = "retry-after:";
  if (h.size() > kName.size()) {
    bool match = true;
    for (std::size_t i = 0; i < kName.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(h[i])) == kName[i];
    if (match) {
      long seconds = std::strtol(std::string(h.substr(kName.size())).c_str(), nullptr, 10);
      if (seconds > 0) t.retry_after = std::chrono::seconds(seconds);
    }
  }
  return size * n;
}
void configure_http(Transfer& t, const std::string& server, const CurlOptions& options, const std::string& token) {
  CURL* e = t.easy;
  std::string url = server + t.req.path;
  if (!t.req.query.empty()) url += "?" + t.req.query;
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_PRIVATE, &t);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.errbuf);
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  const std::string& agent = t.req.user_agent.empty() ? options.user_agent : t.req.user_agent;
  curl_easy_setopt(e, CURLOPT_USERAGENT, agent.c_str());
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, static_cast<long>(options.keepalive_idle.count()));
  curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, static_cast<long>(options.keepalive_interval.count()));
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
  if (t.req.timeout.count() > 0) curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(t.req.timeout.count()));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
  if (t.req.method != "GET") {
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, t.req.method.c_str());
    if (!t.req.body.empty() || t.req.method != "DELETE") {
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, t.req.body.data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t.req.body.size()));
    }
  }
  t.headers = curl_slist_append(t.headers, "Accept: application/json");
  t.headers = curl_slist_append(t.headers, "Expect:");
  if (!t.req.body.empty()) t.headers = curl_slist_append(t.headers, ("Content-Type: " + t.req.content_type).c_str());
  if (!token.empty()) t.headers = curl_slist_append(t.headers, ("Authorization: Bearer " + token).c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
}

void configure_tls(CURL* e, const ClusterConfig& c) {
  if (!c.ca_data.empty())
    set_blob(e, CURLOPT_CAINFO_BLOB, c.ca_data);
  else if (!c.ca_file.empty())
    curl_easy_setopt(e, CURLOPT_CAINFO, c.ca_file.c_str());
  if (!c.client_cert_data.empty())
    set_blob(e, CURLOPT_SSLCERT_BLOB, c.client_cert_data);
  else if (!c.client_cert_file.empty())
    curl_easy_setopt(e, CURLOPT_SSLCERT, c.client_cert_file.c_str());
  if (!c.client_key_data.empty())
    set_blob(e, CURLOPT_SSLKEY_BLOB, c.client_key_data);
  else if (!c.client_key_file.empty())
    curl_easy_setopt(e, CURLOPT_SSLKEY, c.client_key_file.c_str());
  if (c.insecure_skip_tls_verify) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
}

}  // namespace

const std::string& TokenSource::get() {
  if (file_.empty()) return token_;
  std::error_code ec;
  auto mtime = std::filesystem::last_write_time(file_, ec);
  if (ec) return token_;  // keep the last good token while the file is being replaced
  auto size = std::filesystem::file_size(file_, ec);
  if (ec || (read_once_ && mtime == mtime_ && size == size_)) return token_;
  std::ifstream in(file_, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return token_;
  std::string t = text.str();
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  token_ = std::move(t);
  mtime_ = mtime;
  size_ = size;
  read_once_ = true;
  return token_;
}

void configure(Transfer& t, const std::string& server, const ClusterConfig& config, const CurlOptions& options,
               const std::string& token) {
  configure_http(t, server, options, token);
  configure_tls(t.easy, config);
}

void configure_exec_credential(Transfer& t, const ExecCredential& c) {
  if (!c.client_cert_data.empty()) {
    set_blob(t.easy, CURLOPT_SSLCERT_BLOB, c.client_cert_data);
    set_blob(t.easy, CURLOPT_SSLKEY_BLOB, c.client_key_data);
  }
}

Result result_of(Transfer& t, CURLcode code) {
  Result r;
  if (code != CURLE_OK) {
    r.timed_out = code == CURLE_OPERATION_TIMEDOUT;
    r.too_large = t.too_large;
    r.error = t.too_large   ? "response body larger than " + std::to_string(t.req.max_body) + " bytes"
              : t.errbuf[0] ? t.errbuf
                            : curl_easy_strerror(code);
    return r;
  }
  if (char* type = nullptr; curl_easy_getinfo(t.easy, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type)
    r.content_type = type;
  long status = 0;
  curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
  r.status = static_cast<int>(status);
  r.retry_after = t.retry_after;
  r.body = std::move(t.body);
  if (!r.ok()) fill_status(r);
  return r;
}

void DnsCache::attach(Transfer& t, std::chrono::steady_clock::time_point now) {
  if (epoch_.count() <= 0) return;
  if (!share_ || now - since_ >= epoch_) {
    CURLSH* sh = curl_share_init();
    if (!sh) return;  // out of memory: the handle keeps libcurl's own cache
    curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    share_.reset(sh, [](CURLSH* p) { curl_share_cleanup(p); });
    since_ = now;
  }
  t.dns = share_;
  curl_easy_setopt(t.easy, CURLOPT_SHARE, share_.get());
  curl_easy_setopt(t.easy, CURLOPT_DNS_CACHE_TIMEOUT, -1L);  // never pruned entry by entry
}

}  // namespace k8s::curl_detail
