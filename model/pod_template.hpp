// The pod template every agent workload shares (upstream's
// generatePodTemplate): the config-reloader and grafana-agent containers,
// the config/config-out/secrets volumes, the type-specific extras given in
// PodTemplateOptions, the GrafanaAgent's own volumes, extra Secret and
// ConfigMap mounts, pod-level fields, labels and annotations, and the
// spec.containers patches.
// Contract: pure. The returned selector and labels already include the
// operator's -labels; the caller derives workload metadata from them.
#pragma once

#include <string>
#include <vector>

#include "model/agent.hpp"
#include "model/labels.hpp"
#include "model/render.hpp"

namespace model {

inline constexpr const char* kAgentContainerName = "grafana-agent";
inline constexpr const char* kReloaderContainerName = "config-reloader";
inline constexpr const char* kAgentDataPath = "/var/lib/grafana-agent/data";

// What a workload type adds to the shared template.
struct PodTemplateOptions {
  Labels extra_selector_labels;
  std::vector<Value> extra_volumes;
  std::vector<Value> extra_volume_mounts;
  std::vector<Value> extra_env;
  bool privileged = false;  // securityContext.privileged of grafana-agent
};

struct PodTemplate {
  Value spec;       // a core/v1 PodTemplateSpec: {metadata, spec}
  Labels selector;  // the workload's matchLabels
  Labels labels;    // the pod labels
};

// The pods mount the config Secret "<config_name>-config": "<ga>" for every
// metrics shard, else the workload name.
PodTemplate make_pod_template(const GrafanaAgent& agent, const std::string& config_name,
                              const PodTemplateOptions& pod_opts, const RenderOptions& opts);

// Images: spec.image, else grafana/agent:<spec.version or the default>; the
// reloader: spec.configReloaderImage, else the default image, retagged with
// spec.configReloaderVersion when set.
std::string agent_image(const GrafanaAgent& agent, const RenderOptions& opts);
std::string reloader_image(const GrafanaAgent& agent, const RenderOptions& opts);

// Small core/v1 builders shared with the option builders.
Value env_var(const std::string& name, const std::string& value);
Value env_from_field(const std::string& name, const std::string& field_path);
Value volume_mount(const std::string& name, const std::string& path, bool read_only);
Value host_path_volume(const std::string& name, const std::string& path);
Value empty_dir_volume(const std::string& name, Value empty_dir = Value::object());
Value secret_volume(const std::string& name, const std::string& secret_name);

}  // namespace model
