// Building blocks shared by the metrics scrape jobs (ServiceMonitor,
// PodMonitor, Probe, ScrapeConfig, additionalScrapeConfigs) and
// remote_write: relabel rules, selector rules, sharding, kubernetes_sd
// settings, TLS and auth blocks, scrape classes, scrape limits, the other
// spec-level settings and Prometheus durations.
// Contract: pure. Secret/ConfigMap references resolve through the AssetRefs
// passed in, so a failure is a FieldError at the given path, never an
// exception. `compat` (RenderOptions::upstream_compat) selects upstream's
// output forms; otherwise the corrected forms of docs/differences.md.
// Three targets: the Grafana Agent (its Prometheus is v2.48), the same in
// compat mode (only what the Grafana Agent Operator renders), and
// prometheus-operator's rendering for the target allocator's collectors
// (JobContext::prom_operator; Prometheus 3). A set field the target cannot
// take is a warning at its path (AssetRefs::warn), never dropped silently.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/agent.hpp"
#include "model/assets.hpp"
#include "model/monitors.hpp"
#include "model/render.hpp"
#include "model/scrape_class.hpp"
#include "model/scrape_config.hpp"

namespace model::scrape {

// What prometheus-operator's Prometheus has and a GrafanaAgent lacks, for
// rendering monitors as prometheus-operator does (the target allocator).
struct PromOperatorSettings {
  ScrapeClasses scrape_classes;
  // The setting that denies file access, named in problems
  // (agent.metrics.deny_fs_access_through_sms carries its value).
  std::string deny_fs_setting;
};

// What every job of one MetricsInstance is rendered with.
struct JobContext {
  const GrafanaAgent& agent;
  const RenderOptions& opts;
  std::int64_t shards;     // >= 1, or kNoSharding
  const Value& sd_fields;  // api_server_sd_fields() of the agent
  // Null for the operator's GrafanaAgent rendering, whose output does not
  // change: no scrape classes, no fallback_scrape_protocol, problems that
  // name the GrafanaAgent.
  const PromOperatorSettings* prom_operator = nullptr;
  bool compat() const { return opts.upstream_compat; }
  const MetricsSubsystemSpec& metrics() const { return agent.metrics; }
};

// --- ignored.cpp: fields a render leaves out, as warnings ---
// `path` is set, but --upstream-compat renders what the Grafana Agent
// Operator renders, which leaves it out. Returns ctx.compat().
bool ignored_in_compat(const JobContext& ctx, AssetRefs& assets, const std::string& path);
// `path` is set to a value the Grafana Agent cannot honour (`why` says
// what it lacks). Only for the agent's render (not prom_operator).
void unsupported_by_agent(AssetRefs& assets, const std::string& path, const std::string& why);
// The TLS settings to render: in compat mode without minVersion and
// maxVersion (warned about at `path`), which upstream never renders.
std::optional<TLSConfig> compat_tls(const JobContext& ctx, std::optional<TLSConfig> tls, const std::string& path,
                                    AssetRefs& assets);
// The proxy fields at `path` (proxyUrl, noProxy, proxyFromEnvironment,
// proxyConnectHeader); compat mode renders proxyUrl only and warns about
// the others.
void set_monitor_proxy(Value& job, const JobContext& ctx, const std::string& ns, const ProxySettings& p,
                       const std::string& path, AssetRefs& assets);

// --- relabel.cpp ---
// Escapes the Go regexp metacharacters \.+*?()|[]{}^$ (like regexp.QuoteMeta).
std::string quote_regexp(std::string_view s);
// {source_labels: [source], target_label: target}
// A mapping of `m`'s entries, in key order.
Value string_map(const std::map<std::string, std::string>& m);

Value copy_rule(const std::string& source, const std::string& target);
// {source_labels: [source], target_label: target, regex: (.+), replacement: $1}
Value nonempty_copy_rule(const std::string& source, const std::string& target);
// {target_label: target, replacement: value}
Value set_rule(const std::string& target, const std::string& value);
// {source_labels: [source], regex: regex, action: action}
Value match_rule(const std::string& source, const std::string& regex, const char* action);
// Keep/drop rules restricting targets to a label selector; `meta_prefix` is
// e.g. "__meta_kubernetes_service_". Default form: the value and the
// labelpresent meta label must match "(<escaped values>);true"; compat:
// upstream's single-label form with the values as regexps.
void append_selector_rules(Value& rules, const LabelSelector& selector, const std::string& meta_prefix, bool compat);
// A CRD relabeling in Prometheus form. compat drops empty strings as
// upstream does; otherwise every field that was set is kept.
Value relabel_rule(const RelabelConfig& c, bool compat);
Value relabel_rules(const std::vector<RelabelConfig>& rules, bool compat);
// User metric relabelings minus those targeting the enforced namespace label.
Value metric_relabel_rules(const std::vector<RelabelConfig>& rules, const std::string& enforced_label, bool compat);
// JobContext::shards of jobs whose targets the operator places itself
// (shardingStrategy consistent): they get no sharding rules.
inline constexpr std::int64_t kNoSharding = 0;
// The hashmod/keep pair selecting this shard's share of `source` values;
// nothing for kNoSharding.
void append_sharding(Value& rules, const std::string& source, std::int64_t shards);
// targetLabels/podTargetLabels: {source_labels: [<prefix>label_<san l>],
// target_label: <san l>, regex: (.+), replacement: $1}; names that cannot
// be label names are skipped (check_label_names reports them).
void append_label_copies(Value& rules, const std::vector<std::string>& labels, const std::string& meta_prefix);
void check_label_names(const std::vector<std::string>& labels, const std::string& field, AssetRefs& assets);
// Whether a relabel_configs list already contains a hashmod rule.
bool has_hashmod(const Value& rules);

// --- auth.cpp ---
// tls_config with file paths under the secrets mount; explicit *File fields
// win over Secret/ConfigMap references. `inline_pem` renders the referenced
// values as `ca`/`cert`/`key` instead (RenderOptions::inline_tls).
Value tls_config(const std::string& ns, const TLSConfig& tls, const std::string& path, AssetRefs& assets,
                 bool inline_pem = false);
// basic_auth with username and password inlined (monitors, kube SD).
Value inline_basic_auth(const std::string& ns, const BasicAuth& ba, const std::string& path, AssetRefs& assets);
// oauth2 of a monitor: client id and secret inlined.
// Prometheus and Promtail reject an oauth2 block without client_id or
// client_secret(_file): when a (missing optional) reference resolves to ""
// the member is rejected instead of breaking the whole config.
void require_oauth2_field(AssetRefs& assets, bool empty, const std::string& path, const char* field);
// Its tlsConfig and proxy settings are rendered too (TLS material as files,
// or inline PEM with `inline_pem`).
Value inline_oauth2(const std::string& ns, const OAuth2& o, const std::string& path, AssetRefs& assets,
                    bool inline_pem = false);
// The oauth2 block of remote_write and logs clients: client_id inline, the
// secret as client_secret_file. Upstream reads clientId only from a Secret
// (its ConfigMap form is a TODO), which compat mode reproduces.
Value file_oauth2(const std::string& ns, const OAuth2& o, const std::string& path, AssetRefs& assets, bool compat);
// authorization of a monitor: type (default Bearer) and inlined credentials.
Value inline_authorization(const std::string& ns, const Authorization& a, const std::string& path, AssetRefs& assets);
// The agent's apiServer settings as kubernetes_sd_config fields (api_server,
// basic_auth, authorization, tls_config), resolved in the agent namespace
// under "spec.apiServer"; {} when unset.
Value api_server_sd_fields(const GrafanaAgent& agent, AssetRefs& assets, bool compat);

// --- common.cpp ---
// kubernetes_sd `namespaces.names` of a monitor namespaceSelector; empty
// means every namespace.
std::vector<std::string> sd_namespaces(const NamespaceSelector& sel, const std::string& own_ns, bool ignore_selectors);
// One kubernetes_sd_configs entry (sd_fields + role + namespaces), with
// `selectors` when given (a monitor's selectorMechanism: RoleSelector).
Value kubernetes_sd(const JobContext& ctx, const char* role, const NamespaceSelector& sel, const std::string& own_ns,
                    bool attach_node, Value selectors = Value());
// honor_labels (always) and honor_timestamps (when set or overridden).
void set_honor_fields(Value& job, const JobContext& ctx, bool honor_labels, std::optional<bool> honor_timestamps);
// The effective limit of a user and an enforced value; nullopt = not rendered.
std::optional<std::int64_t> effective_limit(std::optional<std::int64_t> user, std::optional<std::int64_t> enforced,
                                            bool compat);
// sample_limit and target_limit, plus label limits and
// keep_dropped_targets outside compat mode (where they are warnings at
// spec.<field>).
void set_limits(Value& job, const JobContext& ctx, const ScrapeLimits& limits, AssetRefs& assets);
// A Prometheus duration ("1h30m", "15s", "0") in milliseconds.
std::optional<std::int64_t> parse_duration(std::string_view s);
// The text Prometheus prints for a duration of `ms` milliseconds ("1m30s",
// "0s"); years and weeks only when they divide it exactly.
std::string format_duration(std::int64_t ms);
// Checks interval/scrapeTimeout syntax and that the timeout does not exceed
// the interval (the agent's scrapeInterval, else 1m, when unset). Errors
// are recorded in `assets` under `path` + "." + `interval_field` /
// ".scrapeTimeout".
void check_scrape_timing(const JobContext& ctx, const std::string& interval, const std::string& timeout,
                         const std::string& path, AssetRefs& assets, const char* interval_field = "interval");

// --- spec_settings.cpp: the spec-level settings of every monitor kind ---
// What ServiceMonitor, PodMonitor and Probe share at spec level beyond the
// selector: limits, body size, native histograms and protocols.
struct SpecSettings {
  const ScrapeLimits& limits;
  const std::string& body_size_limit;  // "" (always for Probes)
  const NativeHistogramSettings& native_histograms;
  const ScrapeProtocolSettings& protocols;
};
// Limits, keep_dropped_targets, body_size_limit, the native histogram
// settings, scrape_protocols and fallback_scrape_protocol, as the target
// of `ctx` takes them (see above); the rest are warnings at spec.<field>.
void set_spec_settings(Value& job, const JobContext& ctx, const SpecSettings& s, const ScrapeClass* c,
                       AssetRefs& assets);
// The native histogram settings with Prometheus 3's names (prom_operator).
void set_native_histograms_v3(Value& job, const NativeHistogramSettings& n);
// The label selector as kubernetes_sd `selectors`, one per role (a
// selectorMechanism: RoleSelector monitor); compat mode warns at
// spec.selectorMechanism and returns null (the relabel rules are used).
Value role_selectors(const JobContext& ctx, SelectorMechanism mechanism, const std::optional<LabelSelector>& selector,
                     std::initializer_list<const char*> roles, AssetRefs& assets);

// --- endpoint.cpp: ServiceMonitor endpoints and PodMonitor podMetricsEndpoints ---
// A job's `params` block: name -> list of values.
Value params_value(const std::map<std::string, std::vector<std::string>>& params);
// scrape_interval .. authorization of one endpoint; `path` is the
// endpoint's field path (e.g. "spec.endpoints[0]"), `ns` the monitor's.
// TLS and authorization merge with the scrape class `c` (class_tls,
// class_authorization; `tls_zero_is_unset` false for ServiceMonitors).
void set_endpoint_http_fields(Value& job, const JobContext& ctx, const std::string& ns, const Endpoint& e,
                              const std::string& path, AssetRefs& assets, const ScrapeClass* c = nullptr,
                              bool tls_zero_is_unset = true);
// The scrape job of one ServiceMonitor or PodMonitor endpoint: everything but
// the relabel rules, which the caller builds for its role.
struct MonitorEndpoint {
  const char* kind;  // "serviceMonitor" / "podMonitor", the job-name prefix
  const char* role;  // kubernetes_sd role
  const ObjectMeta& meta;
  const NamespaceSelector& namespace_selector;
  bool attach_node;
  const SpecSettings& spec;
  const Endpoint& endpoint;
  std::size_t index;
  std::string path;  // "spec.endpoints[i]" / "spec.podMetricsEndpoints[i]"
  const ScrapeClass* scrape_class = nullptr;
  Value selectors;  // kubernetes_sd selectors (RoleSelector), or null
};
Value monitor_endpoint_job(const JobContext& ctx, const MonitorEndpoint& m, Value relabel_configs, AssetRefs& assets);
// The port filter: `port` on `port_name_label`, else portNumber (PodMonitors;
// not in compat mode, where it is a warning), else a named targetPort on
// the container port name, else a numeric one on the container port number.
std::optional<Value> port_rule(const JobContext& ctx, const Endpoint& e, const char* port_name_label,
                               const std::string& path, AssetRefs& assets);
// {target_label: endpoint, replacement: <port or targetPort>}, if either is set.
std::optional<Value> endpoint_label_rule(const Endpoint& e);
// Whether the Failed/Succeeded pod drop applies: upstream only when
// filterRunning is true, otherwise unless it is false.
bool filter_running(const JobContext& ctx, const Endpoint& e);
Value pod_phase_drop_rule();
// The scrape class's relabelings, user relabelings, the enforced namespace
// label and the sharding pair on __address__: the common end of every
// monitor's relabel_configs.
void append_relabel_tail(Value& rules, const JobContext& ctx, const std::string& ns,
                         const std::vector<RelabelConfig>& relabelings, const ScrapeClass* c = nullptr);
// metric_relabel_configs (the class's rules first), when any remain.
void set_metric_relabels(Value& job, const JobContext& ctx, const std::vector<RelabelConfig>& rules,
                         const ScrapeClass* c = nullptr);

// --- scrape_class.cpp: prometheus-operator's scrape class semantics ---
// The class a monitor uses: the one its spec.scrapeClass names, else the
// default class, else none. An unknown name is an error at `path`, which
// leaves the monitor out. Outside prom_operator mode always none, and a
// name is a warning at `path` (a GrafanaAgent has no scrape classes).
const ScrapeClass* monitor_scrape_class(const JobContext& ctx, const std::string& name, const std::string& path,
                                        AssetRefs& assets);
// The monitor's TLS when it has one (for PodMonitors, Probes and
// ScrapeConfigs: one with any field set; ServiceMonitors: any tlsConfig),
// with the class's caFile/certFile/keyFile filling the CA, cert and key it
// leaves unset; otherwise the class's whole tlsConfig.
std::optional<TLSConfig> class_tls(const std::optional<TLSConfig>& own, const ScrapeClass* c, bool zero_is_unset);
// The monitor's authorization when it has one (a credentials-less one
// takes the class's credentialsFile); otherwise the class's. The class's
// applies only to a monitor with no other authentication: `others` lists
// the monitor's fields ({"basicAuth", set}, ...), and a set one is an error
// at `path` + "." + field, since Prometheus refuses two methods in a job.
std::optional<Authorization> class_authorization(const std::optional<Authorization>& own, const ScrapeClass* c,
                                                 std::initializer_list<std::pair<const char*, bool>> others,
                                                 const std::string& path, AssetRefs& assets);
// {type, credentials (inline), credentials_file}.
Value authorization_block(const std::string& ns, const Authorization& a, const std::string& path, AssetRefs& assets);
// The monitor's attachMetadata.node when it sets attachMetadata, else the class's.
bool class_attach_node(std::optional<bool> own, const ScrapeClass* c);
void append_class_relabelings(Value& rules, const ScrapeClass* c, bool compat);
// fallback_scrape_protocol: the monitor's, else the class's (prom_operator
// mode only; the agent's render warns about the monitor's in
// set_spec_settings).
void set_fallback_protocol(Value& job, const JobContext& ctx, const std::string& own, const ScrapeClass* c);

// --- scrape_config_sd.cpp ---
// proxy_url, no_proxy, proxy_from_environment and proxy_connect_header
// (values from Secrets, inlined) at `path`'s proxy fields.
void set_proxy(Value& out, const std::string& ns, const ProxySettings& p, const std::string& path, AssetRefs& assets);
// A ScrapeConfig's static_configs, file_sd_configs, http_sd_configs and
// kubernetes_sd_configs.
void set_scrape_config_sd(Value& job, const JobContext& ctx, const ScrapeConfig& sc, AssetRefs& assets);

// --- remote_write.cpp ---
// remote_write entries, references resolved in `ns`, errors at
// "<path>[i].<field>". Passwords and client secrets are files, usernames,
// client ids and SigV4 keys are inlined, as upstream renders them.
Value remote_writes(const std::string& ns, const std::vector<RemoteWriteSpec>& specs, const std::string& path,
                    AssetRefs& assets, bool compat);

}  // namespace model::scrape
