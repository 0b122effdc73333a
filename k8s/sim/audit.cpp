#include "k8s/sim/audit.hpp"

#include <stdexcept>

#include "k8s/sim/clock.hpp"
#include "k8s/sim/request_info.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

std::string request_uri(const HttpRequest& r) {
  std::string uri = r.path;
  char sep = '?';
  for (const auto& [k, v] : r.query) {
    uri += sep + k + "=" + v;
    sep = '&';
  }
  return uri;
}

// The answered object, when the body is one (a create names it only there).
std::optional<Value> response_object(const HttpResponse& response) {
  if (response.stream || response.body.empty() || response.body[0] != '{') return std::nullopt;
  try {
    return model::parse_json(response.body, "response");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Value object_ref(const RequestAttributes& a, const std::optional<Value>& answered, int status) {
  Value ref = Value::object();
  ref.set_nonempty("resource", a.resource);
  ref.set_nonempty("namespace", a.ns);
  std::string name = a.name;
  const Value* md = answered && status < 300 ? answered->find("metadata") : nullptr;
  const Value* answered_name = md ? md->find("name") : nullptr;
  if (name.empty() && answered_name && answered_name->is_string()) name = answered_name->as_string();
  ref.set_nonempty("name", name);
  ref.set_nonempty("apiGroup", a.api_group);
  ref.set_nonempty("apiVersion", a.api_version);
  ref.set_nonempty("subresource", a.subresource);
  return ref;
}

}  // namespace

bool is_audited(const HttpRequest& request) {
  const std::string& m = request.method;
  if (m != "POST" && m != "PUT" && m != "PATCH" && m != "DELETE") return false;
  return request_attributes(request).resource_request;
}

Value audit_event(const AuditRecord& rec, std::uint64_t id) {
  RequestAttributes a = request_attributes(*rec.request);
  int status = rec.response->status;
  bool lease = a.resource == "leases" && a.api_group == "coordination.k8s.io";
  std::optional<Value> answered = response_object(*rec.response);
  Value e = Value::obj({{"kind", "Event"},
                        {"apiVersion", "audit.k8s.io/v1"},
                        {"level", lease ? "RequestResponse" : "Metadata"},
                        {"auditID", std::to_string(id)},
                        {"stage", "ResponseComplete"},
                        {"requestURI", request_uri(*rec.request)},
                        {"verb", a.verb},
                        {"user", Value::obj({{"username", rec.user}})},
                        {"userAgent", rec.user_agent},
                        {"objectRef", object_ref(a, answered, status)},
                        {"responseStatus", Value::obj({{"code", status}})},
                        {"requestReceivedTimestamp", rfc3339_micro(rec.received)},
                        {"stageTimestamp", rfc3339_micro(rec.completed)}});
  if (lease && answered && status < 300) e.set("responseObject", std::move(*answered));
  return e;
}

AuditLog::AuditLog(const std::string& path) : out_(path, std::ios::app) {
  if (!out_) throw std::runtime_error("cannot open the audit log " + path);
}

void AuditLog::record(const AuditRecord& record) {
  std::lock_guard lock(mutex_);
  out_ << model::to_json(audit_event(record, next_id_++)) << "\n" << std::flush;
}

}  // namespace k8s::sim
