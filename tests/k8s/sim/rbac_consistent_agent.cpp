#include "rbac_consistent_agent.hpp"

#include <httplib.h>

#include <fstream>
#include <iterator>

namespace rbac_consistent {

namespace {

// Two shards, so the allocation places rather than hands everything to one
// collector. The agent's own MetricsInstance selects only the monitors
// labelled for it: the examples' instance selects none of them.
const char* kObjects = R"(apiVersion: v1
kind: ServiceAccount
metadata: {name: sharded-agent, namespace: monitoring}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: sharded, namespace: monitoring}
spec:
  serviceAccountName: sharded-agent
  metrics:
    shards: 2
    shardingStrategy: consistent
    instanceSelector: {matchLabels: {agent: sharded}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: sharded, namespace: monitoring, labels: {agent: sharded}}
spec:
  serviceMonitorNamespaceSelector: {matchLabels: {monitoring: enabled}}
  serviceMonitorSelector: {matchLabels: {instance: sharded}}
  probeNamespaceSelector: {matchLabels: {monitoring: enabled}}
  probeSelector: {matchLabels: {instance: sharded}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: shop, labels: {instance: sharded}}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http-metrics}]
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: web-ingress, namespace: shop, labels: {instance: sharded}}
spec:
  module: http_2xx
  prober: {url: 'blackbox:9115'}
  targets:
    ingress:
      selector: {matchLabels: {app: web}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop, labels: {app: web}}
spec: {selector: {app: web}, ports: [{name: http-metrics, port: 8080}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: shop, labels: {app: web}}
spec: {nodeName: node-a, containers: [{name: web, image: i, ports: [{name: http-metrics, containerPort: 8080}]}]}
status: {phase: Running, podIP: 10.2.0.1}
---
apiVersion: v1
kind: Endpoints
metadata: {name: web, namespace: shop, labels: {app: web}}
subsets:
- addresses: [{ip: 10.2.0.1, targetRef: {kind: Pod, name: web-0, namespace: shop}}]
  ports: [{name: http-metrics, port: 8080}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  rules:
  - host: web.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 8080}}}}]}
)";

const char* const kJobs[] = {"serviceMonitor/shop/web/0", "probe/shop/web-ingress"};
// What discovery finds: the Endpoints address (of a Pod) and the Ingress host.
const char* const kTargets[] = {"\"10.2.0.1:8080\"", "\"web.example.com\""};

}  // namespace

void seed(testutil::SimRbac& s) {
  s.apply_yaml(kObjects);
}

std::optional<int> listening_port(const std::string& log_path) {
  std::ifstream in(log_path);
  const std::string log(std::istreambuf_iterator<char>(in), {});
  const std::string marker = "msg=\"serving HTTP\" address=127.0.0.1:";
  const std::size_t at = log.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t digits = at + marker.size();
  const std::size_t end = log.find_first_not_of("0123456789", digits);
  if (end == std::string::npos || end == digits) return std::nullopt;
  return std::stoi(log.substr(digits, end - digits));
}

bool served(int port, const std::string& token) {
  httplib::Client cli("127.0.0.1", port);
  httplib::Headers auth = {{"Authorization", "Bearer " + token}};
  std::string bodies;
  for (const char* job : kJobs)
    for (const char* shard : {"0", "1"}) {
      std::string path = std::string("/operator/api/v1/metrics/targets?agent=") + kNamespace + "/" + kAgent +
                         "&job=" + job + "&shard=" + shard;
      auto res = cli.Get(path, auth);
      if (!res || res->status != 200) return false;
      bodies += res->body;
    }
  for (const char* target : kTargets)
    if (bodies.find(target) == std::string::npos) return false;
  return true;
}

}  // namespace rbac_consistent
