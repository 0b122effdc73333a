// kubernetes_sd roles endpoints and endpointslice (service and pod labels
// attached, uncovered container ports added) and the incremental index.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <random>

#include "tests/allocation/discovery/fixtures.hpp"

using namespace allocation::discovery;
using discovery_test::Labels;
using discovery_test::object;

namespace {

const std::string P = "__meta_kubernetes_";

const char* kService =
    R"({"kind": "Service", "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
  "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.10", "ports": [{"name": "http", "port": 8080}]}})";

// Container port 8080 has no protocol, so the two roles differ: endpoints
// label it with the endpoint port's protocol, endpointslice with the
// container's (none).
const char* kPod = R"({"kind": "Pod", "metadata": {"name": "web-1", "namespace": "shop", "uid": "u1"},
  "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "img:1",
    "ports": [{"name": "http", "containerPort": 8080}, {"name": "metrics", "containerPort": 9090, "protocol": "TCP"}]}]},
  "status": {"podIP": "10.0.0.5", "hostIP": "192.168.0.1", "phase": "Running",
    "conditions": [{"type": "Ready", "status": "True"}]}})";

const char* kEndpoints =
    R"({"kind": "Endpoints", "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
  "subsets": [{
    "addresses": [{"ip": "10.0.0.5", "nodeName": "n1", "targetRef": {"kind": "Pod", "name": "web-1", "namespace": "shop"}},
                  {"ip": "10.0.0.9", "hostname": "h9"}],
    "notReadyAddresses": [{"ip": "10.0.0.7", "targetRef": {"kind": "Node", "name": "n7"}}],
    "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}]})";

const char* kSlice = R"({"kind": "EndpointSlice", "addressType": "IPv4",
  "metadata": {"name": "web-abc", "namespace": "shop", "labels": {"kubernetes.io/service-name": "web"}},
  "endpoints": [
    {"addresses": ["10.0.0.5"], "conditions": {"ready": true, "serving": true, "terminating": false},
     "nodeName": "n1", "targetRef": {"kind": "Pod", "name": "web-1", "namespace": "shop"},
     "deprecatedTopology": {"topology.kubernetes.io/zone": "z1"}},
    {"addresses": ["10.0.0.9"], "conditions": {"ready": false}, "hostname": "h9"}],
  "ports": [{"name": "http", "port": 8080, "protocol": "TCP", "appProtocol": "http"}]})";

const Labels kPodLabels = {{P + "pod_name", "web-1"},   {P + "pod_ip", "10.0.0.5"},
                           {P + "pod_ready", "true"},   {P + "pod_phase", "Running"},
                           {P + "pod_node_name", "n1"}, {P + "pod_host_ip", "192.168.0.1"},
                           {P + "pod_uid", "u1"}};
const Labels kServiceLabels = {{P + "namespace", "shop"},
                               {P + "service_name", "web"},
                               {P + "service_label_app", "web"},
                               {P + "service_labelpresent_app", "true"}};

Labels with(Labels base, const Labels& more) {
  base.insert(more.begin(), more.end());
  return base;
}

KubernetesSdConfig config(const std::string& yaml_json) {
  return parse_kubernetes_sd_config(model::parse_json(yaml_json), "kubernetes_sd_configs[0]");
}

}  // namespace

