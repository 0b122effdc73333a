// Load driver for the integrations SD endpoint: N stand-in integrations
// pods on loopback (sd/standin_pods), the SD aggregator actor on the real
// curl transport behind the operator's HTTP server, and P concurrent
// pollers GETting /operator/api/v1/metrics/integrations/sd for D seconds.
// Reports latency percentiles, fan-outs, and whether every distinct body
// held every answering pod's targets (checked after the run, see BodyLedger); then times one serial fan-out (one
// request at a time, the way a naive aggregator would) over the same pods.
//
//   sd_fanout [--pods 1000] [--pollers 50] [--seconds 20] [--delay-ms 10]
//             [--slow-pct 0] [--slow-ms 200] [--hang-pct 0] [--timeout-ms 1000]
//             [--freshness-ms 0] [--serial 1] [--loops 4] [--idle PODS] [--dns-epoch 600]
//             [--nice 5]
//             [--gzip 0] [--inline-check 0]
// --gzip 1: the pollers send Accept-Encoding: gzip, as Prometheus does.
// --inline-check 1: each poller also parses every new body as it arrives
// (how the driver checked before 2026-11-27; see benchmarks/README.md).
// SD_FANOUT_LOG=1 prints the aggregator's log lines (pod state changes) to stderr.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "actors/controller.hpp"
#include "actors/http/sd_endpoint.hpp"
#include "actors/sd_actor.hpp"
#include "k8s/client/curl_transport.hpp"
#include "k8s/client/sharded_transport.hpp"
#include "model/codec.hpp"
#include "model/http_sd.hpp"
#include "model/log_format.hpp"
#include "model/parse.hpp"
#include "sd/standin_pods.hpp"

using namespace std::chrono;

namespace {

struct Options {
  int pods = 1000, pollers = 50, seconds = 20, delay_ms = 10, slow_pct = 0, slow_ms = 200, hang_pct = 0;
  int timeout_ms = 1000, freshness_ms = 0, serial = 1, loops = 4, idle = -1, dns_epoch_s = 600, gzip = 0;
  int nice = -1;  // the curl loops' nice value; -1: many_hosts_options's
  int inline_check = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (k == "--pods")
      o.pods = v;
    else if (k == "--pollers")
      o.pollers = v;
    else if (k == "--seconds")
      o.seconds = v;
    else if (k == "--delay-ms")
      o.delay_ms = v;
    else if (k == "--slow-pct")
      o.slow_pct = v;
    else if (k == "--slow-ms")
      o.slow_ms = v;
    else if (k == "--hang-pct")
      o.hang_pct = v;
    else if (k == "--timeout-ms")
      o.timeout_ms = v;
    else if (k == "--freshness-ms")
      o.freshness_ms = v;
    else if (k == "--idle")
      o.idle = v;
    else if (k == "--dns-epoch")
      o.dns_epoch_s = v;
    else if (k == "--loops")
      o.loops = v;
    else if (k == "--nice")
      o.nice = v;
    else if (k == "--serial")
      o.serial = v;
    else if (k == "--gzip")
      o.gzip = v;
    else if (k == "--inline-check")
      o.inline_check = v;
    else {
      std::cerr << "unknown flag " << k << "\n";
      std::exit(2);
    }
  }
  return o;
}

// Pods are spread so every 100 has the same mix: slow ones first, then hanging.
std::vector<sd::StandinBehaviour> behaviours(const Options& o, std::vector<std::string>& answering) {
  std::vector<sd::StandinBehaviour> out;
  for (int i = 0; i < o.pods; ++i) {
    std::string host = "pod-" + std::to_string(i);
    sd::StandinBehaviour b;
    b.body = sd::standin_sd_body(host, {"node_exporter", "process_exporter"});
    int slot = i % 100;
    b.delay = milliseconds(slot < o.slow_pct ? o.slow_ms : o.delay_ms);
    if (slot >= o.slow_pct && slot < o.slow_pct + o.hang_pct) b.mode = sd::StandinBehaviour::Mode::hang;
    if (b.mode == sd::StandinBehaviour::Mode::answer) answering.push_back(host + ":12345");
    out.push_back(std::move(b));
  }
  return out;
}

