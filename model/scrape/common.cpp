// Job-level settings shared by the monitor renderers: kubernetes_sd
// namespaces, honor_labels/honor_timestamps, scrape limits and the
// interval/timeout check.
#include "model/scrape/common.hpp"

#include <cctype>
#include <iterator>
#include <limits>

namespace model::scrape {
namespace {

struct DurationUnit {
  const char* suffix;
  std::int64_t ms;
};
// Largest first: a Prometheus duration lists each unit at most once, in
// this order ("ms" before "m" so the longer suffix matches first).
constexpr DurationUnit kUnits[] = {{"y", 365LL * 24 * 3600 * 1000},
                                   {"w", 7LL * 24 * 3600 * 1000},
                                   {"d", 24LL * 3600 * 1000},
                                   {"h", 3600LL * 1000},
                                   {"ms", 1},
                                   {"m", 60LL * 1000},
                                   {"s", 1000}};
// Rank of each unit in the required order (y w d h m s ms).
constexpr int kRank[] = {0, 1, 2, 3, 6, 4, 5};

// Reads "<digits><unit>" at the front of `s`; returns the unit index.
std::optional<int> read_component(std::string_view& s, std::int64_t& amount) {
  std::size_t i = 0;
  amount = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (amount > std::numeric_limits<std::int64_t>::max() / 10 - 10) return std::nullopt;
    amount = amount * 10 + (s[i++] - '0');
  }
  if (i == 0) return std::nullopt;
  std::string_view rest = s.substr(i);
  for (int u = 0; u < static_cast<int>(std::size(kUnits)); ++u) {
    std::string_view suffix = kUnits[u].suffix;
    if (rest.substr(0, suffix.size()) == suffix) {
      s = rest.substr(suffix.size());
      return u;
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> sd_namespaces(const NamespaceSelector& sel, const std::string& own_ns, bool ignore_selectors) {
  if (ignore_selectors) return {own_ns};
  if (sel.any) return {};
  if (sel.match_names.empty()) return {own_ns};
  return sel.match_names;
}

Value string_map(const std::map<std::string, std::string>& m) {
  Value out = Value::object();
  for (const auto& [k, v] : m) out.set(k, v);
  return out;
}

Value kubernetes_sd(const JobContext& ctx, const char* role, const NamespaceSelector& sel, const std::string& own_ns,
                    bool attach_node, Value selectors) {
  Value sd = ctx.sd_fields;
  sd.set("role", role);
  auto names = sd_namespaces(sel, own_ns, ctx.metrics().ignore_namespace_selectors);
  if (!names.empty()) sd.set("namespaces", Value::obj({{"names", Value::strings(names)}}));
  // Upstream ignores attachMetadata (the monitors warn about it).
  if (attach_node && !ctx.compat()) sd.set("attach_metadata", Value::obj({{"node", true}}));
  if (!selectors.is_null()) sd.set("selectors", std::move(selectors));
  return sd;
}

void set_honor_fields(Value& job, const JobContext& ctx, bool honor_labels, std::optional<bool> honor_timestamps) {
  const auto& m = ctx.metrics();
  job.set("honor_labels", honor_labels && !m.override_honor_labels);
  if (honor_timestamps || m.override_honor_timestamps)
    job.set("honor_timestamps", honor_timestamps.value_or(false) && !m.override_honor_timestamps);
}

std::optional<std::int64_t> effective_limit(std::optional<std::int64_t> user, std::optional<std::int64_t> enforced,
                                            bool compat) {
  std::int64_t u = user.value_or(0);
  if (compat) {
    // Upstream: rendered when the user limit is positive or an enforced one
    // is set, and then the enforced value wins whenever it is set.
    if (u <= 0 && !enforced) return std::nullopt;
    if (!enforced) return u;
    if (u < *enforced && u != 0 && *enforced == 0) return u;
    return *enforced;
  }
  // The lower non-zero limit wins (0 means "no limit").
  std::int64_t out = u;
  if (enforced && *enforced > 0 && (u <= 0 || *enforced < u)) out = *enforced;
  if (out <= 0) return std::nullopt;
  return out;
}

void set_limits(Value& job, const JobContext& ctx, const ScrapeLimits& limits, AssetRefs& assets) {
  const auto& m = ctx.metrics();
  if (auto v = effective_limit(limits.sample_limit, m.enforced_sample_limit, ctx.compat())) job.set("sample_limit", *v);
  if (auto v = effective_limit(limits.target_limit, m.enforced_target_limit, ctx.compat())) job.set("target_limit", *v);
  // 0 means no limit, which is also what leaving the key out means.
  auto put = [&](const char* key, const char* field, std::optional<std::int64_t> v) {
    if (!v || *v <= 0 || ignored_in_compat(ctx, assets, std::string("spec.") + field)) return;
    job.set(key, *v);
  };
  put("label_limit", "labelLimit", limits.label_limit);
  put("label_name_length_limit", "labelNameLengthLimit", limits.label_name_length_limit);
  put("label_value_length_limit", "labelValueLengthLimit", limits.label_value_length_limit);
  put("keep_dropped_targets", "keepDroppedTargets", limits.keep_dropped_targets);
}

std::optional<std::int64_t> parse_duration(std::string_view s) {
  if (s == "0") return 0;
  if (s.empty()) return std::nullopt;
  std::int64_t total = 0;
  int last_rank = -1;
  while (!s.empty()) {
    std::int64_t amount = 0;
    auto unit = read_component(s, amount);
    if (!unit || kRank[*unit] <= last_rank) return std::nullopt;
    last_rank = kRank[*unit];
    if (amount > (std::numeric_limits<std::int64_t>::max() - total) / kUnits[*unit].ms) return std::nullopt;
    total += amount * kUnits[*unit].ms;
  }
  return total;
}

std::string format_duration(std::int64_t ms) {
  if (ms <= 0) return "0s";
  // Largest unit first; y and w are used only when nothing would remain.
  constexpr int kOrder[] = {0, 1, 2, 3, 5, 6, 4};
  std::string out;
  for (int u : kOrder) {
    const std::int64_t unit = kUnits[u].ms;
    if (u <= 1 && ms % unit != 0) continue;
    if (ms >= unit) {
      out += std::to_string(ms / unit) + kUnits[u].suffix;
      ms %= unit;
    }
  }
  return out;
}

void check_scrape_timing(const JobContext& ctx, const std::string& interval, const std::string& timeout,
                         const std::string& path, AssetRefs& assets, const char* interval_field) {
  auto iv = interval.empty() ? std::nullopt : parse_duration(interval);
  auto to = timeout.empty() ? std::nullopt : parse_duration(timeout);
  if (!interval.empty() && !iv) assets.error(path + "." + interval_field, "invalid duration \"" + interval + "\"");
  if (!timeout.empty() && !to) assets.error(path + ".scrapeTimeout", "invalid duration \"" + timeout + "\"");
  if (!to) return;
  std::string effective = interval;
  if (effective.empty()) effective = ctx.metrics().scrape_interval.empty() ? "1m" : ctx.metrics().scrape_interval;
  auto eff = interval.empty() ? parse_duration(effective) : iv;
  if (eff && *to > *eff)
    assets.error(path + ".scrapeTimeout",
                 "scrapeTimeout " + timeout + " is greater than the scrape interval " + effective);
}

}  // namespace model::scrape
