#include "lease_elector.hpp"

#include <chrono>
#include <future>

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

void LeaseElector::report() {
  bool leading = round_.leading;
  if (leading_.exchange(leading) != leading && on_change_) on_change_(leading);
}

bool LeaseElector::step() {
  const k8s::Resource& res = *k8s::resource_for_kind("Lease");
  k8s::Result got = call([&](k8s::Callback cb) { client_.get(res, cfg_.ns, cfg_.name, std::move(cb)); });
  auto next = k8s::lease::after_read(cfg_, round_, got.status, got.body, clock_.mono_ms(), clock_.wall_ms());
  if (next.write != k8s::lease::LeaseWrite::none) {
    std::string body = model::to_json(next.body);
    k8s::Result wrote = call([&](k8s::Callback cb) {
      if (next.write == k8s::lease::LeaseWrite::create)
        client_.create(res, cfg_.ns, std::move(body), std::move(cb));
      else
        client_.update(res, cfg_.ns, cfg_.name, std::move(body), std::move(cb));
    });
    k8s::lease::after_write(cfg_, round_, wrote.ok(), wrote.body, clock_.mono_ms());
  }
  report();
  return leading_;
}

bool LeaseElector::release() {
  std::optional<model::Value> out = k8s::lease::step_down(cfg_, round_, clock_.wall_ms());
  report();
  if (!out) return false;
  std::string body = model::to_json(*out);
  const k8s::Resource& res = *k8s::resource_for_kind("Lease");
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
