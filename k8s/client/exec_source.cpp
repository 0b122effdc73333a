// ExecCredentialSource: the cached exec credential and the worker thread
// that refreshes it, so no I/O thread ever waits for a plugin.
#include <future>

#include "k8s/client/exec_credential.hpp"

namespace k8s {

ExecCredentialSource::ExecCredentialSource(ExecConfig config) : config_(std::move(config)) {}

ExecCredentialSource::~ExecCredentialSource() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

bool ExecCredentialSource::fresh(Clock::time_point now) const {
  return cached_ && now < use_until_;
}

ExecCredentialSource::Credential ExecCredentialSource::current() {
  std::lock_guard lock(mutex_);
  return fresh(Clock::now()) ? cached_ : nullptr;
}

void ExecCredentialSource::refresh_async(Done done) {
  Credential now;
  {
    std::lock_guard lock(mutex_);
    if (fresh(Clock::now())) {
      now = cached_;
    } else {
      waiters_.push_back(std::move(done));
      running_ = true;
      if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
    }
  }
  if (now) return done(std::move(now), "");
  wake_.notify_all();
}

ExecCredentialSource::Credential ExecCredentialSource::get() {
  std::promise<std::pair<Credential, std::string>> p;
  auto f = p.get_future();
  refresh_async([&p](Credential c, std::string error) { p.set_value({std::move(c), std::move(error)}); });
  auto [c, error] = f.get();
  if (!c) throw ExecError(error);
  return c;
}

void ExecCredentialSource::invalidate(const Credential& used) {
  std::lock_guard lock(mutex_);
  if (used && cached_ == used) cached_.reset();
}

unsigned ExecCredentialSource::runs() const {
  std::lock_guard lock(mutex_);
  return runs_;
}

// Until a plugin reports an expiry the credential is used until a 401.
// Otherwise it is refreshed a little early (a quarter of its life, at most
// ten seconds) so requests in flight do not meet the deadline.
void ExecCredentialSource::work() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return running_ || stopping_; });
      if (stopping_) break;
    }
    Credential c;
    std::string error;
    auto started = Clock::now();
    try {
      c = std::make_shared<const ExecCredential>(run_exec_plugin(config_));
    } catch (const std::exception& e) {
      error = e.what();
    }
    std::vector<Done> waiters;
    {
      std::lock_guard lock(mutex_);
      ++runs_;
      running_ = false;
      waiters.swap(waiters_);
      if (c) {
        cached_ = c;
        use_until_ = Clock::time_point::max();
        if (c->expiry)
          use_until_ = *c->expiry - std::min<Clock::duration>(std::chrono::seconds(10), (*c->expiry - started) / 4);
      }
    }
    for (auto& w : waiters) w(c, error);
  }
  // Callers still waiting learn that no credential is coming.
  std::vector<Done> waiters;
  {
    std::lock_guard lock(mutex_);
    waiters.swap(waiters_);
  }
  for (auto& w : waiters) w(nullptr, "users[" + config_.user + "].user.exec: the client is shutting down");
}

}  // namespace k8s
