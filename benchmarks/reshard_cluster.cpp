#include "reshard_cluster.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "allocation/filter.hpp"
#include "model/inventory.hpp"
#include "model/render.hpp"
#include "model/workload_options.hpp"

namespace reshard_bench {

using allocation::discovery::Kind;
using model::Value;

namespace {

// Uneven jobs, as in a shop: {job, namespaces it runs in, pods per Service,
// metrics port name, port}. At 10,000 targets the pods add up exactly.
struct JobShape {
  const char* name;
  std::size_t namespaces, pods;
  const char* port_name;
  int port;
};
constexpr JobShape kJobs[] = {
    {"frontend", 6, 400, "http-metrics", 8080}, {"checkout", 4, 500, "http-metrics", 8080},
    {"payments", 3, 300, "metrics", 9090},      {"search", 5, 350, "http-metrics", 8080},
    {"inventory", 2, 450, "metrics", 9090},     {"auth", 4, 200, "http-metrics", 8081},
    {"cache", 5, 250, "redis-exporter", 9121},
};
constexpr std::size_t kCells = 6;  // namespaces cell-0 .. cell-5

// splitmix64: a fixed sequence, so the cluster is the same every run.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Kubernetes' generated-name alphabet (no vowels, no look-alikes).
  std::string word(std::size_t n) {
    static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += kAlphabet[next() % (sizeof kAlphabet - 1)];
    return out;
  }
  std::string uid() {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 32; ++i) {
      if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
      out += kHex[next() % 16];
    }
    return out;
  }
};

// Nodes ip-10-0-A-B with pod CIDR 10.(64 + n / 256).(n % 256).0/24.
struct Nodes {
  std::vector<int> used;
  std::string name(std::size_t n) const {
    return "ip-10-0-" + std::to_string(n / 256) + "-" + std::to_string(n % 256) + ".eu-west-1.compute.internal";
  }
  std::string host_ip(std::size_t n) const { return "10.0." + std::to_string(n / 256) + "." + std::to_string(n % 256); }
  // A free pod IP on node n (or the next node with room).
  std::string pod_ip(std::size_t& n) {
    while (used[n] >= 250) n = (n + 1) % used.size();
    return "10." + std::to_string(64 + n / 256) + "." + std::to_string(n % 256) + "." + std::to_string(2 + used[n]++);
  }
};

Value app_labels(const JobShape& job) {
  return Value::obj({{"app.kubernetes.io/name", job.name}, {"app.kubernetes.io/part-of", "shop"}});
}

Value service(const JobShape& job, const std::string& ns, int index) {
  Value port =
      Value::obj({{"name", job.port_name}, {"port", job.port}, {"targetPort", job.port_name}, {"protocol", "TCP"}});
  return Value::obj({{"apiVersion", "v1"},
                     {"kind", "Service"},
                     {"metadata", Value::obj({{"name", job.name}, {"namespace", ns}, {"labels", app_labels(job)}})},
                     {"spec", Value::obj({{"type", "ClusterIP"},
                                          {"clusterIP", "172.20." + std::to_string(index / 250) + "." +
                                                            std::to_string(1 + index % 250)},
                                          {"ports", Value::arr({port})},
                                          {"selector", Value::obj({{"app.kubernetes.io/name", job.name}})}})}});
}

