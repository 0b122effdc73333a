#include "allocation/responses.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

#include "allocation/hash.hpp"
#include "model/yaml_emit.hpp"

namespace allocation {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Bytes Go's encoding/json escapes, plus 0xe2, the lead byte of U+2028 and
// U+2029 (escaped too), which needs a look at the next two bytes.
constexpr std::array<bool, 256> kNeedsLook = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  for (unsigned char c : std::string_view("\"\\<>&\xe2")) t[c] = true;
  return t;
}();

void append_escaped(std::string& out, unsigned char c) {
  if (c == '"' || c == '\\') {
    out += '\\';
    out += static_cast<char>(c);
  } else if (c == '\n') {
    out += "\\n";
  } else if (c == '\r') {
    out += "\\r";
  } else if (c == '\t') {
    out += "\\t";
  } else {
    out += "\\u00";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
}

void append_targets(std::string& out, const Allocator& a, const JobBucket* bucket) {
  out += '[';
  if (bucket) {
    for (std::size_t i = 0; i < bucket->targets.size(); ++i) {
      if (i > 0) out += ',';
      append_target_json(out, a.targets()[bucket->targets[i]]);
    }
  }
  out += ']';
}

// Prometheus's config.Secret fields that a scrape config can carry: the
// HTTP client's (every SD config embeds one), and the SD configs' own.
bool secret_key(std::string_view parent, std::string_view key) {
  static constexpr std::string_view kAnywhere[] = {
      "password",     "credentials",        "client_secret",
      "bearer_token", "secret_key",         "auth_token",
      "consumer_key", "application_secret", "application_credential_secret"};
  for (std::string_view k : kAnywhere)
    if (key == k) return true;
  if (parent == "tls_config" && key == "key") return true;
  return parent == "consul_sd_configs" && key == "token";
}

void mask_all(model::Value& list) {
  if (!list.is_array()) return;
  for (auto& s : list.as_array()) s = model::Value("<secret>");
}

void mask_secrets(model::Value& v, std::string_view parent) {
  if (v.is_array()) {
    for (auto& item : v.as_array()) mask_secrets(item, parent);
  } else if (v.is_object()) {
    for (auto& [key, child] : v.as_object()) {
      if (secret_key(parent, key) && !child.is_null()) {
        child = model::Value("<secret>");
      } else if (parent == "proxy_connect_header") {
        mask_all(child);
      } else if (parent == "http_headers" && child.is_object()) {
        if (model::Value* secrets = child.find("secrets")) mask_all(*secrets);
      } else {
        mask_secrets(child, key);
      }
    }
  }
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  // Plain bytes are copied in runs: label values are mostly plain, and a
  // byte-at-a-time append was half of a publish's time.
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!kNeedsLook[c]) continue;
    const bool line_sep = c == 0xe2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
                          (static_cast<unsigned char>(s[i + 2]) & 0xfe) == 0xa8;
    if (c == 0xe2 && !line_sep) continue;
    out.append(s.data() + run, i - run);
    if (line_sep) {
      out += (static_cast<unsigned char>(s[i + 2]) == 0xa8) ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      append_escaped(out, c);
    }
    run = i + 1;
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

std::string query_escape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += static_cast<char>(std::toupper(kHex[c >> 4]));
      out += static_cast<char>(std::toupper(kHex[c & 15]));
    }
  }
  return out;
}

void mask_secret_fields(model::Value& v) {
  mask_secrets(v, "");
}

std::string scrape_configs_json(const model::Value& scrape_configs, bool mask) {
  model::Value out = model::Value::object();
  if (scrape_configs.is_array()) {
    for (const auto& sc : scrape_configs.as_array()) {
      const model::Value* name = sc.find("job_name");
      if (!name || !name->is_string()) continue;
      model::Value copy = sc;
      if (mask) mask_secrets(copy, "");
      out.set(name->as_string(), std::move(copy));
    }
  }
  return model::to_json(out) + "\n";
}

std::string jobs_json(const Allocator& a) {
  std::string out = "{";
  for (std::size_t i = 0; i < a.jobs().size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, a.jobs()[i].text());
    out += ":{\"_link\":";
    append_json_string(out, "/jobs/" + query_escape(a.jobs()[i].text()) + "/targets");
    out += '}';
  }
  return out + "}\n";
}

