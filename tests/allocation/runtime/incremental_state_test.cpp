// The fold's incremental targets step (State::set_incremental) against the
// full one: two States take the same random inputs (pods added, removed,
// relabelled, readdressed, made invalid or dropped; http_sd and file_sd
// answers; collectors joining, leaving, turning unready; config reloads,
// a strategy change among them), one with the incremental path and one
// reprocessing every target, and after each reallocate they must agree on
// everything a collector or an operator sees: the assignment, every
// bucket (order, version), every body the server serves (through the same
// ResponseCache), the generation, the invalid count and the log entries.
// A journal of the same inputs replays to the same result.
#include <catch2/catch.hpp>

#include <random>

#include "allocation/responses.hpp"
#include "allocation/runtime/replay.hpp"
#include "model/parse.hpp"
#include "tests/allocation/runtime/inputs.hpp"

using namespace allocation;
using namespace allocation::runtime;
using allocation::discovery::Change;

namespace {

std::string config_text(int variant) {
  // Variant 1 changes the pods job's rules (every identity in it changes);
  // variant 2 changes the strategy (a new Allocator, no incremental form).
  const std::string strategy = variant == 2 ? "least-weighted" : "consistent-hashing";
  const std::string pod_label = variant == 1 ? "name" : "pod";
  return "allocation_strategy: " + strategy +
         "\ncollector_selector: {matchlabels: {app: col}}\n"
         "config:\n  scrape_configs:\n"
         "    - job_name: pods\n"
         "      kubernetes_sd_configs: [{role: pod, namespaces: {names: [web]}}]\n"
         "      relabel_configs:\n"
         "        - {source_labels: [__meta_kubernetes_pod_label_drop], regex: 'yes', action: drop}\n"
         "        - {source_labels: [__meta_kubernetes_pod_label_bad], regex: 'yes', target_label: __address__, "
         "replacement: ''}\n"
         "        - {source_labels: [__meta_kubernetes_pod_name], target_label: " +
         pod_label +
         "}\n"
         // Identity = job + address here, so pods sharing an address are
         // duplicates (which the incremental path must refuse).
         "    - job_name: shadow\n"
         "      kubernetes_sd_configs: [{role: pod, namespaces: {names: [web]}}]\n"
         "      relabel_configs:\n"
         "        - {source_labels: [__meta_kubernetes_pod_label_shadow], regex: 'yes', action: keep}\n"
         "    - job_name: static\n"
         "      static_configs: [{targets: ['10.1.0.1:80', '10.1.0.2:80']}]\n"
         "    - job_name: http\n"
         "      http_sd_configs: [{url: 'http://sd.example/targets'}]\n"
         "    - job_name: files\n"
         "      file_sd_configs: [{files: ['/sd/*.json']}]\n";
}

struct WebPod {
  std::string name, ip;
  int version = 0;  // a label only: new labels, same identity in shadow
  bool drop = false, bad = false, shadow = false, ports = true;
};

std::string pod_json(const WebPod& p) {
  std::string labels = R"("app":"web","version":")" + std::to_string(p.version) + "\"";
  if (p.drop) labels += R"(,"drop":"yes")";
  if (p.bad) labels += R"(,"bad":"yes")";
  if (p.shadow) labels += R"(,"shadow":"yes")";
  const std::string ports = p.ports ? R"({"containerPort":8080},{"containerPort":9090})" : "";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + p.name + R"(","namespace":"web","labels":{)" +
         labels + R"(}},"spec":{"nodeName":"n1","containers":[{"name":"c","ports":[)" + ports +
         R"(]}]},"status":{"podIP":")" + p.ip + R"(","phase":"Running"}})";
}

std::string collector_json(const std::string& name, bool ready) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"ops","labels":{"app":"col"}},"spec":{"nodeName":"n1"},"status":{"conditions":[{"type":"Ready","status":")" +
         (ready ? "True" : "False") + R"("}]}})";
}

// A random list of target groups as http_sd and file_sd bodies carry them.
std::string groups_json(std::mt19937& rng, const std::string& net) {
  std::string out = "[";
  const int groups = static_cast<int>(rng() % 4);
  for (int g = 0; g < groups; ++g) {
    out += g ? "," : "";
    out += R"({"targets":[)";
    const int n = 1 + static_cast<int>(rng() % 5);
    for (int t = 0; t < n; ++t) out += (t ? "," : "") + std::string("\"") + net + std::to_string(rng() % 400) + ":80\"";
    out += R"(],"labels":{"zone":")" + std::to_string(rng() % 3) + "\"}}";
  }
  return out + "]";
}

std::string logs_text(const std::vector<model::LogEntry>& logs) {
  std::string out;
  for (const auto& l : logs) {
    out += l.component + " " + l.msg;
    for (const auto& f : l.fields) out += " " + f.key + "=" + f.value;
    out += "\n";
  }
  return out;
}

