// model/kubelet.hpp: the kubelet Service, Endpoints and EndpointSlices as a
// pure function of the Nodes (address choice, order, slices, skipped Nodes,
// the -kubelet-service value).
#include <catch2/catch.hpp>

#include <algorithm>

#include "model/kubelet.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

using model::Value;

namespace {

// A Node with these status.addresses ("Type=address" each).
Value node(const std::string& name, std::vector<std::string> addresses, const std::string& labels = "{}") {
  std::string yaml = "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + ", uid: uid-" + name +
                     ", labels: " + labels + "}\nstatus:\n  addresses:\n";
  if (addresses.empty()) yaml += "  - {type: Hostname, address: " + name + "}\n";
  for (const auto& a : addresses) {
    std::size_t eq = a.find('=');
    yaml += "  - {type: " + a.substr(0, eq) + ", address: \"" + a.substr(eq + 1) + "\"}\n";
  }
  return model::parse_documents(yaml, "node").at(0).value;
}

model::KubeletServiceOptions options() {
  model::KubeletServiceOptions o;
  o.ns = "kube-system";
  o.name = "kubelet";
  return o;
}

std::string str(const Value& v, std::initializer_list<std::string_view> path) {
  return model::string_at(v, path);
}

// "ip node" per Endpoints address, in order.
std::vector<std::string> endpoint_addresses(const Value& eps) {
  std::vector<std::string> out;
  const Value* subsets = eps.find("subsets");
  for (const Value& s : subsets->as_array())
    for (const Value& a : s.find("addresses")->as_array())
      out.push_back(str(a, {"ip"}) + " " + str(a, {"targetRef", "name"}));
  return out;
}

}  // namespace

TEST_CASE("the kubelet Service is headless with upstream's port names and labels", "[kubelet]") {
  model::KubeletServiceOptions o = options();
  o.operator_labels = {{"team", "infra"}, {"k8s-app", "theirs"}};
  auto objs = model::render_kubelet_objects(o, {node("a", {"InternalIP=10.0.0.1"})});
  const Value& svc = objs.service;
  CHECK(str(svc, {"metadata", "namespace"}) == "kube-system");
  CHECK(str(svc, {"metadata", "name"}) == "kubelet");
  CHECK(str(svc, {"spec", "clusterIP"}) == "None");
  CHECK(
      model::to_json(*svc.find("spec")->find("ports")) ==
      R"([{"name":"https-metrics","port":10250},{"name":"http-metrics","port":10255},{"name":"cadvisor","port":4194}])");
  for (const Value* v : {&objs.service, &objs.endpoints, &objs.endpoint_slices.at(0)}) {
    CHECK(str(*v, {"metadata", "labels", "k8s-app"}) == "kubelet");  // ours win over -labels
    CHECK(str(*v, {"metadata", "labels", "app.kubernetes.io/name"}) == "kubelet");
    CHECK(str(*v, {"metadata", "labels", "app.kubernetes.io/managed-by"}) == "grafana-agent-operator");
    CHECK(str(*v, {"metadata", "labels", "team"}) == "infra");
  }
  CHECK(str(objs.endpoints, {"metadata", "labels", "endpointslice.kubernetes.io/skip-mirror"}) == "true");
}

TEST_CASE("each Node contributes its first InternalIP, else its first ExternalIP", "[kubelet]") {
  std::vector<Value> nodes = {
      node("c", {"ExternalIP=10.24.0.12", "InternalIP=10.0.0.12", "InternalIP=10.0.0.13"}),
      node("b", {"Hostname=b", "ExternalIP=10.24.0.11", "ExternalIP=10.24.0.99"}),
      node("a", {"InternalIP=10.0.0.10"}),
  };
  auto objs = model::render_kubelet_objects(options(), nodes);
  CHECK(objs.problems.empty());
  CHECK(endpoint_addresses(objs.endpoints) == std::vector<std::string>{"10.0.0.10 a", "10.0.0.12 c", "10.24.0.11 b"});
  const Value& first = objs.endpoints.find("subsets")->as_array().at(0).find("addresses")->as_array().at(0);
  CHECK(model::to_json(first) ==
        R"({"ip":"10.0.0.10","nodeName":"a","targetRef":{"kind":"Node","name":"a","uid":"uid-a"}})");
  CHECK(model::to_json(*objs.endpoints.find("subsets")->as_array().at(0).find("ports")) ==
        R"([{"name":"https-metrics","port":10250,"protocol":"TCP"},{"name":"http-metrics","port":10255,)"
        R"("protocol":"TCP"},{"name":"cadvisor","port":4194,"protocol":"TCP"}])");
}