Value pod(const JobShape& job, const std::string& ns, const std::string& name, const std::string& rs,
          const std::string& ip, const Nodes& nodes, std::size_t node, Rng& rng) {
  Value labels = app_labels(job);
  labels.set("pod-template-hash", rs.substr(rs.rfind('-') + 1));
  Value owner = Value::obj(
      {{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", rs}, {"uid", rng.uid()}, {"controller", true}});
  Value port = Value::obj({{"name", job.port_name}, {"containerPort", job.port}, {"protocol", "TCP"}});
  Value container = Value::obj({{"name", job.name},
                                {"image", std::string("registry.example.com/shop/") + job.name + ":v2.14.1"},
                                {"ports", Value::arr({port})}});
  Value ready = Value::obj({{"type", "Ready"}, {"status", "True"}});
  return Value::obj({{"apiVersion", "v1"},
                     {"kind", "Pod"},
                     {"metadata", Value::obj({{"name", name},
                                              {"namespace", ns},
                                              {"uid", rng.uid()},
                                              {"labels", std::move(labels)},
                                              {"ownerReferences", Value::arr({owner})}})},
                     {"spec", Value::obj({{"nodeName", nodes.name(node)}, {"containers", Value::arr({container})}})},
                     {"status", Value::obj({{"phase", "Running"},
                                            {"podIP", ip},
                                            {"hostIP", nodes.host_ip(node)},
                                            {"conditions", Value::arr({ready})}})}});
}

template <class T>
allocation::discovery::ObjectPtr shared(T&& v) {
  return std::make_shared<const Value>(std::forward<T>(v));
}

// One Service of `job` in `ns`, its Endpoints and its `pods` Pods.
void add_service(Cluster& c, const JobShape& job, const std::string& ns, std::size_t pods, Nodes& nodes, Rng& rng,
                 int index) {
  std::string rs = std::string(job.name) + "-" + rng.word(10);
  Value addresses = Value::array();
  for (std::size_t i = 0; i < pods; ++i) {
    std::size_t node = rng.next() % nodes.used.size();
    std::string ip = nodes.pod_ip(node);
    std::string name = rs + "-" + rng.word(5);
    Value p = pod(job, ns, name, rs, ip, nodes, node, rng);
    Value ref =
        Value::obj({{"kind", "Pod"}, {"name", name}, {"namespace", ns}, {"uid", *p.find("metadata")->find("uid")}});
    addresses.push(Value::obj({{"ip", ip}, {"nodeName", nodes.name(node)}, {"targetRef", std::move(ref)}}));
    c.objects.emplace_back(Kind::pod, shared(std::move(p)));
  }
  c.endpoints += pods;
  Value port = Value::obj({{"name", job.port_name}, {"port", job.port}, {"protocol", "TCP"}});
  Value subset = Value::obj({{"addresses", std::move(addresses)}, {"ports", Value::arr({port})}});
  c.objects.emplace_back(Kind::service, shared(service(job, ns, index)));
  c.objects.emplace_back(
      Kind::endpoints,
      shared(Value::obj({{"apiVersion", "v1"},
                         {"kind", "Endpoints"},
                         {"metadata", Value::obj({{"name", job.name}, {"namespace", ns}, {"labels", app_labels(job)}})},
                         {"subsets", Value::arr({subset})}})));
}

Value service_monitor(const JobShape& job) {
  Value endpoint = Value::obj({{"port", job.port_name}, {"interval", "30s"}});
  return Value::obj(
      {{"apiVersion", "monitoring.coreos.com/v1"},
       {"kind", "ServiceMonitor"},
       {"metadata",
        Value::obj(
            {{"name", job.name}, {"namespace", "monitoring"}, {"labels", Value::obj({{"instance", "primary"}})}})},
       {"spec",
        Value::obj({{"selector", Value::obj({{"matchLabels", Value::obj({{"app.kubernetes.io/name", job.name}})}})},
                    {"namespaceSelector", Value::obj({{"any", true}})},
                    {"endpoints", Value::arr({endpoint})}})}});
}

Value ns_object(const std::string& name) {
  return Value::obj({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", Value::obj({{"name", name}})}});
}

void add_root(Cluster& c) {
  c.manifests.push_back(ns_object("monitoring"));
  for (std::size_t i = 0; i < kCells; ++i) c.manifests.push_back(ns_object("cell-" + std::to_string(i)));
  Value selector = Value::obj({{"matchLabels", Value::obj({{"agent", "agent"}})}});
  c.manifests.push_back(Value::obj(
      {{"apiVersion", "monitoring.grafana.com/v1alpha1"},
       {"kind", "GrafanaAgent"},
       {"metadata", Value::obj({{"name", "agent"}, {"namespace", "monitoring"}})},
       {"spec", Value::obj({{"serviceAccountName", "agent"},
                            {"metrics", Value::obj({{"scrapeInterval", "30s"}, {"instanceSelector", selector}})}})}}));
  c.manifests.push_back(Value::obj(
      {{"apiVersion", "monitoring.grafana.com/v1alpha1"},
       {"kind", "MetricsInstance"},
       {"metadata",
        Value::obj({{"name", "primary"}, {"namespace", "monitoring"}, {"labels", Value::obj({{"agent", "agent"}})}})},
       {"spec",
        Value::obj(
            {{"serviceMonitorNamespaceSelector", Value::object()},
             {"serviceMonitorSelector", Value::obj({{"matchLabels", Value::obj({{"instance", "primary"}})}})},
             {"remoteWrite", Value::arr({Value::obj({{"url", "https://metrics.example.com/api/prom/push"}})})}})}}));
}

}  // namespace

Cluster make_cluster(std::size_t targets) {
  Cluster c;
  add_root(c);
  Rng rng{19};
  Nodes nodes;
  nodes.used.assign(std::max<std::size_t>(200, targets / 50), 0);
  int index = 0;
  for (const auto& job : kJobs) {
    c.manifests.push_back(service_monitor(job));
    auto pods = static_cast<std::size_t>(std::llround(double(job.pods) * double(targets) / 10000.0));
    for (std::size_t n = 0; n < job.namespaces; ++n)
      add_service(c, job, "cell-" + std::to_string(n), std::max<std::size_t>(1, pods), nodes, rng, index++);
  }
  return c;
}

Value render_scrape_configs(const Cluster& cluster, std::int64_t shards) {
  model::Inventory inv;
  for (Value doc : cluster.manifests) {
    if (doc.find("kind")->as_string() == "GrafanaAgent") doc.find("spec")->find("metrics")->set("shards", shards);
    inv.add(std::move(doc));
  }
  const model::GrafanaAgent& agent = inv.agents.at({"monitoring", "agent"}).obj;
  model::AgentRender r = model::render_agent(inv, agent, model::RenderOptions{});
  std::string problems;
  for (const auto& p : inv.problems()) problems += p.str() + "\n";
  for (const auto& p : r.problems) problems += p.str() + "\n";
  if (!problems.empty()) throw std::runtime_error("rendering the agent:\n" + problems);
  for (const auto& [secret, config] : r.configs)
    if (const Value* metrics = config.find("metrics"))
      if (const Value* configs = metrics->find("configs"); configs && configs->size() == 1)
        if (const Value* jobs = configs->as_array()[0].find("scrape_configs")) return *jobs;
  throw std::runtime_error("rendering the agent: no metrics instance with scrape_configs");
}

std::string shard_name(std::int64_t shard) {
  model::GrafanaAgent agent;
  agent.meta.name = "agent";
  return model::metrics_shard_name(agent, shard);
}

std::vector<allocation::Collector> shard_collectors(int n) {
  std::vector<allocation::Collector> out;
  for (int i = 0; i < n; ++i) out.push_back({shard_name(i), "", true, {}});
  return out;
}

allocation::TargetList discover(const Value& jobs, const std::vector<allocation::discovery::KindObject>& objects) {
  allocation::TargetList out;
  for (const auto& job : jobs.as_array()) {
    const std::string& name = job.find("job_name")->as_string();
    const Value& sd = job.find("kubernetes_sd_configs")->as_array().at(0);
    auto config = allocation::discovery::parse_kubernetes_sd_config(sd, name + ".kubernetes_sd_configs[0]");
    std::vector<allocation::TargetGroup> groups;
    for (auto& g : allocation::discovery::discover_kubernetes(config, objects)) groups.push_back(g.group);
    allocation::append_targets(allocation::Name::intern(name), groups, out);
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].order = i;
  return out;
}

Value with_shard(Value v, std::int64_t shard) {
  if (v.is_string() && v.as_string() == "$(SHARD)") return Value(std::to_string(shard));
  if (v.is_array())
    for (auto& item : v.as_array()) item = with_shard(std::move(item), shard);
  if (v.is_object())
    for (auto& [key, member] : v.as_object()) member = with_shard(std::move(member), shard);
  return v;
}

Placement hashmod_placement(const Value& jobs, const allocation::TargetList& discovered, int shards) {
  Placement p{std::vector<int>(discovered.size(), -1)};
  for (int k = 0; k < shards; ++k) {
    allocation::RelabelFilter filter;
    filter.set_scrape_configs(with_shard(jobs, k));
    allocation::TargetList kept = discovered;
    filter.apply(kept);
    for (const auto& t : kept) p.twice += p.shard_of[t.order] >= 0, p.shard_of[t.order] = k;
  }
  return p;
}

}  // namespace reshard_bench