// The served bodies through `cache` (as AllocationServer::publish builds
// them), checked against bodies built afresh where they must be fresh.
std::string served(const State& st, ResponseCache& cache) {
  const Allocator& a = st.allocator();
  std::string out = format_assignment(assignment_of(a));
  out += "generation " + std::to_string(a.generation()) + " unassigned " + std::to_string(a.unassigned()) +
         " invalid " + std::to_string(st.invalid_targets()) + "\n" + jobs_json(a);
  for (Name job : a.jobs()) {
    const auto all = cache.job_targets(a, job);
    CHECK(all->body() == job_targets_json(a, job.text()));
    out += all->body() + all->etag() + "\n";
    for (const auto& c : a.collectors()) {
      const JobBucket* b = a.bucket(c.name, job);
      if (!b) continue;
      out += c.name + " " + std::string(job.text()) + " v" + std::to_string(b->version) + ": ";
      const auto one = cache.collector_targets(a, c.name, job.text());
      CHECK(one->str() == collector_targets_json(a, c.name, job.text()));
      out += one->str() + one->etag() + "\n";
    }
  }
  cache.prune(a);
  return out;
}

class Driver {
 public:
  explicit Driver(unsigned seed) : rng_(seed) {
    full_.set_incremental(false);
    apply(config_input(0));
  }

  // One burst of 1-4 inputs, then a reallocate; both States must agree.
  void step() {
    const int inputs = 1 + static_cast<int>(rng_() % 4);
    for (int i = 0; i < inputs; ++i) random_input();
    Input realloc;
    apply(realloc);
  }

  const std::vector<std::string>& journal() const { return journal_; }
  const State& full() const { return full_; }
  int incremental_steps() const { return incremental_steps_; }
  int target_steps() const { return target_steps_; }

 private:
  Input config_input(int variant) { return ta_inputs::config_input(config_text(variant)); }

  Input watch(const std::string& id, Change change, const std::string& json) {
    return ta_inputs::watch_input(id, change, json);
  }

  void apply(Input in) {
    in.seq = ++seq_;
    in.time_ms = 1714564800000 + static_cast<std::int64_t>(seq_) * 100;
    journal_.push_back(encode_input(in));
    const Effects a = inc_.apply(in), b = full_.apply(in);
    REQUIRE(a.reallocated == b.reallocated);
    REQUIRE(a.targets_set == b.targets_set);
    REQUIRE(a.collectors_set == b.collectors_set);
    REQUIRE(a.pending == b.pending);
    REQUIRE(logs_text(a.logs) == logs_text(b.logs));
    CHECK_FALSE(b.targets_incremental);
    if (a.targets_set) ++target_steps_, incremental_steps_ += a.targets_incremental ? 1 : 0;
    if (a.reallocated) REQUIRE(served(inc_, inc_cache_) == served(full_, full_cache_));
  }

  // Pod events go to every kubernetes_sd watch (both jobs watch web's pods).
  void pod_event(Change change, const WebPod& p) {
    for (const auto& w : inc_.watches())
      if (w.id != "collectors") apply(watch(w.id, change, pod_json(p)));
  }

  std::string fresh_ip() {
    const int ip = next_ip_++;
    return "10.0." + std::to_string(ip / 250) + "." + std::to_string(ip % 250);
  }

