// The `metrics` block of agent.yml: the global settings (external labels,
// scrape defaults, the GrafanaAgent's remote_write) and one instance per
// MetricsInstance with its remote_write and scrape jobs (ServiceMonitors,
// PodMonitors, Probes, IntegrationMonitors, then additionalScrapeConfigs).
// Members are isolated: a monitor, an instance's remote_write or its
// additionalScrapeConfigs that cannot be rendered is left out with a
// Problem; the GrafanaAgent's own references resolve into the root's
// assets, so their failures invalidate the root (see render.cpp).
#include <algorithm>
#include <optional>

#include "model/config.hpp"
#include "model/job_cache.hpp"
#include "model/parallel_for.hpp"
#include "model/scrape/jobs.hpp"
#include "model/scrape/operator_sd.hpp"
#include "model/yaml_emit.hpp"

namespace model {
namespace {

constexpr const char* kWalDirectory = "/var/lib/grafana-agent/data";
constexpr const char* kReplicaValue = "replica-$(STATEFULSET_ORDINAL_NUMBER)";

struct MetricsContext {
  const GrafanaAgent& agent;
  const RenderOptions& opts;
  AssetRefs& assets;
  std::vector<Problem>& problems;
  ConfigFlavor flavor;
  std::int64_t shards;
  std::optional<Value> sd_fields;  // apiServer settings, resolved once into the root's assets
  // shardingStrategy consistent: monitor jobs poll the operator for their
  // shard's targets, without sharding rules.
  bool operator_sd = false;
  // Set: jobs go to `fragments` as YAML text (one list per pushed instance,
  // reused from or stored into the cache) instead of into the tree.
  JobCache* cache = nullptr;
  std::vector<std::vector<std::string_view>> fragments;
};

// A member's jobs (one job or an array of them) as the YAML text of a block
// sequence; "" when there are none.
std::string jobs_yaml(Value out) {
  if (!out.is_array()) out = Value::arr({std::move(out)});
  std::string text;
  if (out.size() != 0) emit_yaml(out, text);
  return text;
}

void report(MetricsContext& ctx, const char* kind, const std::string& ns, const std::string& name,
            const FieldErrors& errors, bool warning = false) {
  for (const auto& e : errors) {
    Problem p{kind, ns, name, e.path, e.message, warning};
    // The integrations configs render the same instances again, and a
    // monitor selected by several instances renders once for each.
    if (std::find(ctx.problems.begin(), ctx.problems.end(), p) == ctx.problems.end()) ctx.problems.push_back(p);
  }
}

// cluster label, then the user's labels (which may override it), then the
// replica label (which they may not); "" as a name leaves that label out.
Value external_labels(const GrafanaAgent& agent, bool add_replica) {
  const MetricsSubsystemSpec& m = agent.metrics;
  Value out = Value::object();
  std::string cluster = m.metrics_external_label_name.value_or("cluster");
  if (!cluster.empty()) out.set(cluster, agent.meta.ns + "/" + agent.meta.name);
  for (const auto& [k, v] : m.external_labels) out.set(k, v);
  std::string replica = m.replica_external_label_name.value_or("__replica__");
  if (add_replica && !replica.empty()) out.set(replica, kReplicaValue);
  return out;
}

Value global_block(MetricsContext& ctx) {
  const MetricsSubsystemSpec& m = ctx.agent.metrics;
  Value global = Value::object();
  global.set_nonempty("external_labels", external_labels(ctx.agent, ctx.flavor == ConfigFlavor::full));
  global.set_nonempty("scrape_interval", m.scrape_interval);
  global.set_nonempty("scrape_timeout", m.scrape_timeout);
  global.set_nonempty("remote_write",
                      scrape::remote_writes(ctx.agent.meta.ns, m.remote_write, "spec.metrics.remoteWrite", ctx.assets,
                                            ctx.opts.upstream_compat));
  return global;
}

scrape::JobContext job_context(MetricsContext& ctx) {
  if (!ctx.sd_fields) ctx.sd_fields = scrape::api_server_sd_fields(ctx.agent, ctx.assets, ctx.opts.upstream_compat);
  return scrape::JobContext{ctx.agent, ctx.opts, ctx.shards, *ctx.sd_fields};
}

// One member of a monitor list, rendered apart from the context (possibly
// on another thread); apply_member then adds it to the context in order.
struct RenderedMember {
  std::string key;                   // JobCache key, "" without a cache or versions
  std::optional<JobCache::Hit> hit;  // a memoised render to reuse instead
  std::optional<AssetRefs> scratch;  // the render's assets, lookups, warnings, errors
  Value out;                         // its jobs, without a cache
  std::string text;                  // its jobs as YAML, with a cache
};

// Members rendered before their results are applied: bounds what a batch
// holds at once, and is enough work to keep every thread busy.
constexpr std::size_t kMemberBatch = 256;

// Adds one rendered member to the context exactly as rendering it in place
// would: warnings reported, a member with errors left out whole and
// reported, assets absorbed, jobs appended (as text with a cache).
void apply_member(MetricsContext& ctx, const char* kind, const std::string& ns, const std::string& name,
                  RenderedMember& r, Value& jobs) {
  if (r.hit) {
    report(ctx, kind, ns, name, r.hit->entry->warnings, true);
    AssetRefs copy(ctx.assets.inventory());
    copy.use_found(r.hit->entry->lookups);
    ctx.assets.absorb(std::move(copy));
    ctx.fragments.back().push_back(r.hit->yaml);
    return;
  }
  AssetRefs& scratch = *r.scratch;
  report(ctx, kind, ns, name, scratch.warnings, true);
  if (!scratch.errors.empty()) {
    report(ctx, kind, ns, name, scratch.errors);
    return;
  }
  if (ctx.cache) {
    if (r.key.empty()) {
      ctx.fragments.back().push_back(ctx.cache->keep(std::move(r.text)));
    } else {
      ctx.fragments.back().push_back(ctx.cache->store(
          r.key, JobCache::Entry{std::move(r.text), PackedLookups(scratch.lookups), scratch.warnings}));
    }
  }
  ctx.assets.absorb(std::move(scratch));
  if (ctx.cache) return;
  if (!r.out.is_array())
    jobs.push(std::move(r.out));
  else
    for (auto& job : r.out.as_array()) jobs.push(std::move(job));
}

// A member's JobCache key, from either form of member list.
std::string cache_key(const MetricsContext& ctx, const char* kind, const IntegrationMonitor* m,
                      std::string_view scope) {
  return JobCache::key(kind, m->meta, ctx.agent.meta, static_cast<int>(ctx.flavor), scope);
}

template <class T>
std::string cache_key(const MetricsContext& ctx, const char* kind, const Selected<T>& s, std::string_view scope) {
  return JobCache::key(kind, s.ns(), s.name(), s.member->uid(), s.member->resource_version, ctx.agent.meta,
                       static_cast<int>(ctx.flavor), scope);
}

// Renders each member into its own AssetRefs, batch by batch, on up to
// opts.render_threads threads; rendering and emitting a member touch only
// its own RenderedMember, and results are applied in member order, so the
// output is the same for any thread count. A member a lazy inventory
// holds undecoded is decoded from its tree only on a miss, for that
// render alone.
template <class T, class Member, class Render>
void append_members(MetricsContext& ctx, const char* kind, const std::vector<Member>& members, Render render,
                    Value& jobs, std::string_view scope = {}) {
  for (std::size_t first = 0; first < members.size(); first += kMemberBatch) {
    std::vector<RenderedMember> batch(std::min(kMemberBatch, members.size() - first));
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!ctx.cache) continue;
      batch[i].key = cache_key(ctx, kind, members[first + i], scope);
      if (!batch[i].key.empty()) batch[i].hit = ctx.cache->find(batch[i].key, ctx.assets.inventory());
    }
    parallel_for(batch.size(), ctx.opts.render_threads, [&](std::size_t i) {
      RenderedMember& r = batch[i];
      if (r.hit) return;
      r.scratch.emplace(ctx.assets.inventory());
      std::optional<T> decoded_here;
      r.out = render(object_of(members[first + i], decoded_here), *r.scratch);
      if (ctx.cache && r.scratch->errors.empty()) r.text = jobs_yaml(std::move(r.out));
    });
    for (std::size_t i = 0; i < batch.size(); ++i)
      apply_member(ctx, kind, ns_of(members[first + i]), name_of(members[first + i]), batch[i], jobs);
  }
}

