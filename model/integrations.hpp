// The two integration kinds as one thing to run: an Integration (design 1)
// and a MetricsIntegration (design 2) both become an IntegrationView with a
// type (allNodes -> daemonset, unique -> singleton, else normal), a config
// block and the pod fields, so the DaemonSet, the Deployment, their configs
// and the integrations Service are built once for both.
// Contract: pure; views point into the Inventory and live no longer than
// it; integration_views() sorts by namespace, name, then kind.
#pragma once

#include <string>
#include <vector>

#include "model/agent.hpp"
#include "model/assets.hpp"
#include "model/render.hpp"

namespace model {

// Labels every integration target carries (through the agent's SD API):
// see integration_extra_labels().
inline constexpr const char* kIntegrationMetaPrefix = "__meta_agentoperator_integration_";

struct IntegrationView {
  const char* kind = "";  // "Integration" or "MetricsIntegration"
  // The object viewed: exactly one is set.
  const Integration* integration = nullptr;
  const MetricsIntegration* metrics_integration = nullptr;
  const ObjectMeta* meta = nullptr;
  const std::string* name = nullptr;  // spec.name: the agent's integration
  IntegrationType type = IntegrationType::normal;
  // At most one integration of this name may run for a GrafanaAgent:
  // spec.type.unique of an Integration; daemonset and singleton types of a
  // MetricsIntegration. `exclusive_path` is the field to blame.
  bool exclusive = false;
  const char* exclusive_path = "";
  const Value* config = nullptr;
  const std::string* config_error = nullptr;                   // "" unless spec.config did not parse
  const std::map<std::string, std::string>* labels = nullptr;  // spec.labels; null for Integration
  const std::optional<Value>* volumes = nullptr;
  const std::optional<Value>* volume_mounts = nullptr;
  const std::vector<SecretKeySelector>* secrets = nullptr;
  const std::vector<ConfigMapKeySelector>* config_maps = nullptr;

  bool daemonset() const { return type == IntegrationType::daemonset; }
};

IntegrationView view_of(const Integration& i);
IntegrationView view_of(const MetricsIntegration& i);
std::vector<IntegrationView> integration_views(const std::vector<const Integration*>& integrations,
                                               const std::vector<const MetricsIntegration*>& metrics_integrations = {});

// The integrations a GrafanaAgent runs: views whose spec.config parses,
// whose Secret/ConfigMap references resolve (recorded into `assets`), and,
// outside upstream_compat, the first of each exclusive name in order. The
// others are reported in `problems` and left out.
std::vector<IntegrationView> runnable_integrations(const std::vector<IntegrationView>& views, const GrafanaAgent& agent,
                                                   const RenderOptions& opts, AssetRefs& assets,
                                                   std::vector<Problem>& problems);

// The labels the operator adds to an integration's targets: the
// __meta_agentoperator_integration_{type,cr_namespace,cr_name} labels, one
// cr_label_<name> and cr_labelpresent_<name> pair per metadata label (names
// sanitised as Kubernetes SD does), and spec.labels.
std::map<std::string, std::string> integration_extra_labels(const IntegrationView& v);

// One `<name>_configs` item of agent.yml: the config, and outside
// upstream_compat its `extra_labels` merged with integration_extra_labels()
// (which win) and, for a MetricsIntegration, autoscrape forced off.
Value integration_config_block(const IntegrationView& v, const RenderOptions& opts);

}  // namespace model
