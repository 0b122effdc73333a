// The kubelet Service controller (-kubelet-service) end to end: the live
// controller against simcluster keeps the headless Service, its Endpoints
// and its EndpointSlices in step with the Nodes as they are added,
// relabelled, given and stripped of addresses, and removed; repairs what
// others change; writes nothing it does not need to (after a restart
// either); and only writes while it leads.
#include <algorithm>
#include <catch2/catch.hpp>

#include <httplib.h>

#include "../eventually.hpp"
#include "../scratch.hpp"
#include "k8s/sim/process.hpp"
#include "model/object_fields.hpp"
#include "model/yaml_emit.hpp"
#include "operator_fixture.hpp"

using e2e::OperatorFixture;
using model::Value;
using Strings = std::vector<std::string>;

namespace {

const char* kNs = "kube-system";

model::KubeletServiceOptions kubelet_options() {
  model::KubeletServiceOptions o;
  o.ns = kNs;
  o.name = "kubelet";
  return o;
}

// "type=address" pairs; labels as a YAML flow map.
std::string node(const std::string& name, const Strings& addresses, const std::string& labels = "{}") {
  std::string yaml =
      "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + ", labels: " + labels + "}\nstatus:\n  addresses:";
  yaml += addresses.empty() ? " []\n" : "\n";
  for (const auto& a : addresses) {
    std::size_t eq = a.find('=');
    yaml += "  - {type: " + a.substr(0, eq) + ", address: \"" + a.substr(eq + 1) + "\"}\n";
  }
  return yaml;
}

std::string str(const std::optional<Value>& v, std::initializer_list<std::string_view> path) {
  return v ? model::string_at(*v, path) : "";
}

// "ip node uid" for each Endpoints address, in order; empty when absent.
Strings endpoints(OperatorFixture& f) {
  Strings out;
  auto eps = f.get("Endpoints", kNs, "kubelet");
  if (!eps) return {"<none>"};
  for (const Value& s : eps->find("subsets")->as_array())
    for (const Value& a : s.find("addresses")->as_array())
      out.push_back(model::string_at(a, {"ip"}) + " " + model::string_at(a, {"targetRef", "name"}));
  return out;
}

// slice name -> "ip node" per endpoint, for our slices.
std::map<std::string, Strings> slices(OperatorFixture& f) {
  std::map<std::string, Strings> out;
  for (const Value& s : f.list("EndpointSlice", kNs)) {
    if (model::string_at(s, {"metadata", "labels", "kubernetes.io/service-name"}) != "kubelet") continue;
    Strings& eps = out[model::string_at(s, {"metadata", "name"})];
    for (const Value& e : s.find("endpoints")->as_array())
      eps.push_back(model::string_at(e.find("addresses")->as_array().at(0), {}) + " " +
                    model::string_at(e, {"targetRef", "name"}));
  }
  return out;
}

std::string rv(OperatorFixture& f, const std::string& kind, const std::string& name) {
  return str(f.get(kind, kNs, name), {"metadata", "resourceVersion"});
}

// The resourceVersions of every kubelet object: equal before and after = no write.
std::map<std::string, std::string> versions(OperatorFixture& f) {
  std::map<std::string, std::string> out{{"Service", rv(f, "Service", "kubelet")},
                                         {"Endpoints", rv(f, "Endpoints", "kubelet")}};
  for (const auto& [name, eps] : slices(f)) out["EndpointSlice " + name] = rv(f, "EndpointSlice", name);
  return out;
}

void dump_log(OperatorFixture& f) {
  for (const auto& l : f.log()) UNSCOPED_INFO("log: " << l);
}

// Waits until the Endpoints and the slices list exactly these addresses.
void require_listed(OperatorFixture& f, const Strings& want, const std::map<std::string, Strings>& want_slices) {
  bool ok = testutil::eventually([&] { return endpoints(f) == want && slices(f) == want_slices; });
  if (!ok) dump_log(f);
  CHECK(endpoints(f) == want);
  REQUIRE(slices(f) == want_slices);
  REQUIRE(f.wait_idle());
}

// True when one log line holds every one of the given parts.
bool logged(OperatorFixture& f, std::initializer_list<std::string_view> parts) {
  for (const auto& l : f.log())
    if (std::all_of(parts.begin(), parts.end(), [&](std::string_view p) { return l.find(p) != l.npos; })) return true;
  return false;
}