  void random_input() {
    const unsigned op = rng_() % 100;
    if (op < 25 || pods_.empty()) {
      WebPod p{"p" + std::to_string(next_pod_++), fresh_ip()};
      p.shadow = rng_() % 6 == 0;
      p.ports = rng_() % 5 != 0;
      pods_.push_back(p);
      pod_event(Change::added, p);
    } else if (op < 35) {
      const std::size_t i = rng_() % pods_.size();
      pod_event(Change::deleted, pods_[i]);
      pods_.erase(pods_.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (op < 65) {
      modify_pod(pods_[rng_() % pods_.size()]);
    } else if (op < 75) {
      apply_http();
    } else if (op < 82) {
      apply_files();
    } else if (op < 95) {
      collector_event();
    } else {
      const unsigned variant = rng_() % 6;  // the strategy change now and then
      apply(config_input(variant == 5 ? 2 : static_cast<int>(variant % 2)));
    }
  }

  void modify_pod(WebPod& p) {
    switch (rng_() % 6) {
      case 0:
      case 1:
        ++p.version;
        break;
      case 2:  // now and then another pod's address: duplicates in the shadow job
        p.ip = rng_() % 8 == 0 ? pods_[rng_() % pods_.size()].ip : fresh_ip();
        break;
      case 3:
        p.bad = !p.bad;
        break;
      case 4:
        p.drop = !p.drop;
        break;
      default:
        p.shadow = !p.shadow;
        break;
    }
    pod_event(Change::modified, p);
  }

  void apply_http() {
    for (const auto& s : inc_.http_sd()) {
      Input in;
      in.type = InputType::http_sd;
      in.http_sd = {s.id, 200, "application/json", groups_json(rng_, "10.3.0."), ""};
      apply(in);
    }
  }

  void apply_files() {
    for (const auto& s : inc_.file_sd()) {
      Input in;
      in.type = InputType::file_sd;
      in.file_sd.source = s.id;
      for (const char* path : {"/sd/a.json", "/sd/b.json"})
        if (rng_() % 3) in.file_sd.files.push_back({path, groups_json(rng_, "10.4.0."), ""});
      apply(in);
    }
  }

  void collector_event() {
    const std::string name = "col-" + std::to_string(rng_() % 5);
    const unsigned what = rng_() % 4;
    apply(watch("collectors", what == 0 ? Change::deleted : Change::modified, collector_json(name, what != 1)));
  }

  std::mt19937 rng_;
  State inc_, full_;
  ResponseCache inc_cache_, full_cache_;
  std::vector<WebPod> pods_;
  std::vector<std::string> journal_;
  std::uint64_t seq_ = 0;
  int next_pod_ = 0, next_ip_ = 1, incremental_steps_ = 0, target_steps_ = 0;
};

}  // namespace

TEST_CASE("the incremental targets step gives what reprocessing every target gives after every reallocate",
          "[allocation][runtime][incremental]") {
  for (unsigned seed : {1u, 2u, 3u, 4u}) {
    INFO("seed " << seed);
    Driver d(seed);
    for (int i = 0; i < 300; ++i) {
      INFO("step " << i);
      d.step();
    }
    // The comparison means something only if the incremental path ran.
    CHECK(d.incremental_steps() > d.target_steps() / 3);
  }
}

TEST_CASE("a journal of those inputs replays incrementally to the state that reprocessed every target",
          "[allocation][runtime][incremental]") {
  Driver d(7);
  for (int i = 0; i < 200; ++i) d.step();
  Replayer replay(ReplayOptions{});
  std::size_t line = 1;
  replay.feed(encode_header().substr(0, encode_header().size() - 1), line);
  for (const auto& l : d.journal()) replay.feed(std::string_view(l).substr(0, l.size() - 1), ++line);
  ResponseCache a, b;
  CHECK(served(replay.state(), a) == served(d.full(), b));
  CHECK(replay.report() == "replayed to seq " + std::to_string(replay.last_seq()) + "\n" +
                               format_assignment(assignment_of(d.full().allocator())));
}

// A watch event rebuilds one group; the label sets of the group it
// replaced must go as soon as the Allocator lets go of their targets.
// (The State kept a copy of every group as of the last full pass, which
// went stale with the first event and held every replaced group's sets:
// up to a second copy of all discovery until the next full pass.)
TEST_CASE("an incremental update frees the label sets of the groups it replaced", "[runtime][incremental]") {
  State st;
  std::uint64_t seq = 0;
  auto apply = [&](Input in) {
    in.seq = ++seq;
    return st.apply(in);
  };
  apply(
      ta_inputs::config_input("collectors: [a, b]\nconfig:\n  scrape_configs:\n    - job_name: pods\n"
                              "      kubernetes_sd_configs: [{role: pod, namespaces: {names: [web]}}]\n"));
  std::string watch;
  for (const auto& w : st.watches())
    if (w.kind == "Pod") watch = w.id;
  REQUIRE_FALSE(watch.empty());
  auto pod = [](const std::string& name, const std::string& ip) { return pod_json(WebPod{name, ip}); };
  apply(ta_inputs::watch_input(watch, Change::added, pod("p0", "10.0.0.1")));
  apply(ta_inputs::watch_input(watch, Change::added, pod("p1", "10.0.0.2")));
  apply(Input{});  // a full pass: the config is new
  std::vector<std::weak_ptr<const LabelSet>> before;
  for (const Target& t : st.allocator().targets())
    if (t.own && t.address.find("10.0.0.1") == 0) before.push_back(t.own);
  REQUIRE(before.size() == 2);  // p0's two container ports

  apply(ta_inputs::watch_input(watch, Change::modified, pod("p0", "10.0.0.9")));
  const Effects fx = apply(Input{});
  REQUIRE(fx.targets_set);
  REQUIRE(fx.targets_incremental);
  for (const auto& w : before) CHECK(w.expired());
  std::size_t moved = 0;
  for (const Target& t : st.allocator().targets()) moved += t.address.find("10.0.0.9") == 0 ? 1 : 0;
  CHECK(moved == 2);
}
