// The resource paths: get, list, watch, create, update, patch, delete and
// deletecollection for every served kind, with their query parameters.
#include <cstdlib>

#include "k8s/sim/api.hpp"
#include "k8s/sim/api_error.hpp"
#include "k8s/sim/rest_util.hpp"
#include "k8s/sim/selector.hpp"
#include "k8s/sim/store_meta.hpp"
#include "k8s/sim/table.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

struct Target {
  ResourceType type;
  std::string ns;
  std::string name;
  Subresource sub = Subresource::main;
  bool scale = false;  // the /scale subresource
};

ApiError not_found_path() {
  return ApiError(404, "NotFound", "the server could not find the requested resource", Value::object());
}

Target parse_target(const Cluster& cluster, const std::string& group, const std::string& version,
                    std::vector<std::string> segs) {
  Target t;
  bool ns_sub = segs.size() == 3 && segs[0] == "namespaces" && (segs[2] == "status" || segs[2] == "finalize");
  if (segs[0] == "namespaces" && segs.size() >= 3 && !ns_sub) {
    t.ns = segs[1];
    segs.erase(segs.begin(), segs.begin() + 2);
  }
  if (segs.size() > 3) throw not_found_path();
  std::optional<ResourceType> found = cluster.find_type(group, version, segs[0]);
  if (!found || (!found->namespaced && !t.ns.empty())) throw not_found_path();
  t.type = *found;
  if (segs.size() >= 2) t.name = segs[1];
  if (segs.size() == 3) {
    if (segs[2] == "scale" && t.type.scale_subresource) {
      t.scale = true;
      return t;
    }
    if (segs[2] != "status" || !t.type.status_subresource) throw not_found_path();
    t.sub = Subresource::status;
  }
  return t;
}

std::string object_json(const ResourceType& t, const SnapshotPtr& s) {
  const Value* v = s->value.find("apiVersion");
  if (v && v->is_string() && v->as_string() == t.api_version()) return s->json;
  return model::to_json(Cluster::as_version(t, s->value));
}

std::size_t parse_limit(const std::string& text) {
  if (text.empty()) return 0;
  char* end = nullptr;
  long long n = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || n < 0) throw ApiError::bad_request("invalid limit: " + text);
  return static_cast<std::size_t>(n);
}

std::string list_json(const ResourceType& t, const ListResult& r) {
  Value m = Value::obj({{"resourceVersion", std::to_string(r.rv)}});
  m.set_nonempty("continue", r.continue_token);
  if (r.remaining) m.set("remainingItemCount", *r.remaining);
  std::string out = "{\"apiVersion\":\"" + t.api_version() + "\",\"items\":[";
  for (std::size_t i = 0; i < r.items.size(); ++i) {
    if (i) out += ',';
    out += object_json(t, r.items[i]);
  }
  out += "],\"kind\":\"" + t.list_kind() + "\",\"metadata\":" + model::to_json(m) + "}";
  return out;
}

DeleteOptions delete_options(const HttpRequest& r) {
  DeleteOptions o;
  o.dry_run = write_options(r).dry_run;
  o.propagation = r.param("propagationPolicy");
  if (r.body.empty()) return o;
  Value body = parse_body(r);
  if (const Value* p = body.find("propagationPolicy"); p && p->is_string()) o.propagation = p->as_string();
  if (const Value* orphan = body.find("orphanDependents"); orphan && orphan->is_bool() && orphan->as_bool())
    o.propagation = "Orphan";
  if (const Value* pre = body.find("preconditions")) {
    if (const Value* uid = pre->find("uid"); uid && uid->is_string()) o.uid = uid->as_string();
    if (const Value* rv = pre->find("resourceVersion"); rv && rv->is_string()) o.resource_version = rv->as_string();
  }
  if (const Value* dry = body.find("dryRun"); dry && dry->is_array() && dry->size() > 0) o.dry_run = true;
  return o;
}

class Rest {
 public:
  Rest(Cluster& c, const HttpRequest& r, const ApiOptions& o, Target t)
      : cluster_(c), req_(r), opts_(o), t_(std::move(t)) {}
  HttpResponse run();

 private:
  HttpResponse object(const SnapshotPtr& s, int status = 200);
  HttpResponse list();
  HttpResponse watch();
  HttpResponse delete_collection();

  Cluster& cluster_;
  const HttpRequest& req_;
  const ApiOptions& opts_;
  Target t_;
  std::vector<std::string> warnings_;
};

HttpResponse Rest::object(const SnapshotPtr& s, int status) {
  HttpResponse r;
  r.status = status;
  r.warnings = warnings_;
  if (wants_table(req_.accept)) {
    r.body = model::to_json(make_table(t_.type, cluster_.printer_columns(t_.type), {s}, cluster_.clock().now(),
                                       req_.param("includeObject")));
  } else {
    r.body = object_json(t_.type, s);
  }
  return r;
}