OperatorFixture kubelet_fixture(std::optional<model::KubeletServiceOptions> o = kubelet_options()) {
  return OperatorFixture({.load_examples = false, .start_operator = false, .integrations_sd = false, .kubelet = o});
}

}  // namespace

TEST_CASE("the kubelet Service follows Nodes added, relabelled, stripped of and given addresses, and removed",
          "[e2e][kubelet]") {
  OperatorFixture f = kubelet_fixture();
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-system}\n");
  f.apply_yaml(node("n1", {"InternalIP=10.0.0.1", "Hostname=n1"}));
  f.apply_yaml(node("n2", {"Hostname=n2", "ExternalIP=192.0.2.2"}));
  f.apply_yaml(node("n3", {"ExternalIP=192.0.2.3", "InternalIP=10.0.0.3"}));
  f.start_operator();
  require_listed(f, {"10.0.0.1 n1", "10.0.0.3 n3", "192.0.2.2 n2"},
                 {{"kubelet-ipv4-0", {"10.0.0.1 n1", "10.0.0.3 n3", "192.0.2.2 n2"}}});

  auto svc = f.get("Service", kNs, "kubelet");
  CHECK(str(svc, {"spec", "clusterIP"}) == "None");
  CHECK(model::to_json(*svc->find("spec")->find("ports")).find(R"("name":"cadvisor","port":4194)") !=
        std::string::npos);
  CHECK(str(svc, {"metadata", "labels", "app.kubernetes.io/name"}) == "kubelet");
  CHECK(str(svc, {"metadata", "labels", "k8s-app"}) == "kubelet");
  auto eps = f.get("Endpoints", kNs, "kubelet");
  const Value& first = eps->find("subsets")->as_array().at(0).find("addresses")->as_array().at(0);
  CHECK(model::string_at(first, {"targetRef", "kind"}) == "Node");
  CHECK(model::string_at(first, {"targetRef", "uid"}) == str(f.get("Node", "", "n1"), {"metadata", "uid"}));
  auto slice = f.get("EndpointSlice", kNs, "kubelet-ipv4-0");
  CHECK(str(slice, {"addressType"}) == "IPv4");
  CHECK(str(slice, {"metadata", "labels", "kubernetes.io/service-name"}) == "kubelet");

  SECTION("a relabel and a heartbeat change nothing and write nothing") {
    auto before = versions(f);
    auto seq = f.controller().stats().journal_seq;
    f.apply_yaml(node("n1", {"InternalIP=10.0.0.1", "Hostname=n1"}, "{topology.kubernetes.io/zone: z2}"));
    REQUIRE(testutil::eventually([&] { return f.controller().stats().journal_seq > seq; }));
    REQUIRE(f.wait_idle());
    CHECK(versions(f) == before);
    CHECK(f.controller().stats().kubelet->writes == 3);
  }

  SECTION("a Node stripped of its addresses is left out and reported, then taken back") {
    f.apply_yaml(node("n2", {"Hostname=n2"}));
    require_listed(f, {"10.0.0.1 n1", "10.0.0.3 n3"}, {{"kubelet-ipv4-0", {"10.0.0.1 n1", "10.0.0.3 n3"}}});
    CHECK(logged(f, {"component=kubelet-service", "skipping a Node", "object=\"Node n2\"", "field=status.addresses"}));
    bool event = testutil::eventually([&] {
      for (const Value& e : f.list("Event", kNs))
        if (model::string_at(e, {"involvedObject", "name"}) == "n2" &&
            model::string_at(e, {"reason"}) == "NodeAddressUnknown")
          return true;
      return false;
    });
    CHECK(event);
    f.apply_yaml(node("n2", {"InternalIP=10.0.0.2"}));
    require_listed(f, {"10.0.0.1 n1", "10.0.0.2 n2", "10.0.0.3 n3"},
                   {{"kubelet-ipv4-0", {"10.0.0.1 n1", "10.0.0.2 n2", "10.0.0.3 n3"}}});
    CHECK(logged(f, {"msg=\"Node has an address again\"", "object=\"Node n2\""}));
  }

  SECTION("an IPv6 Node gets a slice of its own, which goes with it; removed Nodes leave") {
    f.apply_yaml(node("n4", {"InternalIP=fd00::4"}));
    require_listed(
        f, {"10.0.0.1 n1", "10.0.0.3 n3", "192.0.2.2 n2", "fd00::4 n4"},
        {{"kubelet-ipv4-0", {"10.0.0.1 n1", "10.0.0.3 n3", "192.0.2.2 n2"}}, {"kubelet-ipv6-0", {"fd00::4 n4"}}});
    f.remove("Node", "", "n4");
    f.remove("Node", "", "n1");
    require_listed(f, {"10.0.0.3 n3", "192.0.2.2 n2"}, {{"kubelet-ipv4-0", {"10.0.0.3 n3", "192.0.2.2 n2"}}});
    f.remove("Node", "", "n2");
    f.remove("Node", "", "n3");
    require_listed(f, {}, {});
    CHECK(f.get("Service", kNs, "kubelet"));
  }

  SECTION("what others change or delete is repaired") {
    f.remove("Endpoints", kNs, "kubelet");
    Value edited = *f.get("EndpointSlice", kNs, "kubelet-ipv4-0");
    edited.find("endpoints")->as_array().pop_back();
    std::vector<std::string> warnings;
    f.cluster().update(f.type("EndpointSlice"), kNs, "kubelet-ipv4-0", edited, k8s::sim::Subresource::main, {},
                       warnings);
    require_listed(f, {"10.0.0.1 n1", "10.0.0.3 n3", "192.0.2.2 n2"},
                   {{"kubelet-ipv4-0", {"10.0.0.1 n1", "10.0.0.3 n3", "192.0.2.2 n2"}}});
    CHECK(logged(f, {"component=kubelet-service", "msg=created", "object=\"Endpoints kube-system/kubelet\""}));
    CHECK(logged(f, {"msg=updated", "object=\"EndpointSlice kube-system/kubelet-ipv4-0\"",
                     "reason=\"drift: endpoints changed by someone else (want 3 items, have 2)\""}));
  }

  SECTION("a restarted operator writes nothing") {
    auto before = versions(f);
    f.stop_operator();
    f.start_operator();
    REQUIRE(testutil::eventually([&] { return f.controller().synced(); }));
    REQUIRE(f.wait_idle());
    CHECK(versions(f) == before);
    CHECK(f.controller().stats().kubelet->writes == 0);
    CHECK(f.controller().stats().kubelet->unchanged >= 3);
  }
}

