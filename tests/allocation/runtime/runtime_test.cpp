// The allocator's runtime: its inputs as journal lines, the fold
// (allocation::runtime::State) that the allocation actor and `replay` share,
// and a recorded journal replaying to the live assignment at several
// checkpoints (the runtime in-process against simcluster).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "allocation/runtime/replay.hpp"
#include "k8s/sim/server.hpp"
#include "model/parse.hpp"
#include "tests/allocation/runtime/inputs.hpp"
#include "tests/allocation/ta_runtime_fixture.hpp"
#include "tests/eventually.hpp"
#include "tests/k8s/sim/sim_fixture.hpp"
#include "tests/scratch.hpp"

using namespace allocation::runtime;
using ta_inputs::config_input;
using ta_inputs::watch_input;

namespace {

std::string pod_json(const std::string& name, bool ready) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"ops","labels":{"app":"col"}},"spec":{"nodeName":"n1"},"status":{"conditions":[{"type":"Ready","status":")" +
         (ready ? "True" : "False") + R"("}]}})";
}

const std::string kCollectorConfig =
    "collector_selector: {matchlabels: {app: col}}\n"
    "config:\n  scrape_configs:\n    - job_name: web\n"
    "      static_configs: [{targets: ['10.0.0.1:80', '10.0.0.2:80', '10.0.0.3:80', '10.0.0.4:80']}]\n";

std::string error_of(const std::string& line) {
  try {
    decode_input(line, 7);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("allocator inputs round-trip through journal lines and bad lines name the line and field",
          "[allocation][runtime]") {
  Input w = watch_input("collectors", allocation::discovery::Change::modified, pod_json("c-0", true));
  w.seq = 3;
  w.time_ms = 1714564800250;
  const std::string line = encode_input(w);
  CHECK(line.back() == '\n');
  Input back = decode_input(line.substr(0, line.size() - 1), 2);
  CHECK(encode_input(back) == line);
  CHECK(describe(back) == "seq 3 watch collectors MODIFIED ops/c-0");
  Input h;
  h.type = InputType::http_sd;
  h.http_sd = {"web/0", 200, "application/json", "[]", ""};
  CHECK(encode_input(decode_input(encode_input(h), 1)) == encode_input(h));
  CHECK(encode_input(decode_input(encode_input(config_input("a: 1")), 1)) == encode_input(config_input("a: 1")));

  CHECK(error_of("{") != "no error");
  CHECK(error_of(R"({"seq":1,"time":2,"type":"nap"})") ==
        "line 7: type: must be config, watch, http_sd, file_sd or reallocate");
  CHECK(error_of(R"({"seq":"1","time":2,"type":"reallocate"})") == "line 7: seq: must be an integer");
  CHECK(error_of(R"({"seq":1,"time":2,"type":"watch","watch":"x","change":"GONE","object":{}})") ==
        "line 7: change: must be ADDED, MODIFIED or DELETED");
  CHECK_THROWS_AS(decode_header(R"({"format":"agent-operator-journal","version":2})"), InputError);
  CHECK_NOTHROW(decode_header(encode_header().substr(0, encode_header().size() - 1)));
}

TEST_CASE("the allocator fold applies a burst of inputs in one reallocation", "[allocation][runtime]") {
  State st;
  auto fx = st.apply(config_input(kCollectorConfig));
  CHECK(fx.sources_changed);
  REQUIRE(st.watches().size() == 1);
  CHECK(st.watches()[0].id == "collectors");
  CHECK(st.watches()[0].ns == "ops");
  CHECK(st.watches()[0].label_selector == "app=col");
  CHECK(fx.pending);
  for (int i = 0; i < 50; ++i) {
    fx = st.apply(watch_input("collectors", allocation::discovery::Change::added,
                              pod_json("c-" + std::to_string(i), i % 2 == 0)));
    CHECK_FALSE(fx.collectors_set);
    CHECK(fx.pending);
  }
  CHECK(st.allocator().collectors().empty());  // nothing applied before the reallocate
  double now = 0;
  st.set_stopwatch([&now] { return now += 1; });  // each read is one second later
  fx = st.apply(Input{});
  CHECK(fx.reallocated);
  CHECK(fx.collectors_set);
  CHECK(fx.targets_set);
  // Both steps are timed, each on its own (time_to_allocate observes both).
  CHECK(fx.collectors_seconds == 1.0);
  CHECK(fx.targets_seconds == 1.0);
  CHECK_FALSE(fx.pending);
  CHECK(st.allocator().collectors().size() == 50);
  CHECK(st.allocator().unassigned() == 0);
  // A watch the config does not need changes nothing.
  fx = st.apply(watch_input("sd/9/0", allocation::discovery::Change::added, pod_json("x", true)));
  CHECK_FALSE(fx.pending);
}

TEST_CASE("the allocator fold reports a bad config and stays unconfigured", "[allocation][runtime]") {
  State st;
  auto fx = st.apply(config_input("config:\n  scrape_configs:\n    - job_name: a\n      consul_sd_configs: []\n"));
  CHECK_FALSE(st.configured());
  REQUIRE(fx.logs.size() == 1);
  CHECK(fx.logs[0].level == model::LogLevel::error);
  CHECK(fx.logs[0].msg == "config rejected");
  CHECK(fx.logs[0].value("file") == "ta.yaml");
  CHECK_THAT(fx.logs[0].value("error"), Catch::StartsWith("config.scrape_configs[0].consul_sd_configs"));
  CHECK_FALSE(st.apply(Input{}).reallocated);
}

TEST_CASE("Prometheus CR jobs bring their kubernetes_sd watches and take them away", "[allocation][runtime]") {
  State st;
  st.apply(config_input("collectors: [c]\nprometheus_cr: {enabled: true}\n"));
  std::vector<std::string> ids;
  for (const auto& w : st.watches()) ids.push_back(w.id);
  CHECK(ids == std::vector<std::string>{"cr/ServiceMonitor", "cr/PodMonitor", "cr/Probe", "cr/ScrapeConfig",
                                        "cr/Secret", "cr/ConfigMap"});
  CHECK(st.watches()[4].field_selector == "type!=helm.sh/release.v1");
  st.apply(Input{});
  const std::string monitor = R"({"apiVersion":"monitoring.coreos.com/v1","kind":"ServiceMonitor",
      "metadata":{"name":"m","namespace":"web"},"spec":{"selector":{},"endpoints":[{"port":"http"}]}})";
  st.apply(watch_input("cr/ServiceMonitor", allocation::discovery::Change::added, monitor));
  auto fx = st.apply(Input{});
  CHECK(fx.sources_changed);
  std::size_t sd = 0;
  for (const auto& w : st.watches()) sd += w.id.starts_with("cr-sd/serviceMonitor/web/m/0/0@");
  CHECK(sd == 3);  // endpoints, services and pods in namespace web
  st.apply(watch_input("cr/ServiceMonitor", allocation::discovery::Change::deleted, monitor));
  fx = st.apply(Input{});
  CHECK(fx.sources_changed);
  CHECK(st.watches().size() == 6);
}

