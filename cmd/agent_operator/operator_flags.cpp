// The flag table of `run` and `demo` (operator.hpp): every flag with its
// aliases (upstream's Grafana Agent Operator spellings, and the target
// allocator's where the concept is shared), value, default and help.
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "actors/core/redact.hpp"
#include "cmd/flagset/log_flags.hpp"
#include "model/kubelet.hpp"
#include "model/names.hpp"
#include "operator.hpp"

namespace cli {

namespace {

using Set = std::function<void(const std::string&)>;

// The key file's bytes, less trailing whitespace (a mounted Secret or an
// `echo` adds a newline).
std::string read_redaction_key(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read " + path);
  std::string key((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
  if (key.size() < actors::core::kMinRedactionKeyBytes)
    throw std::invalid_argument(path + " holds " + std::to_string(key.size()) + " bytes; a key needs at least " +
                                std::to_string(actors::core::kMinRedactionKeyBytes));
  return key;
}

Set duration_into(std::chrono::milliseconds& out) {
  return [&out](const std::string& v) { out = parse_duration("", v); };
}

Set positive_into(double& out) {
  return [&out](const std::string& v) {
    char* end = nullptr;
    double n = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(n > 0)) throw std::invalid_argument("want a positive number, got \"" + v + "\"");
    out = n;
  };
}

Set string_into(std::string& out) {
  return [&out](const std::string& v) { out = v; };
}

actors::core::FsyncPolicy parse_fsync(const std::string& v) {
  if (v == "never") return actors::core::FsyncPolicy::never;
  if (v == "batch") return actors::core::FsyncPolicy::on_flush;
  if (v == "always") return actors::core::FsyncPolicy::every_append;
  throw std::invalid_argument("want never, batch or always, got \"" + v + "\"");
}

void add_journal_flags(std::vector<Flag>& t, OperatorFlags& f) {
  t.push_back({{"journal"}, "FILE", "off", "append every event to this JSON Lines journal", string_into(f.journal)});
  t.push_back({{"journal-secrets"},
               "MODE",
               "redact",
               "redact or include Secret values in the journal",
               [&f](const std::string& v) {
                 if (v != "include" && v != "redact") throw std::invalid_argument("want include or redact");
                 f.journal_include_secrets = v == "include";
               }});
  t.push_back({{"journal-redaction-key-file"},
               "FILE",
               "a random key per process",
               "HMAC key for redacted values; one key across restarts and replicas makes their journals comparable",
               [&f](const std::string& v) { f.journal_redaction_key = read_redaction_key(v); }});
  t.push_back({{"journal-fsync"},
               "MODE",
               "batch",
               "never, batch (once per batch of events) or always (every event)",
               [&f](const std::string& v) { f.fsync = parse_fsync(v); }});
  t.push_back({{"journal-max-size"},
               "SIZE",
               "64Mi",
               "rotate the journal before it would grow past this (JOURNAL -> JOURNAL.1 -> ...; each rotated file "
               "starts with the state so far, so it replays on its own)",
               [&f](const std::string& v) {
                 f.journal_max_bytes = parse_size(v);
                 if (f.journal_max_bytes < 4096) throw std::invalid_argument("want at least 4096 bytes");
               }});
  t.push_back({{"journal-max-files"},
               "N",
               "5",
               "rotated journal files kept (JOURNAL.1 .. JOURNAL.N; 0 keeps none)",
               [&f](const std::string& v) { f.journal_max_files = static_cast<int>(parse_int(v, 0, 1000)); }});
}

void add_server_flags(std::vector<Flag>& t, OperatorFlags& f, const std::string& listen_default) {
  t.push_back({{"metrics-listen-address", "listen", "listen-addr"},
               "HOST:PORT",
               listen_default,
               "serve /metrics, /healthz, /readyz, /-/healthy, /-/ready, /debug/hierarchy, /debug/targets, the "
               "integrations SD endpoint and (without --targets-listen-address) the targets endpoint here; \"\" "
               "or 0 turns the server off",
               string_into(f.listen)});
  t.push_back({{"health-listen-address"},
               "HOST:PORT",
               "off: the health paths are on the metrics address only",
               "also serve /-/healthy, /-/ready, /healthz and /readyz here (upstream's health server)",
               string_into(f.health_listen)});
  t.push_back({{"targets-listen-address"},
               "HOST:PORT",
               "off: the targets endpoint is on the metrics address",
               "serve the targets endpoint of shardingStrategy consistent and node agents here instead, with the "
               "health paths (deploy/operator admits only agent pods to it)",
               string_into(f.targets_listen)});
  t.push_back({{"listen-host"},
               "HOST",
               "none",
               "upstream's webhook host: accepted, unused (there are no webhooks)",
               string_into(f.webhook_host)});
  t.push_back({{"listen-port"},
               "PORT",
               "none",
               "upstream's webhook port: accepted, unused (there are no webhooks)",
               [&f](const std::string& v) { f.webhook_port = static_cast<int>(parse_int(v, 0, 65535)); }});
}

void add_scope_flags(std::vector<Flag>& t, OperatorFlags& f) {
  t.push_back({{"kubeconfig", "kubeconfig-path"},
               "FILE",
               "$KUBECONFIG, else the in-cluster service account, else ~/.kube/config",
               "the cluster to manage",
               string_into(f.kubeconfig)});
  t.push_back({{"context"}, "NAME", "current-context", "kubeconfig context", string_into(f.context)});
  t.push_back({{"namespace"}, "NS", "every namespace", "watch one namespace only", string_into(f.watch_namespace)});
  t.push_back({{"agent-selector"},
               "SELECTOR",
               "every GrafanaAgent",
               "only GrafanaAgents matching this label selector",
               string_into(f.agent_selector)});
  t.push_back({{"labels"},
               "K=V,...",
               "none",
               "extra labels on created objects; they win on conflicts",
               [&f](const std::string& v) {
                 if (!parse_labels(v, f.labels)) throw std::invalid_argument("want k=v,k2=v2");
               }});
  t.push_back({{"kubelet-service"},
               "NS/NAME",
               "off",
               "keep a headless Service NS/NAME, its Endpoints and EndpointSlices listing every Node's kubelet",
               [&f](const std::string& v) { f.kubelet_service = model::parse_kubelet_service(v); }});
  t.push_back({{"kubelet-selector"},
               "SELECTOR",
               "every Node",
               "only Nodes matching this label selector",
               [&f](const std::string& v) {
                 kubelet_node_selector(v);  // a bad one is a start-up error
                 f.kubelet_selector = v;
               }});
  t.push_back({{"monitor-status"},
               "",
               "true",
               "write status.bindings (who uses it, Accepted) on monitors whose installed CRD admits it (get on "
               "CRDs, patch on the monitors' status: the bundle's RBAC grants both); =false turns it off",
               [&f](const std::string& v) { f.monitor_status = parse_bool(v); }});
  t.push_back({{"upstream-compat"},
               "",
               "false",
               "reproduce upstream's known bugs in what is rendered (docs/differences.md), for a byte-compatible "
               "migration",
               [&f](const std::string& v) { f.upstream_compat = parse_bool(v); }});
}

void add_leader_flags(std::vector<Flag>& t, OperatorFlags& f) {
  t.push_back(
      {{"leader-elect"}, "", "false", "only the holder of a Lease writes (run 2 replicas)", [&f](const std::string& v) {
         f.leader_elect = parse_bool(v);
       }});
  t.push_back({{"leader-pod-label"},
               "KEY",
               "none",
               "with --leader-elect: the leader's own Pod ($POD_NAMESPACE/$POD_NAME) carries KEY=true, so a "
               "Service can send the agents' target polls to the leader alone",
               [&f](const std::string& v) {
                 if (std::string why = model::qualified_name_problem(v); !why.empty())
                   throw std::invalid_argument("--leader-pod-label: " + why);
                 f.leader_pod_label = v;
               }});
  t.push_back({{"lease-duration", "leader-elect-lease-duration"},
               "D",
               "15s",
               "how long a Lease is held unrenewed",
               duration_into(f.leader.lease_duration)});
  t.push_back({{"renew-deadline", "leader-elect-renew-deadline"},
               "D",
               "10s",
               "the holder steps down when it has not renewed for this long",
               duration_into(f.leader.renew_deadline)});
  t.push_back({{"retry-period", "leader-elect-retry-period"},
               "D",
               "2s",
               "how often to try to take or renew the Lease",
               duration_into(f.leader.retry_period)});
  t.push_back({{"leader-election-namespace", "leader-elect-namespace"},
               "NS",
               "$POD_NAMESPACE, else the service account's namespace",
               "where the Lease lives",
               string_into(f.leader_namespace)});
  t.push_back({{"leader-election-id", "leader-elect-lease-name"},
               "NAME",
               "agent-operator-leader",
               "the Lease's name",
               string_into(f.leader.name)});
  t.push_back({{"leader-elect-identity"},
               "ID",
               "$POD_NAME, else HOST_PID",
               "this replica's name in the Lease",
               string_into(f.leader.identity)});
}

void add_tuning_flags(std::vector<Flag>& t, OperatorFlags& f) {
  t.push_back({{"debounce"}, "D", "100ms", "coalesce bursts of changes per GrafanaAgent", duration_into(f.debounce)});
  t.push_back({{"qps"}, "N", "50", "client-side API request rate", positive_into(f.qps)});
  t.push_back({{"burst"}, "N", "100", "client-side API burst", positive_into(f.burst)});
  t.push_back({{"sync-timeout"},
               "D",
               "60s",
               "exit 1 when the informers have not synced by then",
               duration_into(f.sync_timeout)});
  t.push_back({{"secret-grace-period"},
               "D",
               "5m",
               "a deleted Secret/ConfigMap that members reference stays in use this long (a delete-and-recreate "
               "rotation is no outage)",
               duration_into(f.secret_grace)});
  t.push_back({{"integrations-sd-url"},
               "URL",
               "the agent-operator-metrics Service",
               "where agents reach this operator's integrations SD endpoint (IntegrationMonitor jobs)",
               [&f](const std::string& v) { f.sd_url = check_sd_url(v); }});
  t.push_back({{"targets-url"},
               "URL",
               "the agent-operator-metrics Service",
               "where agents reach this operator's targets endpoint (shardingStrategy consistent and node)",
               [&f](const std::string& v) { f.targets_url = check_sd_url(v); }});
  t.push_back({{"integrations-sd-timeout"},
               "D",
               "5s",
               "each integrations pod's SD request may take this long",
               [&f](const std::string& v) {
                 f.sd_timeout = parse_duration("", v);
                 if (f.sd_timeout.count() <= 0) throw std::invalid_argument("must be positive");
               }});
  t.push_back({{"integrations-sd-freshness"},
               "D",
               "1s",
               "polls within this long of the last merge are served from it (0 asks the pods on every poll)",
               duration_into(f.sd_freshness)});
  t.push_back(
      {{"for"}, "D", "until SIGINT/SIGTERM", "exit 0 after this long (for scripts)", [&f](const std::string& v) {
         f.run_for = parse_duration("", v);
       }});
}

}  // namespace

model::selector_text::LabelSelector kubelet_node_selector(const std::string& text) {
  try {
    return model::selector_text::parse_label_selector(text);
  } catch (const model::selector_text::SyntaxError& e) {
    throw std::invalid_argument(std::string("--kubelet-selector: ") + e.what());
  }
}

std::string check_sd_url(const std::string& url) {
  bool scheme = url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
  std::size_t host = url.find("://") + 3;
  if (!scheme || host >= url.size() || url[host] == '/' || url.find_first_of("?# ") != std::string::npos)
    throw std::invalid_argument("want an http:// or https:// URL without a query, got \"" + url + "\"");
  return url;
}

std::vector<Flag> operator_flags(OperatorFlags& f, const std::string& listen_default) {
  std::vector<Flag> t;
  add_scope_flags(t, f);
  add_server_flags(t, f, listen_default);
  add_journal_flags(t, f);
  add_leader_flags(t, f);
  add_tuning_flags(t, f);
  add_log_flags(t, f.log_level, f.log_format);
  t.push_back({{"v", "verbose"}, "", "false", "log at debug level (as --log-level debug)", [&f](const std::string& v) {
                 if (parse_bool(v)) f.log_level = model::LogLevel::debug;
               }});
  return t;
}

}  // namespace cli
