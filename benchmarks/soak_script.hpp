// The chaos soak's seeded edit script: creates, edits and deletes of
// GrafanaAgents, MetricsInstances, ServiceMonitors, PodMonitors and Secrets
// and label edits of Namespaces, in namespaces of their own (soak-ops for
// agents, instances and remote-write Secrets; soak-0..3 for monitors and
// their credentials). The script keeps a model of what it has made, so
// every edit is a plain create, merge patch or delete whose body depends
// only on the seed, and the same script gives the same inputs on any
// cluster. Contract: deterministic for a seed; edits never fail on a
// cluster that only this script changes (monitors may reference Secrets
// that do not exist: the operator reports those as Problems).
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "model/value.hpp"

namespace soak {

class SimProcess;

struct Edit {
  std::string method;  // POST (create), PATCH (merge patch), DELETE
  std::string kind, ns, name;
  std::string path;  // the API path, collection for POST
  std::string body;  // JSON
  std::string describe() const { return method + " " + kind + " " + ns + "/" + name; }
};

class EditScript {
 public:
  explicit EditScript(std::uint64_t seed);
  // The namespaces, agents, instances and Secrets every run starts with.
  std::vector<Edit> setup();
  Edit next();
  // What each object the script made should hold now: "Kind ns/name" ->
  // the labels, spec or data it last set (deleted objects are absent).
  const std::map<std::string, model::Value>& expected() const { return objects_; }
  // Every object the script ever made, by the same key: kind, ns, name.
  struct Ref {
    std::string kind, ns, name;
  };
  const std::map<std::string, Ref>& touched() const { return touched_; }
  std::vector<std::string> namespaces() const;
  std::size_t count() const { return edits_; }

 private:
  Edit create_or_patch(const std::string& kind, const std::string& ns, const std::string& name, model::Value content);
  Edit remove(const std::string& kind, const std::string& ns, const std::string& name);
  model::Value content(const std::string& kind, const std::string& ns, int index);
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::mt19937_64 rng_;
  std::map<std::string, model::Value> objects_;
  std::map<std::string, Ref> touched_;
  std::size_t edits_ = 0;
};

// Applies an edit (faults retried by SimProcess::call); throws when the
// cluster refuses it.
void apply(SimProcess& sim, const Edit& e);

// Whether `obj` (as the cluster holds it) carries every label and spec or
// data field `want` sets; the reason when not.
std::string differs(const model::Value& obj, const model::Value& want);

}  // namespace soak
