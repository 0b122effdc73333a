// CurlTransport against an in-process simcluster: requests, streams,
// cancel, timers, Retry-After, Status decoding and shutdown.
#include <catch2/catch.hpp>

#include <vector>

#include "client_fixture.hpp"

using namespace k8s;
using clienttest::call;
using clienttest::eventually;

namespace {

const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

Request get_request(std::string path) {
  Request r;
  r.path = std::move(path);
  r.timeout = std::chrono::seconds(20);
  return r;
}

Request post(std::string path, std::string body) {
  Request r = get_request(std::move(path));
  r.method = "POST";
  r.body = std::move(body);
  return r;
}

}  // namespace

TEST_CASE("LineSplitter joins lines across chunks and skips blank ones", "[client][transport]") {
  LineSplitter s;
  std::vector<std::string> lines;
  auto add = [&](std::string_view l) { lines.emplace_back(l); };
  s.feed("{\"a\":1}\n{\"b\"", add);
  CHECK(lines == std::vector<std::string>{"{\"a\":1}"});
  CHECK(s.pending() == 4);
  s.feed(":2}\r\n\n  \n\r\n{\"c\":3}\n", add);
  CHECK(lines == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"});
  s.feed("{\"d\"", add);
  CHECK(lines.size() == 3);
}

TEST_CASE("a request gets the status and body of the answer", "[client][transport]") {
  clienttest::SimServer sim;
  auto t = make_curl_transport(sim.config());
  Result created = call([&](Callback cb) { t->send(post(kConfigMaps, R"({"metadata":{"name":"a"}})"), cb); });
  CHECK(created.status == 201);
  CHECK(created.body.find("\"name\":\"a\"") != std::string::npos);
  Result got = call([&](Callback cb) { t->send(get_request(std::string(kConfigMaps) + "/a"), cb); });
  CHECK(got.status == 200);
  CHECK(got.ok());
  Result missing = call([&](Callback cb) { t->send(get_request(std::string(kConfigMaps) + "/nope"), cb); });
  CHECK(missing.status == 404);
  CHECK(missing.reason == "NotFound");
  CHECK(missing.error.find("\"nope\" not found") != std::string::npos);
  CHECK(missing.error_class() == ErrorClass::retry_reconcile);
}

TEST_CASE("a refused connection is a transport error with status 0", "[client][transport]") {
  ClusterConfig c;
  {
    clienttest::SimServer sim;
    c = sim.config();
  }  // the port is closed now
  auto t = make_curl_transport(c);
  Result r = call([&](Callback cb) { t->send(get_request("/api/v1/namespaces"), cb); });
  CHECK(r.status == 0);
  CHECK_FALSE(r.error.empty());
  CHECK(r.error_class() == ErrorClass::retry_call);
}

TEST_CASE("a 429 answer carries its Retry-After", "[client][transport]") {
  sim::ServerOptions o;
  o.faults.error_429_rate = 1.0;
  o.faults.retry_after_seconds = 3;
  clienttest::SimServer sim(o);
  auto t = make_curl_transport(sim.config());
  Result r = call([&](Callback cb) { t->send(get_request(kConfigMaps), cb); });
  CHECK(r.status == 429);
  CHECK(r.retry_after == std::chrono::seconds(3));
  CHECK(r.reason == "TooManyRequests");
}

TEST_CASE("a stream delivers watch events as lines and ends once on cancel", "[client][transport]") {
  clienttest::SimServer sim;
  auto t = make_curl_transport(sim.config());
  std::mutex m;
  std::vector<std::string> lines;
  clienttest::Pending done;
  Request w = get_request(std::string(kConfigMaps) + "");
  w.query = "watch=true";
  w.timeout = {};
  StreamId id = t->stream(
      w,
      [&](std::string_view l) {
        std::lock_guard lock(m);
        lines.emplace_back(l);
      },
      done.callback());
  // The watch starts asynchronously: keep creating until events flow.
  int n = 0;
  REQUIRE(eventually([&] {
    sim.fixture.create("configmaps", R"({"metadata":{"name":"c)" + std::to_string(n++) + R"("}})");
    std::lock_guard lock(m);
    return lines.size() >= 3;
  }));
  {
    std::lock_guard lock(m);
    CHECK(lines[0].find("\"type\":\"ADDED\"") != std::string::npos);
  }
  t->cancel(id);
  Result r = done.wait();
  CHECK(r.status == 0);
  CHECK(r.error == kTransportCancelled);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(done.calls() == 1);
}

TEST_CASE("posted functions run on the transport thread in order and after their delay", "[client][transport]") {
  clienttest::SimServer sim;
  auto t = make_curl_transport(sim.config());
  std::mutex m;
  std::vector<int> order;
  std::thread::id loop;
  auto start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration delayed{};
  auto record = [&](int i) {
    std::lock_guard lock(m);
    order.push_back(i);
    if (i == 3) delayed = std::chrono::steady_clock::now() - start;
    loop = std::this_thread::get_id();
  };
  t->post_after(std::chrono::milliseconds(150), [&] { record(3); });
  t->post_after(std::chrono::milliseconds(50), [&] { record(2); });
  t->post([&] { record(1); });
  REQUIRE(eventually([&] {
    std::lock_guard lock(m);
    return order.size() == 3;
  }));
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(delayed >= std::chrono::milliseconds(150));
  CHECK(loop != std::this_thread::get_id());
}

TEST_CASE("destroying the transport completes streams requests and timers", "[client][transport]") {
  clienttest::SimServer sim;
  auto t = make_curl_transport(sim.config());
  clienttest::Pending watch_done, later_done;
  Request w = get_request(kConfigMaps);
  w.query = "watch=true";
  w.timeout = {};
  t->stream(
      w, [](std::string_view) {}, watch_done.callback());
  Transport* raw = t.get();
  auto later = later_done.callback();
  // A retry waiting on a timer: its request must still complete.
  t->post_after(std::chrono::hours(1), [raw, later] { raw->send(get_request(kConfigMaps), later); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  t.reset();
  CHECK(watch_done.calls() == 1);
  CHECK(watch_done.wait().error == kTransportStopped);
  CHECK(later_done.calls() == 1);
  CHECK(later_done.wait().error == kTransportStopped);
}

TEST_CASE("max_body ends a longer answer as too_large, and absolute URLs go to any server", "[client][transport]") {
  clienttest::SimServer sim;
  auto api = make_curl_transport(sim.config());
  const std::string data(10'000, 'x');
  Result created = call([&](Callback cb) {
    api->send(post(kConfigMaps, R"({"metadata":{"name":"big"},"data":{"a":")" + data + "\"}}"), cb);
  });
  REQUIRE(created.status == 201);
  // A transport without a server or credentials, as the SD aggregator uses
  // for pods: the request names the whole URL.
  auto pods = make_curl_transport(ClusterConfig{});
  Request req = get_request(sim.config().server + kConfigMaps + "/big");
  Result whole = call([&](Callback cb) { pods->send(req, cb); });
  CHECK(whole.status == 200);
  CHECK(whole.content_type.starts_with("application/json"));
  CHECK_FALSE(whole.too_large);
  req.max_body = 1000;
  Result cut = call([&](Callback cb) { pods->send(req, cb); });
  CHECK(cut.status == 0);
  CHECK(cut.too_large);
  CHECK_FALSE(cut.timed_out);
  CHECK(cut.error == "response body larger than 1000 bytes");
}
