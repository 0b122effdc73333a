// The sharded transport: which shard a URL goes to, requests and streams
// through several curl loops against two simclusters, and the epoch DNS
// cache starting a new cache while requests continue.
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client_fixture.hpp"
#include "k8s/client/sharded_transport.hpp"

using namespace k8s;
using clienttest::call;

namespace {

Request get(std::string url) {
  Request r;
  r.path = std::move(url);
  r.timeout = std::chrono::seconds(20);
  return r;
}

}  // namespace

TEST_CASE("a URL's shard depends on its host and port only", "[client][sharded]") {
  CHECK(shard_of("/api/v1/pods", 4) == 0);
  CHECK(shard_of("http://10.0.0.1:8080/x", 1) == 0);
  std::size_t s = shard_of("http://10.0.0.1:8080/agent/api/v1/metrics/integrations/sd", 4);
  CHECK(shard_of("http://10.0.0.1:8080/other?q=1", 4) == s);
  CHECK(shard_of("http://10.0.0.1:8080", 4) == s);
  CHECK(shard_of("http://10.0.0.1:8080?q=1", 4) == s);
  std::map<std::size_t, int> per_shard;
  for (int i = 0; i < 1000; ++i)
    ++per_shard[shard_of("http://10.0.3." + std::to_string(i % 250) + ":" + std::to_string(9000 + i / 250) + "/sd", 4)];
  REQUIRE(per_shard.size() == 4);
  for (const auto& [shard, n] : per_shard) {
    INFO("shard " << shard);
    CHECK(n > 180);  // 250 expected; FNV-1a spreads sequential addresses
    CHECK(n < 320);
  }
}

TEST_CASE("requests and streams go through the shard of their host", "[client][sharded]") {
  clienttest::SimServer a, b;
  auto t = make_fanout_transport(3, many_hosts_options(16));
  const std::string path = "/api/v1/namespaces/default/configmaps";
  for (int round = 0; round < 3; ++round)
    for (const auto* server : {&a, &b}) {
      Result r = call([&](Callback cb) { t->send(get(server->url + path), cb); });
      CHECK(r.status == 200);
    }
  // Two streams, one per server: distinct ids, each ends once on cancel.
  std::set<StreamId> ids;
  std::vector<std::unique_ptr<clienttest::Pending>> done;
  for (const auto* server : {&a, &b}) {
    Request w = get(server->url + path);
    w.timeout = std::chrono::milliseconds(0);
    w.query = "watch=true";
    done.push_back(std::make_unique<clienttest::Pending>());
    ids.insert(t->stream(
        w, [](std::string_view) {}, done.back()->callback()));
  }
  CHECK(ids.size() == 2);
  for (StreamId id : ids) t->cancel(id);
  for (auto& d : done) {
    CHECK(d->wait().error == kTransportCancelled);
    CHECK(d->calls() == 1);
  }
  // post and post_after run on a shard's I/O thread.
  Result posted = call([&](Callback cb) {
    t->post_after(std::chrono::milliseconds(1), [&t, cb] {
      Result r;
      r.status = t->in_io_thread() ? 200 : 500;
      cb(r);
    });
  });
  CHECK(posted.status == 200);
}

TEST_CASE("a fan-out transport's loops run at a raised nice value", "[client][sharded]") {
  CHECK(many_hosts_options(8).nice > 0);
  CurlOptions o = many_hosts_options(8);
  o.nice = 3;
  auto t = make_fanout_transport(2, o);
  int base = ::getpriority(PRIO_PROCESS, 0);
  Result r = call([&](Callback cb) {
    t->post([cb] {
      Result out;
      out.status = 200 + ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
      cb(out);
    });
  });
  CHECK(r.status == 200 + std::min(base + 3, 19));
  // The process's own threads keep their value.
  CHECK(::getpriority(PRIO_PROCESS, 0) == base);
  CHECK(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())) == base);
}

TEST_CASE("the epoch DNS cache is replaced while requests go on", "[client][sharded]") {
  clienttest::SimServer sim;
  CurlOptions o = many_hosts_options(8);
  o.dns_cache_epoch = std::chrono::seconds(1);
  auto t = make_curl_transport(ClusterConfig{}, o);
  const std::string url = sim.url + "/api/v1/namespaces/default/configmaps";
  Result before = call([&](Callback cb) { t->send(get(url), cb); });
  CHECK(before.status == 200);
  // The next request starts a new cache; the first cache is freed with
  // the handle that used it.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  Result after = call([&](Callback cb) { t->send(get(url), cb); });
  CHECK(after.status == 200);
}

TEST_CASE("dropping the sharded transport ends its open streams once", "[client][sharded]") {
  clienttest::SimServer sim;
  auto t = make_fanout_transport(2, many_hosts_options(4));
  clienttest::Pending done;
  Request w = get(sim.url + "/api/v1/namespaces/default/configmaps");
  w.timeout = std::chrono::milliseconds(0);
  w.query = "watch=true";
  t->stream(
      w, [](std::string_view) {}, done.callback());
  t.reset();  // the last owner: the shards stop and complete the stream
  CHECK(done.calls() == 1);
  CHECK(done.wait().error == kTransportStopped);
}
