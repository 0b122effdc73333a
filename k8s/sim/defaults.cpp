#include "k8s/sim/defaults.hpp"

#include "k8s/sim/selector.hpp"
#include "model/codec.hpp"

namespace k8s::sim {

using model::Value;

namespace {

void set_default(Value& o, const char* key, Value v) {
  if (o.is_object() && !o.find(key)) o.set(key, std::move(v));
}

// The object at `key`, created empty when absent.
Value& child(Value& o, const char* key) {
  Value* v = o.find(key);
  if (!v || !v->is_object()) return o.set(key, Value::object());
  return *v;
}

std::string pull_policy(const std::string& image) {
  if (image.find('@') != std::string::npos) return "IfNotPresent";
  std::size_t slash = image.rfind('/'), colon = image.rfind(':');
  bool tagged = colon != std::string::npos && (slash == std::string::npos || colon > slash);
  return !tagged || image.substr(colon + 1) == "latest" ? "Always" : "IfNotPresent";
}

void default_ports(Value* ports) {
  if (ports && ports->is_array())
    for (Value& p : ports->as_array()) set_default(p, "protocol", "TCP");
}

void default_container(Value& c) {
  if (!c.is_object()) return;
  set_default(c, "terminationMessagePath", "/dev/termination-log");
  set_default(c, "terminationMessagePolicy", "File");
  set_default(c, "imagePullPolicy", pull_policy(field_text(c, "image")));
  set_default(c, "resources", Value::object());
  default_ports(c.find("ports"));
}

void default_volume(Value& v) {
  for (const char* source : {"secret", "configMap", "projected", "downwardAPI"})
    if (Value* s = v.find(source); s && s->is_object()) set_default(*s, "defaultMode", 420);
}

void default_pod_spec(Value& spec) {
  if (!spec.is_object()) return;
  set_default(spec, "restartPolicy", "Always");
  set_default(spec, "terminationGracePeriodSeconds", 30);
  set_default(spec, "dnsPolicy", "ClusterFirst");
  set_default(spec, "securityContext", Value::object());
  set_default(spec, "schedulerName", "default-scheduler");
  for (const char* list : {"containers", "initContainers"})
    if (Value* cs = spec.find(list); cs && cs->is_array())
      for (Value& c : cs->as_array()) default_container(c);
  if (Value* vs = spec.find("volumes"); vs && vs->is_array())
    for (Value& v : vs->as_array()) default_volume(v);
}

// SetDefaults_Pod: service links on, and requests default to limits.
void default_pod(Value& spec) {
  default_pod_spec(spec);
  set_default(spec, "enableServiceLinks", true);
  for (const char* list : {"containers", "initContainers"})
    if (Value* cs = spec.find(list); cs && cs->is_array())
      for (Value& c : cs->as_array()) {
        Value* resources = c.find("resources");
        Value* limits = resources ? resources->find("limits") : nullptr;
        if (!limits || !limits->is_object()) continue;
        Value& requests = child(*resources, "requests");
        for (const auto& [name, quantity] : limits->as_object()) set_default(requests, name.str().c_str(), quantity);
      }
}

void default_template(Value& spec) {
  if (Value* tmpl = spec.find("template"); tmpl && tmpl->is_object()) default_pod_spec(child(*tmpl, "spec"));
}

void default_rolling(Value& strategy, Value max_unavailable, Value max_surge) {
  set_default(strategy, "type", "RollingUpdate");
  if (field_text(strategy, "type") != "RollingUpdate") return;
  Value& rolling = child(strategy, "rollingUpdate");
  set_default(rolling, "maxUnavailable", std::move(max_unavailable));
  set_default(rolling, "maxSurge", std::move(max_surge));
}

void default_workload(const std::string& kind, Value& spec) {
  if (kind != "DaemonSet") set_default(spec, "replicas", 1);
  set_default(spec, "revisionHistoryLimit", 10);
  default_template(spec);
  if (kind == "Deployment") {
    set_default(spec, "progressDeadlineSeconds", 600);
    default_rolling(child(spec, "strategy"), "25%", "25%");
  } else if (kind == "DaemonSet") {
    default_rolling(child(spec, "updateStrategy"), 1, 0);
  } else {
    set_default(spec, "podManagementPolicy", "OrderedReady");
    Value& strategy = child(spec, "updateStrategy");
    set_default(strategy, "type", "RollingUpdate");
    if (field_text(strategy, "type") == "RollingUpdate") set_default(child(strategy, "rollingUpdate"), "partition", 0);
    Value& retention = child(spec, "persistentVolumeClaimRetentionPolicy");
    set_default(retention, "whenDeleted", "Retain");
    set_default(retention, "whenScaled", "Retain");
  }
}

void default_secret(Value& object) {
  set_default(object, "type", "Opaque");
  Value* string_data = object.find("stringData");
  if (!string_data) return;
  if (string_data->is_object()) {
    Value& data = child(object, "data");
    for (const auto& [k, v] : string_data->as_object())
      if (v.is_string()) data.set(k, model::base64_encode(v.as_string()));
  }
  object.erase("stringData");
}

void default_service(Value& spec) {
  set_default(spec, "type", "ClusterIP");
  set_default(spec, "sessionAffinity", "None");
  std::string type = field_text(spec, "type");
  if (type == "ClusterIP" || type == "NodePort" || type == "LoadBalancer")
    set_default(spec, "internalTrafficPolicy", "Cluster");
  if (Value* ports = spec.find("ports"); ports && ports->is_array())
    for (Value& p : ports->as_array()) {
      set_default(p, "protocol", "TCP");
      if (p.is_object() && p.find("port")) set_default(p, "targetPort", *p.find("port"));
    }
}

}  // namespace

void apply_defaults(const ResourceType& t, Value& object) {
  if (t.group == "apps") {
    default_workload(t.kind, child(object, "spec"));
  } else if (!t.group.empty()) {
    return;
  } else if (t.kind == "Pod") {
    default_pod(child(object, "spec"));
  } else if (t.kind == "Secret") {
    default_secret(object);
  } else if (t.kind == "Service") {
    default_service(child(object, "spec"));
  } else if (t.kind == "Endpoints") {
    if (Value* subsets = object.find("subsets"); subsets && subsets->is_array())
      for (Value& s : subsets->as_array()) default_ports(s.find("ports"));
  }
}

void admit_pod(Value& pod) {
  Value& spec = child(pod, "spec");
  set_default(spec, "serviceAccountName", "default");
  set_default(spec, "serviceAccount", field_text(spec, "serviceAccountName"));
  set_default(spec, "priority", 0);
  Value* tolerations = spec.find("tolerations");
  if (!tolerations || !tolerations->is_array()) tolerations = &spec.set("tolerations", Value::array());
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    bool present = false;
    for (const Value& t : tolerations->as_array()) present |= field_text(t, "key") == key;
    if (!present)
      tolerations->push(
          Value::obj({{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 300}}));
  }
}

}  // namespace k8s::sim