namespace {

// collector_targets_json's bytes as a one-chunk body, for the reference
// job_targets_json: serialised without any cache.
JobBody::Body fresh_body(const Allocator& a, std::string_view collector, std::string_view job) {
  std::string json = collector_targets_json(a, collector, job);
  std::vector<TargetsBody::Chunk> one;
  one.push_back(make_chunk(json.substr(1, json.size() - 3), {}));
  return std::make_shared<const TargetsBody>(std::move(one));
}

}  // namespace

// JobBody's shape over freshly serialised per-collector bodies: one
// writer of the all-collector shape for the cache and for this reference.
std::string job_targets_json(const Allocator& a, std::string_view job) {
  const Name name = Name::find(job);
  std::vector<JobBody::Part> parts;
  for (const auto& c : a.collectors()) {
    const bool holds = !name.empty() && a.bucket(c.name, name);
    parts.push_back({c.name, holds ? fresh_body(a, c.name, job) : nullptr});
  }
  return JobBody(std::string(job), std::move(parts)).body();
}

std::string collector_targets_json(const Allocator& a, std::string_view collector, std::string_view job) {
  const Name name = Name::find(job);
  std::string out;
  append_targets(out, a, name.empty() ? nullptr : a.bucket(collector, name));
  return out + "\n";
}

std::string body_etag(std::string_view body) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "\"%016llx\"", static_cast<unsigned long long>(hash_bytes(body, 0x65746167)));
  return buf;
}

void ResponseCache::rebuild(const Allocator& a, const JobBucket& bucket, Entry& e) {
  // The previous version's texts stay right under a new allocator too:
  // a target's text depends only on its label sets.
  e.body = build_targets_body(a, bucket, e.body.get(), stats_);
  e.instance = a.instance();
  e.version = bucket.version;
}

ResponseCache::Body ResponseCache::collector_targets(const Allocator& a, std::string_view collector,
                                                     std::string_view job) {
  const Name name = Name::find(job);
  const JobBucket* bucket = name.empty() ? nullptr : a.bucket(collector, name);
  if (!bucket) return TargetsBody::empty();
  key_.assign(collector);
  key_ += '\0';
  key_ += job;
  auto it = entries_.find(std::string_view(key_));
  if (it == entries_.end()) it = entries_.emplace(key_, Entry{}).first;
  const Entry& e = it->second;
  if (!e.body || e.instance != a.instance() || e.version != bucket->version) rebuild(a, *bucket, it->second);
  return it->second.body;
}

const std::string& JobBody::body() const {
  std::call_once(once_, [this] { build(); });
  return body_;
}

const std::string& JobBody::etag() const {
  std::call_once(once_, [this] { build(); });
  return etag_;
}

// job_targets_json's shape; each collector's array is its per-collector
// body without the newline instead of a second serialisation.
void JobBody::build() const {
  std::string out = "{";
  for (std::size_t c = 0; c < parts_.size(); ++c) {
    const Part& p = parts_[c];
    if (c > 0) out += ',';
    append_json_string(out, p.collector);
    out += ":{\"_link\":";
    append_json_string(out, "/jobs/" + query_escape(job_) + "/targets?collector_id=" + p.collector);
    out += ",\"targets\":";
    if (p.targets)
      p.targets->append_array(out);
    else
      out += "[]";
    out += '}';
  }
  out += "}\n";
  body_ = std::move(out);
  etag_ = body_etag(body_);
}

std::shared_ptr<const JobBody> ResponseCache::job_targets(const Allocator& a, Name job) {
  JobEntry& e = jobs_[job.id()];
  e.job = job;
  const std::uint64_t stamp = a.job_stamp(job);
  if (!e.body || e.stamp != stamp) {
    std::vector<JobBody::Part> parts;
    parts.reserve(a.collectors().size());
    for (const auto& c : a.collectors())
      parts.push_back({c.name, a.bucket(c.name, job) ? collector_targets(a, c.name, job.text()) : nullptr});
    e.body = std::make_shared<const JobBody>(std::string(job.text()), std::move(parts));
    e.stamp = stamp;
  }
  return e.body;
}

void ResponseCache::prune(const Allocator& a) {
  std::erase_if(jobs_, [&](const auto& e) {
    const JobEntry& j = e.second;
    return a.job_size(j.job) == 0 || j.stamp != a.job_stamp(j.job);
  });
  std::erase_if(entries_, [&](const auto& e) {
    const std::string& key = e.first;
    const auto sep = key.find('\0');
    const Name job = Name::find(std::string_view(key).substr(sep + 1));
    const JobBucket* b = job.empty() ? nullptr : a.bucket(std::string_view(key).substr(0, sep), job);
    return !b || e.second.instance != a.instance() || b->version != e.second.version;
  });
}

}  // namespace allocation