actors::EventPtr endpoints_of(const sd::StandinPods& pods) {
  return std::make_shared<const actors::core::Event>(actors::core::make_event(
      1, 0, actors::core::EventType::added, sd::standin_endpoints("mon", "a", pods.addresses())));
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// Every answering pod's target is in the body.
bool complete(const std::string& body, const std::vector<std::string>& answering) {
  std::set<std::string> targets;
  for (const model::HttpSdGroup& g : model::parse_http_sd(body, "sd"))
    targets.insert(g.targets.begin(), g.targets.end());
  return std::all_of(answering.begin(), answering.end(), [&](const std::string& t) { return targets.count(t); });
}

// A keep-alive HTTP/1.1 GET client that reads each answer's body straight
// into one buffer with as few recv calls as the kernel allows. httplib's
// client polls before every 4 KB read: with it the pollers took 73% of
// the run's CPU, and the numbers measured the client, not the endpoint.
class LeanClient {
 public:
  LeanClient(int port, bool gzip) : port_(port), gzip_(gzip) {}
  ~LeanClient() { disconnect(); }
  // The status (0 when the connection failed); body and etag are filled.
  // A kept connection the server has closed (it ends them after a few
  // requests) is replaced once.
  int get(const char* path, std::string& body, std::string& etag) {
    bool kept = fd_ >= 0;
    if (!kept && !connect_to()) return 0;
    int status = get_once(path, body, etag);
    if (status == 0 && kept && connect_to()) status = get_once(path, body, etag);
    return status;
  }

 private:
  int get_once(const char* path, std::string& body, std::string& etag) {
    std::string req = std::string("GET ") + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                      (gzip_ ? "Accept-Encoding: gzip\r\n" : "") + "\r\n";
    if (::send(fd_, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) return fail();
    std::string head;
    std::size_t end;
    char chunk[16384];
    while ((end = head.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return fail();
      head.append(chunk, static_cast<std::size_t>(n));
    }
    int status = std::atoi(head.c_str() + head.find(' ') + 1);
    std::size_t length = static_cast<std::size_t>(std::atoll(header(head, "Content-Length").c_str()));
    etag = header(head, "ETag");
    // The buffer keeps its size between polls of one answer, so it is not
    // zero-filled again (that memset was 5 ms of each round's delivery).
    std::size_t have = std::min(head.size() - (end + 4), length);
    if (body.size() != length) body.resize(length);
    std::memcpy(body.data(), head.data() + end + 4, have);
    while (have < length) {
      ssize_t n = ::recv(fd_, body.data() + have, length - have, 0);
      if (n <= 0) return fail();
      have += static_cast<std::size_t>(n);
    }
    return status;
  }

  static std::string header(const std::string& head, const std::string& name) {
    std::size_t at = head.find("\r\n" + name + ": ");
    if (at == std::string::npos) return "";
    at += name.size() + 4;
    return head.substr(at, head.find("\r\n", at) - at);
  }
  bool connect_to() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return true;
    disconnect();
    return false;
  }
  int fail() {
    disconnect();
    return 0;
  }
  void disconnect() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int port_;
  bool gzip_;
  int fd_ = -1;
};

// Every distinct body the pollers saw, by ETag. Checking a body means
// parsing 844 KB; 50 pollers doing it as each fan-out lands used to share
// the two cores with the server still sending that answer to the others,
// so the tail measured the checker. Now the first poller to see an ETag
// keeps a copy, the others compare their bytes with it (a memcmp), and
// every kept body is parsed and checked after the run.
class BodyLedger {
 public:
  void record(const std::string& etag, const std::string& body) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, fresh] = bodies_.try_emplace(etag, body);
    if (!fresh && it->second != body) ++mismatched_;
  }
  // Bodies that lack an answering pod's target; gzip ones are inflated.
  int incomplete(bool gzip, const std::vector<std::string>& answering, std::size_t& sent, std::size_t& json) const {
    int bad = 0;
    for (const auto& [etag, body] : bodies_) {
      std::string text = gzip ? model::gzip_decompress(body).value_or("") : body;
      sent = body.size();
      json = text.size();
      if (!complete(text, answering)) ++bad;
    }
    return bad;
  }
  std::size_t distinct() const { return bodies_.size(); }
  int mismatched() const { return mismatched_; }

 private:
  std::mutex mu_;
  std::map<std::string, std::string> bodies_;
  int mismatched_ = 0;
};

