// Live config reload in the allocator's fold (runtime::State): what a
// reload keeps (sources with unchanged entries and their indexes, the
// collector watch, the Prometheus CR objects, the assignment), what it
// replaces (changed sources, under fresh ids), and what it rejects.
#include <catch2/catch.hpp>

#include <algorithm>

#include "allocation/runtime/replay.hpp"
#include "model/parse.hpp"
#include "tests/allocation/runtime/inputs.hpp"

using namespace allocation::runtime;
using allocation::discovery::Change;
using ta_inputs::config_input;
using ta_inputs::watch_input;

namespace {

std::vector<std::string> watch_ids(const State& st) {
  std::vector<std::string> ids;
  for (const auto& w : st.watches()) ids.push_back(w.id);
  return ids;
}

// A Ready pod at `ip` in namespace web with label app=web (role: pod).
std::string pod(const std::string& name, const std::string& ip) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"web","labels":{"app":"web"}},"spec":{"nodeName":"n1","containers":[{"name":"c","ports":[{"containerPort":8080}]}]},"status":{"podIP":")" +
         ip + R"(","phase":"Running"}})";
}

const std::string kPods =
    "    - job_name: pods\n"
    "      kubernetes_sd_configs: [{role: pod, namespaces: {names: [web]}}]\n";
const std::string kStatic =
    "    - job_name: static\n"
    "      static_configs: [{targets: ['10.1.0.1:80', '10.1.0.2:80', '10.1.0.3:80']}]\n";
const std::string kExtra =
    "    - job_name: extra\n"
    "      static_configs: [{targets: ['10.2.0.1:80']}]\n";

std::string config(const std::string& jobs, const std::string& head = "collectors: [a, b, c]\n") {
  return head + "config:\n  scrape_configs:\n" + jobs;
}

std::size_t targets_of(const Assignment& a, const std::string& job) {
  std::size_t n = 0;
  for (const auto& [collector, targets] : a)
    n += std::count_if(targets.begin(), targets.end(), [&](const std::string& t) { return t.starts_with(job + "/"); });
  return n;
}

}  // namespace

TEST_CASE("a reload that adds and removes jobs keeps unchanged sources and every placement",
          "[allocation][runtime][reload]") {
  // least-weighted keeps every placed target where it is, so a moved target
  // would show that the reload lost the previous assignment.
  const std::string head = "allocation_strategy: least-weighted\ncollectors: [a, b, c]\n";
  State st;
  REQUIRE(st.apply(config_input(config(kPods + kStatic, head))).config == Effects::ConfigResult::applied);
  CHECK(watch_ids(st) == std::vector<std::string>{"sd/0/0"});
  st.apply(watch_input("sd/0/0", Change::added, pod("p1", "10.0.0.1")));
  st.apply(watch_input("sd/0/0", Change::added, pod("p2", "10.0.0.2")));
  st.apply(Input{});
  const Assignment before = assignment_of(st.allocator());
  REQUIRE(targets_of(before, "pods") == 2);
  REQUIRE(targets_of(before, "static") == 3);

  // static goes, extra comes, pods stays: its watch keeps its id and index.
  auto fx = st.apply(config_input(config(kExtra + kPods, head)));
  CHECK(fx.config == Effects::ConfigResult::applied);
  CHECK(fx.sources_changed);
  CHECK(watch_ids(st) == std::vector<std::string>{"sd/0/0"});
  CHECK(fx.pending);
  st.apply(Input{});
  const Assignment after = assignment_of(st.allocator());
  CHECK(targets_of(after, "static") == 0);
  CHECK(targets_of(after, "extra") == 1);
  REQUIRE(targets_of(after, "pods") == 2);
  for (const auto& [collector, targets] : before)
    for (const auto& t : targets)
      if (t.starts_with("pods/")) {
        const auto& now = after.at(collector);
        CHECK(std::find(now.begin(), now.end(), t) != now.end());  // not moved
      }

  // Changing the sd entry replaces the source under a new id; events of the
  // old id are ignored from then on.
  st.apply(config_input(config(
      "    - job_name: pods\n      kubernetes_sd_configs: [{role: pod, namespaces: {names: [web, api]}}]\n", head)));
  CHECK(watch_ids(st) == std::vector<std::string>{"sd/0#3/0", "sd/0#3/1"});
  st.apply(Input{});
  CHECK_FALSE(st.apply(watch_input("sd/0/0", Change::added, pod("p3", "10.0.0.3"))).pending);
  CHECK(targets_of(assignment_of(st.allocator()), "pods") == 0);  // until the new watch lists
  st.apply(watch_input("sd/0#3/0", Change::added, pod("p1", "10.0.0.1")));
  st.apply(Input{});
  CHECK(targets_of(assignment_of(st.allocator()), "pods") == 1);
}

