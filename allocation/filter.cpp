#include "allocation/filter.hpp"

#include <algorithm>

#include "allocation/parallel.hpp"

namespace allocation {
namespace {

void substitute_shard(std::string& regex) {
  static constexpr std::string_view kShard = "$(SHARD)";
  for (auto pos = regex.find(kShard); pos != std::string::npos; pos = regex.find(kShard, pos + 1)) {
    regex.replace(pos, kShard.size(), "0");
  }
}

}  // namespace

RelabelFilter::RelabelFilter(unsigned lanes, bool drop_relabeled)
    : lanes_(lanes ? lanes : default_lanes()), drop_relabeled_(drop_relabeled), scratch_(lanes_) {}

void RelabelFilter::set_job(ScrapeJob job, std::string_view path) {
  for (auto& c : job.relabel_configs) substitute_shard(c.regex);
  JobRules compiled;
  for (std::size_t i = 0; i < lanes_; ++i) compiled.lanes.emplace_back(job.relabel_configs, path);
  for (const auto& c : job.relabel_configs) {
    const bool constant = c.action == RelabelAction::hashmod && c.modulus == 1;  // reads nothing
    for (const auto& l : c.source_labels) {
      if (!constant) compiled.reads.push_back(Name::intern(l));
    }
    if (c.action == RelabelAction::keepequal || c.action == RelabelAction::dropequal)
      compiled.reads.push_back(Name::intern(c.target_label));
  }
  std::sort(compiled.reads.begin(), compiled.reads.end());
  compiled.reads.erase(std::unique(compiled.reads.begin(), compiled.reads.end()), compiled.reads.end());
  if (!compiled.reads.empty() && compiled.reads.size() <= 64) {
    compiled.read_index.assign(compiled.reads.back().id() + 1, -1);
    for (std::size_t k = 0; k < compiled.reads.size(); ++k)
      compiled.read_index[compiled.reads[k].id()] = static_cast<std::int16_t>(k);
  }
  const Name name = job.job;
  compiled.job = std::move(job);
  auto it = std::lower_bound(jobs_.begin(), jobs_.end(), name, [](const auto& e, Name j) { return e.first < j; });
  if (it != jobs_.end() && it->first == name) {
    it->second = std::move(compiled);
  } else {
    jobs_.emplace(it, name, std::move(compiled));
  }
}

void RelabelFilter::set_job(Name job, std::vector<RelabelConfig> configs, std::string_view path) {
  set_job(default_scrape_job(job, std::move(configs)), path);
}

void RelabelFilter::set_scrape_configs(const model::Value& scrape_configs, const model::Value* global) {
  jobs_.clear();
  if (scrape_configs.is_null()) return;
  if (!scrape_configs.is_array()) throw RelabelError("scrape_configs: expected array");
  const auto& list = scrape_configs.as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = "scrape_configs[" + std::to_string(i) + "]";
    set_job(read_scrape_job(list[i], global, path), path + ".relabel_configs");
  }
}

const RelabelFilter::JobRules* RelabelFilter::rules_for(Name job) const {
  auto it = std::lower_bound(jobs_.begin(), jobs_.end(), job, [](const auto& e, Name j) { return e.first < j; });
  return it != jobs_.end() && it->first == job ? &it->second : nullptr;
}

// Resolves every name the rules read once per target, so each rule's read
// is a table lookup instead of searches of the own set, the group set and
// the seeds.
void RelabelFilter::memoise_reads(LabelBuilder& b, const JobRules& job, ReadMemo& memo) const {
  const std::size_t n = job.reads.size();
  if (memo.group != b.group() || memo.rules != &job) {
    memo.fallback.resize(n);
    memo.values.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      const Name name = job.reads[k];
      std::string_view v = b.group() ? b.group()->get(name) : std::string_view();
      for (const auto& seed : b.seeds()) v = v.empty() && seed.name == name ? seed.value : v;
      memo.fallback[k] = v;
    }
    memo.group = b.group(), memo.rules = &job;
  }
  const LabelSet* own = b.own();
  const ReadMemo::Ahead* found = nullptr;
  for (const auto& a : memo.ahead) found = own && a.own == own && a.rules == &job ? &a : found;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = found ? found->index[k] : own ? own->index_of(job.reads[k]) : 0;
    memo.values[k] = own && i < own->size() ? own->value_at(i) : memo.fallback[k];
  }
  b.memo(job.read_index, memo.values.data());
}

RelabelFilter::Fate RelabelFilter::process(Target& t, const JobRules& job, std::size_t lane) {
  LabelBuilder& b = scratch_[lane].builder;
  b.reset(t.group.get(), t.own.get(), job.job.seeds);
  if (!job.read_index.empty()) memoise_reads(b, job, scratch_[lane].memo);
  if (!job.lanes[lane].process(b)) return drop_relabeled_ ? Fate::drop : Fate::keep;
  TargetIdentity id;
  if (!finish_target(b, job.job, id)) return Fate::invalid;
  t.hash = id.hash;
  t.key = id.key;
  return Fate::keep;
}

