#include "allocation/filter.hpp"

#include <algorithm>

#include "allocation/parallel.hpp"

namespace allocation {
namespace {

// The rules that can change whether a target is kept: every keep, drop,
// keepequal and dropequal, plus the rules that write a label one of those
// (transitively) reads. The relabeled labels themselves are discarded, so
// the other rules are dead here. A rule whose writes cannot be named
// statically (a templated target, labelmap, labeldrop, labelkeep) keeps
// every earlier rule alive.
std::vector<RelabelConfig> deciding_rules(const std::vector<RelabelConfig>& configs) {
  using A = RelabelAction;
  std::vector<bool> live(configs.size(), false);
  std::vector<std::string> read;  // labels read by live rules after the current one
  bool all_live = false;
  for (std::size_t i = configs.size(); i-- > 0;) {
    const auto& c = configs[i];
    const bool decides =
        c.action == A::keep || c.action == A::drop || c.action == A::keepequal || c.action == A::dropequal;
    const bool opaque = c.action == A::labelmap || c.action == A::labeldrop || c.action == A::labelkeep ||
                        c.target_label.find('$') != std::string::npos;
    const bool feeds = std::find(read.begin(), read.end(), c.target_label) != read.end();
    live[i] = all_live || decides || opaque || feeds;
    if (!live[i]) continue;
    // A partial write (no regex match) leaves the old value: keep reading it.
    read.insert(read.end(), c.source_labels.begin(), c.source_labels.end());
    if (c.action == A::keepequal || c.action == A::dropequal) read.push_back(c.target_label);
    all_live |= opaque;
  }
  std::vector<RelabelConfig> out;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (live[i]) out.push_back(configs[i]);
  }
  return out;
}

void substitute_shard(std::string& regex) {
  static constexpr std::string_view kShard = "$(SHARD)";
  for (auto pos = regex.find(kShard); pos != std::string::npos; pos = regex.find(kShard, pos + 1)) {
    regex.replace(pos, kShard.size(), "0");
  }
}

}  // namespace

RelabelFilter::RelabelFilter(unsigned lanes) : lanes_(lanes ? lanes : default_lanes()), builders_(lanes_) {}

void RelabelFilter::set_job(Name job, std::vector<RelabelConfig> configs, std::string_view path) {
  for (auto& c : configs) substitute_shard(c.regex);
  Relabeler{configs, path};  // validates every rule, with its own index in errors
  auto live = deciding_rules(configs);
  JobRules compiled;
  for (std::size_t i = 0; i < lanes_; ++i) compiled.lanes.emplace_back(live, path);
  for (const auto& c : live) {
    const bool constant = c.action == RelabelAction::hashmod && c.modulus == 1;  // reads nothing
    for (const auto& l : c.source_labels) {
      if (!constant) compiled.reads.push_back(Name::intern(l));
    }
    if (c.action == RelabelAction::keepequal || c.action == RelabelAction::dropequal)
      compiled.reads.push_back(Name::intern(c.target_label));
  }
  std::sort(compiled.reads.begin(), compiled.reads.end());
  compiled.reads.erase(std::unique(compiled.reads.begin(), compiled.reads.end()), compiled.reads.end());
  auto it = std::lower_bound(jobs_.begin(), jobs_.end(), job, [](const auto& e, Name j) { return e.first < j; });
  if (it != jobs_.end() && it->first == job) {
    it->second = std::move(compiled);
  } else {
    jobs_.emplace(it, job, std::move(compiled));
  }
}

void RelabelFilter::set_scrape_configs(const model::Value& scrape_configs) {
  jobs_.clear();
  if (scrape_configs.is_null()) return;
  if (!scrape_configs.is_array()) throw RelabelError("scrape_configs: expected array");
  const auto& list = scrape_configs.as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = "scrape_configs[" + std::to_string(i) + "]";
    const model::Value* name = list[i].find("job_name");
    if (!name || !name->is_string() || name->as_string().empty()) {
      throw RelabelError(path + ".job_name: is required");
    }
    const model::Value* rules = list[i].find("relabel_configs");
    auto configs = rules ? parse_relabel_configs(*rules, path + ".relabel_configs") : std::vector<RelabelConfig>{};
    set_job(Name::intern(name->as_string()), std::move(configs), path + ".relabel_configs");
  }
}

const RelabelFilter::JobRules* RelabelFilter::rules_for(Name job) const {
  auto it = std::lower_bound(jobs_.begin(), jobs_.end(), job, [](const auto& e, Name j) { return e.first < j; });
  return it != jobs_.end() && it->first == job && !it->second.lanes[0].empty() ? &it->second : nullptr;
}

bool RelabelFilter::keep(const Target& t) {
  const JobRules* job = rules_for(t.job);
  if (!job) return true;
  builders_[0].reset(t.group.get(), t.own.get());
  return job->lanes[0].process(builders_[0]);
}

// Label sets are usually cold (100k targets x 40 labels do not fit in
// cache), so each target's own set is loaded in three stages ahead of use:
// the set object, its id array, then only the labels the rules read (the
// group's set is shared by many targets and stays warm).
void RelabelFilter::prefetch(const Target& t, int stage) const {
  const LabelSet* own = t.own.get();
  if (!own) return;
  if (stage == 0) return __builtin_prefetch(own);
  if (stage == 1) return own->prefetch_ids();
  if (const JobRules* job = rules_for(t.job)) {
    for (Name n : job->reads) own->prefetch_label(n);
  }
}

std::size_t RelabelFilter::filter_lane(std::span<Target> targets, std::size_t lane) {
  constexpr std::size_t kAhead[3] = {6, 3, 1};  // object, ids, labels
  std::size_t next = 0;
  auto prefetch_ahead = [&]() {
    for (int stage = 0; stage < 3; ++stage) {
      if (kAhead[stage] && next + kAhead[stage] < targets.size()) prefetch(targets[next + kAhead[stage]], stage);
    }
    ++next;
  };
  for (std::size_t i = 0; i < std::min(targets.size(), kAhead[0]); ++i) prefetch(targets[i], 0);
  LabelBuilder& builder = builders_[lane];
  Name last_job;
  const Relabeler* rules = nullptr;
  auto dropped = [&](const Target& t) {
    prefetch_ahead();
    if (!(t.job == last_job)) {
      last_job = t.job;
      const JobRules* job = rules_for(t.job);
      rules = job ? &job->lanes[lane] : nullptr;
    }
    if (!rules) return false;
    builder.reset(t.group.get(), t.own.get());
    return !rules->process(builder);
  };
  return static_cast<std::size_t>(std::remove_if(targets.begin(), targets.end(), dropped) - targets.begin());
}

std::size_t RelabelFilter::apply(TargetList& targets) {
  const std::size_t before = targets.size();
  std::span<Target> all(targets);
  auto begin = targets.begin();
  if (lanes_ < 2 || before < kParallelMin) {
    targets.erase(begin + static_cast<std::ptrdiff_t>(filter_lane(all, 0)), targets.end());
    return before - targets.size();
  }
  const std::size_t mid = before / 2;
  std::size_t kept_first = 0, kept_second = 0;
  run_both([&] { kept_first = filter_lane(all.first(mid), 0); },
           [&] { kept_second = filter_lane(all.subspan(mid), 1); });
  auto tail = begin + static_cast<std::ptrdiff_t>(mid), end = tail + static_cast<std::ptrdiff_t>(kept_second);
  if (kept_first < mid) end = std::move(tail, end, begin + static_cast<std::ptrdiff_t>(kept_first));
  targets.erase(end, targets.end());
  return before - targets.size();
}

}  // namespace allocation
