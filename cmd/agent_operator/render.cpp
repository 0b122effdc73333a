// `agent-operator render -f PATH...`: every object the controller would
// create for the GrafanaAgents in the given files, without a cluster.
// Problems go to stderr ("warning: " before warnings); no GrafanaAgent in
// the input is said on stderr and is no error (exit 0), as the input may
// be right and simply hold none.
#include <algorithm>
#include <iostream>
#include <thread>

#include "commands.hpp"
#include "flags.hpp"
#include "input.hpp"
#include "model/codec.hpp"
#include "model/hierarchy.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "operator.hpp"

namespace cli {

namespace {

constexpr const char* kRenderDescription =
    "Prints, as one YAML stream, the objects the controller would create for every GrafanaAgent in the given\n"
    "files and directories (*.yaml, *.yml, *.json, recursively; '-' is stdin). Problems go to stderr, warnings\n"
    "prefixed with \"warning:\". Input without a GrafanaAgent prints nothing and says so on stderr.";

constexpr const char* kRenderExitCodes =
    "exit codes: 0 ok (also with warnings, and for input without a GrafanaAgent), 1 some resource is invalid\n"
    "(details on stderr) or --explain names no agent, 2 unusable input (unreadable or unparsable)";

// A one-shot render has the machine to itself: one thread per CPU, up to
// a point where more threads stop paying for themselves.
unsigned default_render_threads() {
  return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

struct RenderFlags {
  RenderFlags() { opts.render_threads = default_render_threads(); }
  std::vector<std::string> paths;
  model::RenderOptions opts;
  std::string explain;
  bool decode = false;
};

std::vector<Flag> render_flags(RenderFlags& f) {
  std::vector<Flag> t;
  t.push_back({{"f", "filename"},
               "PATH",
               "none: required",
               "files or directories to read; several after one -f, or -f repeated",
               [&f](const std::string& v) { f.paths.push_back(v); },
               true});
  t.push_back(extra_labels_flag(f.opts.operator_labels));
  t.push_back(explain_flag(f.explain));
  t.push_back({{"upstream-compat"},
               "",
               "false",
               "reproduce upstream's known bugs (see docs/differences.md)",
               [&f](const std::string& v) { f.opts.upstream_compat = parse_bool(v); }});
  t.push_back({{"integrations-sd-url"},
               "URL",
               "the agent-operator-metrics Service",
               "the operator's integrations SD endpoint, as agents reach it (IntegrationMonitor jobs)",
               [&f](const std::string& v) { f.opts.integrations_sd_url = check_sd_url(v); }});
  t.push_back({{"targets-url"},
               "URL",
               "the agent-operator-metrics Service",
               "the operator's targets endpoint, as agents reach it (shardingStrategy: consistent)",
               [&f](const std::string& v) { f.opts.operator_targets_url = check_sd_url(v); }});
  t.push_back({{"threads"},
               "N",
               "the number of CPUs, at most 8",
               "threads that render monitors into scrape jobs (1-64); the output is the same for any number",
               [&f](const std::string& v) { f.opts.render_threads = static_cast<unsigned>(parse_int(v, 1, 64)); }});
  t.push_back({{"decode"},
               "",
               "false",
               "print Secrets with readable stringData instead of base64 data (values that are not UTF-8 text stay "
               "in data); for reading, not for applying",
               [&f](const std::string& v) { f.decode = parse_bool(v); }});
  return t;
}

int explain(const model::Inventory& inv, const std::string& target) {
  auto slash = target.find('/');
  auto it = inv.agents.find({target.substr(0, slash), target.substr(slash + 1)});
  if (it == inv.agents.end()) {
    std::cerr << "agent-operator: GrafanaAgent " << target << " not found in the input\n";
    return 1;
  }
  for (const auto& line : model::explain_hierarchy(inv, it->second.obj)) std::cout << line << "\n";
  return 0;
}

bool has_grafana_agent_problem(const std::vector<model::Problem>& problems) {
  for (const auto& p : problems)
    if (p.kind == "GrafanaAgent") return true;
  return false;
}

// Text a YAML reader shows as is: UTF-8 without control characters other
// than tab and line breaks.
bool is_utf8_text(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : -1;
    if (extra < 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f) return false;
    if (i + extra >= s.size()) return false;
    for (int k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    i += extra + 1;
  }
  return true;
}

void decode_secret(model::Value& obj) {
  const model::Value* kind = obj.find("kind");
  model::Value* data = obj.find("data");
  if (!kind || !kind->is_string() || kind->as_string() != "Secret" || !data || !data->is_object()) return;
  model::Value text = model::Value::object(), binary = model::Value::object();
  for (const auto& [key, value] : data->as_object()) {
    std::optional<std::string> bytes = value.is_string() ? model::base64_decode(value.as_string()) : std::nullopt;
    if (bytes && is_utf8_text(*bytes))
      text.set(key, model::Value(*bytes));
    else
      binary.set(key, value);
  }
  if (binary.size() == 0)
    obj.erase("data");
  else
    obj.set("data", std::move(binary));
  if (text.size() > 0) obj.set("stringData", std::move(text));
}

}  // namespace

int render(int argc, char** argv) {
  RenderFlags f;
  Command c{"agent-operator render -f PATH... [flags]", kRenderDescription, render_flags(f), {}, kRenderExitCodes};
  if (parse(c, argc, argv) == Parsed::help) {
    std::cout << help_text(c);
    return 0;
  }
  if (f.paths.empty()) throw UsageError("-f: render needs at least one -f PATH");
  model::Inventory inv;
  try {
    load_paths(f.paths, inv);
  } catch (const std::runtime_error& e) {  // model::ParseError included: names file and line
    std::cerr << "agent-operator: " << e.what() << "\n";
    return 2;
  }
  if (!f.explain.empty()) return explain(inv, f.explain);
  model::RenderAll all = model::render_all(inv, f.opts);
  if (f.decode)
    for (model::Value& obj : all.objects) decode_secret(obj);
  std::cout << model::to_yaml_stream(all.objects);
  for (const auto& p : all.problems) std::cerr << (p.warning ? "warning: " : "") << p.str() << "\n";
  if (inv.agents.empty() && !has_grafana_agent_problem(all.problems)) {
    std::cerr << "agent-operator: no GrafanaAgent in the input, so nothing to render (read:";
    for (const auto& p : f.paths) std::cerr << " " << p;
    std::cerr << ")\n";
  }
  return model::has_errors(all.problems) ? 1 : 0;
}

}  // namespace cli
