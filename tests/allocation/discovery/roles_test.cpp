// kubernetes_sd roles pod, service and ingress: object JSON in, exact label
// sets out (Prometheus 2.51's labels), plus label-name sanitising.
#include <catch2/catch.hpp>

#include "allocation/discovery/kubernetes_roles.hpp"
#include "allocation/discovery/meta.hpp"
#include "tests/allocation/discovery/fixtures.hpp"

using namespace allocation::discovery;
using discovery_test::Labels;

namespace {

const char* kRolePod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web-1", "namespace": "shop", "uid": "uid-1",
    "labels": {"app.kubernetes.io/name": "web", "tier": "front"},
    "annotations": {"prometheus.io/scrape": "true"},
    "ownerReferences": [{"kind": "Node", "name": "n0"},
                        {"kind": "ReplicaSet", "name": "web-abc", "controller": true}]},
  "spec": {"nodeName": "node-1",
    "containers": [
      {"name": "app", "image": "img:1", "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"},
                                                  {"containerPort": 9090, "protocol": "UDP"}]},
      {"name": "sidecar", "image": "img:2"}],
    "initContainers": [{"name": "init", "image": "busybox"}]},
  "status": {"phase": "Running", "podIP": "10.0.0.5", "hostIP": "192.168.1.1",
    "conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "False"}],
    "containerStatuses": [{"name": "app", "containerID": "containerd://abc"}],
    "initContainerStatuses": [{"name": "init", "containerID": "containerd://i1"}]}
})";

const std::string P = "__meta_kubernetes_";

}  // namespace

TEST_CASE("sanitize_label_name replaces each invalid character by one underscore", "[discovery]") {
  struct Row {
    std::string in, out;
  };
  const std::vector<Row> rows = {
      {"app.kubernetes.io/name", "app_kubernetes_io_name"},
      {"a-b c", "a_b_c"},
      {"9lives", "9lives"},                // a leading digit is kept, as upstream
      {"\xc3\xbcml\xc3\xa4ut", "_ml_ut"},  // two-byte characters
      {"\xe5\x90\x8d", "_"},               // one three-byte character
      {"x\xf0\x9f\x98\x80y", "x_y"},       // one four-byte character
      {"\xff", "_"},                       // an invalid byte
      {"\xe5\x90", "__"},                  // a truncated sequence: one per byte
      {"\xed\xa0\x80", "___"},             // an encoded surrogate is invalid
      {"", ""},
  };
  for (const auto& r : rows) CHECK(sanitize_label_name(r.in) == r.out);
}

TEST_CASE("join_host_port brackets IPv6 hosts", "[discovery]") {
  CHECK(join_host_port("10.0.0.1", "80") == "10.0.0.1:80");
  CHECK(join_host_port("fd00::1", "80") == "[fd00::1]:80");
}

TEST_CASE("pod role gives one target per container port and per portless container", "[discovery]") {
  auto pod = discovery_test::object(kRolePod);
  CHECK(group_source(Role::pod, *pod) == "pod/shop/web-1");
  auto flat = discovery_test::flatten(build_pod_group(*pod));
  const Labels group = {
      {P + "namespace", "shop"},
      {P + "pod_name", "web-1"},
      {P + "pod_ip", "10.0.0.5"},
      {P + "pod_ready", "false"},
      {P + "pod_phase", "Running"},
      {P + "pod_node_name", "node-1"},
      {P + "pod_host_ip", "192.168.1.1"},
      {P + "pod_uid", "uid-1"},
      {P + "pod_label_app_kubernetes_io_name", "web"},
      {P + "pod_labelpresent_app_kubernetes_io_name", "true"},
      {P + "pod_label_tier", "front"},
      {P + "pod_labelpresent_tier", "true"},
      {P + "pod_annotation_prometheus_io_scrape", "true"},
      {P + "pod_annotationpresent_prometheus_io_scrape", "true"},
      {P + "pod_controller_kind", "ReplicaSet"},
      {P + "pod_controller_name", "web-abc"},
  };
  CHECK(flat.group == group);
  const std::vector<Labels> targets = {
      {{"__address__", "10.0.0.5:8080"},
       {P + "pod_container_name", "app"},
       {P + "pod_container_id", "containerd://abc"},
       {P + "pod_container_image", "img:1"},
       {P + "pod_container_init", "false"},
       {P + "pod_container_port_name", "http"},
       {P + "pod_container_port_number", "8080"},
       {P + "pod_container_port_protocol", "TCP"}},
      {{"__address__", "10.0.0.5:9090"},
       {P + "pod_container_name", "app"},
       {P + "pod_container_id", "containerd://abc"},
       {P + "pod_container_image", "img:1"},
       {P + "pod_container_init", "false"},
       {P + "pod_container_port_number", "9090"},
       {P + "pod_container_port_protocol", "UDP"}},
      {{"__address__", "10.0.0.5"},
       {P + "pod_container_name", "sidecar"},
       {P + "pod_container_image", "img:2"},
       {P + "pod_container_init", "false"}},
      {{"__address__", "10.0.0.5"},
       {P + "pod_container_name", "init"},
       {P + "pod_container_id", "containerd://i1"},
       {P + "pod_container_image", "busybox"},
       {P + "pod_container_init", "true"}},
  };
  REQUIRE(flat.targets.size() == targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) CHECK(flat.targets[i] == targets[i]);
}

