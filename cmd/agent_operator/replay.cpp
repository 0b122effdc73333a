// `agent-operator replay JOURNAL... [--until SEQ] [--explain NS/NAME]`:
// folds a recorded journal (one file with its rotated predecessors, or the
// files given, oldest first) through the controller core (router plus one
// root state per GrafanaAgent, settled to a fixpoint) and prints the
// objects the operator wanted at that point, or why each resource was in
// or out of one agent's hierarchy. A journal without a base state is
// refused (exit 2) unless --partial.
#include <algorithm>
#include <iostream>
#include <map>

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

constexpr const char* kReplayUsage =
    "usage: agent-operator replay JOURNAL... [--until SEQ] [--explain NS/NAME] [--integrations-sd] [--labels k=v,...]\n"
    "                             [--partial] [--no-rotated]\n"
    "\n"
    "Folds a recorded journal through the controller core and prints the objects the\n"
    "operator wanted after event SEQ (default: the end).\n"
    "\n"
    "  JOURNAL            one file: it and its rotated files, oldest first (JOURNAL.N ...\n"
    "                     JOURNAL.1, JOURNAL); several files: exactly those, oldest first;\n"
    "                     '-' reads standard input\n"
    "  --until SEQ        stop after this event\n"
    "  --explain NS/NAME  print why each resource is in or out of that agent's hierarchy\n"
    "  --integrations-sd  print the ready integrations pods the SD aggregator knew, per GrafanaAgent\n"
    "  --labels k=v,...   extra labels on created objects (as given to run)\n"
    "  --no-rotated       read JOURNAL alone, not its rotated files\n"
    "  --log-level LEVEL, --log-format FORMAT   as for run (the report and warnings go to stderr)\n"
    "  --partial          replay a journal without a base state anyway (a file rotated before\n"
    "                     journal version 2, or cut): objects not changed in it are missing\n"
    "\n"
    "A restart (start marker) or a rotated file's snapshot replaces the state folded so far,\n"
    "so objects deleted while the operator was down are gone, and each rotated file replays\n"
    "on its own.\n"
    "exit codes: 0 ok (warnings on stderr), 1 --explain names no agent, 2 unusable input\n"
    "(unreadable, not a journal, corrupt, or no base state)\n";

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
  std::vector<std::string> paths;
  std::string explain;
  bool rotated = true, integrations_sd = false;
  model::LogLevel log_level = model::LogLevel::info;
  model::LogFormat log_format = model::LogFormat::logfmt;
  actors::core::ReplayOptions opts;
  Args a(argc, argv);
  while (a.next()) {
    if (a.is("until")) {
      std::string v = a.value();
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("--until wants a journal seq number, got \"" + v + "\"");
      opts.until = std::stoull(v);
    } else if (a.is("explain")) {
      explain = a.value();
    } else if (a.is("integrations-sd")) {
      integrations_sd = true;
    } else if (a.is("labels")) {
      if (!parse_labels(a.value(), opts.render.operator_labels))
        throw std::invalid_argument("--labels: want k=v,k2=v2");
    } else if (a.is("partial")) {
      opts.partial = true;
    } else if (a.is("no-rotated")) {
      rotated = false;
    } else if (a.is("help") || a.is("h")) {
      std::cout << kReplayUsage;
      return 0;
    } else if (parse_log_flag(a, log_level, log_format)) {
      // read into log_level or log_format
    } else if (a.flag() == "-" || a.flag().rfind("-", 0) != 0) {
      paths.push_back(a.flag());
    } else {
      a.unknown();
    }
  }
  if (paths.empty()) throw std::invalid_argument("replay needs a JOURNAL file");
  if (paths.size() == 1 && rotated) {
    std::vector<std::string> set = actors::core::rotated_set(paths.front());
    if (!set.empty()) paths = set;  // else the missing file is reported below
  }
  actors::core::Pipeline p(opts.render);
  actors::core::ReplayReport report;
  try {
    report = actors::core::replay_files(paths, opts, p);
  } catch (const actors::core::ReplayError& e) {
    std::cerr << "agent-operator: " << e.what()
              << "\nagent-operator: replay the whole rotated set (oldest first), or pass --partial to fold it "
                 "anyway\n";
    return 2;
  } catch (const std::runtime_error& e) {  // unreadable file, not a journal, corrupt (names file and line)
    std::cerr << "agent-operator: " << e.what() << "\n";
    return 2;
  }
  actors::log::ProcessLog process_log({.level = log_level, .format = log_format});
  log_report(report, process_log.log());
  if (!explain.empty()) return explain_root(p, explain);
  if (integrations_sd) {
    print_integrations_pods(p);
    return 0;
  }
  print_desired(p);
  return 0;
}

}  // namespace cli
