// `agent-operator replay JOURNAL [--until SEQ] [--explain NS/NAME]`: folds a
// recorded journal through the controller core (router plus one root state
// per GrafanaAgent, settled to a fixpoint) and prints the objects the
// operator wanted at that point, or why each resource was in or out of one
// agent's hierarchy.
#include <algorithm>
#include <iostream>

#include "actors/core/journal.hpp"
#include "actors/core/pipeline.hpp"
#include "actors/core/writer_plan.hpp"
#include "commands.hpp"
#include "flags.hpp"
#include "input.hpp"
#include "model/hierarchy.hpp"

namespace cli {

namespace {

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

}  // namespace

int replay(int argc, char** argv) {
  std::string path, explain;
  std::optional<std::uint64_t> until;
  model::RenderOptions opts;
  Args a(argc, argv);
  while (a.next()) {
    if (a.is("until")) {
      std::string v = a.value();
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("--until wants a journal seq number, got \"" + v + "\"");
      until = std::stoull(v);
    } else if (a.is("explain")) {
      explain = a.value();
    } else if (a.is("labels")) {
      if (!parse_labels(a.value(), opts.operator_labels)) throw std::invalid_argument("--labels: want k=v,k2=v2");
    } else if (a.flag().rfind("-", 0) != 0 && path.empty()) {
      path = a.flag();
    } else {
      a.unknown();
    }
  }
  if (path.empty()) throw std::invalid_argument("replay needs a JOURNAL file");
  actors::core::JournalContents j;
  try {
    j = actors::core::read_journal(read_file(path), until);
  } catch (const std::runtime_error& e) {  // unreadable file or JournalError (names the line)
    std::cerr << "agent-operator: " << path << ": " << e.what() << "\n";
    return 2;
  }
  actors::core::Pipeline p(opts);
  for (const auto& e : j.events) p.feed(e);
  p.settle();
  std::cerr << "replayed " << j.events.size() << " events up to seq " << j.stats.last_seq
            << (j.stats.torn_tail ? " (ignored a torn last line)" : "")
            << (j.header.secrets_included() ? "" : "; Secret values are redacted placeholders") << "\n";
  if (!explain.empty()) return explain_root(p, explain);
  std::vector<model::Value> objs = p.desired();
  std::stable_sort(objs.begin(), objs.end(), [](const model::Value& x, const model::Value& y) {
    auto [xk, xns, xn] = actors::core::identity(x);
    auto [yk, yns, yn] = actors::core::identity(y);
    return std::tie(xns, xk, xn) < std::tie(yns, yk, yn);
  });
  std::cout << model::to_yaml_stream(objs);
  return 0;
}

}  // namespace cli
