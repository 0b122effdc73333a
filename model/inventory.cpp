#include "model/inventory.hpp"
#include "model/yaml_emit.hpp"

#include <algorithm>
#include <tuple>

namespace model {
namespace {

struct KindInfo {
  const char* kind;
  const char* group;  // "" for core/v1
  bool namespaced;
};

const KindInfo kKinds[] = {
    {"GrafanaAgent", "monitoring.grafana.com", true},
    {"MetricsInstance", "monitoring.grafana.com", true},
    {"LogsInstance", "monitoring.grafana.com", true},
    {"PodLogs", "monitoring.grafana.com", true},
    {"Integration", "monitoring.grafana.com", true},
    {"MetricsIntegration", "monitoring.grafana.com", true},
    {"IntegrationMonitor", "monitoring.grafana.com", true},
    {"ServiceMonitor", "monitoring.coreos.com", true},
    {"PodMonitor", "monitoring.coreos.com", true},
    {"Probe", "monitoring.coreos.com", true},
    {"Secret", "", true},
    {"ConfigMap", "", true},
    {"Namespace", "", false},
};

const KindInfo* find_kind(const std::string& kind, const std::string& api_version) {
  std::string group = api_version.find('/') == std::string::npos ? "" : api_version.substr(0, api_version.find('/'));
  for (const auto& k : kKinds)
    if (kind == k.kind && group == k.group) return &k;
  return nullptr;
}

template <class T, class Decode>
void store(Table<T>& table, const Value& doc, Decode decode, FieldErrors& errors) {
  T obj = decode(doc, errors);
  Key key{obj.meta.ns, obj.meta.name};
  table[key] = Entry<T>{std::move(obj), errors.empty()};
}

// `tree` is null in an eager inventory. A lazy one decodes in full once
// here (problems, references and the job cache key need it) and keeps
// the decoded form only for a valid member, which a render will read.
template <class T, class Decode>
void store_member(Members<T>& table, const Value& doc, const ValuePtr& tree, Decode decode, FieldErrors& errors) {
  auto obj = std::make_shared<T>(decode(doc, errors));
  Key key{obj->meta.ns, obj->meta.name};
  Member<T> m{tree, nullptr, obj->meta.resource_version, references(*obj), errors.empty()};
  if (!tree || m.valid) m.decoded = std::move(obj);
  table[std::move(key)] = std::move(m);
}

ServiceMonitor decode_as(const Value& v, FieldErrors& e, const ServiceMonitor*) {
  return decode_service_monitor(v, e);
}
PodMonitor decode_as(const Value& v, FieldErrors& e, const PodMonitor*) {
  return decode_pod_monitor(v, e);
}
Probe decode_as(const Value& v, FieldErrors& e, const Probe*) {
  return decode_probe(v, e);
}

// The kinds a lazy inventory keeps as trees.
bool is_lazy_kind(std::string_view kind) {
  return kind == "ServiceMonitor" || kind == "PodMonitor" || kind == "Probe" || kind == "Secret";
}

// RFC 1123 subdomain (names) or label (namespaces), as the API server checks.
bool valid_dns_name(const std::string& s, std::size_t max_len, bool allow_dots) {
  if (s.empty() || s.size() > max_len) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!alnum(c) && c != '-' && !(allow_dots && c == '.')) return false;
  return true;
}

}  // namespace

