#include "k8s/sim/faults.hpp"

#include <thread>

#include "k8s/sim/api_error.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

double rate_field(const Value& body, const char* key, double fallback) {
  const Value* v = body.find(key);
  if (!v) return fallback;
  if (!v->is_number()) throw ApiError::bad_request(std::string(key) + " must be a number");
  double r = v->as_double();
  if (r < 0 || r > 1) throw ApiError::bad_request(std::string(key) + " must be between 0 and 1");
  return r;
}

int int_field(const Value& body, const char* key, int fallback) {
  const Value* v = body.find(key);
  if (!v) return fallback;
  if (!v->is_int() || v->as_int() < 0 || v->as_int() > 3600000)
    throw ApiError::bad_request(std::string(key) + " must be a non-negative integer");
  return static_cast<int>(v->as_int());
}

HttpResponse injected(int code, const char* reason, const std::string& message, int retry_after) {
  Value details = Value::object();
  if (code != 500) details.set("retryAfterSeconds", retry_after);
  HttpResponse r = error_response(ApiError(code, reason, message, code != 500 ? details : Value{}));
  if (code != 500) r.headers["Retry-After"] = std::to_string(retry_after);
  return r;
}

}  // namespace

Value fault_config_to_json(const FaultConfig& c) {
  return Value::obj({{"error5xxRate", c.error_5xx_rate},
                     {"error429Rate", c.error_429_rate},
                     {"retryAfterSeconds", c.retry_after_seconds},
                     {"latencyMs", c.latency_ms},
                     {"dropWatchRate", c.drop_watch_rate}});
}

FaultConfig fault_config_from_json(const std::string& body) {
  Value v;
  try {
    v = model::parse_json(body);
  } catch (const std::exception& e) {
    throw ApiError::bad_request(std::string("invalid fault config: ") + e.what());
  }
  if (!v.is_object()) throw ApiError::bad_request("fault config must be a JSON object");
  FaultConfig c;
  c.error_5xx_rate = rate_field(v, "error5xxRate", c.error_5xx_rate);
  c.error_429_rate = rate_field(v, "error429Rate", c.error_429_rate);
  c.retry_after_seconds = int_field(v, "retryAfterSeconds", c.retry_after_seconds);
  c.latency_ms = int_field(v, "latencyMs", c.latency_ms);
  c.drop_watch_rate = rate_field(v, "dropWatchRate", c.drop_watch_rate);
  return c;
}

Faults::Faults(FaultConfig config, std::uint64_t seed) : config_(config), rng_(seed) {}

FaultConfig Faults::config() const {
  std::lock_guard lock(mutex_);
  return config_;
}

void Faults::set_config(const FaultConfig& config) {
  std::lock_guard lock(mutex_);
  config_ = config;
}

bool Faults::applies_to(const std::string& path) {
  return path == "/api" || path == "/apis" || path.rfind("/api/", 0) == 0 || path.rfind("/apis/", 0) == 0;
}

double Faults::roll() {
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
}

std::optional<HttpResponse> Faults::before(const HttpRequest& request) {
  if (!applies_to(request.path)) return std::nullopt;
  FaultConfig c;
  double r5 = 1, r4 = 1, kind = 0;
  {
    std::lock_guard lock(mutex_);
    c = config_;
    if (c.error_5xx_rate > 0) r5 = roll(), kind = roll();
    if (c.error_429_rate > 0) r4 = roll();
  }
  if (c.latency_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(c.latency_ms));
  if (r5 < c.error_5xx_rate) {
    if (kind < 0.5) return injected(500, "InternalError", "simcluster: injected internal error", 0);
    return injected(503, "ServiceUnavailable", "simcluster: injected unavailability", c.retry_after_seconds);
  }
  if (r4 < c.error_429_rate)
    return injected(429, "TooManyRequests", "simcluster: injected throttling, please try again later",
                    c.retry_after_seconds);
  return std::nullopt;
}

bool Faults::drop_watch_now() {
  std::lock_guard lock(mutex_);
  return config_.drop_watch_rate > 0 && roll() < config_.drop_watch_rate;
}

bool is_fault_admin_path(const std::string& path) {
  return path == "/sim/faults" || path.rfind("/sim/faults/", 0) == 0;
}

HttpResponse fault_admin(Faults& faults, Store& store, const HttpRequest& request) {
  try {
    const std::string& p = request.path;
    bool write = request.method == "POST" || request.method == "PUT";
    if (p == "/sim/faults" && request.method == "GET") return json_response(fault_config_to_json(faults.config()));
    if (p == "/sim/faults" && write) {
      faults.set_config(fault_config_from_json(request.body));
      return json_response(fault_config_to_json(faults.config()));
    }
    if (p == "/sim/faults/drop-watches" && request.method == "POST") {
      store.close_watchers();
      return json_response(Value::obj({{"droppedWatches", true}}));
    }
    if (p == "/sim/faults/compact" && request.method == "POST") {
      store.compact();
      return json_response(Value::obj({{"compacted", true}}));
    }
    if (p == "/sim/faults" || p == "/sim/faults/drop-watches" || p == "/sim/faults/compact")
      throw ApiError::method_not_allowed(request.method + " is not allowed on " + p);
    return error_response(ApiError(404, "NotFound", "the server could not find the requested resource"));
  } catch (const ApiError& e) {
    return error_response(e);
  }
}

}  // namespace k8s::sim
