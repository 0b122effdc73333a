// KubernetesIndex: per-object rebuilds with pod and service dependencies.
#include "allocation/discovery/kubernetes_index.hpp"

#include <algorithm>

#include "allocation/discovery/meta.hpp"
#include "allocation/hash.hpp"

namespace allocation::discovery {
namespace {

std::uint64_t read_hash(const std::string& key) {
  return hash_bytes(key, 0x72656164);
}

}  // namespace

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
  // Copied: a rebuild edits the reverse maps and may forget its reader.
  std::vector<std::string> readers;
  const auto& m = kind == Kind::pod ? pod_readers_ : service_readers_;
  m.for_each(read_hash(key), [&](const std::string* reader) { readers.push_back(*reader); });
  std::sort(readers.begin(), readers.end());  // the order a set of keys gave
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
  for (std::uint64_t pod : it->second.pods) pod_readers_.remove(pod, &it->first);
  service_readers_.remove(it->second.service, &it->first);
  reads_.erase(it);
}

// A rebuilt group mostly reads the pods it read before: only the pods that
// came or went touch the reverse maps (an Endpoints update replaces a few
// addresses of many).
void KubernetesIndex::record_dependencies(const std::string& key, const std::vector<std::string>& pods,
                                          const std::string& service) {
  std::vector<std::uint64_t> now;
  now.reserve(pods.size());
  for (const auto& pod : pods) now.push_back(read_hash(pod));
  std::sort(now.begin(), now.end());
  now.erase(std::unique(now.begin(), now.end()), now.end());
  auto [it, fresh] = reads_.try_emplace(key);
  const std::string* reader = &it->first;
  Reads& old = it->second;
  std::size_t i = 0, j = 0;
  while (i < old.pods.size() || j < now.size()) {
    if (j == now.size() || (i < old.pods.size() && old.pods[i] < now[j])) {
      pod_readers_.remove(old.pods[i++], reader);
    } else if (i == old.pods.size() || now[j] < old.pods[i]) {
      pod_readers_.add(now[j++], reader);
    } else {
      ++i, ++j;
    }
  }
  const std::uint64_t service_hash = read_hash(service);
  if (fresh || old.service != service_hash) {
    if (!fresh) service_readers_.remove(old.service, reader);
    service_readers_.add(service_hash, reader);
  }
  old.pods = std::move(now);
  old.service = service_hash;
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
  if (config_.role == Role::endpoints || config_.role == Role::endpointslice) record_dependencies(key, pods, service);
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