void append_monitor_jobs(MetricsContext& ctx, const MetricsInstanceNode& node, Value& jobs) {
  if (ctx.flavor != ConfigFlavor::full) return;  // integration pods scrape no monitors
  if (node.service_monitors.empty() && node.pod_monitors.empty() && node.probes.empty() &&
      node.integration_monitors.empty())
    return;
  scrape::JobContext jc = job_context(ctx);
  scrape::JobContext discovered = jc;  // the jobs whose targets the operator may discover
  if (ctx.operator_sd) discovered.shards = scrape::kNoSharding;
  // Under consistent sharding the agent polls the operator instead.
  auto served = [&](Value jobs) {
    if (ctx.operator_sd) scrape::poll_operator_for_targets_all(jobs, ctx.agent, ctx.opts);
    return jobs;
  };
  append_members<ServiceMonitor>(
      ctx, "ServiceMonitor", node.service_monitors,
      [&](const ServiceMonitor& sm, AssetRefs& a) { return served(scrape::service_monitor_jobs(discovered, sm, a)); },
      jobs);
  append_members<PodMonitor>(
      ctx, "PodMonitor", node.pod_monitors,
      [&](const PodMonitor& pm, AssetRefs& a) { return served(scrape::pod_monitor_jobs(discovered, pm, a)); }, jobs);
  append_members<Probe>(
      ctx, "Probe", node.probes,
      [&](const Probe& p, AssetRefs& a) { return served(scrape::probe_job(discovered, p, a)); }, jobs);
  const MetricsInstance& mi = *node.instance;
  append_members<IntegrationMonitor>(
      ctx, "IntegrationMonitor", node.integration_monitors,
      [&](const IntegrationMonitor& im, AssetRefs& a) { return scrape::integration_monitor_job(jc, mi, im, a); }, jobs,
      mi.meta.ns + "/" + mi.meta.name);
}