TEST_CASE("with a node selector a relabel moves a Node in and out of the kubelet Service", "[e2e][kubelet]") {
  model::KubeletServiceOptions o = kubelet_options();
  o.nodes = model::selector_text::parse_label_selector("node-role.kubernetes.io/worker");
  OperatorFixture f = kubelet_fixture(o);
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-system}\n");
  f.apply_yaml(node("w1", {"InternalIP=10.0.1.1"}, "{node-role.kubernetes.io/worker: \"\"}"));
  f.apply_yaml(node("cp", {"InternalIP=10.0.9.9"}, "{node-role.kubernetes.io/control-plane: \"\"}"));
  f.start_operator();
  require_listed(f, {"10.0.1.1 w1"}, {{"kubelet-ipv4-0", {"10.0.1.1 w1"}}});
  f.apply_yaml(node("cp", {"InternalIP=10.0.9.9"}, "{node-role.kubernetes.io/worker: \"\"}"));
  require_listed(f, {"10.0.1.1 w1", "10.0.9.9 cp"}, {{"kubelet-ipv4-0", {"10.0.1.1 w1", "10.0.9.9 cp"}}});
  f.apply_yaml(node("w1", {"InternalIP=10.0.1.1"}, "{}"));
  require_listed(f, {"10.0.9.9 cp"}, {{"kubelet-ipv4-0", {"10.0.9.9 cp"}}});
}

