#include "sd/aggregator.hpp"

#include <algorithm>
#include <tuple>

namespace sd {

namespace {

// The pod controls what a failure detail quotes (labels, a content type):
// a log line gets at most 200 bytes of it (the log encoder escapes it).
std::string bounded(const std::string& detail) {
  return detail.size() > 200 ? detail.substr(0, 200) + "..." : detail;
}

model::LogEntry pod_entry(model::LogEntry e, const PodTarget& pod) {
  return e.object("GrafanaAgent", pod.agent.first, pod.agent.second).with("pod", pod.address);
}

PodResult failed(Failure f, std::string detail) {
  return {f, std::move(detail), {}};
}

}  // namespace

const char* failure_name(Failure f) {
  switch (f) {
    case Failure::none:
      return "ok";
    case Failure::transport:
      return "transport";
    case Failure::timeout:
      return "timeout";
    case Failure::status:
      return "status";
    case Failure::content_type:
      return "content_type";
    case Failure::malformed:
      return "malformed";
    case Failure::too_large:
      break;
  }
  return "too_large";
}

PodResult read_answer(const PodAnswer& a) {
  if (a.too_large) return failed(Failure::too_large, "body too large" + (a.error.empty() ? "" : ": " + a.error));
  if (a.timed_out) return failed(Failure::timeout, a.error.empty() ? "timed out" : a.error);
  if (a.status == 0) return failed(Failure::transport, a.error.empty() ? "no answer" : a.error);
  if (a.status != 200) return failed(Failure::status, "HTTP status " + std::to_string(a.status));
  try {
    model::check_http_sd_response(a.status, a.content_type);
  } catch (const model::HttpSdError& e) {
    return failed(Failure::content_type, e.what());
  }
  try {
    return {Failure::none, "", model::parse_http_sd(a.body, a.pod.address)};
  } catch (const model::HttpSdError& e) {
    return failed(Failure::malformed, e.what());
  }
}

std::string pod_fragment(const PodTarget& pod, std::vector<model::HttpSdGroup> groups) {
  for (model::HttpSdGroup& g : groups) {
    g.labels[kAgentNamespaceLabel] = pod.agent.first;
    g.labels[kAgentNameLabel] = pod.agent.second;
  }
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return std::tie(a.labels, a.targets) < std::tie(b.labels, b.targets); });
  std::string out;
  for (const model::HttpSdGroup& g : groups) {
    if (!out.empty()) out += ',';
    model::encode_http_sd_group(g, out);
  }
  return out;
}

Fragment::Fragment(std::string t) : text(std::move(t)) {
  model::Sha256 h;
  h.update(text);
  digest = h.finish();
}

std::string merge(const Fragments& fragments, const std::optional<AgentKey>& only) {
  std::size_t size = 2;
  for (const auto& [pod, f] : fragments) size += f.text.size() + 1;
  std::string out;
  out.reserve(size);
  out += '[';
  for (const auto& [pod, f] : fragments) {
    if ((only && pod.agent != *only) || f.text.empty()) continue;
    if (out.size() > 1) out += ',';
    out += f.text;
  }
  out += ']';
  return out;
}

std::string merge_etag(const Fragments& fragments, const std::optional<AgentKey>& only) {
  model::Sha256 h;
  for (const auto& [pod, f] : fragments) {
    if ((only && pod.agent != *only) || f.text.empty()) continue;
    h.update(std::string_view(reinterpret_cast<const char*>(f.digest.data()), f.digest.size()));
  }
  return "\"" + model::to_hex(h.finish()).substr(0, 32) + "\"";
}

void Aggregator::set_pods(const AgentKey& agent, std::vector<std::string> addresses) {
  std::sort(addresses.begin(), addresses.end());
  addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
  auto& have = pods_[agent];
  if (have == addresses) {
    if (have.empty()) pods_.erase(agent);
    return;
  }
  have = std::move(addresses);
  if (have.empty()) pods_.erase(agent);
  merged_at_.reset();  // a changed pod set is not served from the old merge
  stale_ = in_flight();
  // Pods that left take their health and their last answer with them.
  std::erase_if(health_, [this](const auto& entry) { return !listed(entry.first); });
  std::erase_if(results_, [this](const auto& entry) { return !listed(entry.first); });
  changed();
}

const std::string& Aggregator::body(const std::optional<AgentKey>& only) {
  auto it = bodies_.find(only);
  if (it == bodies_.end()) it = bodies_.emplace(only, merge(results_, only)).first;
  return it->second;
}

bool Aggregator::listed(const PodTarget& pod) const {
  auto p = pods_.find(pod.agent);
  return p != pods_.end() && std::binary_search(p->second.begin(), p->second.end(), pod.address);
}

void Aggregator::changed() {
  ++generation_;
  bodies_.clear();
}

Poll Aggregator::poll(TimePoint now) {
  if (in_flight()) return {Poll::Action::wait, {}};
  if (merged_at_ && now - *merged_at_ < freshness_) return {Poll::Action::serve, {}};
  Poll p{Poll::Action::start, {}};
  for (const auto& [agent, addresses] : pods_)
    for (const auto& address : addresses) p.fetch.push_back({agent, address});
  next_.clear();
  asked_ = std::set<PodTarget>(p.fetch.begin(), p.fetch.end());
  ++fanouts_;
  if (p.fetch.empty()) {
    complete(now);
    p.action = Poll::Action::serve;
  }
  return p;
}

bool Aggregator::answer(const PodAnswer& a, TimePoint now, std::vector<model::LogEntry>& logs, Failure* failure) {
  if (a.fanout != 0 && a.fanout != fanouts_) return false;  // from an earlier fan-out
  if (!asked_.erase(a.pod)) return false;                   // not asked in this fan-out
  PodResult r = read_answer(a);
  if (failure) *failure = r.failure;
  Failure& last = health_.try_emplace(a.pod, Failure::none).first->second;
  if (r.failure != last) {
    if (r.failure == Failure::none)
      logs.push_back(pod_entry(model::log_info("integrations-sd", "pod answers again"), a.pod));
    else
      logs.push_back(pod_entry(model::log_warn("integrations-sd", "pod answer failed"), a.pod)
                         .with("reason", failure_name(r.failure))
                         .with("error", bounded(r.detail)));
    last = r.failure;
  }
  if (r.failure == Failure::none)
    next_.insert_or_assign(a.pod, Fragment(pod_fragment(a.pod, std::move(r.groups))));
  else
    ++failures_[{a.pod.agent, failure_name(r.failure)}];
  if (!asked_.empty()) return false;
  complete(now);
  return true;
}

std::vector<PodTarget> Aggregator::expire(TimePoint now, std::vector<model::LogEntry>& logs) {
  std::vector<PodTarget> late(asked_.begin(), asked_.end());
  for (const PodTarget& pod : late) {
    PodAnswer a;
    a.pod = pod;
    a.timed_out = true;
    a.error = "no answer by the fan-out's deadline";
    answer(a, now, logs);
  }
  return late;
}

void Aggregator::complete(TimePoint now) {
  results_ = std::move(next_);
  next_.clear();
  // Answers of pods that left during the fan-out are not served, and a
  // merge that missed pods which arrived is not fresh.
  std::erase_if(results_, [this](const auto& entry) { return !listed(entry.first); });
  if (!stale_) merged_at_ = now;
  stale_ = false;
  changed();
}

}  // namespace sd
