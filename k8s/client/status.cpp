#include "k8s/client/status.hpp"

#include "model/parse.hpp"

namespace k8s {

void fill_status(Result& r) {
  r.error = "HTTP " + std::to_string(r.status);
  if (r.body.empty() || r.body.find('{') == std::string::npos) return;
  try {
    model::Value v = model::parse_json(r.body, "<status>");
    const model::Value* kind = v.find("kind");
    if (!kind || !kind->is_string() || kind->as_string() != "Status") return;
    if (const model::Value* m = v.find("message"); m && m->is_string() && !m->as_string().empty())
      r.error = m->as_string();
    if (const model::Value* reason = v.find("reason"); reason && reason->is_string()) r.reason = reason->as_string();
  } catch (const std::exception&) {
    // not JSON: keep the HTTP status as the error text
  }
}

}  // namespace k8s
