// runtime::State's targets step: every target listed, filtered and set
// (the full path), or only the changed sources' groups replaced through
// Allocator::update_targets (the incremental path), which gives the same
// Allocator; any doubt falls back to the full path.
#include <algorithm>

#include "allocation/runtime/sd_consumer.hpp"
#include "allocation/runtime/state.hpp"

namespace allocation::runtime {

namespace {

// A file_sd source's groups, its files' in path order.
std::vector<TargetGroup> file_groups(const std::map<std::string, std::vector<TargetGroup>>& by_path) {
  std::vector<TargetGroup> out;
  for (const auto& [path, groups] : by_path) out.insert(out.end(), groups.begin(), groups.end());
  return out;
}

}  // namespace

void State::set_targets(Effects& fx) {
  const bool incremental = incremental_on_ && !full_targets_ && ledger_.ok() && update_targets();
  if (!incremental) set_all_targets();
  fx.targets_incremental = incremental;
  full_targets_ = false;
  forget_changes();
}

void State::forget_changes() {
  changed_http_.clear();
  changed_file_.clear();
  for (auto& [key, c] : consumers_) c->changed.clear();
}

void State::set_all_targets() {
  TargetList targets = all_targets();
  std::vector<std::uint64_t> invalid;
  filter_->apply(targets, &invalid);
  ledger_.record(targets, invalid);
  invalid_targets_ = filter_->invalid();
  allocator_->set_targets(std::move(targets));
  for (auto& [key, c] : consumers_) c->pass_groups.clear(), c->pass_keys.clear();
}

// Static targets, then http_sd sources in config order, then file_sd
// sources (each file's groups in path order), then kubernetes_sd consumers
// (the file's, then the CR jobs'); one ledger segment each, in that order.
TargetList State::all_targets() {
  ledger_.clear();
  TargetList out;
  ledger_.append_static(ledger_.add_segment("static", false), config_->targets, out);
  ledger_.append_static(ledger_.add_segment("cr-static", false), cr_static_targets_, out);
  std::vector<std::uint64_t> none;  // a cleared ledger removes nothing
  for (const auto& source : http_sources_) {
    const std::uint32_t segment = ledger_.add_segment("http:" + source.id, false);
    auto groups = http_groups_.find(source.id);
    if (groups != http_groups_.end())
      ledger_.replace_whole(segment, Name::intern(source.job), groups->second, out, none);
  }
  for (const auto& source : file_sources_) {
    const std::uint32_t segment = ledger_.add_segment("file:" + source.id, false);
    auto by_path = file_groups_.find(source.id);
    if (by_path != file_groups_.end())
      ledger_.replace_whole(segment, Name::intern(source.job), file_groups(by_path->second), out, none);
  }
  for (const auto& key : consumer_order_) {
    SdConsumer& c = *consumers_.at(key);
    c.pass_groups.clear(), c.pass_keys.clear();  // empty unless a pass threw
    for (auto& g : c.index.groups()) {
      c.pass_groups.push_back(std::move(g.group));
      c.pass_keys.push_back(std::move(g.source));
    }
    ledger_.append_keyed(ledger_.add_segment("sd:" + key, true), c.job, c.pass_keys, c.pass_groups, out);
  }
  return out;
}

// Only http_sd and file_sd answers and kubernetes_sd group changes come
// here (config reloads and Prometheus CR renders set full_targets_). The
// changed sources are visited in segment order, so the added targets are
// in order, as the ledger's record() needs.
bool State::update_targets() {
  struct Change {
    std::uint32_t segment;
    const HttpSdSource* http = nullptr;
    const FileSdSource* file = nullptr;
    SdConsumer* consumer = nullptr;
  };
  std::vector<Change> changes;
  auto segment = [&](const std::string& id) { return ledger_.segment(id); };
  for (const auto& s : http_sources_)
    if (changed_http_.count(s.id)) {
      auto at = segment("http:" + s.id);
      if (!at) return false;
      changes.push_back({*at, &s});
    }
  for (const auto& s : file_sources_)
    if (changed_file_.count(s.id)) {
      auto at = segment("file:" + s.id);
      if (!at) return false;
      changes.push_back({*at, nullptr, &s});
    }
  for (const auto& key : consumer_order_) {
    SdConsumer& c = *consumers_.at(key);
    if (c.changed.empty()) continue;
    auto at = segment("sd:" + key);
    if (!at) return false;
    changes.push_back({*at, nullptr, nullptr, &c});
  }
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.segment < b.segment; });
  TargetList added;
  std::vector<std::uint64_t> removed;
  static const std::vector<TargetGroup> kNoGroups;
  for (const Change& ch : changes) {
    if (ch.http) {
      auto groups = http_groups_.find(ch.http->id);
      ledger_.replace_whole(ch.segment, Name::intern(ch.http->job),
                            groups == http_groups_.end() ? kNoGroups : groups->second, added, removed);
    } else if (ch.file) {
      auto by_path = file_groups_.find(ch.file->id);
      ledger_.replace_whole(ch.segment, Name::intern(ch.file->job),
                            by_path == file_groups_.end() ? kNoGroups : file_groups(by_path->second), added, removed);
    } else {
      for (const auto& key : ch.consumer->changed)
        if (!ledger_.replace_keyed(ch.segment, ch.consumer->job, key, ch.consumer->index.group(key), added, removed))
          return false;
    }
  }
  if (!ledger_.ok()) return false;
  std::vector<std::uint64_t> invalid;
  filter_->apply(added, &invalid);
  ledger_.record(added, invalid);
  if (!ledger_.ok() || !allocator_->update_targets(removed, std::move(added))) return false;
  invalid_targets_ = ledger_.invalid();
  return true;
}

}  // namespace allocation::runtime