TEST_CASE("endpoints role gives address x port targets with service and pod labels", "[discovery]") {
  KubernetesIndex index(config(R"({"role": "endpoints"})"));
  index.apply(Kind::service, Change::added, object(kService));
  index.apply(Kind::pod, Change::added, object(kPod));
  index.apply(Kind::endpoints, Change::added, object(kEndpoints));
  const auto* g = index.group("endpoints/shop/web");
  REQUIRE(g);
  auto flat = discovery_test::flatten(*g);
  CHECK(flat.group == with(kServiceLabels, {{P + "endpoints_name", "web"},
                                            {P + "endpoints_label_app", "web"},
                                            {P + "endpoints_labelpresent_app", "true"}}));
  const std::vector<Labels> want = {
      with(kPodLabels, {{"__address__", "10.0.0.5:8080"},
                        {P + "endpoint_port_name", "http"},
                        {P + "endpoint_port_protocol", "TCP"},
                        {P + "endpoint_ready", "true"},
                        {P + "endpoint_address_target_kind", "Pod"},
                        {P + "endpoint_address_target_name", "web-1"},
                        {P + "endpoint_node_name", "n1"},
                        {P + "pod_container_name", "app"},
                        {P + "pod_container_image", "img:1"},
                        {P + "pod_container_port_name", "http"},
                        {P + "pod_container_port_number", "8080"},
                        {P + "pod_container_port_protocol", "TCP"}}),
      {{"__address__", "10.0.0.9:8080"},
       {P + "endpoint_port_name", "http"},
       {P + "endpoint_port_protocol", "TCP"},
       {P + "endpoint_ready", "true"},
       {P + "endpoint_hostname", "h9"}},
      {{"__address__", "10.0.0.7:8080"},
       {P + "endpoint_port_name", "http"},
       {P + "endpoint_port_protocol", "TCP"},
       {P + "endpoint_ready", "false"},
       {P + "endpoint_address_target_kind", "Node"},
       {P + "endpoint_address_target_name", "n7"}},
      // The pod's port 9090 is not an endpoint port: an extra target.
      with(kPodLabels, {{"__address__", "10.0.0.5:9090"},
                        {P + "pod_container_name", "app"},
                        {P + "pod_container_image", "img:1"},
                        {P + "pod_container_port_name", "metrics"},
                        {P + "pod_container_port_number", "9090"},
                        {P + "pod_container_port_protocol", "TCP"}}),
  };
  CHECK(flat.targets == want);
}

TEST_CASE("endpointslice role gives endpoint x port targets with conditions and topology", "[discovery]") {
  KubernetesIndex index(config(R"({"role": "endpointslice"})"));
  index.apply(Kind::endpointslice, Change::added, object(kSlice));
  index.apply(Kind::pod, Change::added, object(kPod));
  index.apply(Kind::service, Change::added, object(kService));
  const auto* g = index.group("endpointslice/shop/web-abc");
  REQUIRE(g);
  auto flat = discovery_test::flatten(*g);
  CHECK(flat.group == with(kServiceLabels, {{P + "endpointslice_address_type", "IPv4"},
                                            {P + "endpointslice_name", "web-abc"},
                                            {P + "endpointslice_label_kubernetes_io_service_name", "web"},
                                            {P + "endpointslice_labelpresent_kubernetes_io_service_name", "true"}}));
  const Labels port = {{P + "endpointslice_port_name", "http"},
                       {P + "endpointslice_port_protocol", "TCP"},
                       {P + "endpointslice_port", "8080"},
                       {P + "endpointslice_port_app_protocol", "http"}};
  const std::vector<Labels> want = {
      with(with(kPodLabels, port), {{"__address__", "10.0.0.5:8080"},
                                    {P + "endpointslice_endpoint_conditions_ready", "true"},
                                    {P + "endpointslice_endpoint_conditions_serving", "true"},
                                    {P + "endpointslice_endpoint_conditions_terminating", "false"},
                                    {P + "endpointslice_address_target_kind", "Pod"},
                                    {P + "endpointslice_address_target_name", "web-1"},
                                    {P + "endpointslice_endpoint_topology_topology_kubernetes_io_zone", "z1"},
                                    {P + "endpointslice_endpoint_topology_present_topology_kubernetes_io_zone", "true"},
                                    {P + "pod_container_name", "app"},
                                    {P + "pod_container_image", "img:1"},
                                    {P + "pod_container_port_name", "http"},
                                    {P + "pod_container_port_number", "8080"}}),
      with(port, {{"__address__", "10.0.0.9:8080"},
                  {P + "endpointslice_endpoint_conditions_ready", "false"},
                  {P + "endpointslice_endpoint_hostname", "h9"}}),
      with(kPodLabels, {{"__address__", "10.0.0.5:9090"},
                        {P + "pod_container_name", "app"},
                        {P + "pod_container_image", "img:1"},
                        {P + "pod_container_port_name", "metrics"},
                        {P + "pod_container_port_number", "9090"},
                        {P + "pod_container_port_protocol", "TCP"}}),
  };
  CHECK(flat.targets == want);
}

