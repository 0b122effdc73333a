// The integrations SD aggregator's pure core: which pods each GrafanaAgent's
// integrations Service has, one fan-out at a time over all of them (single
// flight), a freshness window that serves repeated polls from the last
// merge, each pod's answer read as Prometheus http_sd (a failure is
// classified, counted per GrafanaAgent and reason, and logged once per
// change of that pod's state), and the merged body: every group of every
// pod that answered, labelled with its GrafanaAgent, in pod order and
// sorted within each pod.
// Contract: pure; time is passed in. A pod that fails never fails the
// merge nor drops another pod's targets. Equal pod answers give
// byte-identical bodies whatever order the answers arrived in.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/http_sd.hpp"
#include "model/labels.hpp"
#include "model/log.hpp"
#include "model/object_fields.hpp"
#include "model/sha256.hpp"

namespace sd {

using TimePoint = std::chrono::steady_clock::time_point;
using AgentKey = model::Key;  // the GrafanaAgent's namespace and name

// The labels every merged group gets (model/integrations.hpp names them).
inline constexpr const char* kAgentNameLabel = model::kSdAgentNameLabel;
inline constexpr const char* kAgentNamespaceLabel = model::kSdAgentNamespaceLabel;

enum class Failure { none, transport, timeout, status, content_type, malformed, too_large };
const char* failure_name(Failure f);  // "ok", "transport", "timeout", "status", ...

// One pod to ask: "host:port" of a ready integrations pod.
struct PodTarget {
  AgentKey agent;
  std::string address;
  friend auto operator<=>(const PodTarget&, const PodTarget&) = default;
};

// What the transport saw; status 0 means no HTTP answer (see error).
struct PodAnswer {
  PodTarget pod;
  int status = 0;
  std::string content_type;
  std::string body;
  std::string error;
  bool timed_out = false;
  bool too_large = false;
  // The fan-out that asked (Aggregator::fanout() when it started); 0 = the
  // one in flight. A late answer from an earlier fan-out is ignored, even
  // when the same pod was asked again since.
  std::uint64_t fanout = 0;
};

struct PodResult {
  Failure failure = Failure::none;
  std::string detail;  // why, for the log line
  std::vector<model::HttpSdGroup> groups;
};
PodResult read_answer(const PodAnswer& answer);

// One pod's groups as the comma-separated JSON objects of a merged body:
// each labelled with the pod's GrafanaAgent, sorted by labels then
// targets. Encoded once per answer, so a merge is a concatenation.
std::string pod_fragment(const PodTarget& pod, std::vector<model::HttpSdGroup> groups);

// A pod's fragment with its SHA-256, taken as the answer arrives: the
// merge's entity tag then hashes 32 bytes per pod instead of the whole
// body while every poll waits.
struct Fragment {
  std::string text;
  model::Sha256::Digest digest{};
  explicit Fragment(std::string t = {});
};
using Fragments = std::map<PodTarget, Fragment>;

// The merged http_sd body over every pod's fragment (in pod order), only
// `only`'s pods when given.
std::string merge(const Fragments& fragments, const std::optional<AgentKey>& only);
// The quoted entity tag of merge(fragments, only): 32 hex digits of a
// SHA-256 over the digests of the fragments that body holds, so equal
// answers give equal tags and a changed fragment a new one.
std::string merge_etag(const Fragments& fragments, const std::optional<AgentKey>& only);

struct Poll {
  enum class Action { serve, wait, start } action = Action::serve;
  std::vector<PodTarget> fetch;  // for start: one request each, concurrently
};

class Aggregator {
 public:
  explicit Aggregator(std::chrono::milliseconds freshness = std::chrono::seconds(1)) : freshness_(freshness) {}

  // The ready addresses of an agent's integrations pods (empty: none). A
  // pod that leaves is no longer served; a change during a fan-out makes
  // its merge stale, so the next poll starts another.
  void set_pods(const AgentKey& agent, std::vector<std::string> addresses);
  // A poll at `now`: serve the last merge while fresh, wait for the fan-out
  // in flight, or start one (with no pods it completes at once).
  Poll poll(TimePoint now);
  // One pod's answer; ignored unless it answers the fan-out in flight
  // (PodAnswer::fanout) for a pod it asked. True when it was the last,
  // so waiting polls can be served. A change of the pod's state is logged
  // to `logs` (component integrations-sd); `failure`, when given, receives
  // how this answer was classified.
  bool answer(const PodAnswer& a, TimePoint now, std::vector<model::LogEntry>& logs, Failure* failure = nullptr);

  // Ends the fan-out in flight: every pod that has not answered counts as
  // timed out (the transport's own timeout may fire later than the
  // fan-out's deadline). Returns those pods (none when nothing was in flight).
  std::vector<PodTarget> expire(TimePoint now, std::vector<model::LogEntry>& logs);
  // Numbers the fan-outs; a deadline names the one it was set for.
  std::uint64_t fanout() const { return fanouts_; }

  // The last merge, for every agent or only one; kept until it changes.
  const std::string& body(const std::optional<AgentKey>& only);
  // The last merge's entity tag (merge_etag), for every agent or only one.
  std::string etag(const std::optional<AgentKey>& only) const { return merge_etag(results_, only); }
  // Bumped whenever the body may have changed.
  std::uint64_t generation() const { return generation_; }
  bool in_flight() const { return !asked_.empty(); }
  // Failures counted per agent and reason ("timeout", "malformed", ...).
  const std::map<std::pair<AgentKey, std::string>, std::uint64_t>& failures() const { return failures_; }
  const std::map<AgentKey, std::vector<std::string>>& pods() const { return pods_; }

 private:
  void complete(TimePoint now);
  void changed();
  bool listed(const PodTarget& pod) const;

  std::chrono::milliseconds freshness_;
  std::map<AgentKey, std::vector<std::string>> pods_;
  Fragments results_;                    // the last merge's pod fragments
  Fragments next_;                       // the fan-out in flight
  std::set<PodTarget> asked_;            // its pods still to answer
  std::map<PodTarget, Failure> health_;  // the last state per pod
  std::map<std::pair<AgentKey, std::string>, std::uint64_t> failures_;
  std::optional<TimePoint> merged_at_;
  bool stale_ = false;  // the pod set changed while a fan-out was in flight
  std::uint64_t fanouts_ = 0;
  std::uint64_t generation_ = 0;
  std::map<std::optional<AgentKey>, std::string> bodies_;
};

}  // namespace sd
