#include "lease_elector.hpp"

#include <chrono>
#include <future>

#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace target_allocator {

ElectorClock ElectorClock::system() {
  using namespace std::chrono;
  return {[] { return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count(); },
          [] { return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count(); }};
}

LeaseElector::LeaseElector(k8s::Client& client, k8s::lease::LeaderConfig cfg, std::function<void(bool)> on_change,
                           ElectorClock clock)
    : client_(client), cfg_(std::move(cfg)), on_change_(std::move(on_change)), clock_(std::move(clock)) {}

LeaseElector::~LeaseElector() {
  stop();
}

// The client answers on its I/O thread; the elector thread waits for it
// (the client's own timeouts bound the wait).
k8s::Result LeaseElector::call(const std::function<void(k8s::Callback)>& request) {
  auto done = std::make_shared<std::promise<k8s::Result>>();
  auto answer = done->get_future();
  request([done](k8s::Result r) { done->set_value(std::move(r)); });
  return answer.get();
}

void LeaseElector::set_leading(bool leading) {
  if (leading_.exchange(leading) != leading && on_change_) on_change_(leading);
}

void LeaseElector::check_deadline() {
  if (leading_ && clock_.mono_ms() - last_renew_ms_ > cfg_.renew_deadline.count()) set_leading(false);
}

bool LeaseElector::step() {
  const k8s::Resource& res = *k8s::resource_for_kind("Lease");
  k8s::Result got = call([&](k8s::Callback cb) { client_.get(res, cfg_.ns, cfg_.name, std::move(cb)); });
  std::optional<model::Value> lease;
  if (got.ok()) {
    try {
      lease = model::parse_json(got.body, "lease");
    } catch (const model::ParseError&) {
      check_deadline();
      return leading_;
    }
  } else if (got.status != 404) {
    check_deadline();
    return leading_;
  }
  auto d = k8s::lease::decide_lease(cfg_, lease, seen_, clock_.mono_ms(), k8s::lease::micro_time(clock_.wall_ms()));
  if (d.step == k8s::lease::LeaseStep::wait) {
    set_leading(false);
    return false;
  }
  std::string body = model::to_json(d.lease);
  k8s::Result wrote = call([&](k8s::Callback cb) {
    if (d.step == k8s::lease::LeaseStep::create)
      client_.create(res, cfg_.ns, std::move(body), std::move(cb));
    else
      client_.update(res, cfg_.ns, cfg_.name, std::move(body), std::move(cb));
  });
  if (wrote.ok()) {
    last_renew_ms_ = clock_.mono_ms();
    set_leading(true);
  } else {
    check_deadline();
  }
  return leading_;
}

bool LeaseElector::release() {
  if (!leading_) return false;
  set_leading(false);
  const k8s::Resource& res = *k8s::resource_for_kind("Lease");
  k8s::Result got = call([&](k8s::Callback cb) { client_.get(res, cfg_.ns, cfg_.name, std::move(cb)); });
  if (!got.ok()) return false;
  std::optional<model::Value> out;
  try {
    out =
        k8s::lease::release_lease(cfg_, model::parse_json(got.body, "lease"), k8s::lease::micro_time(clock_.wall_ms()));
  } catch (const model::ParseError&) {
    return false;
  }
  if (!out) return false;  // someone else holds it already
  std::string body = model::to_json(*out);
  k8s::Result put =
      call([&](k8s::Callback cb) { client_.update(res, cfg_.ns, cfg_.name, std::move(body), std::move(cb)); });
  return put.ok();
}

void LeaseElector::start() {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      lock.unlock();
      step();
      lock.lock();
      wake_.wait_for(lock, cfg_.retry_period, [this] { return stopping_; });
    }
  });
}

void LeaseElector::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace target_allocator
