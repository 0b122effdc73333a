// The HTTP transport: many long-lived watches at once, and clean shutdown.
#include <catch2/catch.hpp>

#include <httplib.h>
#include <atomic>
#include <thread>

#include "k8s/sim/server.hpp"
#include "sim_fixture.hpp"

using namespace k8s::sim;

TEST_CASE("the server keeps answering while many watches stay open", "[k8s][server][watch]") {
  simtest::SimFixture f;
  Server server(f.cluster, ServerOptions{});
  int port = server.start();
  constexpr int kWatchers = 64;
  std::atomic<int> saw_event{0}, ended{0};
  std::vector<std::thread> watchers;
  // Every watch starts before the write below, whenever it connects.
  std::string path = "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" +
                     std::to_string(f.cluster.store().current_rv());
  for (int i = 0; i < kWatchers; ++i)
    watchers.emplace_back([&, port] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_read_timeout(60, 0);
      std::string seen;
      bool counted = false;
      cli.Get(path, [&](const char* data, std::size_t len) {
        seen.append(data, len);
        if (!counted && seen.find("\"name\":\"ping\"") != std::string::npos) {
          counted = true;
          ++saw_event;
        }
        return true;
      });
      ++ended;
    });
  httplib::Client cli("127.0.0.1", port);
  auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // most watches are connected by now
  auto res = cli.Post("/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"ping"}})", "application/json");
  REQUIRE(res);
  CHECK(res->status == 201);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  for (int i = 0; i < 500 && saw_event < kWatchers; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(saw_event == kWatchers);
  server.stop();  // ends every watch
  for (auto& t : watchers) t.join();
  CHECK(ended == kWatchers);
}