bool RelabelFilter::keep(const Target& t) {
  scratch_[0].memo.forget();  // a set freed since may share an address
  const JobRules* job = rules_for(t.job);
  Target copy = t;
  return !job || process(copy, *job, 0) == Fate::keep;
}

// Label sets are usually cold (100k targets x 40 labels do not fit in
// cache), so each target's own set is loaded in three stages ahead of use:
// the set object, its id array, then only the labels the rules read (the
// group's set is shared by many targets and stays warm).
// The address needs no search: the set object holds its view.
void RelabelFilter::prefetch(const Target& t, int stage, JobCache& cache, ReadMemo& memo) const {
  const LabelSet* own = t.own.get();
  if (!own) return;
  if (stage == 0) return __builtin_prefetch(own);
  if (stage == 1) return own->prefetch_ids();
  __builtin_prefetch(own->address().data());
  if (!(t.job == cache.job)) cache = {t.job, rules_for(t.job)};
  if (!cache.rules) return;
  ReadMemo::Ahead& a = memo.ahead[memo.turn ^= 1];
  a.own = own, a.rules = cache.rules;
  ReadMemo::Shape& shape = memo.shape;
  const auto ids = own->name_ids();
  if (shape.rules != cache.rules || !std::equal(ids.begin(), ids.end(), shape.ids.begin(), shape.ids.end())) {
    shape.rules = cache.rules;
    shape.ids.assign(ids.begin(), ids.end());
    shape.index.resize(cache.rules->reads.size());
    for (std::size_t k = 0; k < shape.index.size(); ++k)
      shape.index[k] = static_cast<std::uint32_t>(own->index_of(cache.rules->reads[k]));
  }
  a.index.assign(shape.index.begin(), shape.index.end());
  for (const std::uint32_t i : a.index) {
    if (i < own->size()) own->prefetch_at(i);
  }
}

std::size_t RelabelFilter::filter_lane(std::span<Target> targets, std::size_t lane, std::size_t& invalid,
                                       std::vector<std::uint64_t>* invalid_orders) {
  constexpr std::size_t kAhead[3] = {6, 3, 1};  // object, ids, labels
  std::size_t next = 0;
  JobCache ahead;
  ReadMemo& memo = scratch_[lane].memo;
  memo.forget();  // a set freed since may share an address
  auto prefetch_ahead = [&]() {
    for (int stage = 0; stage < 3; ++stage) {
      if (kAhead[stage] && next + kAhead[stage] < targets.size())
        prefetch(targets[next + kAhead[stage]], stage, ahead, memo);
    }
    ++next;
  };
  for (std::size_t i = 0; i < std::min(targets.size(), kAhead[0]); ++i) prefetch(targets[i], 0, ahead, memo);
  Name last_job;
  const JobRules* rules = nullptr;
  auto gone = [&](Target& t) {
    prefetch_ahead();
    if (!(t.job == last_job)) last_job = t.job, rules = rules_for(t.job);
    if (!rules) return false;
    const Fate fate = process(t, *rules, lane);
    if (fate == Fate::invalid) {
      ++invalid;
      if (invalid_orders) invalid_orders->push_back(t.order);
    }
    return fate != Fate::keep;
  };
  return static_cast<std::size_t>(std::remove_if(targets.begin(), targets.end(), gone) - targets.begin());
}

std::size_t RelabelFilter::apply(TargetList& targets, std::vector<std::uint64_t>* invalid_orders) {
  const std::size_t before = targets.size();
  std::span<Target> all(targets);
  auto begin = targets.begin();
  invalid_ = 0;
  if (lanes_ < 2 || before < kParallelMin) {
    targets.erase(begin + static_cast<std::ptrdiff_t>(filter_lane(all, 0, invalid_, invalid_orders)), targets.end());
    return before - targets.size();
  }
  const std::size_t mid = before / 2;
  std::size_t kept_first = 0, kept_second = 0, invalid_second = 0;
  std::vector<std::uint64_t> second_orders;
  auto* second = invalid_orders ? &second_orders : nullptr;
  run_both([&] { kept_first = filter_lane(all.first(mid), 0, invalid_, invalid_orders); },
           [&] { kept_second = filter_lane(all.subspan(mid), 1, invalid_second, second); });
  invalid_ += invalid_second;
  if (invalid_orders) invalid_orders->insert(invalid_orders->end(), second_orders.begin(), second_orders.end());
  auto tail = begin + static_cast<std::ptrdiff_t>(mid), end = tail + static_cast<std::ptrdiff_t>(kept_second);
  if (kept_first < mid) end = std::move(tail, end, begin + static_cast<std::ptrdiff_t>(kept_first));
  targets.erase(end, targets.end());
  return before - targets.size();
}

}  // namespace allocation