void append_additional_jobs(MetricsContext& ctx, const MetricsInstance& mi, Value& jobs) {
  if (!mi.additional_scrape_configs) return;
  const Value no_sd_fields = Value::object();
  scrape::JobContext jc{ctx.agent, ctx.opts, ctx.shards, no_sd_fields};
  AssetRefs scratch(ctx.assets.inventory());
  Value extra = scrape::additional_scrape_configs(jc, mi, scratch);
  if (!scratch.errors.empty()) {
    report(ctx, "MetricsInstance", mi.meta.ns, mi.meta.name, scratch.errors);
    return;
  }
  ctx.assets.absorb(std::move(scratch));
  if (ctx.cache) {
    ctx.fragments.back().push_back(ctx.cache->keep(jobs_yaml(std::move(extra))));
    return;
  }
  for (auto& job : extra.as_array()) jobs.push(std::move(job));
}

// One metrics instance; nullopt when its own remote_write references fail.
std::optional<Value> instance_config(MetricsContext& ctx, const MetricsInstanceNode& node) {
  const MetricsInstance& mi = *node.instance;
  AssetRefs scratch(ctx.assets.inventory());
  Value remote_write =
      scrape::remote_writes(mi.meta.ns, mi.remote_write, "spec.remoteWrite", scratch, ctx.opts.upstream_compat);
  if (!scratch.errors.empty()) {
    report(ctx, "MetricsInstance", mi.meta.ns, mi.meta.name, scratch.errors);
    return std::nullopt;
  }
  ctx.assets.absorb(std::move(scratch));
  Value cfg = Value::obj({{"name", mi.meta.ns + "/" + mi.meta.name}});
  cfg.set_nonempty("wal_truncate_frequency", mi.wal_truncate_frequency);
  cfg.set_nonempty("min_wal_time", mi.min_wal_time);
  cfg.set_nonempty("max_wal_time", mi.max_wal_time);
  cfg.set_nonempty("remote_flush_deadline", mi.remote_flush_deadline);
  if (mi.write_stale_on_shutdown == true) cfg.set("write_stale_on_shutdown", true);
  cfg.set_nonempty("remote_write", std::move(remote_write));
  Value jobs = Value::array();
  if (ctx.cache) ctx.fragments.emplace_back();
  append_monitor_jobs(ctx, node, jobs);
  append_additional_jobs(ctx, mi, jobs);
  if (ctx.cache) {
    const auto& texts = ctx.fragments.back();
    // One placeholder item; the emitter writes the texts in its place.
    if (std::any_of(texts.begin(), texts.end(), [](std::string_view t) { return !t.empty(); })) jobs.push(Value());
  }
  cfg.set_nonempty("scrape_configs", std::move(jobs));
  return cfg;
}