void run_pollers(const Options& o, int port, const std::vector<std::string>& answering) {
  std::mutex mu;
  std::vector<double> latencies;
  std::atomic<int> errors{0};
  BodyLedger ledger;
  auto until = steady_clock::now() + seconds(o.seconds);
  std::vector<std::thread> threads;
  for (int p = 0; p < o.pollers; ++p)
    threads.emplace_back([&] {
      ::pthread_setname_np(::pthread_self(), "poller");  // tells the pollers from the server in perf
      LeanClient c(port, o.gzip != 0);
      std::vector<double> mine;
      std::string body, etag, seen;
      while (steady_clock::now() < until) {
        auto t0 = steady_clock::now();
        int status = c.get(actors::kIntegrationsSdPath, body, etag);
        mine.push_back(duration<double, std::milli>(steady_clock::now() - t0).count());
        if (status != 200) {
          ++errors;
          continue;
        }
        if (etag != seen) {
          ledger.record(etag, body);
          // The old way, kept to measure what it cost: every poller
          // parses each new body as it lands.
          if (o.inline_check && !complete(o.gzip ? model::gzip_decompress(body).value_or("") : body, answering))
            ++errors;
        }
        seen = etag;
      }
      std::lock_guard<std::mutex> lock(mu);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
    });
  for (auto& t : threads) t.join();
  std::size_t sent = 0, json = 0;
  int incomplete = ledger.incomplete(o.gzip != 0, answering, sent, json);
  std::printf("polls %zu  errors %d  latency ms p50 %.1f  p90 %.1f  p99 %.1f  max %.1f\n", latencies.size(),
              errors.load(), percentile(latencies, 0.5), percentile(latencies, 0.9), percentile(latencies, 0.99),
              percentile(latencies, 1.0));
  std::printf("bodies %zu distinct: %d incomplete, %d polls with other bytes under the same ETag\n", ledger.distinct(),
              incomplete, ledger.mismatched());
  std::printf("answer: %zu bytes sent for %zu bytes of JSON\n", sent, json);
}

