// KubernetesIndex: per-object rebuilds with pod and service dependencies.
#include "allocation/discovery/kubernetes_index.hpp"

#include <algorithm>

#include "allocation/discovery/meta.hpp"

namespace allocation::discovery {

KubernetesIndex::KubernetesIndex(KubernetesSdConfig config)
    : config_(std::move(config)), primary_(static_cast<Kind>(config_.role)), kinds_(kinds_of(config_.role)) {}

const model::Value* KubernetesIndex::find(Kind kind, const std::string& key) const {
  const auto& objects = objects_[static_cast<std::size_t>(kind)];
  auto it = objects.find(key);
  return it == objects.end() ? nullptr : it->second.get();
}

std::vector<std::string> KubernetesIndex::apply(Kind kind, Change change, const ObjectPtr& object) {
  std::vector<std::string> changed;
  if (!object || std::find(kinds_.begin(), kinds_.end(), kind) == kinds_.end()) return changed;
  const std::string key = model::namespaced_name(*object);
  auto& objects = objects_[static_cast<std::size_t>(kind)];
  if (change == Change::deleted || !config_.accepts(kind, *object)) {
    if (objects.erase(key) == 0) return changed;
  } else {
    objects[key] = object;
  }
  if (kind == primary_) {
    rebuild(key, changed);
    return changed;
  }
  std::set<std::string> readers;
  if (auto& m = kind == Kind::pod ? pod_readers_ : service_readers_; m.count(key)) readers = m[key];
  for (const auto& reader : readers) rebuild(reader, changed);
  return changed;
}

std::vector<ObjectPtr> KubernetesIndex::objects(Kind kind, const std::string& ns) const {
  std::vector<ObjectPtr> out;
  for (const auto& [key, object] : objects_[static_cast<std::size_t>(kind)])
    if (ns.empty() || model::string_at(*object, {"metadata", "namespace"}) == ns) out.push_back(object);
  return out;
}

void KubernetesIndex::forget_dependencies(const std::string& key) {
  auto it = reads_.find(key);
  if (it == reads_.end()) return;
  for (const auto& pod : it->second.first) forget_reader(pod_readers_, pod, key);
  forget_reader(service_readers_, it->second.second, key);
  reads_.erase(it);
}

void KubernetesIndex::forget_reader(Readers& readers, const std::string& read, const std::string& key) {
  if (auto r = readers.find(read); r != readers.end() && r->second.erase(key) && r->second.empty()) readers.erase(r);
}

// A rebuilt group mostly reads the pods it read before: only the pods that
// came or went touch the reverse maps (an Endpoints update replaces a few
// addresses of many).
void KubernetesIndex::record_dependencies(const std::string& key, std::vector<std::string> pods, std::string service) {
  std::sort(pods.begin(), pods.end());
  pods.erase(std::unique(pods.begin(), pods.end()), pods.end());
  auto [it, fresh] = reads_.try_emplace(key);
  auto& [old_pods, old_service] = it->second;
  std::size_t i = 0, j = 0;
  while (i < old_pods.size() || j < pods.size()) {
    if (j == pods.size() || (i < old_pods.size() && old_pods[i] < pods[j])) {
      forget_reader(pod_readers_, old_pods[i++], key);
    } else if (i == old_pods.size() || pods[j] < old_pods[i]) {
      pod_readers_[pods[j++]].insert(key);
    } else {
      ++i, ++j;
    }
  }
  if (fresh || old_service != service) {
    if (!fresh) forget_reader(service_readers_, old_service, key);
    service_readers_[service].insert(key);
  }
  it->second = {std::move(pods), std::move(service)};
}

void KubernetesIndex::rebuild(const std::string& key, std::vector<std::string>& changed) {
  const model::Value* object = find(primary_, key);
  const std::string source = std::string(role_name(config_.role)) + "/" + key;
  if (!object) {
    forget_dependencies(key);
    if (groups_.erase(source)) changed.push_back(source);
    return;
  }
  ObjectLookup lookup = [this](Kind k, const std::string& name) { return find(k, name); };
  std::vector<std::string> pods;
  std::string service;
  TargetGroup group;
  switch (config_.role) {
    case Role::pod:
      group = build_pod_group(*object);
      break;
    case Role::service:
      group = build_service_group(*object);
      break;
    case Role::ingress:
      group = build_ingress_group(*object);
      break;
    case Role::endpoints:
      group = build_endpoints_group(*object, lookup, &pods);
      service = key;
      break;
    case Role::endpointslice:
      group = build_endpointslice_group(*object, lookup, &pods);
      service = model::string_at(*object, {"metadata", "namespace"}) + "/" + slice_service_name(*object);
      break;
  }
  ++builds_;
  if (config_.role == Role::endpoints || config_.role == Role::endpointslice)
    record_dependencies(key, std::move(pods), std::move(service));
  groups_[source] = std::move(group);
  changed.push_back(source);
}

const TargetGroup* KubernetesIndex::group(const std::string& source) const {
  auto it = groups_.find(source);
  return it == groups_.end() ? nullptr : &it->second;
}

std::vector<SourcedGroup> KubernetesIndex::groups() const {
  std::vector<SourcedGroup> out;
  for (const auto& [source, group] : groups_)
    if (!group.targets.empty()) out.push_back({source, group});
  return out;
}

std::vector<SourcedGroup> discover_kubernetes(const KubernetesSdConfig& config, std::span<const KindObject> objects) {
  KubernetesIndex index(config);
  for (const auto& [kind, object] : objects) index.apply(kind, Change::added, object);
  return index.groups();
}

}  // namespace allocation::discovery