TEST_CASE("only the leader writes the kubelet Service and a standby takes over its upkeep", "[e2e][kubelet][leader]") {
  OperatorFixture f = kubelet_fixture();
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-system}\n");
  f.apply_yaml(node("n1", {"InternalIP=10.0.0.1"}));
  auto options = [](const std::string& identity) {
    actors::ControllerOptions co;
    co.release_lease_on_stop = false;  // dies: no release
    co.writer.now_rfc3339 = [] { return std::string("2024-05-01T12:00:00Z"); };
    co.kubelet = kubelet_options();
    actors::core::LeaderConfig lc;
    lc.identity = identity;
    lc.lease_duration = std::chrono::milliseconds(2000);
    lc.renew_deadline = std::chrono::milliseconds(1500);
    lc.retry_period = std::chrono::milliseconds(200);
    co.leader = lc;
    return co;
  };
  f.start_operator(options("first"));
  require_listed(f, {"10.0.0.1 n1"}, {{"kubelet-ipv4-0", {"10.0.0.1 n1"}}});
  auto standby = f.start_instance(options("second"));
  f.apply_yaml(node("n2", {"InternalIP=10.0.0.2"}));
  require_listed(f, {"10.0.0.1 n1", "10.0.0.2 n2"}, {{"kubelet-ipv4-0", {"10.0.0.1 n1", "10.0.0.2 n2"}}});
  REQUIRE(standby->controller().wait_idle(std::chrono::seconds(30), std::chrono::milliseconds(300)));
  auto idle = standby->controller().stats().kubelet;
  REQUIRE(idle);
  CHECK_FALSE(idle->leader);
  CHECK(idle->writes == 0);
  CHECK(idle->plans == 0);

  f.stop_operator();  // the leader dies without handing the Lease back
  f.apply_yaml(node("n3", {"InternalIP=10.0.0.3"}));
  bool taken_over = testutil::eventually(
      [&] {
        return endpoints(f) == Strings{"10.0.0.1 n1", "10.0.0.2 n2", "10.0.0.3 n3"};
      },
      std::chrono::seconds(20));
  CHECK(taken_over);
  // The Endpoints can be seen before the slice's write has returned.
  REQUIRE(standby->controller().wait_idle(std::chrono::seconds(30), std::chrono::milliseconds(300)));
  auto after = standby->controller().stats().kubelet;
  CHECK(after->leader);
  CHECK(after->writes == 2);  // the Endpoints and the slice; the Service was already right
}

// The binary with upstream's flag spelling: single dash, `=` or a separate value.
TEST_CASE("agent-operator run -kubelet-service maintains the kubelet Service", "[e2e][kubelet][cli]") {
  OperatorFixture f({.load_examples = false, .start_operator = false});
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-system}\n");
  f.apply_yaml(node("n1", {"InternalIP=10.0.0.1"}));
  testutil::TempDir dir("ao-kubelet");
  std::string kc = dir.write("kubeconfig", f.server().kubeconfig());
  std::string bin = std::string(AO_BIN_DIR) + "/agent-operator";
  for (const Strings& flag :
       {Strings{"-kubelet-service=kube-system/kubelet"}, Strings{"--kubelet-service", "kube-system/kubelet"}}) {
    INFO(flag.at(0));
    if (f.get("Endpoints", kNs, "kubelet")) f.remove("Endpoints", kNs, "kubelet");  // each run creates it
    int port = testutil::unused_port();
    Strings argv{bin, "run", "--kubeconfig", kc, "--listen", "127.0.0.1:" + std::to_string(port)};
    argv.insert(argv.end(), flag.begin(), flag.end());
    k8s::sim::Child op(argv);
    CHECK(testutil::eventually([&] { return endpoints(f) == Strings{"10.0.0.1 n1"}; }));
    httplib::Client http("127.0.0.1", port);
    CHECK(testutil::eventually([&] {
      auto res = http.Get("/metrics");
      return res && res->body.find("agent_operator_kubelet_nodes{state=\"listed\"} 1\n") != std::string::npos &&
             res->body.find("agent_operator_writes_total{action=\"create\",kind=\"Endpoints\"} 1") != std::string::npos;
    }));
    CHECK(op.terminate() == 0);
  }
  // A bad value is a start-up error naming the flag, as upstream's is.
  for (const char* bad :
       {"-kubelet-service=kubelet", "-kubelet-service=kube-system/Kubelet", "--kubelet-selector=role in (a"}) {
    INFO(bad);
    k8s::sim::RunResult r = k8s::sim::run({bin, "run", "--kubeconfig", kc, bad});
    CHECK(r.code == 2);
    std::string flag = std::string(bad).substr(0, std::string(bad).find('='));
    CHECK(r.err.find("agent-operator: " + flag + ": ") == 0);
  }
}