TEST_CASE("the output does not depend on the order Nodes were seen in", "[kubelet]") {
  std::vector<Value> nodes = {node("n1", {"InternalIP=10.0.0.3"}), node("n2", {"InternalIP=10.0.0.1"}),
                              node("n3", {"InternalIP=fd00::2"}), node("n4", {"InternalIP=10.0.0.1"}), node("bad", {})};
  std::vector<Value> reversed(nodes.rbegin(), nodes.rend());
  auto a = model::render_kubelet_objects(options(), nodes);
  auto b = model::render_kubelet_objects(options(), reversed);
  std::vector<Value> all_a = a.all(), all_b = b.all();
  REQUIRE(all_a.size() == all_b.size());
  for (std::size_t i = 0; i < all_a.size(); ++i) CHECK(model::to_json(all_a[i]) == model::to_json(all_b[i]));
  // Two Nodes may share an address: both are listed, by Node name.
  CHECK(endpoint_addresses(a.endpoints) ==
        std::vector<std::string>{"10.0.0.1 n2", "10.0.0.1 n4", "10.0.0.3 n1", "fd00::2 n3"});
}

TEST_CASE("a Node without a usable address is skipped with a Problem naming it", "[kubelet]") {
  std::vector<Value> nodes = {node("good", {"InternalIP=10.0.0.1"}), node("none", {}),
                              node("garbage", {"InternalIP=10.0.0.256", "ExternalIP=1.2.3.4"}),
                              node("mapped", {"InternalIP=::ffff:10.0.0.9"})};
  auto objs = model::render_kubelet_objects(options(), nodes);
  CHECK(endpoint_addresses(objs.endpoints) == std::vector<std::string>{"10.0.0.1 good"});
  std::vector<std::string> problems;
  for (const auto& p : objs.problems) problems.push_back(p.str());
  CHECK(problems ==
        std::vector<std::string>{
            "Node garbage: status.addresses[0].address: \"10.0.0.256\" is not an IP address; the Node is left out of "
            "the kubelet Service",
            "Node mapped: status.addresses[0].address: \"::ffff:10.0.0.9\" is an IPv4-mapped IPv6 address, which "
            "EndpointSlices do not accept; the Node is left out of the kubelet Service",
            "Node none: status.addresses: no InternalIP or ExternalIP address; the Node is left out of the kubelet "
            "Service"});
}

TEST_CASE("no Nodes: the Endpoints have no subset and there is no slice", "[kubelet]") {
  auto objs = model::render_kubelet_objects(options(), {node("none", {})});
  CHECK(objs.endpoints.find("subsets")->size() == 0);
  CHECK(objs.endpoint_slices.empty());
  CHECK(objs.all().size() == 2);
}

TEST_CASE("EndpointSlices: one per address family, named after the Service", "[kubelet]") {
  auto objs =
      model::render_kubelet_objects(options(), {node("v6", {"InternalIP=fd00::1"}), node("v4", {"InternalIP=10.0.0.1"}),
                                                node("dual", {"InternalIP=fd00::2", "InternalIP=10.0.0.2"})});
  REQUIRE(objs.endpoint_slices.size() == 2);
  const Value& v4 = objs.endpoint_slices[0];
  const Value& v6 = objs.endpoint_slices[1];
  CHECK(str(v4, {"metadata", "name"}) == "kubelet-ipv4-0");
  CHECK(str(v4, {"addressType"}) == "IPv4");
  CHECK(str(v6, {"metadata", "name"}) == "kubelet-ipv6-0");
  CHECK(str(v6, {"addressType"}) == "IPv6");
  CHECK(str(v4, {"metadata", "labels", "kubernetes.io/service-name"}) == "kubelet");
  CHECK(str(v4, {"metadata", "labels", "endpointslice.kubernetes.io/managed-by"}) == "grafana-agent-operator");
  CHECK(model::to_json(*v4.find("endpoints")) ==
        R"([{"addresses":["10.0.0.1"],"conditions":{"ready":true},"nodeName":"v4","targetRef":{"kind":"Node",)"
        R"("name":"v4","uid":"uid-v4"}}])");
  // "dual" lists its first InternalIP (IPv6) only.
  CHECK(v6.find("endpoints")->size() == 2);
  CHECK(str(v6.find("ports")->as_array().at(2), {"name"}) == "cadvisor");
}

