#include "actors/api_call.hpp"

#include "model/yaml_emit.hpp"

namespace actors {

void send_action(k8s::Client& client, const core::Action& a, k8s::Callback cb) {
  const k8s::Resource* res = k8s::resource_for_kind(a.kind);
  if (!res) {
    k8s::Result r;
    r.status = 422;
    r.error = "the operator does not know the API path of kind " + a.kind;
    return cb(std::move(r));
  }
  switch (a.type) {
    case core::ActionType::create:
      return client.create(*res, a.ns, model::to_json(a.object), std::move(cb));
    case core::ActionType::update:  // carries the resourceVersion it was planned from
      return client.update(*res, a.ns, a.name, model::to_json(a.object), std::move(cb));
    case core::ActionType::recreate:  // the machines split it into remove + create
    case core::ActionType::remove:
      return client.remove(*res, a.ns, a.name, k8s::Propagation::background, std::move(cb));
  }
}

core::CallAnswer answer_of(const k8s::Result& r) {
  return core::CallAnswer{r.status, r.error_class(), r.body, r.error};
}

std::shared_ptr<const k8s::Result> share_result(k8s::Result r) {
  return std::make_shared<const k8s::Result>(std::move(r));
}

}  // namespace actors
