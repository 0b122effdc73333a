#include "soak_checks.hpp"

#include <algorithm>
#include <thread>

#include "actors/core/convergence.hpp"
#include "k8s/sim/process.hpp"
#include "model/parse.hpp"
#include "soak_audit.hpp"

namespace soak {

namespace {

// Limits on the growth of the medians between the halves. The replicas
// hold about 25 MiB and 50 fds (30 of them sockets: a watch per informer
// and the client's pooled connections, which come and go by a few).
constexpr long kRssSlackKib = 4 * 1024;
constexpr double kRssGrowth = 0.10;
constexpr long kFdSlack = 4;

}  // namespace

std::vector<model::Value> owned_objects(SimProcess& sim) {
  std::vector<model::Value> out;
  for (const auto& kind : actors::core::owned_kinds())
    for (auto& obj : sim.list(kind))
      if (actors::core::is_managed(obj)) out.push_back(std::move(obj));
  return out;
}

std::vector<model::Value> input_objects(SimProcess& sim) {
  std::vector<model::Value> out;
  for (const auto& kind : actors::core::input_kinds())
    for (auto& obj : sim.list(kind)) out.push_back(std::move(obj));
  return out;
}

bool converged(SimProcess& sim) {
  return actors::core::divergence(input_objects(sim), owned_objects(sim)).empty();
}

bool wait_quiescent(SimProcess& sim, const std::function<bool()>& settled, std::chrono::seconds quiet,
                    std::chrono::seconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    std::int64_t last = 0;
    for (const auto& w : read_audit(sim.audit_log()))
      if (!w.replica.empty() && !w.is_lease()) last = std::max(last, w.completed_us);
    if (now_us() - last >= std::chrono::microseconds(quiet).count() && settled()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return false;
}

std::vector<std::string> compare_content(const std::map<std::string, std::string>& got,
                                         const std::map<std::string, std::string>& reference) {
  std::vector<std::string> out;
  for (const auto& [id, content] : reference) {
    auto it = got.find(id);
    if (it == got.end())
      out.push_back(id + ": missing (the reference has it)");
    else if (it->second != content)
      out.push_back(id + ": differs from the reference");
  }
  for (const auto& [id, content] : got)
    if (!reference.count(id)) out.push_back(id + ": not in the reference");
  return out;
}

std::vector<std::string> lost_updates(SimProcess& sim, const EditScript& script) {
  std::vector<std::string> out;
  for (const auto& [id, ref] : script.touched()) {
    auto obj = sim.get(ref.kind, ref.ns, ref.name);
    auto want = script.expected().find(id);
    if (want == script.expected().end()) {
      if (obj) out.push_back(id + ": the script deleted it, the cluster still has it");
    } else if (!obj) {
      out.push_back(id + ": missing from the cluster");
    } else if (std::string why = differs(*obj, want->second); !why.empty()) {
      out.push_back(id + ": " + why);
    }
  }
  for (const auto& d : actors::core::divergence(input_objects(sim), owned_objects(sim)))
    out.push_back("output " + d + " (against a render of the cluster's inputs)");
  return out;
}

std::vector<std::string> replay_differs(const std::string& journal, const std::vector<model::Value>& owned) {
  auto r = k8s::sim::run({bin_dir() + "/agent-operator", "replay", journal});
  // Exit 1 is a member the soak's edits left invalid (a deleted Secret):
  // replay reports it as render does, and the objects are still printed.
  if (r.code != 0 && r.code != 1) return {"agent-operator replay exited " + std::to_string(r.code) + ": " + r.err};
  std::vector<model::Value> desired;
  for (auto& doc : model::parse_documents(r.out, "replay")) desired.push_back(std::move(doc.value));
  if (desired.empty()) return {"the replay wants no objects"};
  return actors::core::compare_owned(desired, owned);
}

namespace {

long median(std::vector<long> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

Growth compare_halves(const std::vector<ProcSample>& samples, std::chrono::seconds warmup) {
  Growth g;
  if (samples.empty()) return g;
  auto from = samples.front().at + warmup, mid = from + (samples.back().at - from) / 2;
  std::vector<long> rss[2], fds[2];
  for (const ProcSample& s : samples) {
    if (s.at < from) continue;
    rss[s.at >= mid].push_back(s.rss_kib);
    fds[s.at >= mid].push_back(s.fds);
  }
  if (rss[0].size() < 3 || rss[1].size() < 3) {
    g.problems.push_back("too few samples after the warm-up");
    return g;
  }
  // Medians: a sample taken while connections are replaced or a burst is
  // rendered is not growth; a leak moves the whole second half.
  g.rss_first_kib = median(rss[0]), g.rss_second_kib = median(rss[1]);
  g.fds_first = median(fds[0]), g.fds_second = median(fds[1]);
  if (g.rss_second_kib > g.rss_first_kib * (1 + kRssGrowth) + kRssSlackKib)
    g.problems.push_back("RSS grew from " + std::to_string(g.rss_first_kib / 1024) + " to " +
                         std::to_string(g.rss_second_kib / 1024) + " MiB");
  if (g.fds_second > g.fds_first + kFdSlack)
    g.problems.push_back("open fds grew from " + std::to_string(g.fds_first) + " to " + std::to_string(g.fds_second));
  return g;
}

}  // namespace soak