MetricsContext make_context(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                            std::vector<Problem>& problems, ConfigFlavor flavor) {
  const std::int64_t requested = h.agent->metrics.shards.value_or(1);
  MetricsContext ctx{*h.agent, opts, assets, problems, flavor, requested > 1 ? requested : 1, std::nullopt};
  // upstream_compat renders what the Grafana Agent Operator renders, and it
  // has no sharding strategies.
  ctx.operator_sd = uses_operator_sd(*h.agent, opts) && flavor == ConfigFlavor::full;
  // node: every pod's SHARD is its own name, so no job may keep a hashmod
  // pair; the jobs the operator does not discover run on every pod.
  if (node_local(*h.agent, opts) && flavor == ConfigFlavor::full) ctx.shards = scrape::kNoSharding;
  return ctx;
}

Value metrics_block(MetricsContext& ctx, const Hierarchy& h) {
  Value block = Value::obj({{"wal_directory", kWalDirectory}});
  block.set("global", global_block(ctx));
  Value configs = Value::array();
  // An instance that fails returns before it opens its fragment list, so
  // the lists stay aligned with the pushed instances.
  for (const auto& node : h.metrics)
    if (auto cfg = instance_config(ctx, node)) configs.push(std::move(*cfg));
  block.set_nonempty("configs", std::move(configs));
  return block;
}

}  // namespace

Value render_server_block(const GrafanaAgent& agent) {
  Value v = Value::object();
  v.set_nonempty("log_level", agent.log_level);
  v.set_nonempty("log_format", agent.log_format);
  return v;
}

Value render_metrics_block(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                           std::vector<Problem>& problems, ConfigFlavor flavor) {
  MetricsContext ctx = make_context(h, opts, assets, problems, flavor);
  return metrics_block(ctx, h);
}

Value render_metrics_config(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                            std::vector<Problem>& problems) {
  return Value::obj({{"server", render_server_block(*h.agent)},
                     {"metrics", render_metrics_block(h, opts, assets, problems, ConfigFlavor::full)}});
}

std::string render_metrics_yaml(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                                std::vector<Problem>& problems, JobCache& cache) {
  MetricsContext ctx = make_context(h, opts, assets, problems, ConfigFlavor::full);
  ctx.cache = &cache;
  const Value doc = Value::obj({{"server", render_server_block(*h.agent)}, {"metrics", metrics_block(ctx, h)}});
  // The tree no longer moves: its placeholder arrays can be named by address.
  std::vector<YamlSplice> splices;
  if (const Value* configs = doc.find("metrics")->find("configs")) {
    for (std::size_t i = 0; i < configs->size(); ++i) {
      if (const Value* jobs = configs->as_array()[i].find("scrape_configs"))
        splices.push_back({jobs, std::move(ctx.fragments[i])});
    }
  }
  // The spliced jobs are nearly all of the text (each line gains only its
  // indent: 1.16 times their size in render_bench's case), so one buffer
  // of about the final size replaces the ~20 doublings, each a new mapping
  // faulted in and a copy of all so far. The text is transient (gzipped
  // into the config Secret), so the slack is too.
  std::size_t spliced = 0;
  for (const auto& s : splices)
    for (std::string_view text : s.items) spliced += text.size();
  std::string out;
  out.reserve(spliced + spliced / 4 + 4096);
  emit_yaml(doc, out, splices);
  return out;
}

}  // namespace model