TEST_CASE("an invalid reload is rejected and the previous config keeps serving", "[allocation][runtime][reload]") {
  State st;
  st.apply(config_input(config(kStatic)));
  st.apply(Input{});
  const Assignment before = assignment_of(st.allocator());

  auto fx = st.apply(config_input(config("    - job_name: bad\n      relabel_configs: [{regex: '('}]\n")));
  CHECK(fx.config == Effects::ConfigResult::rejected);
  REQUIRE(fx.logs.size() == 1);
  CHECK(fx.logs[0].msg == "reload rejected; the previous config keeps serving");
  CHECK(fx.logs[0].value("file") == "ta.yaml");
  CHECK_THAT(fx.logs[0].value("error"), Catch::StartsWith("config.scrape_configs[0]"));
  CHECK_FALSE(fx.sources_changed);
  CHECK_FALSE(fx.pending);

  fx = st.apply(config_input("collectors: [a\n"));  // not YAML
  CHECK(fx.config == Effects::ConfigResult::rejected);

  // Needing the Kubernetes API without a cluster connection is rejected too.
  fx = st.apply(config_input(config(kPods), false));
  CHECK(fx.config == Effects::ConfigResult::rejected);
  REQUIRE(fx.logs.size() == 1);
  CHECK_THAT(fx.logs[0].value("error"),
             Catch::Contains("config.scrape_configs[0].kubernetes_sd_configs needs the Kubernetes API"));

  st.apply(Input{});
  CHECK(assignment_of(st.allocator()) == before);
  CHECK(st.config().scrape_configs.as_array().size() == 1);
}

TEST_CASE("a reload that changes the strategy places every target afresh", "[allocation][runtime][reload]") {
  State st;
  st.apply(config_input(config(kStatic)));
  st.apply(Input{});
  CHECK(st.allocator().strategy_name() == "consistent-hashing");
  auto fx = st.apply(config_input(config(kStatic, "allocation_strategy: least-weighted\ncollectors: [a, b, c]\n")));
  CHECK(fx.config == Effects::ConfigResult::applied);
  CHECK(std::any_of(fx.logs.begin(), fx.logs.end(),
                    [](auto& l) { return l.msg.find("allocation strategy changed") != std::string::npos; }));
  st.apply(Input{});
  CHECK(st.allocator().strategy_name() == "least-weighted");
  CHECK(targets_of(assignment_of(st.allocator()), "static") == 3);
  CHECK(assignment_of(st.allocator()).count("") == 0);
}

TEST_CASE("a reload keeps the collector watch unless its selector or namespace changes",
          "[allocation][runtime][reload]") {
  const std::string head = "collector_selector: {matchlabels: {app: col}}\n";
  State st;
  st.apply(config_input(config(kStatic, head)));
  CHECK(watch_ids(st) == std::vector<std::string>{"collectors"});
  st.apply(config_input(config(kStatic + kExtra, head)));
  CHECK(watch_ids(st) == std::vector<std::string>{"collectors"});
  st.apply(config_input(config(kStatic, "collector_selector: {matchlabels: {app: other}}\n")));
  CHECK(watch_ids(st) == std::vector<std::string>{"collectors#3"});
  st.apply(config_input(config(kStatic)));  // back to the static list
  CHECK(watch_ids(st).empty());
  st.apply(Input{});
  CHECK(st.allocator().collectors().size() == 3);
}