TEST_CASE("pod role: no IP gives an empty group and a missing Ready condition reads unknown", "[discovery]") {
  auto starting = discovery_test::object(
      R"({"metadata": {"name": "p", "namespace": "n"}, "spec": {"containers": [{"name": "c"}]}, "status": {}})");
  auto g = build_pod_group(*starting);
  CHECK(g.targets.empty());
  CHECK(g.labels == nullptr);
  auto v6 = discovery_test::object(R"({"metadata": {"name": "p", "namespace": "n"},
    "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}, "status": {"podIP": "fd00::5"}})");
  auto flat = discovery_test::flatten(build_pod_group(*v6));
  CHECK(flat.group ==
        Labels{{P + "namespace", "n"}, {P + "pod_name", "p"}, {P + "pod_ip", "fd00::5"}, {P + "pod_ready", "unknown"}});
  REQUIRE(flat.targets.size() == 1);
  CHECK(flat.targets[0] == Labels{{"__address__", "[fd00::5]:80"},
                                  {P + "pod_container_name", "c"},
                                  {P + "pod_container_init", "false"},
                                  {P + "pod_container_port_number", "80"}});
}

TEST_CASE("service role gives one target per port at name.namespace.svc", "[discovery]") {
  struct Row {
    const char* json;
    Labels target;  // the first port's target labels
  };
  const std::vector<Row> rows = {
      {R"({"metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
          "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.10",
                   "ports": [{"name": "http", "port": 80, "protocol": "TCP"}, {"port": 443, "protocol": "TCP"}]}})",
       {{"__address__", "web.shop.svc:80"},
        {P + "service_port_name", "http"},
        {P + "service_port_number", "80"},
        {P + "service_port_protocol", "TCP"},
        {P + "service_type", "ClusterIP"},
        {P + "service_cluster_ip", "10.96.0.10"}}},
      {R"({"metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
          "spec": {"type": "ExternalName", "externalName": "db.example.com", "clusterIP": "x",
                   "ports": [{"port": 5432, "protocol": "TCP"}, {"port": 1}]}})",
       {{"__address__", "web.shop.svc:5432"},
        {P + "service_port_number", "5432"},
        {P + "service_port_protocol", "TCP"},
        {P + "service_type", "ExternalName"},
        {P + "service_external_name", "db.example.com"}}},
      {R"({"metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
          "spec": {"type": "LoadBalancer", "clusterIP": "10.96.0.11", "loadBalancerIP": "1.2.3.4",
                   "ports": [{"name": "https", "port": 443, "protocol": "TCP"}, {"port": 2}]}})",
       {{"__address__", "web.shop.svc:443"},
        {P + "service_port_name", "https"},
        {P + "service_port_number", "443"},
        {P + "service_port_protocol", "TCP"},
        {P + "service_type", "LoadBalancer"},
        {P + "service_cluster_ip", "10.96.0.11"},
        {P + "service_loadbalancer_ip", "1.2.3.4"}}},
  };
  for (const auto& row : rows) {
    auto svc = discovery_test::object(row.json);
    auto flat = discovery_test::flatten(build_service_group(*svc));
    CHECK(flat.group == Labels{{P + "namespace", "shop"},
                               {P + "service_name", "web"},
                               {P + "service_label_app", "web"},
                               {P + "service_labelpresent_app", "true"}});
    REQUIRE(flat.targets.size() == 2);
    CHECK(flat.targets[0] == row.target);
  }
}

TEST_CASE("ingress role gives one target per rule and path with its scheme", "[discovery]") {
  auto ing = discovery_test::object(R"({
    "metadata": {"name": "shop", "namespace": "web", "annotations": {"kubernetes.io/ingress.class": "nginx"}},
    "spec": {"ingressClassName": "nginx", "tls": [{"hosts": ["*.example.com"]}],
      "rules": [
        {"host": "a.example.com", "http": {"paths": [{"path": "/api"}, {"path": ""}]}},
        {"host": "b.a.example.com"},
        {"host": "other.org", "http": {"paths": []}}]}})");
  auto flat = discovery_test::flatten(build_ingress_group(*ing));
  CHECK(flat.group == Labels{{P + "namespace", "web"},
                             {P + "ingress_name", "shop"},
                             {P + "ingress_class_name", "nginx"},
                             {P + "ingress_annotation_kubernetes_io_ingress_class", "nginx"},
                             {P + "ingress_annotationpresent_kubernetes_io_ingress_class", "true"}});
  auto target = [](const char* host, const char* scheme, const char* path) {
    return Labels{
        {"__address__", host}, {P + "ingress_host", host}, {P + "ingress_scheme", scheme}, {P + "ingress_path", path}};
  };
  const std::vector<Labels> want = {target("a.example.com", "https", "/api"), target("a.example.com", "https", "/"),
                                    target("b.a.example.com", "http", "/")};
  CHECK(flat.targets == want);
}
