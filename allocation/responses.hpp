// The target allocator's HTTP response bodies, as pure functions of the
// allocator state (the server comes later). Shapes follow upstream
// (reference §2): /scrape_configs, /jobs, /jobs/{job}/targets and
// /jobs/{job}/targets?collector_id=. Bodies end in "\n" as Go's
// json.Encoder writes them; strings are escaped as Go's encoding/json does
// (including <, > and & as \u003c, \u003e, \u0026).
// Contract: ResponseCache serves a collector's per-job body as a
// TargetsBody (targets_body.hpp) built once per bucket version; a body is
// rebuilt only after that collector's targets of that job changed, and
// then it shares every chunk of the previous version whose targets did not
// change and serialises only targets it never served. A job's body over
// all collectors is replaced only after Allocator::job_stamp says it may
// have changed, and its bytes are put together from the collectors' bodies
// when first asked for. Every cached body equals what the free functions
// build afresh.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "allocation/allocator.hpp"
#include "allocation/targets_body.hpp"
#include "model/value.hpp"

namespace allocation {

// Appends `s` as a JSON string literal with Go's escaping.
void append_json_string(std::string& out, std::string_view s);
// Go's url.QueryEscape.
std::string query_escape(std::string_view s);

// {"<job>": <scrape config>} from a list of scrape configs; secret fields
// (password, credentials, client_secret, bearer_token, tls_config.key,
// proxy_connect_header values) render as "<secret>" unless mask is false
// (only for a listener that authenticates its clients, e.g. mTLS).
std::string scrape_configs_json(const model::Value& scrape_configs, bool mask = true);
// Replaces every secret field named above, anywhere under `v`, by "<secret>"
// (for the allocator's journal, which records the config file).
void mask_secret_fields(model::Value& v);
// {"<job>": {"_link": "/jobs/<escaped job>/targets"}}
std::string jobs_json(const Allocator& a);
// {"<collector>": {"_link": "...?collector_id=<collector>", "targets": [...]}}
// for every known collector.
std::string job_targets_json(const Allocator& a, std::string_view job);
// [{"targets": ["<address>"], "labels": {...}}], "[]" when unknown.
std::string collector_targets_json(const Allocator& a, std::string_view collector, std::string_view job);

// A strong HTTP entity tag for `body` (quoted; a hash of the bytes, so it
// is the same in every process serving the same body).
std::string body_etag(std::string_view body);

// A job's body over all collectors (job_targets_json), assembled on first
// use from the per-collector bodies it was given, which are immutable:
// /jobs/{job}/targets without collector_id is a view for people and
// tools, not for collectors, so publishing does not pay for it.
// Thread-safe: the first caller of body() or etag() builds both.
class JobBody {
 public:
  using Body = std::shared_ptr<const TargetsBody>;
  struct Part {
    std::string collector;
    Body targets;  // its per-collector body; null when it holds nothing of the job
  };
  JobBody(std::string job, std::vector<Part> parts) : job_(std::move(job)), parts_(std::move(parts)) {}
  const std::string& body() const;
  const std::string& etag() const;

 private:
  void build() const;
  std::string job_;
  std::vector<Part> parts_;
  mutable std::once_flag once_;
  mutable std::string body_, etag_;
};

class ResponseCache {
 public:
  using Body = std::shared_ptr<const TargetsBody>;
  // The body (TargetsBody::empty() when the collector holds nothing of the job).
  Body collector_targets(const Allocator& a, std::string_view collector, std::string_view job);
  // job_targets_json(a, job) (and its body_etag) as a JobBody over the
  // collectors' cached bodies; a new one only when a.job_stamp(job) changed
  // since the last call for that job.
  std::shared_ptr<const JobBody> job_targets(const Allocator& a, Name job);
  // Forgets bodies of buckets and jobs that no longer exist.
  void prune(const Allocator& a);
  std::size_t size() const { return entries_.size(); }
  // What building the collector bodies cost so far: targets serialised
  // afresh (those whose text was copied from a previous body are not
  // counted), chunks built (shared ones are not), targets read.
  const BodyBuildStats& build_stats() const { return stats_; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct Entry {
    std::uint64_t instance = 0;  // Allocator::instance() of the version
    std::uint64_t version = 0;
    Body body;
  };
  void rebuild(const Allocator& a, const JobBucket& bucket, Entry& e);
  // key: collector + '\0' + job
  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> entries_;
  struct JobEntry {
    Name job;
    std::uint64_t stamp = 0;  // the job_stamp it was built at
    std::shared_ptr<const JobBody> body;
  };
  std::unordered_map<std::uint32_t, JobEntry> jobs_;  // by Name id
  std::string key_;
  BodyBuildStats stats_;
};

}  // namespace allocation