TEST_CASE("kubernetes index rebuilds only the groups that read a changed object", "[discovery]") {
  KubernetesIndex index(config(R"({"role": "endpoints"})"));
  index.apply(Kind::endpoints, Change::added, object(kEndpoints));
  auto other = object(R"({"metadata": {"name": "db", "namespace": "shop"},
    "subsets": [{"addresses": [{"ip": "10.0.1.1"}], "ports": [{"port": 5432}]}]})");
  CHECK(index.apply(Kind::endpoints, Change::added, other) == std::vector<std::string>{"endpoints/shop/db"});
  const auto builds = index.builds();

  // The service and the pod each rebuild the one group that reads them.
  CHECK(index.apply(Kind::service, Change::added, object(kService)) == std::vector<std::string>{"endpoints/shop/web"});
  CHECK(index.apply(Kind::pod, Change::added, object(kPod)) == std::vector<std::string>{"endpoints/shop/web"});
  CHECK(index.builds() == builds + 2);
  CHECK(index.group("endpoints/shop/web")->targets.size() == 4);  // the pod's uncovered port appeared

  // An unrelated pod and a pod of another kind of reference change nothing.
  CHECK(index.apply(Kind::pod, Change::added, object(R"({"metadata": {"name": "x", "namespace": "shop"}})")).empty());
  CHECK(
      index.apply(Kind::ingress, Change::added, object(R"({"metadata": {"name": "i", "namespace": "shop"}})")).empty());
  CHECK(index.builds() == builds + 2);

  // Deleting the pod drops its labels and its extra target.
  CHECK(index.apply(Kind::pod, Change::deleted, object(kPod)) == std::vector<std::string>{"endpoints/shop/web"});
  auto flat = discovery_test::flatten(*index.group("endpoints/shop/web"));
  REQUIRE(flat.targets.size() == 3);
  CHECK(flat.targets[0].count(P + "pod_name") == 0);
  CHECK(index.apply(Kind::endpoints, Change::deleted, object(kEndpoints)) ==
        std::vector<std::string>{"endpoints/shop/web"});
  CHECK(index.group("endpoints/shop/web") == nullptr);
  CHECK(index.groups().size() == 1);
}

TEST_CASE("kubernetes index result does not depend on event order", "[discovery]") {
  std::vector<KindObject> objects = {
      {Kind::endpointslice, object(kSlice)}, {Kind::service, object(kService)}, {Kind::pod, object(kPod)}};
  auto cfg = config(R"({"role": "endpointslice"})");
  auto first = discovery_test::flatten(discover_kubernetes(cfg, objects));
  std::sort(objects.begin(), objects.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  do {
    CHECK(discovery_test::flatten(discover_kubernetes(cfg, objects)) == first);
  } while (std::next_permutation(objects.begin(), objects.end(),
                                 [](const auto& a, const auto& b) { return a.first < b.first; }));
  REQUIRE(first.size() == 1);
  CHECK(first.begin()->second.targets.size() == 3);
  CHECK(first.begin()->second.group.count(P + "service_name") == 1);
}

TEST_CASE("kubernetes index honours namespaces and per-kind selectors", "[discovery]") {
  auto cfg = config(R"json({"role": "endpoints", "namespaces": {"names": ["shop"]},
    "selectors": [{"role": "service", "label": "app in (web, api)"},
                  {"role": "pod", "field": "status.phase=Running"},
                  {"role": "endpoints", "label": "app"}]})json");
  KubernetesIndex index(cfg);
  index.apply(Kind::endpoints, Change::added, object(kEndpoints));
  index.apply(Kind::service, Change::added, object(kService));
  index.apply(Kind::pod, Change::added, object(kPod));
  auto flat = discovery_test::flatten(*index.group("endpoints/shop/web"));
  CHECK(flat.group.count(P + "service_name") == 1);
  CHECK(flat.targets.size() == 4);

  // A pod that stops matching its selector counts as deleted.
  auto failed = std::make_shared<model::Value>(*object(kPod));
  failed->find("status")->set("phase", "Failed");
  index.apply(Kind::pod, Change::modified, failed);
  CHECK(index.group("endpoints/shop/web")->targets.size() == 3);

  // Endpoints outside the namespaces or without the label are not seen.
  auto elsewhere = std::make_shared<model::Value>(*object(kEndpoints));
  elsewhere->find("metadata")->set("namespace", "other");
  CHECK(index.apply(Kind::endpoints, Change::added, elsewhere).empty());
  auto unlabelled = std::make_shared<model::Value>(*object(kEndpoints));
  unlabelled->find("metadata")->erase("labels");
  CHECK(index.apply(Kind::endpoints, Change::modified, unlabelled) == std::vector<std::string>{"endpoints/shop/web"});
  CHECK(index.groups().empty());

  auto specs = watch_specs(cfg);
  REQUIRE(specs.size() == 3);
  CHECK(specs[0].kind == Kind::endpoints);
  CHECK(specs[0].ns == "shop");
  CHECK(specs[0].label_selector == "app");
  CHECK(specs[1].label_selector == "app in (web, api)");
  CHECK(specs[2].field_selector == "status.phase=Running");
}