TEST_CASE("a reload keeps http_sd sources and their last answer when their entry is unchanged",
          "[allocation][runtime][reload]") {
  const std::string http = "    - job_name: files\n      http_sd_configs: [{url: 'http://sd.example/targets'}]\n";
  State st;
  st.apply(config_input(config(http)));
  REQUIRE(st.http_sd().size() == 1);
  CHECK(st.http_sd()[0].id == "files/0");
  Input answer;
  answer.type = InputType::http_sd;
  answer.http_sd = {"files/0", 200, "application/json", R"([{"targets":["10.3.0.1:80"]}])", ""};
  st.apply(answer);
  st.apply(Input{});
  CHECK(targets_of(assignment_of(st.allocator()), "files") == 1);
  st.apply(config_input(config(kStatic + http)));
  REQUIRE(st.http_sd().size() == 1);
  CHECK(st.http_sd()[0].id == "files/0");
  st.apply(Input{});
  CHECK(targets_of(assignment_of(st.allocator()), "files") == 1);
  st.apply(
      config_input(config("    - job_name: files\n      http_sd_configs: [{url: 'http://sd.example/targets', "
                          "refresh_interval: 5s}]\n")));
  REQUIRE(st.http_sd().size() == 1);
  CHECK(st.http_sd()[0].id == "files/0#3");
  st.apply(Input{});
  CHECK(targets_of(assignment_of(st.allocator()), "files") == 0);  // until the new source answers
}

TEST_CASE("a reload keeps the Prometheus CR objects and applies new selectors to them",
          "[allocation][runtime][reload]") {
  const std::string monitor = R"({"apiVersion":"monitoring.coreos.com/v1","kind":"ServiceMonitor",
      "metadata":{"name":"m","namespace":"web","labels":{"team":"a"}},"spec":{"selector":{},"endpoints":[{"port":"http"}]}})";
  State st;
  st.apply(config_input("collectors: [c]\nprometheus_cr: {enabled: true}\n"));
  st.apply(watch_input("cr/ServiceMonitor", Change::added, monitor));
  st.apply(Input{});
  REQUIRE(st.scrape_configs().as_array().size() == 1);
  st.apply(config_input(
      "collectors: [c]\nprometheus_cr: {enabled: true, service_monitor_selector: {matchlabels: {team: b}}}\n"));
  st.apply(Input{});
  CHECK(st.scrape_configs().as_array().empty());
  st.apply(config_input(
      "collectors: [c]\nprometheus_cr: {enabled: true, service_monitor_selector: {matchlabels: {team: a}}}\n"));
  st.apply(Input{});
  CHECK(st.scrape_configs().as_array().size() == 1);  // the object was kept
  auto fx = st.apply(config_input("collectors: [c]\n"));
  CHECK(fx.sources_changed);
  CHECK(watch_ids(st).empty());
  st.apply(Input{});
  CHECK(st.scrape_configs().as_array().empty());
}

TEST_CASE("config inputs record whether the process had a cluster connection", "[allocation][runtime][reload]") {
  Input with = config_input("a: 1"), without = config_input("a: 1", false);
  CHECK(encode_input(with).find("kubernetes") == std::string::npos);
  CHECK(decode_input(encode_input(with), 1).config.kubernetes);
  CHECK_FALSE(decode_input(encode_input(without), 1).config.kubernetes);
}

namespace {

Input file_input(const std::string& source, std::vector<FileSdFile> files) {
  Input in;
  in.type = InputType::file_sd;
  in.file_sd = {source, std::move(files)};
  return in;
}

}  // namespace