namespace {

Assignment replayed(const std::string& journal, std::uint64_t until) {
  Replayer r(ReplayOptions{until, ""});
  std::ifstream in(journal);
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line) && !in.eof())
    if (!r.feed(line, ++n)) break;
  REQUIRE(r.last_seq() == until);
  return assignment_of(r.state().allocator());
}

// A Ready collector pod (status goes through its subresource, as kubelet writes it).
void add_collector(simtest::SimFixture& sim, const std::string& name) {
  sim.create("pods",
             R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                 R"(","labels":{"app":"col"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"otel"}]}})");
  auto current = sim.cluster.store().get(sim.type("", "pods"), "default", name);
  REQUIRE(current);
  model::Value next = current->value;
  next.set("status", model::parse_json(R"({"conditions": [{"type": "Ready", "status": "True"}]})"));
  sim.cluster.update(sim.type("", "pods"), "default", name, next, k8s::sim::Subresource::status, {}, sim.warnings);
}

}  // namespace

TEST_CASE("a recorded allocator journal replays to the live assignment at every checkpoint",
          "[allocation][runtime][cluster]") {
  simtest::SimFixture sim;
  k8s::sim::Server api(sim.cluster, {});
  api.start();
  for (int i = 0; i < 3; ++i) add_collector(sim, "col-" + std::to_string(i));
  const std::string kubeconfig = testutil::write_temp_file("ta-replay-kubeconfig", api.kubeconfig());
  const std::string journal = testutil::write_temp_file("ta-replay-journal", "");
  std::string targets;
  for (int i = 0; i < 40; ++i) targets += (i ? ", '10.2.0." : "'10.2.0.") + std::to_string(i) + ":80'";
  auto rt = std::make_unique<ta_test::Runtime>(
      "collector_selector: {matchlabels: {app: col}}\nconfig:\n  scrape_configs:\n    - job_name: web\n"
      "      static_configs: [{targets: [" +
          targets + "]}]\n",
      [&](actors::ta::RuntimeOptions& o) {
        o.kubeconfig_path = kubeconfig;
        o.collector_namespace = "default";
        o.journal_path = journal;
      });
  // Waits until the live assignment has `collectors` and compares the replay there.
  auto checkpoint = [&](std::size_t collectors) {
    std::pair<std::uint64_t, Assignment> live;
    REQUIRE(testutil::eventually([&] {
      live = rt->ta.assignment();
      std::size_t holding = 0;
      for (const auto& [c, list] : live.second) holding += !c.empty() && !list.empty();
      return holding == collectors;
    }));
    CHECK(replayed(journal, live.first) == live.second);
    return live.first;
  };
  std::vector<std::uint64_t> seqs{checkpoint(3)};
  add_collector(sim, "col-3");
  seqs.push_back(checkpoint(4));
  const Assignment at_four = replayed(journal, seqs[1]);
  sim.cluster.remove(sim.type("", "pods"), "default", "col-0", {});
  seqs.push_back(checkpoint(3));
  CHECK(seqs[0] < seqs[1]);
  CHECK(seqs[1] < seqs[2]);

  // The binary's replay prints the assignment and explains a target.
  const std::string log = testutil::write_temp_file("ta-replay-log", "");
  const std::string cmd = std::string(AO_BIN_DIR "/target-allocator replay ") + journal + " --until " +
                          std::to_string(seqs[1]) + " --explain web/10.2.0.7:80 2>" + log;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  CHECK(::pclose(p) == 0);
  // A fresh process (names interned anew) reaches the same assignment.
  CHECK_THAT(out, Catch::StartsWith("replayed to seq " + std::to_string(seqs[1]) + "\n" + format_assignment(at_four)));
  CHECK_THAT(out, Catch::Contains("collector col-3: "));
  CHECK_THAT(out, Catch::Contains("target web/10.2.0.7:80 is on col-"));
  CHECK_THAT(out, Catch::Contains("ranked collectors (rendezvous score, best first)"));
  CHECK_THAT(out, Catch::Contains("last moved "));
  // Its log (stderr) tells what the fold saw, each entry with its seq.
  std::ifstream log_in(log);
  const std::string logged((std::istreambuf_iterator<char>(log_in)), std::istreambuf_iterator<char>());
  CHECK_THAT(logged, Catch::Contains(" level=info component=config msg=loaded file=ta.yaml generation=1 "));
  CHECK_THAT(logged,
             Catch::Contains(" component=discovery msg=\"targets changed\" job=web targets=40 previous=0 seq="));
  CHECK_THAT(logged, Catch::Contains(" component=collectors msg=\"collectors changed\" collectors=4 added=col-3 seq="));
  CHECK_THAT(out, Catch::Contains(" watch collectors "));
  rt.reset();
  std::filesystem::remove(kubeconfig);
  std::filesystem::remove(journal);
  std::filesystem::remove(log);
}

