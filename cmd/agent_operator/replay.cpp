// `agent-operator replay JOURNAL... [--until SEQ] [--explain NS/NAME]`:
// folds a recorded journal (one file with its rotated predecessors, or the
// files given, oldest first) through the controller core (router plus one
// root state per GrafanaAgent, settled to a fixpoint) and prints the
// objects the operator wanted at that point, why each resource was in
// or out of one agent's hierarchy, or (--bindings) each monitor's
// status.bindings verdicts; every agent's problems go to stderr and
// exit 1 when one is an error, as render does. A journal without a base
// state is refused (exit 2) unless --partial.
#include <algorithm>
#include <iostream>
#include <limits>
#include <map>
#include <set>

#include "actors/core/bindings.hpp"
#include "actors/core/journal_reader.hpp"
#include "actors/core/journal_replay.hpp"
#include "actors/core/writer_plan.hpp"
#include "commands.hpp"
#include "flags.hpp"
#include "model/hierarchy.hpp"
#include "operator.hpp"
#include "sd/endpoints.hpp"

namespace cli {

namespace {

constexpr const char* kReplayDescription =
    "Folds a recorded journal through the controller core and prints the objects the operator wanted after\n"
    "event SEQ (default: the end); the problems of every GrafanaAgent's hierarchy at that point (an invalid\n"
    "member, with the reason) go to stderr, as render prints them, warnings prefixed with \"warning:\".\n"
    "\n"
    "JOURNAL: one file: it and its rotated files, oldest first (JOURNAL.N ... JOURNAL.1, JOURNAL); several\n"
    "files: exactly those, oldest first; '-' reads standard input.\n"
    "A restart (start marker) or a rotated file's snapshot replaces the state folded so far, so objects\n"
    "deleted while the operator was down are gone, and each rotated file replays on its own.";

constexpr const char* kReplayExitCodes =
    "exit codes: 0 ok (warnings on stderr), 1 some resource is invalid (details on stderr) or --explain names\n"
    "no agent, 2 unusable input (unreadable, not a journal, corrupt, or no base state)";

struct ReplayFlags {
  std::vector<std::string> paths;
  std::string explain;
  bool rotated = true, integrations_sd = false, bindings = false;
  model::LogLevel log_level = model::LogLevel::info;
  model::LogFormat log_format = model::LogFormat::logfmt;
  actors::core::ReplayOptions opts;
};

std::vector<Flag> replay_flags(ReplayFlags& f) {
  std::vector<Flag> t;
  t.push_back({{"until"}, "SEQ", "the end", "stop after this event", [&f](const std::string& v) {
                 f.opts.until = static_cast<std::uint64_t>(parse_int(v, 0, std::numeric_limits<long long>::max()));
               }});
  t.push_back(explain_flag(f.explain));
  t.push_back({{"integrations-sd"},
               "",
               "false",
               "print the ready integrations pods the SD aggregator knew",
               [&f](const std::string& v) { f.integrations_sd = parse_bool(v); }});
  t.push_back({{"bindings"},
               "",
               "false",
               "print each monitor's status.bindings verdicts: one line per monitor and GrafanaAgent that selects "
               "it, Accepted=True or False with the message (not the lastTransitionTime: that is the writer's clock)",
               [&f](const std::string& v) { f.bindings = parse_bool(v); }});
  t.push_back(extra_labels_flag(f.opts.render.operator_labels));
  t.push_back({{"upstream-compat"}, "", "false", "render as run --upstream-compat does", [&f](const std::string& v) {
                 f.opts.render.upstream_compat = parse_bool(v);
               }});
  t.push_back({{"no-rotated"}, "", "false", "read JOURNAL alone, not its rotated files", [&f](const std::string& v) {
                 f.rotated = !parse_bool(v);
               }});
  t.push_back({{"partial"},
               "",
               "false",
               "replay a journal without a base state anyway (a file rotated before journal version 2, or cut): "
               "objects not changed in it are missing",
               [&f](const std::string& v) { f.opts.partial = parse_bool(v); }});
  add_log_flags(t, f.log_level, f.log_format);
  return t;
}

// Every root's problems, each once (a member shared by two agents is
// reported once), in root order; what render prints for the same input.
std::vector<model::Problem> replay_problems(const actors::core::Pipeline& p) {
  std::vector<model::Problem> out;
  std::set<std::string> seen;
  for (const auto& [key, root] : p.roots())
    for (const model::Problem& problem : root.problems)
      if (seen.insert((problem.warning ? "w" : "e") + problem.str()).second) out.push_back(problem);
  return out;
}

int explain_root(const actors::core::Pipeline& p, const std::string& target) {
  auto slash = target.find('/');
  if (slash == std::string::npos) throw std::invalid_argument("--explain wants NAMESPACE/NAME");
  actors::core::RootKey key{target.substr(0, slash), target.substr(slash + 1)};
  auto it = p.roots().find(key);
  const model::Inventory* inv = it == p.roots().end() ? nullptr : &it->second.inventory;
  if (!inv || !inv->agents.count(key)) {
    std::cerr << "agent-operator: GrafanaAgent " << target << " does not exist at that point of the journal\n";
    return 1;
  }
  for (const auto& line : model::explain_hierarchy(*inv, inv->agents.at(key).obj)) std::cout << line << "\n";
  return 0;
}

void log_report(const actors::core::ReplayReport& r, const model::Log& log) {
  log(model::log_info("replay", "replayed")
          .with("events", r.events)
          .with("files", r.files)
          .with("last_seq", r.last_seq)
          .with("base", r.base.empty() ? "none" : r.base)
          .with("secrets", r.header.secrets_included() ? "included" : "redacted placeholders"));
  for (const std::string& w : r.warnings) log(model::log_warn("replay", w));
}

void print_integrations_pods(const actors::core::Pipeline& p) {
  std::map<sd::AgentKey, std::vector<std::string>> pods;
  for (const auto& [key, obj] : p.endpoints())
    if (auto e = sd::read_endpoints(*obj)) pods[e->agent] = std::move(e->addresses);
  for (const auto& [agent, addresses] : pods) {
    std::cout << "GrafanaAgent " << agent.first << "/" << agent.second << ":";
    for (const std::string& a : addresses) std::cout << " " << a;
    std::cout << (addresses.empty() ? " no ready pods\n" : "\n");
  }
}

// One line per monitor and agent, sorted by monitor (kind, namespace,
// name) and agent: what the status.bindings writer would write, as it
// merges every root's verdicts.
void print_bindings(const actors::core::Pipeline& p) {
  using actors::core::MonitorBinding;
  std::map<actors::core::MonitorId, std::map<actors::core::RootKey, const MonitorBinding*>> by_monitor;
  for (const auto& [agent, verdicts] : p.bindings())
    for (const MonitorBinding& b : verdicts) by_monitor[b.monitor][agent] = &b;
  for (const auto& [id, agents] : by_monitor)
    for (const auto& [agent, b] : agents) {
      std::cout << id.first << " " << id.second.first << "/" << id.second.second << ": GrafanaAgent " << agent.first
                << "/" << agent.second << " Accepted=" << (b->accepted ? "True" : "False");
      if (!b->accepted) std::cout << " (" << actors::core::kRejectedReason << ")";
      std::cout << (b->message.empty() ? "" : ": " + b->message) << "\n";
    }
}

void print_desired(const actors::core::Pipeline& p) {
  std::vector<model::Value> objs = p.desired();
  std::stable_sort(objs.begin(), objs.end(), [](const model::Value& x, const model::Value& y) {
    auto [xk, xns, xn] = actors::core::identity(x);
    auto [yk, yns, yn] = actors::core::identity(y);
    return std::tie(xns, xk, xn) < std::tie(yns, yk, yn);
  });
  std::cout << model::to_yaml_stream(objs);
}

}  // namespace

int replay(int argc, char** argv) {
  ReplayFlags f;
  Command c{"agent-operator replay JOURNAL... [flags]", kReplayDescription, replay_flags(f),
            [&f](const std::string& path) { f.paths.push_back(path); }, kReplayExitCodes};
  if (parse(c, argc, argv) == Parsed::help) {
    std::cout << help_text(c);
    return 0;
  }
  if (f.paths.empty()) throw UsageError("JOURNAL: replay needs a journal file");
  std::vector<std::string> paths = f.paths;
  if (paths.size() == 1 && f.rotated) {
    std::vector<std::string> set = actors::core::rotated_set(paths.front());
    if (!set.empty()) paths = set;  // else the missing file is reported below
  }
  actors::core::Pipeline p(f.opts.render);
  actors::core::ReplayReport report;
  try {
    report = actors::core::replay_files(paths, f.opts, p);
  } catch (const actors::core::ReplayError& e) {
    std::cerr << "agent-operator: " << e.what()
              << "\nagent-operator: replay the whole rotated set (oldest first), or pass --partial to fold it "
                 "anyway\n";
    return 2;
  } catch (const std::runtime_error& e) {  // unreadable file, not a journal, corrupt (names file and line)
    std::cerr << "agent-operator: " << e.what() << "\n";
    return 2;
  }
  actors::log::ProcessLog process_log({.level = f.log_level, .format = f.log_format});
  log_report(report, process_log.log());
  if (!f.explain.empty()) return explain_root(p, f.explain);
  if (f.integrations_sd) {
    print_integrations_pods(p);
    return 0;
  }
  if (f.bindings) {
    print_bindings(p);
    return 0;
  }
  print_desired(p);
  std::vector<model::Problem> problems = replay_problems(p);
  for (const auto& problem : problems) std::cerr << (problem.warning ? "warning: " : "") << problem.str() << "\n";
  return model::has_errors(problems) ? 1 : 0;
}

}  // namespace cli