ListOptions list_options(const HttpRequest& req, const ResourceType& t) {
  ListOptions o;
  o.labels = parse_label_selector(req.param("labelSelector"));
  o.fields = parse_field_selector(req.param("fieldSelector"), t.selectable_fields());
  o.limit = parse_limit(req.param("limit"));
  o.continue_token = req.param("continue");
  return o;
}

HttpResponse Rest::list() {
  ListResult result = cluster_.store().list(t_.type, t_.ns, list_options(req_, t_.type));
  HttpResponse r;
  if (!wants_table(req_.accept)) {
    r.body = list_json(t_.type, result);
    return r;
  }
  Value table = make_table(t_.type, cluster_.printer_columns(t_.type), result.items, cluster_.clock().now(),
                           req_.param("includeObject"));
  Value& m = *table.find("metadata");
  m.set("resourceVersion", std::to_string(result.rv));
  m.set_nonempty("continue", result.continue_token);
  r.body = model::to_json(table);
  return r;
}

HttpResponse Rest::watch() {
  WatchOptions w;
  ListOptions l = list_options(req_, t_.type);
  w.labels = l.labels;
  w.fields = l.fields;
  w.resource_version = req_.param("resourceVersion");
  w.send_initial_events = req_.flag("sendInitialEvents");
  WatchStreamOptions so;
  so.bookmarks = req_.flag("allowWatchBookmarks") || w.send_initial_events;
  so.bookmark_interval = opts_.bookmark_interval;
  if (wants_table(req_.accept)) {
    Cluster* cluster = &cluster_;
    ResourceType type = t_.type;
    std::string include = req_.param("includeObject");
    so.encode = [cluster, type, include](const SnapshotPtr& s, bool first) {
      Value table = make_table(type, cluster->printer_columns(type), {s}, cluster->clock().now(), include);
      if (!first) table.set("columnDefinitions", Value::array());
      return model::to_json(table);
    };
  }
  if (std::string timeout = req_.param("timeoutSeconds"); !timeout.empty())
    so.timeout = std::chrono::seconds(std::strtoll(timeout.c_str(), nullptr, 10));
  HttpResponse r;
  r.content_type = "application/json;stream=watch";
  try {
    auto watcher = cluster_.store().watch(t_.type, t_.ns, w);
    r.stream = std::make_shared<WatchStream>(cluster_.store(), std::move(watcher), t_.type, so);
  } catch (const ApiError& e) {
    if (e.code() != 410) throw;
    r.stream = std::make_shared<WatchStream>(cluster_.store(), e.status());
  }
  return r;
}

HttpResponse Rest::delete_collection() {
  ListResult result = cluster_.store().list(t_.type, t_.ns, list_options(req_, t_.type));
  DeleteOptions o = delete_options(req_);
  ListResult deleted;
  deleted.rv = result.rv;
  for (const SnapshotPtr& item : result.items) {
    try {
      deleted.items.push_back(
          cluster_.remove(t_.type, meta_string(item->value, "namespace"), meta_string(item->value, "name"), o));
    } catch (const ApiError& e) {
      if (e.code() != 404) throw;
    }
  }
  HttpResponse r;
  r.body = list_json(t_.type, deleted);
  return r;
}

HttpResponse Rest::run() {
  if (t_.scale) return scale_request(cluster_, req_, t_.type, t_.ns, t_.name);
  const std::string& m = req_.method;
  bool item = !t_.name.empty();
  if (m == "GET" && item) return object(cluster_.store().get(t_.type, t_.ns, t_.name));
  if (m == "GET") {
    return req_.flag("watch") ? watch() : list();
  }
  if (m == "POST" && !item) {
    if (t_.type.namespaced && t_.ns.empty()) throw not_found_path();
    return object(cluster_.create(t_.type, t_.ns, parse_body(req_), write_options(req_), warnings_), 201);
  }
  if (m == "PUT" && item)
    return object(cluster_.update(t_.type, t_.ns, t_.name, parse_body(req_), t_.sub, write_options(req_), warnings_));
  if (m == "PATCH" && item) {
    PatchType pt = patch_type(req_.content_type);
    Value patch = model::parse_json(req_.body, "patch");
    return object(cluster_.patch(t_.type, t_.ns, t_.name, pt, patch, t_.sub, write_options(req_), warnings_));
  }
  if (m == "DELETE" && item && t_.sub == Subresource::main)
    return object(cluster_.remove(t_.type, t_.ns, t_.name, delete_options(req_)));
  if (m == "DELETE" && !item) return delete_collection();
  throw ApiError::method_not_allowed("the server does not allow this method on the requested resource");
}

}  // namespace

HttpResponse Api::resource(const HttpRequest& request, const std::string& group, const std::string& version,
                           std::vector<std::string> segments) {
  Target t = parse_target(cluster_, group, version, std::move(segments));
  // Reviews are answered by the server's Access before a request gets here;
  // they have no objects to name and no other verb.
  if (t.type.create_only && !t.name.empty()) throw not_found_path();
  if (t.type.create_only)
    throw ApiError::method_not_allowed("the server does not allow this method on the requested resource");
  return Rest(cluster_, request, options_, std::move(t)).run();
}

}  // namespace k8s::sim
