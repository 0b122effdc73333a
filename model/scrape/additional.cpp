// additionalScrapeConfigs of a MetricsInstance: a Secret key holding a YAML
// list of Prometheus scrape configs, appended verbatim after the generated
// jobs. With several shards, prometheus-operator appends the sharding pair
// to every such job that has no hashmod rule of its own, so each target is
// scraped by one shard only; upstream's agent operator leaves them as they
// are (every shard scrapes every target), which compat mode reproduces.
#include "model/parse.hpp"
#include "model/scrape/jobs.hpp"

namespace model::scrape {
namespace {

constexpr const char* kPath = "spec.additionalScrapeConfigs";

bool fail(AssetRefs& assets, std::string message) {
  assets.error(kPath, std::move(message));
  return false;
}

bool check_jobs(const Value& list, AssetRefs& assets) {
  if (!list.is_array())
    return fail(assets, std::string("must be a YAML list of scrape configs, got ") + list.type_name());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Value& job = list.as_array()[i];
    std::string item = "item " + std::to_string(i);
    if (!job.is_object()) return fail(assets, item + " is not a scrape config object");
    const Value* rules = job.find("relabel_configs");
    if (rules && !rules->is_null() && !rules->is_array())
      return fail(assets, item + ": relabel_configs must be a list");
  }
  return true;
}

// Parses `text` into `out` (a list of objects); false, with an error, otherwise.
bool parse_jobs(const std::string& text, Value& out, AssetRefs& assets) {
  std::vector<Document> docs;
  try {
    docs = parse_documents(text, kPath);
  } catch (const ParseError& e) {
    std::string where = e.line() > 0 ? " (line " + std::to_string(e.line()) + ")" : "";
    return fail(assets, "invalid YAML" + where + ": " + e.problem());
  }
  if (docs.size() > 1) return fail(assets, "must be a single YAML document");
  if (docs.empty() || docs[0].value.is_null()) return true;
  if (!check_jobs(docs[0].value, assets)) return false;
  out = std::move(docs[0].value);
  return true;
}

void add_sharding(Value& job, std::int64_t shards) {
  Value* rules = job.find("relabel_configs");
  if (!rules || rules->is_null()) rules = &job.set("relabel_configs", Value::array());
  if (!has_hashmod(*rules)) append_sharding(*rules, "__address__", shards);
}

}  // namespace

Value additional_scrape_configs(const JobContext& ctx, const MetricsInstance& mi, AssetRefs& assets) {
  Value jobs = Value::array();
  if (!mi.additional_scrape_configs) return jobs;
  std::size_t errors_before = assets.errors.size();
  std::string text = assets.secret_value(mi.meta.ns, *mi.additional_scrape_configs, kPath);
  if (assets.errors.size() != errors_before || !parse_jobs(text, jobs, assets)) return Value::array();
  if (!ctx.compat() && ctx.shards > 1)
    for (auto& job : jobs.as_array()) add_sharding(job, ctx.shards);
  return jobs;
}

}  // namespace model::scrape
