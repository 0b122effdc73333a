// deploy/examples ships the agents' ServiceAccount, ClusterRole and
// ClusterRoleBinding: every workload rendered from the examples runs as a
// ServiceAccount the examples create, bound to a ClusterRole that lets it
// list and watch what its kubernetes_sd_configs roles discover. Without the
// ServiceAccount the workload controllers create no pods; without the
// rules the agents discover nothing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <tuple>

#include "golden_util.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"

using model::Value;

namespace {

using Grant = std::tuple<std::string, std::string, std::string>;  // apiGroup, resource, verb

std::string string_or_empty(const Value* v) {
  return v && v->is_string() ? v->as_string() : "";
}

std::vector<Value> example_objects() {
  std::vector<Value> out;
  for (const auto& file : testutil::yaml_files(testutil::source_path("deploy/examples")))
    for (auto& doc : model::parse_documents(testutil::read_text(file), file))
      if (doc.value.is_object()) out.push_back(std::move(doc.value));
  return out;
}

const Value* find_object(const std::vector<Value>& objects, const std::string& kind, const std::string& ns,
                         const std::string& name) {
  for (const Value& o : objects)
    if (string_or_empty(o.find("kind")) == kind && model::meta_string(o, "name") == name &&
        model::meta_string(o, "namespace") == ns)
      return &o;
  return nullptr;
}

// What the ClusterRoles bound to ServiceAccount ns/name grant.
std::set<Grant> granted_to(const std::vector<Value>& objects, const std::string& ns, const std::string& name) {
  std::set<Grant> out;
  for (const Value& b : objects) {
    if (string_or_empty(b.find("kind")) != "ClusterRoleBinding") continue;
    bool bound = false;
    for (const Value& s : b.find("subjects")->as_array())
      bound = bound || (string_or_empty(s.find("kind")) == "ServiceAccount" &&
                        string_or_empty(s.find("name")) == name && string_or_empty(s.find("namespace")) == ns);
    const Value* role = find_object(objects, "ClusterRole", "", model::string_at(b, {"roleRef", "name"}));
    if (!bound || !role) continue;
    for (const Value& rule : role->find("rules")->as_array()) {
      if (!rule.find("apiGroups")) continue;  // nonResourceURLs
      for (const Value& g : rule.find("apiGroups")->as_array())
        for (const Value& r : rule.find("resources")->as_array())
          for (const Value& v : rule.find("verbs")->as_array())
            out.emplace(g.as_string(), r.as_string(), v.as_string());
    }
  }
  return out;
}

// Every kubernetes_sd_configs role anywhere in a rendered agent.yml.
void collect_roles(const Value& v, std::set<std::string>& roles) {
  if (v.is_array()) {
    for (const Value& item : v.as_array()) collect_roles(item, roles);
    return;
  }
  if (!v.is_object()) return;
  for (const auto& [key, child] : v.as_object()) {
    if (key == "kubernetes_sd_configs" && child.is_array())
      for (const Value& sd : child.as_array()) roles.insert(string_or_empty(sd.find("role")));
    collect_roles(child, roles);
  }
}

// The resources Prometheus's kubernetes_sd lists and watches for a role.
std::vector<std::pair<std::string, std::string>> resources_of(const std::string& role) {
  if (role == "pod") return {{"", "pods"}};
  if (role == "service") return {{"", "services"}};
  if (role == "node") return {{"", "nodes"}};
  if (role == "ingress") return {{"networking.k8s.io", "ingresses"}};
  if (role == "endpoints") return {{"", "endpoints"}, {"", "services"}, {"", "pods"}};
  if (role == "endpointslice") return {{"discovery.k8s.io", "endpointslices"}, {"", "services"}, {"", "pods"}};
  FAIL("unknown kubernetes_sd role " << role);
  return {};
}

}  // namespace

TEST_CASE("the example agents run as a ServiceAccount whose RBAC covers their discovery", "[examples][rbac]") {
  std::vector<Value> objects = example_objects();
  model::Inventory inv;
  for (const Value& o : objects) inv.add(o);
  std::size_t workloads = 0;
  std::set<std::string> roles;
  for (const auto& [key, agent] : inv.agents) {
    model::AgentRender r = model::render_agent(inv, agent.obj, model::RenderOptions{});
    for (const auto& [secret, config] : r.configs) collect_roles(config, roles);
    for (const Value& o : r.objects) {
      std::string kind = string_or_empty(o.find("kind"));
      if (kind != "StatefulSet" && kind != "DaemonSet" && kind != "Deployment") continue;
      ++workloads;
      std::string ns = model::meta_string(o, "namespace");
      std::string sa = model::string_at(o, {"spec", "template", "spec", "serviceAccountName"});
      INFO(kind << " " << ns << "/" << model::meta_string(o, "name") << " runs as " << sa);
      REQUIRE(!sa.empty());
      CHECK(find_object(objects, "ServiceAccount", ns, sa));
      std::set<Grant> grants = granted_to(objects, ns, sa);
      CHECK(!grants.empty());
      for (const std::string& role : roles)
        for (const auto& [group, resource] : resources_of(role))
          for (const char* verb : {"list", "watch"}) {
            INFO("kubernetes_sd role " << role << " needs " << (group.empty() ? "core" : group) << "/" << resource
                                       << " " << verb);
            CHECK(grants.count({group, resource, verb}));
          }
    }
  }
  // Metrics shards, the logs DaemonSet and both integrations workloads.
  CHECK(workloads >= 4);
  // ServiceMonitors, PodMonitors and PodLogs at least.
  CHECK(roles.count("endpoints"));
  CHECK(roles.count("pod"));
}