TEST_CASE("the allocator journal masks the config's credentials and keeps the previous run", "[allocation][runtime]") {
  const std::string journal = testutil::write_temp_file("ta-journal-secrets", "");
  const std::string config =
      "collectors: [c]\nconfig:\n  scrape_configs:\n    - job_name: web\n"
      "      basic_auth: {username: u, password: hunter2}\n"
      "      static_configs: [{targets: ['10.3.0.1:80']}]\n";
  auto tweak = [&](actors::ta::RuntimeOptions& o) { o.journal_path = journal; };
  { ta_test::Runtime first(config, tweak); }
  { ta_test::Runtime second(config, tweak); }
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string text = read(journal), previous = read(journal + ".1");
  CHECK(text.find("hunter2") == std::string::npos);
  CHECK(text.find("<secret>") != std::string::npos);
  CHECK(previous.find("\"type\":\"config\"") != std::string::npos);  // the first run, kept
  // The masked config still replays to the assignment.
  Replayer r(ReplayOptions{});
  std::istringstream lines(text);
  std::string line;
  std::size_t n = 0;
  while (std::getline(lines, line)) r.feed(line, ++n);
  REQUIRE(r.state().configured());
  CHECK(assignment_of(r.state().allocator()) == Assignment{{"c", {"web/10.3.0.1:80"}}});
  std::filesystem::remove(journal);
  std::filesystem::remove(journal + ".1");
}