TEST_CASE("kubernetes index matches a full rebuild after every event of a random sequence", "[discovery]") {
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto pod = [&](int i) {
    return object(
        R"({"metadata": {"name": "p)" + std::to_string(i) + R"(", "namespace": "ns", "labels": {"v": ")" +
        std::to_string(pick(3)) + R"("}}, "spec": {"containers": [{"name": "c", "ports": [{"containerPort": )" +
        std::to_string(8080 + pick(2)) + R"(}]}]}, "status": {"podIP": "10.0.0.)" + std::to_string(i) + R"("}})");
  };
  auto service = [&](int i) {
    return object(R"({"metadata": {"name": "s)" + std::to_string(i) + R"(", "namespace": "ns", "labels": {"v": ")" +
                  std::to_string(pick(3)) + R"("}}})");
  };
  auto address = [&] {
    const int p = pick(5);
    return R"({"ip": "10.0.0.)" + std::to_string(p) + R"(", "targetRef": {"kind": "Pod", "name": "p)" +
           std::to_string(p) + R"(", "namespace": "ns"}})";
  };
  auto endpoints = [&](int i) {
    return object(R"({"metadata": {"name": "s)" + std::to_string(i) + R"(", "namespace": "ns"},
      "subsets": [{"addresses": [)" +
                  address() + "," + address() + R"(], "ports": [{"port": 8080}]}]})");
  };
  auto slice = [&](int i) {
    return object(R"({"metadata": {"name": "s)" + std::to_string(i) + R"(-x", "namespace": "ns",
      "labels": {"kubernetes.io/service-name": "s)" +
                  std::to_string(pick(3)) + R"("}}, "addressType": "IPv4",
      "endpoints": [{"addresses": ["10.0.0.1"], "targetRef": {"kind": "Pod", "name": "p)" +
                  std::to_string(pick(5)) + R"(", "namespace": "ns"}}], "ports": [{"port": 8080}]})");
  };
  for (const char* role : {"endpoints", "endpointslice"}) {
    auto cfg = config(std::string(R"({"role": ")") + role + R"(", "selectors": [{"role": "pod", "label": "v!=2"}]})");
    const Kind primary = std::string(role) == "endpoints" ? Kind::endpoints : Kind::endpointslice;
    KubernetesIndex index(cfg);
    std::map<std::pair<Kind, int>, ObjectPtr> live;
    for (int step = 0; step < 400; ++step) {
      const Kind kind = std::array{Kind::pod, Kind::service, primary}[pick(3)];
      const int i = pick(kind == Kind::pod ? 5 : 3);
      const auto key = std::make_pair(kind, i);
      if (pick(4) == 0 && live.count(key)) {
        index.apply(kind, Change::deleted, live[key]);
        live.erase(key);
      } else {
        auto obj = kind == Kind::pod            ? pod(i)
                   : kind == Kind::service      ? service(i)
                   : primary == Kind::endpoints ? endpoints(i)
                                                : slice(i);
        index.apply(kind, live.count(key) ? Change::modified : Change::added, obj);
        live[key] = obj;
      }
      std::vector<KindObject> objects;
      for (const auto& [k, obj] : live) objects.emplace_back(k.first, obj);
      INFO(role << " step " << step);
      REQUIRE(discovery_test::flatten(index.groups()) == discovery_test::flatten(discover_kubernetes(cfg, objects)));
    }
    CHECK(index.builds() <= 400 * 3);  // an event rebuilds at most the 3 groups that can read it
  }
}