// Problems go to logs and terminals one per line, so control characters
// from user-supplied keys and values are escaped.
std::string printable(const std::string& s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string Problem::str() const {
  std::string out = describe_object(kind, ns, name) + ": ";
  if (!path.empty()) out += path + ": ";
  return printable(out + message);
}

bool operator<(const Problem& a, const Problem& b) {
  return std::tie(a.ns, a.kind, a.name, a.path, a.message, a.warning) <
         std::tie(b.ns, b.kind, b.name, b.path, b.message, b.warning);
}

bool operator==(const Problem& a, const Problem& b) {
  return std::tie(a.ns, a.kind, a.name, a.path, a.message, a.warning) ==
         std::tie(b.ns, b.kind, b.name, b.path, b.message, b.warning);
}

bool has_errors(const std::vector<Problem>& problems) {
  return std::any_of(problems.begin(), problems.end(), [](const Problem& p) { return !p.warning; });
}

bool is_known_kind(const std::string& kind) {
  return std::any_of(std::begin(kKinds), std::end(kKinds), [&](const KindInfo& k) { return kind == k.kind; });
}

namespace {

// The key of an object that normalize_metadata would leave as it is (a
// valid name; a valid namespace on a namespaced kind, none on the others),
// as the API server serves every object; nullopt when it would change it
// or refuse it.
std::optional<Key> normal_key(const Value& doc, bool namespaced) {
  const Value* meta = doc.find("metadata");
  const Value* name = meta ? meta->find("name") : nullptr;
  if (!name || !name->is_string() || !valid_dns_name(name->as_string(), 253, true)) return std::nullopt;
  const Value* ns = meta->find("namespace");
  if (!namespaced) return ns ? std::nullopt : std::optional<Key>(Key{"", name->as_string()});
  if (!ns || !ns->is_string() || !valid_dns_name(ns->as_string(), 63, false)) return std::nullopt;
  return Key{ns->as_string(), name->as_string()};
}

}  // namespace

template <class T>
std::string_view Member<T>::uid() const {
  if (decoded) return decoded->meta.uid;
  const Value* v = find_path(*tree, {"metadata", "uid"});
  return v && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

// Both read metadata.labels' string values only, so a lazy member matches
// exactly as its decoded form would.
template <class T>
bool Member<T>::matches(const LabelSelector& sel) const {
  return decoded ? sel.matches(decoded->meta.labels) : sel.matches_object(*tree);
}

template <class T>
const T& decoded(const Member<T>& m, std::optional<T>& scratch) {
  if (m.decoded) return *m.decoded;
  FieldErrors ignored;  // equal to those recorded when it was stored: decoding is pure
  return scratch.emplace(decode_as(*m.tree, ignored, static_cast<const T*>(nullptr)));
}

template struct Member<ServiceMonitor>;
template struct Member<PodMonitor>;
template struct Member<Probe>;
template const ServiceMonitor& decoded(const Member<ServiceMonitor>&, std::optional<ServiceMonitor>&);
template const PodMonitor& decoded(const Member<PodMonitor>&, std::optional<PodMonitor>&);
template const Probe& decoded(const Member<Probe>&, std::optional<Probe>&);

namespace {

// The kind of a manifest the inventory reads, and its key when
// normalize_metadata would leave it as it is.
std::pair<const KindInfo*, std::optional<Key>> served_kind(const Value& doc) {
  const Value* kind_v = doc.find("kind");
  const Value* api_v = doc.find("apiVersion");
  const KindInfo* info = kind_v && kind_v->is_string() && api_v && api_v->is_string()
                             ? find_kind(kind_v->as_string(), api_v->as_string())
                             : nullptr;
  return {info, info ? normal_key(doc, info->namespaced) : std::nullopt};
}

}  // namespace

// A served object decodes from the caller's tree; only one that needs
// normalising (or a List) is copied first. The controller's roots decode
// every object routed to them from the tree they share with the selectors,
// so a copy of each would be wasted work on every routed event.
void Inventory::add(const Value& doc, std::string_view origin) {
  auto [info, key] = served_kind(doc);
  if (!key || (lazy_ && is_lazy_kind(info->kind))) return add(Value(doc), origin);
  add_normal(info->kind, *key, doc, nullptr);
}

void Inventory::add_shared(const ValuePtr& doc) {
  auto [info, key] = served_kind(*doc);
  if (!key) return add(Value(*doc));
  add_normal(info->kind, *key, *doc, lazy_ && is_lazy_kind(info->kind) ? doc : nullptr);
}

void Inventory::add_normal(const std::string& kind, const Key& key, const Value& doc, const ValuePtr& tree) {
  FieldErrors errors;
  decode_and_store(kind, doc, tree, errors);
  for (auto& e : errors) problems_.push_back({kind, key.first, key.second, std::move(e.path), std::move(e.message)});
}

void Inventory::add(Value&& doc, std::string_view origin) {
  if (!doc.is_object()) {
    std::string where = origin.empty() ? "<input>" : std::string(origin);
    problems_.push_back({"Document", "", where, "", std::string("expected an object, got ") + doc.type_name()});
    return;
  }
  const Value* kind_v = doc.find("kind");
  const Value* api_v = doc.find("apiVersion");
  std::string kind = kind_v && kind_v->is_string() ? kind_v->as_string() : "";
  std::string api = api_v && api_v->is_string() ? api_v->as_string() : "";
  if (kind.ends_with("List")) {
    if (Value* items = doc.find("items"); items && items->is_array())
      for (auto& item : items->as_array()) add(std::move(item), origin);
    return;
  }
  const KindInfo* info = find_kind(kind, api);
  if (!info) {
    ++ignored_;
    return;
  }
  auto key = normalize_metadata(doc, kind, info->namespaced);
  if (!key) return;
  if (!lazy_ || !is_lazy_kind(kind)) return add_normal(kind, *key, doc, nullptr);
  ValuePtr tree = std::make_shared<const Value>(std::move(doc));
  add_normal(kind, *key, *tree, tree);
}

void Inventory::retree(const std::string& kind, const Key& key, const ValuePtr& tree) {
  if (!lazy_) return;
  auto swap = [&](auto& table) {
    auto it = table.find(key);
    if (it != table.end() && it->second.tree) it->second.tree = tree;
  };
  if (kind == "ServiceMonitor") swap(service_monitors);
  if (kind == "PodMonitor") swap(pod_monitors);
  if (kind == "Probe") swap(probes);
  if (kind == "Secret") swap(secrets);
}

namespace {

// The namespace a problem about an unstorable object names: its own, or the
// one kubectl would default to; none for cluster-scoped kinds.
std::string problem_namespace(const Value& meta, bool namespaced) {
  if (!namespaced) return "";
  const Value* ns = meta.find("namespace");
  return ns && ns->is_string() && !ns->as_string().empty() ? ns->as_string() : "default";
}

}  // namespace

// Checks the name, defaults the namespace as kubectl would, and returns the
// object's key; nullopt (with a Problem) when the object cannot be stored.
std::optional<Key> Inventory::normalize_metadata(Value& obj, const std::string& kind, bool namespaced) {
  Value* meta_v = obj.find("metadata");
  Value& meta = meta_v && meta_v->is_object() ? *meta_v : obj.set("metadata", Value::object());
  const Value* name_v = meta.find("name");
  if (!name_v || !name_v->is_string() || name_v->as_string().empty()) {
    problems_.push_back({kind, problem_namespace(meta, namespaced), "<unnamed>", "metadata.name", "is required"});
    return std::nullopt;
  }
  const std::string name = name_v->as_string();  // meta is modified below
  if (!valid_dns_name(name, 253, true)) {
    problems_.push_back({kind, problem_namespace(meta, namespaced), "<invalid>", "metadata.name",
                         to_json(*name_v) + " is not a valid name (lowercase RFC 1123 subdomain)"});
    return std::nullopt;
  }
  if (!namespaced) {
    meta.erase("namespace");
    return Key{"", name};
  }
  const Value* ns = meta.find("namespace");
  if (!ns || ns->is_null() || (ns->is_string() && ns->as_string().empty())) {
    meta.set("namespace", "default");
    return Key{"default", name};
  }
  if (!ns->is_string() || !valid_dns_name(ns->as_string(), 63, false)) {
    problems_.push_back({kind, "<invalid>", name, "metadata.namespace",
                         to_json(*ns) + " is not a valid namespace (lowercase RFC 1123 label)"});
    return std::nullopt;
  }
  return Key{ns->as_string(), name};
}

void Inventory::decode_and_store(const std::string& kind, const Value& obj, const ValuePtr& tree, FieldErrors& errors) {
  if (kind == "GrafanaAgent") return store(agents, obj, decode_grafana_agent, errors);
  if (kind == "MetricsInstance") return store(metrics_instances, obj, decode_metrics_instance, errors);
  if (kind == "LogsInstance") return store(logs_instances, obj, decode_logs_instance, errors);
  if (kind == "PodLogs") return store(pod_logs, obj, decode_pod_logs, errors);
  if (kind == "Integration") return store(integrations, obj, decode_integration, errors);
  if (kind == "MetricsIntegration") return store(metrics_integrations, obj, decode_metrics_integration, errors);
  if (kind == "IntegrationMonitor") return store(integration_monitors, obj, decode_integration_monitor, errors);
  if (kind == "ServiceMonitor") return store_member(service_monitors, obj, tree, decode_service_monitor, errors);
  if (kind == "PodMonitor") return store_member(pod_monitors, obj, tree, decode_pod_monitor, errors);
  if (kind == "Probe") return store_member(probes, obj, tree, decode_probe, errors);
  if (kind == "Secret") {
    auto s = std::make_shared<const Secret>(decode_secret(obj, errors));
    Key key{s->meta.ns, s->meta.name};
    secrets[std::move(key)] = tree ? StoredSecret{tree, nullptr} : StoredSecret{nullptr, std::move(s)};
  } else if (kind == "ConfigMap") {
    ConfigMap c = decode_config_map(obj, errors);
    config_maps[{c.meta.ns, c.meta.name}] = std::move(c);
  } else if (kind == "Namespace") {
    Namespace n = decode_namespace(obj, errors);
    namespaces[n.meta.name] = std::move(n);
  }
}

bool Inventory::remove(const std::string& kind, const Key& key) {
  if (kind == "GrafanaAgent") return agents.erase(key) > 0;
  if (kind == "MetricsInstance") return metrics_instances.erase(key) > 0;
  if (kind == "LogsInstance") return logs_instances.erase(key) > 0;
  if (kind == "PodLogs") return pod_logs.erase(key) > 0;
  if (kind == "Integration") return integrations.erase(key) > 0;
  if (kind == "MetricsIntegration") return metrics_integrations.erase(key) > 0;
  if (kind == "IntegrationMonitor") return integration_monitors.erase(key) > 0;
  if (kind == "ServiceMonitor") return service_monitors.erase(key) > 0;
  if (kind == "PodMonitor") return pod_monitors.erase(key) > 0;
  if (kind == "Probe") return probes.erase(key) > 0;
  if (kind == "Secret") return secrets.erase(key) > 0;
  if (kind == "ConfigMap") return config_maps.erase(key) > 0;
  if (kind == "Namespace") return namespaces.erase(key.second) > 0;
  return false;
}

const Labels& Inventory::namespace_labels(const std::string& ns) const {
  static const Labels kEmpty;
  auto it = namespaces.find(ns);
  return it == namespaces.end() ? kEmpty : it->second.meta.labels;
}

}  // namespace model