void serial_fanout(const Options& o, const sd::StandinPods& pods) {
  auto t0 = steady_clock::now();
  std::size_t answered = 0;
  for (const std::string& a : pods.addresses()) {
    httplib::Client c("127.0.0.1", std::atoi(a.substr(a.find(':') + 1).c_str()));
    c.set_read_timeout(o.timeout_ms / 1000, (o.timeout_ms % 1000) * 1000);
    if (auto res = c.Get(actors::kPodSdPath); res && res->status == 200) ++answered;
  }
  std::printf("serial fan-out: one merge of %zu pods took %.1f ms (%zu answered)\n", pods.addresses().size(),
              duration<double, std::milli>(steady_clock::now() - t0).count(), answered);
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  rlimit nofile{};
  getrlimit(RLIMIT_NOFILE, &nofile);
  nofile.rlim_cur = nofile.rlim_max;  // a pod costs three sockets (listener and both ends)
  setrlimit(RLIMIT_NOFILE, &nofile);
  std::vector<std::string> answering;
  sd::StandinPods pods(behaviours(o, answering));
  caf::actor_system_config cfg;
  actors::tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  // The operator's transport (make_fanout_transport), with its knobs
  // exposed: --idle 0 --dns-epoch 0 --loops 1 is libcurl's defaults.
  k8s::CurlOptions co = k8s::many_hosts_options(o.pods);
  co.max_idle_connections = o.idle < 0 ? o.pods : o.idle;
  co.dns_cache_epoch = seconds(o.dns_epoch_s);
  if (o.nice >= 0) co.nice = o.nice;
  co.connect_timeout = milliseconds(o.timeout_ms);
  auto transport = k8s::make_fanout_transport(static_cast<std::size_t>(std::max(o.loops, 1)), co);
  actors::SdConfig sc{transport, milliseconds(o.timeout_ms), milliseconds(o.freshness_ms)};
  std::map<std::string, int> failures;  // reason -> count, on the actor's thread until the end
  sc.on_failure = [&failures](const sd::AgentKey&, const std::string& why) { ++failures[why]; };
  std::vector<double> fanout_ms;  // on the actor's thread until the end
  sc.on_fanout = [&fanout_ms](double seconds) { fanout_ms.push_back(seconds * 1000); };
  if (std::getenv("SD_FANOUT_LOG"))
    sc.log = [](const model::LogEntry& e) { std::fprintf(stderr, "%s\n", model::log_text(e).c_str()); };
  actors::sd_actor sd = actors::spawn_sd_actor(sys, sc);
  caf::anon_send(sd, actors::event_atom::value, endpoints_of(pods));
  actors::OperatorHttpServer http{actors::HttpServerOptions{}, actors::OperatorHttpSources{}};
  actors::SdPoll poll = actors::make_sd_poll(sys, sd, milliseconds(o.timeout_ms) + seconds(5));
  http.add_get(actors::kIntegrationsSdPath,
               [poll](const actors::HttpRequest& r) { return actors::integrations_sd_response(poll, r); });
  int port = http.start();
  std::printf(
      "pods %d (delay %d ms, %d%% slow at %d ms, %d%% hanging; timeout %d ms)  pollers %d%s  freshness %d ms  "
      "%d s\n",
      o.pods, o.delay_ms, o.slow_pct, o.slow_ms, o.hang_pct, o.timeout_ms, o.pollers, o.gzip ? " (gzip)" : "",
      o.freshness_ms, o.seconds);
  // The first fan-out opens a connection to every pod; it is reported on
  // its own, and the pollers measure the steady state.
  auto t0 = steady_clock::now();
  httplib::Client cold("127.0.0.1", port);
  cold.set_read_timeout(60, 0);  // httplib's default 5 s would cut a fan-out waiting on hanging pods
  auto first = cold.Get(actors::kIntegrationsSdPath);
  std::printf("first (cold) fan-out: %.1f ms, %s\n", duration<double, std::milli>(steady_clock::now() - t0).count(),
              first && complete(first->body, answering) ? "complete" : "INCOMPLETE");
  run_pollers(o, port, answering);
  caf::scoped_actor self{sys};
  auto st = self->request(sd, seconds(10), actors::stats_atom::value);
  st.receive(
      [](const actors::SdStats& s) {
        std::printf("fan-outs %llu, polls %llu\n", static_cast<unsigned long long>(s.fanouts),
                    static_cast<unsigned long long>(s.polls));
      },
      [](caf::error&) {});
  std::printf("pod requests %llu over %llu connections\n", static_cast<unsigned long long>(pods.requests()),
              static_cast<unsigned long long>(pods.connections()));
  http.stop();
  caf::anon_send_exit(sd, caf::exit_reason::user_shutdown);
  self->wait_for(sd);
  std::printf("fan-out ms: p50 %.1f  p90 %.1f  max %.1f\n", percentile(fanout_ms, 0.5), percentile(fanout_ms, 0.9),
              percentile(fanout_ms, 1.0));
  std::printf("pod failures:");
  for (const auto& [why, n] : failures) std::printf(" %s %d", why.c_str(), n);
  std::printf("\n");
  if (o.serial) serial_fanout(o, pods);
  return 0;
}
