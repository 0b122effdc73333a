// The operator and the target allocator as deployed: under their shipped
// ServiceAccounts and RBAC (deploy/*/10-rbac.yaml) against simcluster
// --authorization rbac. With the RBAC as shipped each does its whole job
// without one 403; without any single granted verb, each hits a 403 for
// exactly that verb, so nothing is granted that is not used. The variants
// run in parallel, each stopping at its first expected 403.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>
#include <fstream>

#include "../../scratch.hpp"
#include "bin_path.hpp"
#include "golden_util.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"
#include "rbac_consistent_agent.hpp"
#include "rbac_monitor_status.hpp"
#include "rbac_runner.hpp"

using model::Value;
using testutil::Grant;
using testutil::SimRbac;

namespace {

using namespace std::chrono_literals;

std::string field(const std::shared_ptr<const Value>& v, std::initializer_list<const char*> path) {
  const Value* at = v.get();
  for (const char* p : path) at = at && at->is_object() ? at->find(p) : nullptr;
  return at && at->is_string() ? at->as_string() : "";
}

struct Outcome {
  bool done = false;  // the whole job (full RBAC) or the expected 403 (a variant)
  std::vector<std::string> denials;
  std::string log;
};

std::string read_log(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// ---- the operator ----------------------------------------------------------

const char* kOwner = R"(ownerReferences: [{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, )"
                     R"(name: grafana-agent, uid: UID}])";

std::string workload(const std::string& kind, const std::string& name, const std::string& meta) {
  std::string extra = kind == "StatefulSet" ? "  serviceName: x\n" : "";
  return "apiVersion: apps/v1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: monitoring" + meta +
         "}\nspec:\n" + extra +
         "  selector: {matchLabels: {app: x}}\n  template:\n    metadata: {labels: {app: x}}\n"
         "    spec: {containers: [{name: c, image: i}]}\n";
}

std::string plain(const std::string& kind, const std::string& name, const std::string& meta) {
  std::string spec = kind == "Service" ? "spec: {ports: [{port: 80}]}\n" : "";
  return "apiVersion: v1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: monitoring" + meta + "}\n" +
         spec;
}

// Objects that make the operator use every verb it is granted: one of each
// owned kind already there under a name it wants but not labelled as its
// own (create gets a 409, so it gets the object and updates or re-creates
// it), and one of each it owns but does not want (it deletes them); an
// invalid ServiceMonitor (Reconciled=False and a Warning Event). A second
// GrafanaAgent takes two of the conflicts: the writer re-reads after a 409
// at most three times per agent before it only retries. (A third, with
// shardingStrategy consistent, is rbac_consistent::seed; the monitors'
// status.bindings, which the operator writes by default, are
// rbac_monitor_status's.)
void seed_operator(SimRbac& s) {
  s.apply_yaml(testutil::read_text(testutil::source_path("deploy/examples/10-grafana-agent.yaml")));
  auto agent = s.get("monitoring.grafana.com", "grafanaagents", "monitoring", "grafana-agent");
  Value second = *agent;
  second.find("metadata")->set("name", "second");
  second.find("metadata")->erase("uid");
  second.find("metadata")->erase("resourceVersion");
  second.find("spec")->find("metrics")->set("shards", 1);
  s.apply(second);
  std::string uid = field(agent, {"metadata", "uid"});
  std::string owned = ", labels: {app.kubernetes.io/managed-by: grafana-agent-operator}, " +
                      std::string(kOwner).replace(std::string(kOwner).find("UID"), 3, uid);
  s.apply_yaml(plain("Secret", "grafana-agent-secrets", "") + "---\n" + plain("Service", "grafana-agent-operated", "") +
               "---\n" + workload("DaemonSet", "grafana-agent-logs", "") + "---\n" +
               workload("StatefulSet", "second", "") + "---\n" +
               workload("Deployment", "second-integrations-deploy", ""));
  s.apply_yaml(plain("Secret", "stray", owned) + "---\n" + plain("Service", "stray", owned) + "---\n" +
               workload("StatefulSet", "stray", owned) + "---\n" + workload("DaemonSet", "stray", owned) + "---\n" +
               workload("Deployment", "stray", owned));
  s.apply_yaml(R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: broken, namespace: shop, labels: {instance: primary}}
spec:
  selector: {matchLabels: {app: broken}}
  endpoints: [{port: http, relabelings: [{sourceLabels: [__name__], regex: "(unclosed", action: drop}]}]
)");
}

// The kubelet Service controller (-kubelet-service=kube-system/kubelet)
// meets an Endpoints and an IPv4 slice of the names it wants that it did
// not label (create gets a 409: it gets and updates them) and an IPv6 slice
// of its own that no Node needs (it deletes it); it creates the Service.
const char* kKubeletSeed = R"(apiVersion: v1
kind: Namespace
metadata: {name: kube-system}
---
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {addresses: [{type: InternalIP, address: 10.0.0.1}]}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status: {addresses: [{type: ExternalIP, address: 192.0.2.2}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: kubelet, namespace: kube-system, labels: {app.kubernetes.io/managed-by: prometheus-operator}}
subsets: [{addresses: [{ip: 10.9.9.9}], ports: [{name: https-metrics, port: 10250}]}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: kubelet-ipv4-0, namespace: kube-system}
addressType: IPv4
endpoints: [{addresses: [10.9.9.9]}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: kubelet-ipv6-0
  namespace: kube-system
  labels: {app.kubernetes.io/managed-by: grafana-agent-operator, app.kubernetes.io/name: kubelet,
           kubernetes.io/service-name: kubelet}
addressType: IPv6
endpoints: [{addresses: ["fd00::9"]}]
)";

// Both Nodes listed in the kubelet Endpoints and slice, both ours; the
// stale IPv6 slice gone.
bool kubelet_converged(SimRbac& s) {
  auto ours = [](const std::shared_ptr<const Value>& o) {
    return field(o, {"metadata", "labels", "app.kubernetes.io/managed-by"}) == "grafana-agent-operator";
  };
  auto eps = s.get("", "endpoints", "kube-system", "kubelet");
  auto slice = s.get("discovery.k8s.io", "endpointslices", "kube-system", "kubelet-ipv4-0");
  if (!s.get("", "services", "kube-system", "kubelet") || !ours(eps) || !ours(slice)) return false;
  if (s.get("discovery.k8s.io", "endpointslices", "kube-system", "kubelet-ipv6-0")) return false;
  std::string listed = model::to_json(*eps) + model::to_json(*slice);
  return listed.find("10.9.9.9") == std::string::npos && listed.find("10.0.0.1") != std::string::npos &&
         listed.find("192.0.2.2") != std::string::npos;
}

// What each agent owns, by name suffix ("" is the agent's own name).
const std::vector<std::pair<std::string, std::string>> kOwnedSuffixes = {
    {"secrets", "-config"},
    {"secrets", "-integrations-deploy-config"},
    {"secrets", "-integrations-ds-config"},
    {"secrets", "-logs-config"},
    {"secrets", "-secrets"},
    {"services", "-operated"},
    {"services", "-integrations"},
    {"daemonsets", "-integrations-ds"},
    {"daemonsets", "-logs"},
    {"deployments", "-integrations-deploy"},
    {"statefulsets", ""},
};

bool owned_objects_written(SimRbac& s) {
  for (const char* agent : {"grafana-agent", "second"})
    for (const auto& [plural, suffix] : kOwnedSuffixes) {
      auto o = s.get(plural == "secrets" || plural == "services" ? "" : "apps", plural, "monitoring", agent + suffix);
      if (field(o, {"metadata", "labels", "app.kubernetes.io/managed-by"}) != "grafana-agent-operator") return false;
    }
  if (!s.get("apps", "statefulsets", "monitoring", "grafana-agent-shard-1")) return false;
  for (const char* plural : {"secrets", "services"})
    if (s.get("", plural, "monitoring", "stray")) return false;
  for (const char* plural : {"statefulsets", "daemonsets", "deployments"})
    if (s.get("apps", plural, "monitoring", "stray")) return false;
  return true;
}

// Leading, every owned object written, the kubelet Service's objects
// written, and the invalid member reported in status and as an Event.
// The replica's own Pod and one an earlier leader left labelled
// (--leader-pod-label): the leader labels the first and clears the second.
const char* kReplicaPods = R"(apiVersion: v1
kind: Pod
metadata: {name: agent-operator-0, namespace: agent-operator, labels: {app.kubernetes.io/name: agent-operator}}
spec: {containers: [{name: operator, image: agent-operator}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-operator-old
  namespace: agent-operator
  labels: {app.kubernetes.io/name: agent-operator, operator.agent.grafana.com/leader: "true"}
spec: {containers: [{name: operator, image: agent-operator}]}
)";

bool leader_labelled(SimRbac& s) {
  auto label = [&](const char* pod) {
    return field(s.get("", "pods", "agent-operator", pod), {"metadata", "labels", "operator.agent.grafana.com/leader"});
  };
  return label("agent-operator-0") == "true" && label("agent-operator-old").empty();
}

bool operator_converged(SimRbac& s) {
  if (!owned_objects_written(s) || !kubelet_converged(s) || !leader_labelled(s)) return false;
  auto lease = s.get("coordination.k8s.io", "leases", "agent-operator", "agent-operator-leader");
  if (field(lease, {"spec", "holderIdentity"}).empty()) return false;
  auto agent = s.get("monitoring.grafana.com", "grafanaagents", "monitoring", "grafana-agent");
  const Value* status = agent ? agent->find("status") : nullptr;
  if (!status || model::to_json(*status).find("InvalidMembers") == std::string::npos) return false;
  auto events = s.cluster().store().list(*s.cluster().find_type("", "v1", "events"), "monitoring", {});
  for (const auto& e : events.items)
    if (model::to_json(e->value).find("InvalidMembers") != std::string::npos) return true;
  return false;
}

// Someone else edits what the operator owns: drift in a Service and each
// workload kind (it updates them back) and a deleted Service (it confirms
// the GrafanaAgent still exists, a get, and re-creates it). Returns the
// test for "all repaired".
std::function<bool()> disturb_operator(SimRbac& s) {
  struct Edit {
    const char *group, *plural, *name;
  };
  const std::vector<Edit> edits = {{"", "services", "second-operated"},
                                   {"apps", "statefulsets", "grafana-agent"},
                                   {"apps", "daemonsets", "grafana-agent-logs"},
                                   {"apps", "deployments", "grafana-agent-integrations-deploy"}};
  auto versions = std::make_shared<std::vector<std::string>>();
  for (const Edit& e : edits) {
    auto type = *s.cluster().find_type(e.group, "v1", e.plural);
    Value v = *s.get(e.group, e.plural, "monitoring", e.name);
    Value& spec = *v.find("spec");
    if (std::string(e.plural) == "services")
      spec.find("ports")->as_array().at(0).set("port", 1234);
    else
      spec.find("template")->find("spec")->find("containers")->as_array().at(0).set("image", "tampered");
    std::vector<std::string> warnings;
    auto written = s.cluster().update(type, "monitoring", e.name, v, {}, {}, warnings);
    versions->push_back(field(std::shared_ptr<const Value>(written, &written->value), {"metadata", "resourceVersion"}));
  }
  auto service = s.cluster().find_type("", "v1", "services");
  std::string uid = field(s.get("", "services", "monitoring", "grafana-agent-operated"), {"metadata", "uid"});
  s.cluster().remove(*service, "monitoring", "grafana-agent-operated", {});
  return [&s, edits, versions, uid] {
    auto again = s.get("", "services", "monitoring", "grafana-agent-operated");
    if (!again || field(again, {"metadata", "uid"}) == uid) return false;
    for (std::size_t i = 0; i < edits.size(); ++i)
      if (field(s.get(edits[i].group, edits[i].plural, "monitoring", edits[i].name), {"metadata", "resourceVersion"}) ==
          (*versions)[i])
        return false;
    return true;
  };
}

Outcome run_operator(const std::vector<Value>& rbac, const std::string& expect) {
  SimRbac s;
  s.load({testutil::source_path("deploy/crds"), testutil::source_path("deploy/prometheus-operator-crds"),
          testutil::source_path("deploy/operator/00-namespace.yaml"),
          testutil::source_path("deploy/examples/00-namespaces.yaml")});
  for (const Value& doc : rbac) s.apply(doc);
  seed_operator(s);
  s.apply_yaml(kKubeletSeed);
  for (const char* file : {"20-metrics.yaml", "30-logs.yaml", "40-integrations.yaml", "45-metrics-integrations.yaml"})
    s.load({testutil::source_path(std::string("deploy/examples/") + file)});
  rbac_consistent::seed(s);
  rbac_monitor_status::seed(s);
  s.apply_yaml(kReplicaPods);
  const std::string token =
      s.token_for(rbac_consistent::kNamespace, rbac_consistent::kServiceAccount, rbac_consistent::kAudience);
  std::string log = s.file("operator.log");
  // Port 0: the variants run in parallel; the log says which port it got.
  auto op = testutil::spawn(
      {"/usr/bin/env", "POD_NAME=agent-operator-0", "POD_NAMESPACE=agent-operator", testutil::bin("agent-operator"),
       "run", "--listen=127.0.0.1:0", "--kubeconfig", s.kubeconfig_for("agent-operator", "agent-operator"),
       "--leader-elect", "--leader-pod-label=operator.agent.grafana.com/leader", "--leader-election-namespace",
       "agent-operator", "--lease-duration", "15s", "--renew-deadline", "10s", "--retry-period", "200ms",
       "-kubelet-service=kube-system/kubelet",
       // SIGTERM waits for the informers to sync: a variant that cannot list
       // would otherwise take the default 60 s to stop.
       "--sync-timeout", "5s"},
      log);
  auto give_up = [&] { return !expect.empty() && s.denied(expect); };
  auto targets_served = [&] {
    std::optional<int> port = rbac_consistent::listening_port(log);
    return port && rbac_consistent::served(*port, token);
  };
  Outcome out;
  bool converged = testutil::poll_until(
      [&] { return operator_converged(s) && rbac_monitor_status::converged(s) && targets_served(); }, give_up, 60s);
  if (converged) converged = testutil::poll_until(disturb_operator(s), give_up, 60s);
  // Some verbs are used only after a while (the Lease renewal).
  out.done = expect.empty() ? converged : testutil::poll_until(give_up, nullptr, 30s);
  out.denials = s.denials();
  op.reset();
  out.log = read_log(log);
  return out;
}

// ---- the target allocator --------------------------------------------------

const char* kAllocatorConfig = R"(allocation_strategy: consistent-hashing
filter_strategy: relabel-config
collector_selector:
  matchLabels: {app.kubernetes.io/component: opentelemetry-collector}
prometheus_cr:
  enabled: true
  service_monitor_namespace_selector: {matchLabels: {monitoring: enabled}}
config:
  scrape_configs:
  - {job_name: pod, kubernetes_sd_configs: [{role: pod}]}
  - {job_name: service, kubernetes_sd_configs: [{role: service}]}
  - {job_name: endpoints, kubernetes_sd_configs: [{role: endpoints}]}
  - {job_name: endpointslice, kubernetes_sd_configs: [{role: endpointslice}]}
  - {job_name: ingress, kubernetes_sd_configs: [{role: ingress}]}
)";

// Something for each kubernetes_sd role to find (the allocator refuses the
// node role), and a Ready collector.
const char* kAllocatorObjects = R"(apiVersion: v1
kind: Pod
metadata: {name: collector-0, namespace: observability, labels: {app.kubernetes.io/component: opentelemetry-collector}}
spec: {nodeName: node-1, containers: [{name: c, image: i, ports: [{containerPort: 8888}]}]}
status: {phase: Running, podIP: 10.0.0.5, conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: observability}
spec: {selector: {app: web}, ports: [{name: http, port: 80}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: web, namespace: observability}
subsets: [{addresses: [{ip: 10.0.0.7}], ports: [{name: http, port: 80}]}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: observability, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [10.0.0.7]}]
ports: [{name: http, port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: observability}
spec:
  rules:
  - host: web.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
)";

// Leading, and every role has targets for the collector.
bool allocator_converged(SimRbac& s, int port) {
  auto lease = s.get("coordination.k8s.io", "leases", "observability", "target-allocator");
  if (field(lease, {"spec", "holderIdentity"}).empty()) return false;
  httplib::Client cli("127.0.0.1", port);
  for (const char* job : {"pod", "service", "endpoints", "endpointslice", "ingress"}) {
    auto res = cli.Get(std::string("/jobs/") + job + "/targets?collector_id=collector-0");
    if (!res || res->status != 200 ||
        res->body.find(R"("__meta_kubernetes_namespace":"observability")") == std::string::npos)
      return false;
  }
  return true;
}

Outcome run_allocator(const std::vector<Value>& rbac, const std::string& expect) {
  SimRbac s;
  s.load({testutil::source_path("deploy/crds"), testutil::source_path("deploy/prometheus-operator-crds"),
          testutil::source_path("deploy/target-allocator/00-namespace.yaml")});
  for (const Value& doc : rbac) s.apply(doc);
  s.apply_yaml(kAllocatorObjects);
  std::ofstream(s.file("config.yaml")) << kAllocatorConfig;
  // unused_port() only finds a port that was free: a parallel test can
  // take it before the allocator binds it, so a lost port is tried again.
  std::string log;
  auto port_taken = [&] { return read_log(log).find("cannot listen on") != std::string::npos; };
  Outcome out;
  for (int attempt = 0; attempt < 3; ++attempt) {
    log = s.file("allocator-" + std::to_string(attempt) + ".log");
    int port = testutil::unused_port();
    auto ta = testutil::spawn(
        {testutil::bin("target-allocator"), "--config-file", s.file("config.yaml"), "--kubeconfig-path",
         s.kubeconfig_for("observability", "target-allocator"), "--listen-addr", "127.0.0.1:" + std::to_string(port),
         "--collector-namespace", "observability", "--leader-elect", "--leader-elect-retry-period", "200ms"},
        log);
    auto give_up = [&] { return (!expect.empty() && s.denied(expect)) || port_taken(); };
    bool converged = testutil::poll_until([&] { return allocator_converged(s, port); }, give_up, 60s);
    // The wait costs nothing when the denial comes; 90 s because four
    // allocators share two loaded cores here, and 30 s once ran out on a
    // CI-like run.
    out.done = expect.empty() ? converged : testutil::poll_until(give_up, nullptr, 90s);
    ta.reset();
    if (!port_taken()) break;
    out.done = false;
  }
  out.denials = s.denials();
  out.log = read_log(log);
  return out;
}

// ---- both ------------------------------------------------------------------

using Runner = Outcome (*)(const std::vector<Value>&, const std::string&);

void check_full(Runner run, const std::vector<Value>& rbac) {
  Outcome o = run(rbac, "");
  INFO(o.log);
  std::string denials;
  for (const auto& d : o.denials) denials += "403: " + d + "\n";
  INFO(denials);
  CHECK(o.done);
  CHECK(o.denials.empty());
}

// Each verb taken away breaks the program with a 403 for exactly that verb
// (no other request is refused: everything else is still granted).
void check_each_verb_is_needed(Runner run, const std::vector<Value>& rbac) {
  std::vector<Grant> grants = testutil::grants_of(rbac);
  REQUIRE(grants.size() > 10);
  std::vector<Outcome> outcomes(grants.size());
  testutil::run_parallel(grants.size(), 4, [&](std::size_t i) {
    outcomes[i] = run(testutil::without(rbac, grants[i]), grants[i].denial());
  });
  for (std::size_t i = 0; i < grants.size(); ++i) {
    INFO("without " << grants[i].describe());
    INFO(outcomes[i].log);
    CHECK(outcomes[i].done);
    for (const auto& d : outcomes[i].denials) {
      INFO("403: " << d);
      CHECK(d.find(grants[i].denial()) != std::string::npos);
    }
  }
}

}  // namespace

TEST_CASE("the operator does its whole job under its shipped RBAC without a 403", "[k8s][deploy][rbac][e2e]") {
  check_full(run_operator, testutil::read_manifest(testutil::source_path("deploy/operator/10-rbac.yaml")));
}

TEST_CASE("every verb the operator RBAC grants is needed", "[k8s][deploy][rbac][e2e]") {
  check_each_verb_is_needed(run_operator,
                            testutil::read_manifest(testutil::source_path("deploy/operator/10-rbac.yaml")));
}

TEST_CASE("the target allocator does its whole job under its shipped RBAC without a 403", "[k8s][deploy][rbac][e2e]") {
  check_full(run_allocator, testutil::read_manifest(testutil::source_path("deploy/target-allocator/10-rbac.yaml")));
}

TEST_CASE("every verb the target allocator RBAC grants is needed", "[k8s][deploy][rbac][e2e]") {
  check_each_verb_is_needed(run_allocator,
                            testutil::read_manifest(testutil::source_path("deploy/target-allocator/10-rbac.yaml")));
}
