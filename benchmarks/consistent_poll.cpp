#include "consistent_poll.hpp"

#include <httplib.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

namespace consistent_bench {
namespace {

using Clock = std::chrono::steady_clock;

double cpu_now() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

struct ClientTally {
  std::uint64_t requests = 0, errors = 0, bytes = 0;
  std::vector<double> latency_ms;
};

// One client: its own connection, the queries in turn from `first`.
ClientTally poll_until(const PollOptions& o, std::size_t first, Clock::time_point until) {
  ClientTally t;
  httplib::Client c(o.host, o.port);
  c.set_keep_alive(true);
  std::map<std::string, std::string> etags;
  for (std::size_t i = first; Clock::now() < until; ++i) {
    const std::string& q = o.queries[i % o.queries.size()];
    httplib::Headers h{{"Authorization", "Bearer " + o.token}};
    if (o.etag && etags.count(q)) h.emplace("If-None-Match", etags[q]);
    const auto t0 = Clock::now();
    auto r = c.Get(q.c_str(), h);
    t.latency_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    ++t.requests;
    if (!r || (r->status != 200 && !(o.etag && r->status == 304))) {
      ++t.errors;
      continue;
    }
    t.bytes += r->body.size();
    if (o.etag && r->status == 200) etags[q] = r->get_header_value("ETag");
  }
  return t;
}

}  // namespace

PollResult measure_polling(const PollOptions& o) {
  const double cpu0 = cpu_now();
  const auto start = Clock::now();
  const auto until = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  std::vector<ClientTally> tallies(static_cast<std::size_t>(o.clients));
  std::vector<std::thread> threads;
  for (int i = 0; i < o.clients; ++i)
    threads.emplace_back([&, i] { tallies[i] = poll_until(o, static_cast<std::size_t>(i) * 7, until); });
  for (auto& t : threads) t.join();
  PollResult r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.cpu_seconds = cpu_now() - cpu0;
  std::vector<double> all;
  for (const auto& t : tallies) {
    r.requests += t.requests;
    r.errors += t.errors;
    r.bytes += t.bytes;
    all.insert(all.end(), t.latency_ms.begin(), t.latency_ms.end());
  }
  std::sort(all.begin(), all.end());
  if (!all.empty()) {
    r.p50_ms = all[all.size() / 2];
    r.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
    r.max_ms = all.back();
  }
  return r;
}

}  // namespace consistent_bench
