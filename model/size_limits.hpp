// The Kubernetes API server's object size limits, checked before a write
// so an oversized object is reported on the GrafanaAgent instead of being
// refused by the server (or, in a lax cluster, rolled out), and the parts
// of agent.yml that made it large.
// Contract: pure. Sizes are counted as the API server counts them: Secret
// data by decoded bytes, ConfigMap data plus binaryData, annotations as the
// sum of key and value lengths (object and pod template).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/value.hpp"

namespace model {

inline constexpr std::size_t kMaxDataBytes = 1024 * 1024;       // Secret and ConfigMap data
inline constexpr std::size_t kMaxAnnotationBytes = 256 * 1024;  // metadata.annotations

struct Oversize {
  std::string field;  // "data", "metadata.annotations", "spec.template.metadata.annotations"
  std::size_t bytes = 0, limit = 0;
};

// The first limit `obj` exceeds, if any.
std::optional<Oversize> check_size(const Value& obj);

// What an agent.yml is made of, largest first: "MetricsInstance ns/name",
// "LogsInstance ns/name", the monitor behind each job ("ServiceMonitor
// ns/name", "PodMonitor ns/name", "Probe ns/name", "PodLogs ns/name") or
// "job <name>" for additional scrape configs, with their bytes of YAML.
// At most `top` entries.
std::vector<std::pair<std::string, std::size_t>> config_contributors(std::string_view agent_yml, std::size_t top = 5);

// The agent.yml a config Secret carries (base64, gzipped when large);
// nullopt when it has none or it does not decode.
std::optional<std::string> config_text(const Value& secret);

}  // namespace model