TEST_CASE("file_sd_configs: files become targets with __meta_filepath, and a bad file keeps its last groups",
          "[allocation][runtime][file_sd]") {
  const std::string job =
      "    - job_name: files\n"
      "      file_sd_configs: [{files: ['/etc/sd/*.json', '/etc/sd/extra.yml']}]\n"
      "      relabel_configs: [{source_labels: [__meta_filepath], regex: '.*/(.*)\\\\..*', target_label: file}]\n";
  State st;
  REQUIRE(st.apply(config_input(config(job))).config == Effects::ConfigResult::applied);
  REQUIRE(st.file_sd().size() == 1);
  CHECK(st.file_sd()[0].id == "files/file/0");
  CHECK(st.file_sd()[0].config.files == std::vector<std::string>{"/etc/sd/*.json", "/etc/sd/extra.yml"});
  auto fx = st.apply(file_input(
      "files/file/0", {{"/etc/sd/a.json", R"([{"targets":["10.4.0.1:80","10.4.0.2:80"],"labels":{"env":"prod"}}])", ""},
                       {"/etc/sd/extra.yml", "- targets: ['10.4.0.3:80']\n", ""}}));
  CHECK(fx.pending);
  st.apply(Input{});
  CHECK(targets_of(assignment_of(st.allocator()), "files") == 3);
  bool labelled = false;
  for (const auto& t : st.allocator().targets())
    labelled |= t.get(allocation::Name::intern("__meta_filepath")) == "/etc/sd/extra.yml";
  CHECK(labelled);

  // A broken file keeps its previous groups and is reported; a file no
  // longer matched takes its targets with it.
  fx = st.apply(file_input("files/file/0", {{"/etc/sd/a.json", "[{", ""}}));
  REQUIRE(fx.logs.size() == 1);
  CHECK(fx.logs[0].value("field") == "config.scrape_configs[0].file_sd_configs[0]");
  CHECK_THAT(fx.logs[0].value("error"), Catch::StartsWith("/etc/sd/a.json"));
  st.apply(Input{});
  CHECK(targets_of(assignment_of(st.allocator()), "files") == 2);
  fx = st.apply(file_input("files/file/0", {{"/etc/sd/extra.yml", "", "cannot read: No such file or directory"}}));
  REQUIRE(fx.logs.size() == 1);
  st.apply(Input{});
  CHECK(targets_of(assignment_of(st.allocator()), "files") == 0);

  // Journal round trip.
  Input in = file_input("files/file/0", {{"/x.json", "[]", ""}, {"/y.yml", "", "gone"}});
  CHECK(encode_input(decode_input(encode_input(in), 1)) == encode_input(in));
  CHECK(describe(in) == "seq 0 file_sd files/file/0 2 files");
}

