// deploy/ as a user applies it (deploy/README.md) to simcluster with the
// real kubectl. Checks the operator's objects exist with the settings the
// Deployment promises, and that its RBAC is exactly what the operator needs.
// (tests/k8s/sim/deploy_kustomize_test.cpp covers every overlay.)
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "golden_util.hpp"
#include "k8s/sim/selector.hpp"
#include "kubectl_env.hpp"
#include "model/parse.hpp"

using k8s::sim::field_text;
using model::Value;
using testutil::KubectlEnv;

namespace {

const char* kNs = "agent-operator";

using Permission = std::tuple<std::string, std::string, std::string>;  // apiGroup, resource, verb

struct Need {
  const char* group;
  const char* resource;
  std::vector<const char*> verbs;
};

// Everything the operator does, by kind: its informers list and watch
// (actors/controller.cpp's watched_kinds), it gets a GrafanaAgent to confirm
// it still exists and an owned object to re-read it after a 409/404, writes
// what it owns with create/update/delete, patches GrafanaAgent status and
// creates core Events, and the SD aggregator lists and watches the
// integrations Services' Endpoints; the kubelet Service controller
// (-kubelet-service) lists and watches Nodes and writes the kubelet
// Endpoints and EndpointSlices; for shardingStrategy consistent it runs
// the agents' discovery (Pods of PodMonitors and behind Endpoints, Ingresses
// of Probes) and checks their tokens with TokenReviews; for monitor status
// (on by default) it gets each monitor kind's CRD and patches the
// monitors' status subresource. tests/k8s/sim/deploy_rbac_test.cpp shows each is used.
std::set<Permission> cluster_needs() {
  const std::vector<const char*> watch = {"list", "watch"};
  const std::vector<const char*> own = {"get", "list", "watch", "create", "update", "delete"};
  const std::vector<Need> needs = {
      {"monitoring.grafana.com", "grafanaagents", {"get", "list", "watch"}},
      {"monitoring.grafana.com", "metricsinstances", watch},
      {"monitoring.grafana.com", "logsinstances", watch},
      {"monitoring.grafana.com", "podlogs", watch},
      {"monitoring.grafana.com", "integrations", watch},
      {"monitoring.grafana.com", "metricsintegrations", watch},
      {"monitoring.grafana.com", "integrationmonitors", watch},
      {"monitoring.coreos.com", "servicemonitors", watch},
      {"monitoring.coreos.com", "podmonitors", watch},
      {"monitoring.coreos.com", "probes", watch},
      {"", "namespaces", watch},
      {"", "configmaps", watch},
      {"", "secrets", own},
      {"", "services", own},
      {"apps", "statefulsets", own},
      {"apps", "daemonsets", own},
      {"apps", "deployments", own},
      {"monitoring.grafana.com", "grafanaagents/status", {"patch"}},
      {"", "events", {"create"}},
      {"", "endpoints", {"get", "list", "watch", "create", "update"}},
      {"", "nodes", watch},
      {"discovery.k8s.io", "endpointslices", own},
      {"", "pods", watch},
      {"networking.k8s.io", "ingresses", watch},
      {"authentication.k8s.io", "tokenreviews", {"create"}},
      {"apiextensions.k8s.io", "customresourcedefinitions", {"get"}},
      {"monitoring.coreos.com", "servicemonitors/status", {"patch"}},
      {"monitoring.coreos.com", "podmonitors/status", {"patch"}},
      {"monitoring.coreos.com", "probes/status", {"patch"}},
      {"monitoring.grafana.com", "integrationmonitors/status", {"patch"}},
  };
  std::set<Permission> out;
  for (const Need& n : needs)
    for (const char* v : n.verbs) out.emplace(n.group, n.resource, v);
  return out;
}

// Flattens rules into (group, resource, verb); wildcards and resourceNames
// fail the test, since least privilege rules them out.
std::set<Permission> granted(const Value& role) {
  std::set<Permission> out;
  const Value* rules = role.find("rules");
  REQUIRE(rules);
  for (const Value& rule : rules->as_array()) {
    CHECK_FALSE(rule.find("resourceNames"));
    CHECK_FALSE(rule.find("nonResourceURLs"));
    for (const Value& g : rule.find("apiGroups")->as_array())
      for (const Value& r : rule.find("resources")->as_array())
        for (const Value& v : rule.find("verbs")->as_array()) {
          CHECK(g.as_string() != "*");
          CHECK(r.as_string() != "*");
          CHECK(v.as_string() != "*");
          out.emplace(g.as_string(), r.as_string(), v.as_string());
        }
  }
  return out;
}

std::string describe(const std::set<Permission>& ps) {
  std::ostringstream os;
  for (const auto& [g, r, v] : ps) os << (g.empty() ? "core" : g) << "/" << r << ":" << v << " ";
  return os.str();
}

Value get_json(KubectlEnv& env, std::vector<std::string> args) {
  args.insert(args.begin(), "get");
  args.insert(args.end(), {"-o", "json"});
  auto r = env.kubectl(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return model::parse_json(r.out);
}

// As deploy/README.md installs: the bundle (our CRDs and the operator),
// prometheus-operator's CRDs with `create` (too large for client-side
// apply, and simcluster has no server-side apply), then the target
// allocator's overlay and the examples.
void apply_deploy(KubectlEnv& env) {
  for (std::vector<std::string> args : {std::vector<std::string>{"apply", "-f", "bundle.yaml"},
                                        std::vector<std::string>{"create", "-k", "prometheus-operator-crds"},
                                        std::vector<std::string>{"apply", "-k", "overlays/target-allocator"},
                                        std::vector<std::string>{"apply", "-k", "examples"}}) {
    args.back() = testutil::source_path("deploy/" + args.back());
    auto r = env.kubectl(args);
    INFO(args.back());
    INFO(r.out);
    INFO(r.err);
    REQUIRE(r.code == 0);
    REQUIRE(r.err.empty());  // no warnings (unknown fields) either
  }
}

bool has_arg(const Value& container, const std::string& arg) {
  for (const Value& a : container.find("args")->as_array())
    if (a.as_string() == arg) return true;
  return false;
}

// Replicas, leader election and the hardened pod and container settings.
void check_deployment_security(const Value& d) {
  CHECK(field_text(d, "spec.replicas") == "2");
  const Value& pod = *d.find("spec")->find("template")->find("spec");
  CHECK(field_text(pod, "serviceAccountName") == "agent-operator");
  CHECK(field_text(pod, "securityContext.runAsNonRoot") == "true");
  CHECK(field_text(pod, "securityContext.seccompProfile.type") == "RuntimeDefault");
  const auto& containers = pod.find("containers")->as_array();
  REQUIRE(containers.size() == 1);
  const Value& c = containers[0];
  CHECK(has_arg(c, "--leader-elect"));
  CHECK(has_arg(c, "--journal=/var/lib/agent-operator/journal.jsonl"));
  CHECK(field_text(c, "securityContext.allowPrivilegeEscalation") == "false");
  CHECK(field_text(c, "securityContext.readOnlyRootFilesystem") == "true");
  CHECK(field_text(c, "securityContext.seccompProfile.type") == "RuntimeDefault");
  const auto& drop = c.find("securityContext")->find("capabilities")->find("drop")->as_array();
  REQUIRE(drop.size() == 1);
  CHECK(drop[0].as_string() == "ALL");
  CHECK(!field_text(c, "resources.requests.memory").empty());
  CHECK(!field_text(c, "resources.limits.memory").empty());
  CHECK(!field_text(c, "resources.limits.cpu").empty());
}

// Probes on the declared port, and the journal on a writable emptyDir.
void check_deployment_endpoints(const Value& d) {
  const Value& pod = *d.find("spec")->find("template")->find("spec");
  const Value& c = pod.find("containers")->as_array().at(0);
  // Both probes hit the metrics port, on the right paths; the targets
  // endpoint listens on the port the container declares for it.
  const auto& ports = c.find("ports")->as_array();
  REQUIRE(ports.size() == 2);
  CHECK(field_text(ports[0], "name") == "http-metrics");
  CHECK(field_text(ports[1], "name") == "targets");
  CHECK(field_text(c, "livenessProbe.httpGet.path") == "/healthz");
  CHECK(field_text(c, "livenessProbe.httpGet.port") == "http-metrics");
  CHECK(field_text(c, "readinessProbe.httpGet.path") == "/readyz");
  CHECK(field_text(c, "readinessProbe.httpGet.port") == "http-metrics");
  CHECK(has_arg(c, "--listen=0.0.0.0:" + field_text(ports[0], "containerPort")));
  CHECK(has_arg(c, "--targets-listen-address=0.0.0.0:" + field_text(ports[1], "containerPort")));

  // The journal directory is a writable emptyDir (the root filesystem is not).
  const auto& mounts = c.find("volumeMounts")->as_array();
  REQUIRE(mounts.size() == 1);
  CHECK(field_text(mounts[0], "mountPath") == "/var/lib/agent-operator");
  CHECK(field_text(mounts[0], "readOnly") != "true");
  const auto& volumes = pod.find("volumes")->as_array();
  REQUIRE(volumes.size() == 1);
  CHECK(field_text(volumes[0], "name") == field_text(mounts[0], "name"));
  CHECK(volumes[0].find("emptyDir"));
}

void check_deployment(const Value& d) {
  check_deployment_security(d);
  check_deployment_endpoints(d);
}

// The agents' http_sd URL (--targets-url) reaches the targets port through
// the Service, and the NetworkPolicy opens that port to agent pods only
// (the metrics port to everyone: Prometheus, the integrations SD).
void check_targets_port(const Value& deployment, const Value& service, const Value& policy) {
  const Value& c = deployment.find("spec")->find("template")->find("spec")->find("containers")->as_array().at(0);
  std::string port;
  for (const Value& p : service.find("spec")->find("ports")->as_array())
    if (field_text(p, "targetPort") == "targets") port = field_text(p, "port");
  REQUIRE(!port.empty());
  CHECK(has_arg(c, "--targets-url=http://agent-operator-targets." + std::string(kNs) + ".svc:" + port +
                       "/operator/api/v1/metrics/targets"));
  // The Service selects the leader's Pod alone, by the label the leader sets.
  CHECK(has_arg(c, "--leader-elect"));
  CHECK(has_arg(c, "--leader-pod-label=operator.agent.grafana.com/leader"));
  Value selector = *deployment.find("spec")->find("selector")->find("matchLabels");
  selector.set("operator.agent.grafana.com/leader", "true");
  CHECK(*service.find("spec")->find("selector") == selector);

  const Value& spec = *policy.find("spec");
  CHECK(*spec.find("podSelector") == *deployment.find("spec")->find("selector"));
  CHECK(*spec.find("policyTypes") == model::parse_json(R"(["Ingress"])"));
  const auto& rules = spec.find("ingress")->as_array();
  REQUIRE(rules.size() == 2);
  CHECK(rules[0].find("from") == nullptr);  // anyone
  CHECK(*rules[0].find("ports") == model::parse_json(R"([{"port": "http-metrics", "protocol": "TCP"}])"));
  CHECK(*rules[1].find("ports") == model::parse_json(R"([{"port": "targets", "protocol": "TCP"}])"));
  // Agent pods in any namespace, by the label every agent pod carries
  // (model::pod_selector_labels).
  CHECK(
      *rules[1].find("from") ==
      model::parse_json(
          R"([{"namespaceSelector": {}, "podSelector": {"matchLabels": {"app.kubernetes.io/name": "grafana-agent"}}}])"));
}

}  // namespace

TEST_CASE("kubectl installs deploy/ and the operator objects exist", "[k8s][kubectl][deploy]") {
  KubectlEnv env;
  apply_deploy(env);
  get_json(env, {"namespace", kNs});
  get_json(env, {"serviceaccount", "agent-operator", "-n", kNs});
  get_json(env, {"clusterrole", "agent-operator"});
  get_json(env, {"role", "agent-operator-leader-election", "-n", kNs});
  get_json(env, {"service", "agent-operator-metrics", "-n", kNs});
  get_json(env, {"grafanaagents", "-A"});  // the examples went in too

  Value crb = get_json(env, {"clusterrolebinding", "agent-operator"});
  CHECK(field_text(crb, "roleRef.kind") == "ClusterRole");
  CHECK(field_text(crb, "roleRef.name") == "agent-operator");
  Value rb = get_json(env, {"rolebinding", "agent-operator-leader-election", "-n", kNs});
  CHECK(field_text(rb, "roleRef.kind") == "Role");
  for (const Value* b : {&crb, &rb}) {
    const auto& subjects = b->find("subjects")->as_array();
    REQUIRE(subjects.size() == 1);
    CHECK(field_text(subjects[0], "kind") == "ServiceAccount");
    CHECK(field_text(subjects[0], "name") == "agent-operator");
    CHECK(field_text(subjects[0], "namespace") == kNs);
  }

  const Value deployment = get_json(env, {"deployment", "agent-operator", "-n", kNs});
  check_deployment(deployment);
  check_targets_port(deployment, get_json(env, {"service", "agent-operator-targets", "-n", kNs}),
                     get_json(env, {"networkpolicy", "agent-operator", "-n", kNs}));
}

TEST_CASE("the operator RBAC grants exactly what the operator touches", "[k8s][kubectl][deploy][rbac]") {
  KubectlEnv env;
  apply_deploy(env);

  std::set<Permission> want = cluster_needs(), have = granted(get_json(env, {"clusterrole", "agent-operator"}));
  std::set<Permission> missing, extra;
  for (const auto& p : want)
    if (!have.count(p)) missing.insert(p);
  for (const auto& p : have)
    if (!want.count(p)) extra.insert(p);
  INFO("missing: " << describe(missing));
  INFO("extra: " << describe(extra));
  CHECK(missing.empty());
  CHECK(extra.empty());

  // Leases only in the operator's namespace, for leader election.
  std::set<Permission> lease = granted(get_json(env, {"role", "agent-operator-leader-election", "-n", kNs}));
  // And the leader's Pod label (--leader-pod-label): its own and others' there.
  CHECK(lease == std::set<Permission>{{"coordination.k8s.io", "leases", "get"},
                                      {"coordination.k8s.io", "leases", "create"},
                                      {"coordination.k8s.io", "leases", "update"},
                                      {"", "pods", "patch"}});

  // Every resource named is one the API server serves (catches typos such as
  // "endpointslice").
  auto r = env.kubectl({"api-resources", "--no-headers", "-o", "name"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::set<std::string> served;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) served.insert(line);
  for (const auto& [group, resource, verb] : have) {
    std::string base = resource.substr(0, resource.find('/'));
    std::string name = group.empty() ? base : base + "." + group;
    INFO(name);
    CHECK(served.count(name));
  }
}
