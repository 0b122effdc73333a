// The `logs` block of agent.yml and the logs DaemonSet's whole config: one
// logs instance per LogsInstance, with its clients (its own, else the
// GrafanaAgent's), PodLogs scrape configs and additionalScrapeConfigs.
// Members are isolated: a LogsInstance whose clients fail, a PodLogs that
// cannot be rendered or an unreadable additionalScrapeConfigs is left out
// with a Problem while the rest renders.
#include "model/config.hpp"
#include "model/logs/render.hpp"
#include "model/parse.hpp"
#include "model/scrape/common.hpp"

namespace model {
namespace {

constexpr const char* kPositionsDirectory = "/var/lib/grafana-agent/data";

struct LogsContext {
  const GrafanaAgent& agent;
  const RenderOptions& opts;
  AssetRefs& assets;
  std::vector<Problem>& problems;
  ConfigFlavor flavor;
  std::optional<Value> agent_clients;  // the GrafanaAgent's clients, rendered once
  std::optional<Value> sd_fields;      // apiServer settings, rendered once
};

void report(LogsContext& ctx, const char* kind, const ObjectMeta& meta, const FieldErrors& errors) {
  for (const auto& e : errors) ctx.problems.push_back({kind, meta.ns, meta.name, e.path, e.message});
}

Value client_list(const LogsContext& ctx, const std::string& ns, const std::vector<LogsClientSpec>& specs,
                  const std::string& path, AssetRefs& assets) {
  Value out = Value::array();
  for (std::size_t i = 0; i < specs.size(); ++i)
    out.push(logs::logs_client(ctx.agent, ns, specs[i], path + "[" + std::to_string(i) + "]", assets,
                               ctx.opts.upstream_compat));
  return out;
}

// The instance's clients; nullopt when its own clients reference missing
// Secrets (the instance is rejected). The GrafanaAgent's clients resolve
// into the root's assets: their failures invalidate the root.
std::optional<Value> instance_clients(LogsContext& ctx, const LogsInstance& li) {
  if (li.clients.empty()) {
    if (!ctx.agent_clients)
      ctx.agent_clients = client_list(ctx, ctx.agent.meta.ns, ctx.agent.logs.clients, "spec.logs.clients", ctx.assets);
    return ctx.agent_clients;
  }
  AssetRefs scratch(ctx.assets.inventory());
  Value clients = client_list(ctx, li.meta.ns, li.clients, "spec.clients", scratch);
  if (!scratch.errors.empty()) {
    report(ctx, "LogsInstance", li.meta, scratch.errors);
    return std::nullopt;
  }
  ctx.assets.absorb(std::move(scratch));
  return clients;
}

void append_pod_logs(LogsContext& ctx, const LogsInstanceNode& node, Value& scrape_configs) {
  if (ctx.flavor != ConfigFlavor::full || node.pod_logs.empty()) return;
  if (!ctx.sd_fields) ctx.sd_fields = scrape::api_server_sd_fields(ctx.agent, ctx.assets, ctx.opts.upstream_compat);
  for (const PodLogs* pl : node.pod_logs) {
    FieldErrors errors;
    Value sc = logs::pod_logs_scrape_config(ctx.agent, *pl, *ctx.sd_fields, ctx.opts, errors);
    if (!errors.empty()) {
      report(ctx, "PodLogs", pl->meta, errors);
      continue;
    }
    scrape_configs.push(std::move(sc));
  }
}

// Parses the additionalScrapeConfigs text: a YAML list of scrape configs.
bool parse_additional(const std::string& text, const std::string& path, Value& out, FieldErrors& errors) {
  std::vector<Document> docs;
  try {
    docs = parse_documents(text, path);
  } catch (const ParseError& e) {
    std::string where = e.line() > 0 ? " (line " + std::to_string(e.line()) + ")" : "";
    errors.push_back({path, "invalid YAML" + where + ": " + e.problem()});
    return false;
  }
  auto fail = [&](std::string message) {
    errors.push_back({path, std::move(message)});
    return false;
  };
  if (docs.size() > 1) return fail("must be a single YAML document");
  if (docs.empty() || docs[0].value.is_null()) return true;
  Value& list = docs[0].value;
  if (!list.is_array()) return fail(std::string("must be a YAML list of scrape configs, got ") + list.type_name());
  for (std::size_t i = 0; i < list.size(); ++i)
    if (!list.as_array()[i].is_object()) return fail("item " + std::to_string(i) + " is not a scrape config object");
  out = std::move(list);
  return true;
}

void append_additional(LogsContext& ctx, const LogsInstance& li, Value& scrape_configs) {
  if (!li.additional_scrape_configs) return;
  const std::string path = "spec.additionalScrapeConfigs";
  AssetRefs scratch(ctx.assets.inventory());
  std::string text = scratch.secret_value(li.meta.ns, *li.additional_scrape_configs, path);
  Value list = Value::array();
  if (scratch.errors.empty()) parse_additional(text, path, list, scratch.errors);
  if (!scratch.errors.empty()) {
    report(ctx, "LogsInstance", li.meta, scratch.errors);
    return;
  }
  ctx.assets.absorb(std::move(scratch));
  for (auto& sc : list.as_array()) scrape_configs.push(std::move(sc));
}

std::optional<Value> logs_instance(LogsContext& ctx, const LogsInstanceNode& node) {
  const LogsInstance& li = *node.instance;
  auto clients = instance_clients(ctx, li);
  if (!clients) return std::nullopt;
  Value cfg = Value::obj({{"name", li.meta.ns + "/" + li.meta.name}});
  cfg.set_nonempty("clients", std::move(*clients));
  Value scrape_configs = Value::array();
  append_pod_logs(ctx, node, scrape_configs);
  append_additional(ctx, li, scrape_configs);
  cfg.set_nonempty("scrape_configs", std::move(scrape_configs));
  if (!li.target_sync_period.empty()) cfg.set("target_config", Value::obj({{"sync_period", li.target_sync_period}}));
  return cfg;
}

}  // namespace

Value render_logs_block(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                        std::vector<Problem>& problems, ConfigFlavor flavor) {
  LogsContext ctx{*h.agent, opts, assets, problems, flavor, std::nullopt, std::nullopt};
  Value configs = Value::array();
  for (const auto& node : h.logs)
    if (auto cfg = logs_instance(ctx, node)) configs.push(std::move(*cfg));
  Value block = Value::obj({{"positions_directory", kPositionsDirectory}});
  block.set_nonempty("configs", std::move(configs));
  return block;
}

Value render_logs_config(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                         std::vector<Problem>& problems) {
  return Value::obj({{"server", render_server_block(*h.agent)},
                     {"logs", render_logs_block(h, opts, assets, problems, ConfigFlavor::full)}});
}

}  // namespace model
