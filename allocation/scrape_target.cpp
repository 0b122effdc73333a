// Prometheus's checks after relabeling, and a target's identity computed
// from its final labels without walking the labels it kept unchanged.
#include <algorithm>

#include "allocation/hash.hpp"
#include "allocation/scrape_job.hpp"
#include "model/scrape/common.hpp"

namespace allocation {
namespace {

struct Known {
  Name address, instance, scheme, interval, timeout;
};
const Known& known() {
  static const Known k{Names::get().address, Name::intern("instance"), Name::intern("__scheme__"),
                       Name::intern("__scrape_interval__"), Name::intern("__scrape_timeout__")};
  return k;
}

bool in_added(const LabelBuilder& b, Name n) {
  for (const auto& a : b.added()) {
    if (a.first == n) return true;
  }
  return false;
}

// Which of the names finish_target() cares about the rules set or deleted,
// found in one pass over the builder's changes.
struct Touched {
  bool interval = false, timeout = false, instance = false;
};
Touched touched(const LabelBuilder& b) {
  Touched t;
  const Known& k = known();
  auto mark = [&](Name n) {
    t.interval |= n == k.interval;
    t.timeout |= n == k.timeout;
    t.instance |= n == k.instance;
  };
  for (const auto& a : b.added()) mark(a.first);
  for (Name n : b.deleted()) mark(n);
  return t;
}

// Whether the discovered sets may hold a seedable name.
bool may_shadow_seeds(const LabelBuilder& b) {
  return (b.group() && b.group()->has_seedable()) || (b.own() && b.own()->has_seedable());
}

bool refuse(std::string* why, std::string reason) {
  if (why) *why = std::move(reason);
  return false;
}

// Prometheus 2.42 appends the scheme's port only when the address has none
// and appending one makes it splittable (so "a:b:c" stays as it is).
bool add_default_port(LabelBuilder& b, std::string* why) {
  const std::string_view addr = b.get(known().address);
  if (has_port(addr) || !has_port(std::string(addr) + ":1234")) return true;
  const std::string_view scheme = b.get(known().scheme);
  const char* port = scheme == "http" || scheme.empty() ? ":80" : scheme == "https" ? ":443" : nullptr;
  if (!port) return refuse(why, "invalid scheme: \"" + std::string(scheme) + "\"");
  b.set(known().address, std::string(addr) + port);
  return true;
}

// The job's own values were checked when it was read; only relabeled ones
// are parsed here.
bool timing_ok(const LabelBuilder& b, const ScrapeJob& job, Touched t, std::string* why) {
  if (!may_shadow_seeds(b) && !t.interval && !t.timeout) return true;
  const std::string_view interval = b.get(known().interval), timeout = b.get(known().timeout);
  if (interval == job.interval && timeout == job.timeout) return true;
  const auto iv = model::scrape::parse_duration(interval), to = model::scrape::parse_duration(timeout);
  if (!iv) return refuse(why, "error parsing scrape interval: \"" + std::string(interval) + "\"");
  if (*iv == 0) return refuse(why, "scrape interval cannot be 0");
  if (!to) return refuse(why, "error parsing scrape timeout: \"" + std::string(timeout) + "\"");
  if (*to == 0) return refuse(why, "scrape timeout cannot be 0");
  if (*to > *iv) return refuse(why, "scrape timeout cannot be greater than scrape interval");
  return true;
}

// A value viewed from a discovered set that was checked when it was built.
bool known_utf8(const LabelSet* s, std::string_view v) {
  return s && s->all_values_utf8() && s->holds(v);
}

// Every kept value must be UTF-8. Discovered sets flag a bad value when
// built, so the labels are walked only when one was flagged, and values
// copied from a clean set are not scanned again.
bool values_ok(const LabelBuilder& b, std::string* why) {
  for (const auto& [n, v] : b.added()) {
    if (n.meta() || known_utf8(b.own(), v) || known_utf8(b.group(), v)) continue;
    if (!valid_utf8(v)) return refuse(why, "invalid label value for \"" + std::string(n.text()) + "\"");
  }
  const bool flagged =
      (b.group() && b.group()->has_invalid_kept_value()) || (b.own() && b.own()->has_invalid_kept_value());
  if (!flagged) return true;
  for (const auto& [n, v] : final_labels(b)) {
    if (!valid_utf8(v)) return refuse(why, "invalid label value for \"" + n + "\"");
  }
  return true;
}

// The discovered value of `n`, "" when neither set holds it.
std::string_view discovered(const LabelBuilder& b, Name n) {
  std::string_view v = b.own() ? b.own()->get(n) : std::string_view();
  return v.empty() && b.group() ? b.group()->get(n) : v;
}

// The set whose __address__ the target was discovered with (null: none).
const LabelSet* address_source(const LabelBuilder& b) {
  return b.own() && !b.own()->address().empty() ? b.own() : b.group();
}

// Whether `addr` is a view of the discovered address itself (the rules
// left it alone), so what its set computed when built applies to it.
bool is_discovered(const LabelSet* source, std::string_view addr) {
  return source && addr.data() == source->address().data() && addr.size() == source->address().size();
}

// The base value of a name that is not __meta_*, using the sets' name
// filters to skip lookups that cannot hit.
std::string_view kept_base(const LabelBuilder& b, Name n, std::uint64_t names) {
  if (names & LabelSet::name_bit(n)) return b.base_get(n);
  if (!n.seedable()) return {};
  for (const auto& s : b.seeds()) {
    if (s.name == n) return s.value;
  }
  return {};
}

// Sum of label_hash over the final labels: the discovered sets' non-meta
// sums, the seeds they do not shadow, minus the base values of touched
// names, plus the added values.
std::uint64_t final_fingerprint(const LabelBuilder& b, const ScrapeJob& job) {
  const LabelSet *group = b.group(), *own = b.own();
  std::uint64_t fp = (group ? group->kept_fingerprint() : 0) + (own ? own->kept_fingerprint() : 0);
  const std::uint64_t names = (group ? group->kept_names() : 0) | (own ? own->kept_names() : 0);
  if (group && own && (group->kept_names() & own->kept_names())) {
    for (const auto& l : group->labels()) {
      if (!l.name.meta() && !own->get(l.name).empty()) fp -= label_hash(l.name, l.value);
    }
  }
  if (!may_shadow_seeds(b)) {
    fp += job.seed_fingerprint;
  } else {
    for (const auto& s : b.seeds()) fp += discovered(b, s.name).empty() ? label_hash(s.name, s.value) : 0;
  }
  const auto deleted = b.deleted();
  for (std::size_t i = 0; i < deleted.size(); ++i) {
    const Name n = deleted[i];
    if (n.meta() || in_added(b, n) || std::find(deleted.begin(), deleted.begin() + i, n) != deleted.begin() + i)
      continue;
    if (auto v = kept_base(b, n, names); !v.empty()) fp -= label_hash(n, v);
  }
  for (const auto& [n, v] : b.added()) {
    if (n.meta()) continue;
    if (auto old = kept_base(b, n, names); !old.empty()) fp -= label_hash(n, old);
    fp += label_hash(n, v);
  }
  return fp;
}

}  // namespace

bool has_port(std::string_view s) {
  if (s.empty() || s[0] != '[') {  // host:port: exactly one ':' and no brackets, in one pass
    std::size_t colons = 0;
    bool bracket = false;
    for (const char c : s) colons += c == ':', bracket |= c == '[' || c == ']';
    return colons == 1 && !bracket;
  }
  const std::size_t colon = s.rfind(':'), end = s.find(']');
  if (colon == std::string_view::npos || end == std::string_view::npos || end + 1 != colon) return false;
  return s.find('[', 1) == std::string_view::npos && s.find(']', end + 1) == std::string_view::npos;
}

bool finish_target(LabelBuilder& b, const ScrapeJob& job, TargetIdentity& out, std::string* why) {
  const Known& k = known();
  const LabelSet* const source = address_source(b);
  std::string_view addr = b.get(k.address);
  if (addr.empty()) return refuse(why, "no address");
  const bool untouched = is_discovered(source, addr);
  if (!untouched || !source->address_scrapable()) {
    if (!has_port(addr) && !add_default_port(b, why)) return false;
    addr = b.get(k.address);
    if (addr.find('/') != std::string_view::npos)
      return refuse(why, "\"" + std::string(addr) + "\" is not a valid hostname");
  }
  const Touched t = touched(b);
  if (!timing_ok(b, job, t, why)) return false;
  // `instance` is not __meta_*: a clear filter bit and no write prove it absent.
  const std::uint64_t names = (b.group() ? b.group()->kept_names() : 0) | (b.own() ? b.own()->kept_names() : 0);
  const bool has_instance = t.instance || (names & LabelSet::name_bit(k.instance)) ? !b.get(k.instance).empty() : false;
  if (!has_instance) b.set_view(k.instance, addr);  // addr is a view from b.get()
  if (!values_ok(b, why)) return false;
  out.hash = hash_combine(job.job.hash(), final_fingerprint(b, job));
  // Placement follows the address scraped; an untouched one reuses the
  // discovered set's precomputed hash (the same function of the text).
  const std::uint64_t addr_hash = is_discovered(source, addr) ? source->address_hash() : hash_bytes(addr, 0x61646472);
  out.key = hash_combine(job.job.hash(), addr_hash);
  return true;
}

std::vector<std::pair<std::string, std::string>> final_labels(const LabelBuilder& b) {
  std::vector<LabelBuilder::Entry> entries;
  b.snapshot(entries);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [n, v] : entries) {
    if (!n.meta()) out.emplace_back(std::string(n.text()), std::string(v));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace allocation