TEST_CASE("file_sd_configs entries are checked as Prometheus checks them", "[allocation][runtime][file_sd]") {
  auto error = [](const std::string& entry) {
    try {
      load_config("config:\n  scrape_configs:\n    - job_name: f\n      file_sd_configs: [" + entry + "]\n", "ta.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("{files: ['/a/*.json']}") == "no error");
  CHECK(error("{files: []}") == "config.scrape_configs[0].file_sd_configs[0].files: must list at least one file");
  CHECK(error("{files: ['/a/b.txt']}") ==
        "config.scrape_configs[0].file_sd_configs[0].files[0]: \"/a/b.txt\" must end in .json, .yml or .yaml");
  CHECK(error("{files: ['/a/*/b.json']}") ==
        "config.scrape_configs[0].file_sd_configs[0].files[0]: \"/a/*/b.json\": only the last path element may hold "
        "a wildcard");
  CHECK(error("{files: [1]}") == "config.scrape_configs[0].file_sd_configs[0].files[0]: must be a string");
  CHECK(error("{files: ['/a.json'], refresh_interval: soon}") ==
        "config.scrape_configs[0].file_sd_configs[0].refresh_interval: must be a positive duration such as 5m");
  CHECK(error("{files: ['/a.json'], proxy: x}") ==
        "config.scrape_configs[0].file_sd_configs[0].proxy: unknown field (file_sd_configs take files and "
        "refresh_interval)");
}

namespace {

const std::string kMorePods =
    "    - job_name: more-pods\n"
    "      kubernetes_sd_configs: [{role: pod, namespaces: {names: [web]}}]\n";
const std::string kOtherPods =
    "    - job_name: other-pods\n"
    "      kubernetes_sd_configs: [{role: pod, namespaces: {names: [web, api]}}]\n";

}  // namespace

TEST_CASE("jobs with identical kubernetes_sd entries share one watch, as Prometheus shares one discovery",
          "[allocation][runtime][reload][shared]") {
  State st;
  REQUIRE(st.apply(config_input(config(kPods + kMorePods + kOtherPods))).config == Effects::ConfigResult::applied);
  // pods and more-pods share sd/0/0 (web); other-pods shares it for web and has api alone.
  CHECK(watch_ids(st) == std::vector<std::string>{"sd/0/0", "sd/2/1"});
  st.apply(watch_input("sd/0/0", Change::added, pod("p1", "10.0.0.1")));
  st.apply(Input{});
  const Assignment a = assignment_of(st.allocator());
  CHECK(targets_of(a, "pods") == 1);
  CHECK(targets_of(a, "more-pods") == 1);
  CHECK(targets_of(a, "other-pods") == 1);
  st.apply(watch_input("sd/0/0", Change::deleted, pod("p1", "10.0.0.1")));
  st.apply(Input{});
  const Assignment gone = assignment_of(st.allocator());
  CHECK(targets_of(gone, "pods") + targets_of(gone, "more-pods") + targets_of(gone, "other-pods") == 0);
}

TEST_CASE("a job that joins a running shared watch starts with what it delivered, and the watch outlives its first job",
          "[allocation][runtime][reload][shared]") {
  State st;
  REQUIRE(st.apply(config_input(config(kPods))).config == Effects::ConfigResult::applied);
  st.apply(watch_input("sd/0/0", Change::added, pod("p1", "10.0.0.1")));
  st.apply(watch_input("sd/0/0", Change::added, pod("p2", "10.0.0.2")));
  st.apply(Input{});

  // more-pods joins: no new watch, and its targets come without a new event.
  REQUIRE(st.apply(config_input(config(kPods + kMorePods))).config == Effects::ConfigResult::applied);
  CHECK(watch_ids(st) == std::vector<std::string>{"sd/0/0"});
  st.apply(Input{});
  CHECK(targets_of(assignment_of(st.allocator()), "more-pods") == 2);

  // pods goes: more-pods keeps the watch under its id, and its events. The
  // watch source stays equal as a whole, or the runtime would restart it.
  const WatchSource shared = st.watches().at(0);
  REQUIRE(st.apply(config_input(config(kMorePods))).config == Effects::ConfigResult::applied);
  CHECK(watch_ids(st) == std::vector<std::string>{"sd/0/0"});
  CHECK(st.watches().at(0) == shared);
  st.apply(watch_input("sd/0/0", Change::deleted, pod("p2", "10.0.0.2")));
  st.apply(Input{});
  const Assignment a = assignment_of(st.allocator());
  CHECK(targets_of(a, "pods") == 0);
  CHECK(targets_of(a, "more-pods") == 1);

  // Every job goes, then one comes back: a fresh watch (nobody holds what the old one delivered).
  REQUIRE(st.apply(config_input(config(kStatic))).config == Effects::ConfigResult::applied);
  CHECK(watch_ids(st).empty());
  REQUIRE(st.apply(config_input(config(kPods))).config == Effects::ConfigResult::applied);
  CHECK(watch_ids(st) == std::vector<std::string>{"sd/0#5/0"});
}
