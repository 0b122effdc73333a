// The target allocator's HTTP response bodies, as pure functions of the
// allocator state (the server comes later). Shapes follow upstream
// (reference §2): /scrape_configs, /jobs, /jobs/{job}/targets and
// /jobs/{job}/targets?collector_id=. Bodies end in "\n" as Go's
// json.Encoder writes them; strings are escaped as Go's encoding/json does
// (including <, > and & as \u003c, \u003e, \u0026).
// Contract: ResponseCache serves a collector's per-job body from bytes built
// once per bucket version; a body is rebuilt only after that collector's
// targets of that job changed, and then only the targets whose label sets
// changed are serialised again (the rest are copied from the previous
// body). A job's body over all collectors is replaced only after
// Allocator::job_stamp says it may have changed, and its bytes are put
// together from the collectors' bodies when first asked for. Every cached
// body equals what the free functions build afresh.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "allocation/allocator.hpp"
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
  using Body = std::shared_ptr<const std::string>;
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
  using Body = std::shared_ptr<const std::string>;
  // With `etag`, also the body's body_etag() (computed once per rebuild).
  Body collector_targets(const Allocator& a, std::string_view collector, std::string_view job,
                         std::string* etag = nullptr);
  // job_targets_json(a, job) (and its body_etag) as a JobBody over the
  // collectors' cached bodies; a new one only when a.job_stamp(job) changed
  // since the last call for that job.
  std::shared_ptr<const JobBody> job_targets(const Allocator& a, Name job);
  // Forgets bodies of buckets and jobs that no longer exist.
  void prune(const Allocator& a);
  std::size_t size() const { return entries_.size(); }
  // Targets serialised afresh into collector bodies so far (those whose
  // text was copied from a previous body are not counted).
  std::size_t serialised_targets() const { return serialised_; }

  // Where one target's JSON object sits in a cached body. The label sets
  // are held, not just compared by address, so an address cannot be reused
  // by another set while the text is still looked up by it.
  struct Fragment {
    std::shared_ptr<const LabelSet> group, own;
    std::size_t offset = 0, size = 0;
  };

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct Entry {
    std::uint64_t instance = 0;  // Allocator::instance() of the version
    std::uint64_t version = 0;
    Body body;
    std::string etag;
    std::vector<Fragment> fragments;  // per target, in body order (collector bodies only)
  };
  // Rebuilds a collector's body, copying the text of every target whose
  // label sets are unchanged from the previous body instead of serialising
  // it again: a small discovery change spread over many collectors changes
  // every bucket, but few of its targets.
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
  Body empty_;
  std::size_t serialised_ = 0;
};

}  // namespace allocation