TEST_CASE("more Nodes than a slice holds fill numbered slices in address order", "[kubelet]") {
  std::vector<Value> nodes;
  for (int i = 0; i < 1100; ++i)
    nodes.push_back(
        node("n" + std::to_string(i), {"InternalIP=10.1." + std::to_string(i / 256) + "." + std::to_string(i % 256)}));
  auto objs = model::render_kubelet_objects(options(), nodes);
  REQUIRE(objs.endpoint_slices.size() == 3);
  std::vector<std::size_t> sizes;
  for (const Value& s : objs.endpoint_slices) sizes.push_back(s.find("endpoints")->size());
  CHECK(sizes == std::vector<std::size_t>{model::kMaxEndpointsPerSlice, model::kMaxEndpointsPerSlice, 76});
  CHECK(str(objs.endpoint_slices[2], {"metadata", "name"}) == "kubelet-ipv4-2");
  std::string last_of_first = str(objs.endpoint_slices[0].find("endpoints")->as_array().back(), {"nodeName"});
  std::string first_of_second = str(objs.endpoint_slices[1].find("endpoints")->as_array().front(), {"nodeName"});
  CHECK(objs.addresses[511].node == last_of_first);
  CHECK(objs.addresses[512].node == first_of_second);
}

TEST_CASE("a node selector leaves other Nodes out, without a Problem", "[kubelet]") {
  model::KubeletServiceOptions o = options();
  o.nodes = model::selector_text::parse_label_selector("pool=metrics");
  auto objs =
      model::render_kubelet_objects(o, {node("in", {"InternalIP=10.0.0.1"}, "{pool: metrics}"),
                                        node("out", {"InternalIP=10.0.0.2"}, "{pool: x}"), node("out-bad", {}, "{}")});
  CHECK(endpoint_addresses(objs.endpoints) == std::vector<std::string>{"10.0.0.1 in"});
  CHECK(objs.problems.empty());
}

TEST_CASE("the kubelet-service flag wants NAMESPACE/NAME", "[kubelet][cli]") {
  CHECK(model::parse_kubelet_service("kube-system/kubelet") == model::Key{"kube-system", "kubelet"});
  for (const char* bad : {"kubelet", "/kubelet", "kube-system/", "a/b/c", ""})
    CHECK_THROWS_WITH(model::parse_kubelet_service(bad),
                      "-kubelet-service: want NAMESPACE/NAME, got \"" + std::string(bad) + "\"");
  CHECK_THROWS_WITH(model::parse_kubelet_service("Kube/kubelet"),
                    Catch::StartsWith("-kubelet-service: namespace \"Kube\""));
  CHECK_THROWS_WITH(model::parse_kubelet_service("default/1kubelet"),
                    "-kubelet-service: Service name \"1kubelet\": a Service name must start with a letter");
}

TEST_CASE("which objects are the kubelet controller's", "[kubelet]") {
  model::KubeletServiceOptions o = options();
  auto objs = model::render_kubelet_objects(o, {node("a", {"InternalIP=10.0.0.1"})});
  for (const Value& v : objs.all()) CHECK(model::is_kubelet_object(o, str(v, {"kind"}), v));
  Value other = objs.endpoints;
  other.find("metadata")->set("name", "other");
  CHECK_FALSE(model::is_kubelet_object(o, "Endpoints", other));
  Value elsewhere = objs.service;
  elsewhere.find("metadata")->set("namespace", "default");
  CHECK_FALSE(model::is_kubelet_object(o, "Service", elsewhere));
  // A slice another controller made for the same Service is not ours.
  Value foreign = objs.endpoint_slices.at(0);
  foreign.find("metadata")->find("labels")->set("app.kubernetes.io/managed-by", "prometheus-operator");
  CHECK_FALSE(model::is_kubelet_object(o, "EndpointSlice", foreign));
}

TEST_CASE("trim_node keeps what the kubelet controller reads", "[kubelet]") {
  Value n = node("a", {"InternalIP=10.0.0.1"}, "{zone: z1}");
  n.find("metadata")->set("resourceVersion", "42");
  n.find("status")->set("images", Value::arr({Value::obj({{"names", Value::arr({"big"})}})}));
  n.set("spec", Value::obj({{"podCIDR", "10.244.0.0/24"}}));
  CHECK(model::to_json(model::trim_node(n)) ==
        R"({"apiVersion":"v1","kind":"Node","metadata":{"labels":{"zone":"z1"},"name":"a","resourceVersion":"42",)"
        R"("uid":"uid-a"},"status":{"addresses":[{"address":"10.0.0.1","type":"InternalIP"}]}})");
}
