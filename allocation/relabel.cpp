// Applying relabel rules with Prometheus's semantics (model/relabel in
// Prometheus 2.51).
#include "allocation/relabel.hpp"

#include <algorithm>

#include "allocation/md5.hpp"

namespace allocation {
namespace {

RelabelRule compile(const RelabelConfig& c, const std::string& path) {
  validate(c, path);
  std::optional<PromRegex> regex;
  try {
    regex.emplace(c.regex);
  } catch (const std::invalid_argument& e) {
    throw RelabelError(path + ".regex: invalid regular expression \"" + c.regex + "\": " + e.what());
  }
  RelabelRule r{c, std::move(*regex)};
  for (const auto& s : c.source_labels) r.sources.push_back(Name::intern(s));
  r.target_templated = c.target_label.find('$') != std::string::npos;
  r.replacement_templated = c.replacement.find('$') != std::string::npos;
  r.replacement_is_group1 = c.replacement == "$1" || c.replacement == "${1}";
  if (!r.target_templated && !c.target_label.empty()) r.target = Name::intern(c.target_label);
  r.copies_source = c.action == RelabelAction::replace && r.sources.size() == 1 && r.replacement_is_group1 &&
                    !r.target_templated && r.regex.group1_is_input();
  return r;
}

// The rule's fixed target read, or set to a view (see LabelBuilder::
// set_view), without searching the changes when no earlier rule touches it.
std::string_view target_value(const RelabelRule& r, const LabelBuilder& b) {
  return r.target_unchanged ? b.unchanged(r.target) : b.get(r.target);
}
void set_target_view(const RelabelRule& r, std::string_view value, LabelBuilder& b) {
  r.target_unchanged ? b.add_view(r.target, value) : b.set_view(r.target, value);
}

void ascii_case(std::string_view in, std::string& out, bool upper) {
  out.assign(in);
  for (auto& ch : out) {
    if (upper && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    if (!upper && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  }
}

}  // namespace

Relabeler::Relabeler(const std::vector<RelabelConfig>& configs, std::string_view path) {
  rules_.reserve(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    rules_.push_back(compile(configs[i], std::string(path) + "[" + std::to_string(i) + "]"));
  }
  mark_unchanged_reads();
}

void Relabeler::mark_unchanged_reads() {
  std::vector<Name> written;  // fixed targets of earlier rules
  bool any = false;           // an earlier rule may write or delete any name
  auto unchanged = [&](Name n) { return !any && std::find(written.begin(), written.end(), n) == written.end(); };
  for (auto& r : rules_) {
    r.sources_unchanged = std::all_of(r.sources.begin(), r.sources.end(), unchanged);
    r.target_unchanged = !r.target_templated && !r.target.empty() && unchanged(r.target);
    switch (r.config.action) {
      case RelabelAction::replace:
      case RelabelAction::lowercase:
      case RelabelAction::uppercase:
      case RelabelAction::hashmod:
        if (r.target_templated || r.target.empty()) {
          any = true;
        } else {
          written.push_back(r.target);
        }
        break;
      case RelabelAction::labelmap:
      case RelabelAction::labeldrop:
      case RelabelAction::labelkeep:
        any = true;
        break;
      case RelabelAction::keep:
      case RelabelAction::drop:
      case RelabelAction::keepequal:
      case RelabelAction::dropequal:
        break;
    }
  }
}

bool Relabeler::process(LabelBuilder& b) const {
  for (const auto& r : rules_) {
    if (!apply_rule(r, b)) return false;
  }
  return true;
}

std::optional<std::vector<std::pair<std::string, std::string>>> Relabeler::apply(const LabelSet& labels) const {
  LabelBuilder b;
  b.reset(nullptr, &labels);
  if (!process(b)) return std::nullopt;
  return b.sorted();
}

bool Relabeler::apply_rule(const RelabelRule& r, LabelBuilder& b) const {
  std::string_view value;
  if (r.config.action == RelabelAction::hashmod && r.config.modulus == 1) {
    // x % 1 is 0 whatever the digest: skip MD5 and the (often cold) sources.
    set_target_view(r, "0", b);  // static storage
    return true;
  }
  auto read = [&](Name n) { return r.sources_unchanged ? b.unchanged(n) : b.get(n); };
  if (r.sources.size() == 1) {
    value = read(r.sources[0]);
  } else if (r.sources.size() > 1) {
    r.joined.clear();
    for (std::size_t i = 0; i < r.sources.size(); ++i) {
      if (i > 0) r.joined += r.config.separator;
      r.joined += read(r.sources[i]);
    }
    value = r.joined;
  }
  switch (r.config.action) {
    case RelabelAction::drop:
      return !r.regex.match(value, b.single_line(value));
    case RelabelAction::keep:
      return r.regex.match(value, b.single_line(value));
    case RelabelAction::dropequal:
      return target_value(r, b) != value;
    case RelabelAction::keepequal:
      return target_value(r, b) == value;
    case RelabelAction::replace:
      replace(r, value, b);
      return true;
    case RelabelAction::lowercase:
    case RelabelAction::uppercase:
      ascii_case(value, r.scratch, r.config.action == RelabelAction::uppercase);
      b.set(r.target, r.scratch);
      return true;
    case RelabelAction::hashmod:
      b.set(r.target, std::to_string(hashmod_value(value, r.config.modulus)));
      return true;
    case RelabelAction::labelmap:
      labelmap(r, b);
      return true;
    case RelabelAction::labeldrop:
    case RelabelAction::labelkeep:
      labelfilter(r, b, r.config.action == RelabelAction::labelkeep);
      return true;
  }
  return true;
}

void Relabeler::replace(const RelabelRule& r, std::string_view value, LabelBuilder& b) const {
  if (r.copies_source) {  // the common "copy a label" rule: no groups to fill
    if (!r.regex.match(value, b.single_line(value))) return;
    return set_target_view(r, value, b);
  }
  if (!r.regex.match(value, r.groups)) return;
  Name target = r.target;
  if (r.target_templated) {
    r.scratch.clear();
    r.regex.expand(r.config.target_label, r.groups, r.scratch);
    if (!valid_label_name(r.scratch, r.config.validation)) return;
    target = Name::intern(r.scratch);
  }
  if (r.replacement_is_group1) {
    // Group 1 lies inside `value`; with one source that is a view from
    // b.get(), valid until b's next reset, so it needs no copy (the common
    // "copy a label" rule). A joined value lives in r.joined: copy it.
    const std::string_view group = r.groups.size() > 1 ? r.groups[1] : std::string_view();
    return r.sources.size() <= 1 ? b.set_view(target, group) : b.set(target, group);
  }
  std::string_view result = r.config.replacement;
  if (r.replacement_templated) {
    r.scratch2.clear();
    r.regex.expand(r.config.replacement, r.groups, r.scratch2);
    result = r.scratch2;
  }
  b.set(target, result);  // an empty result deletes the label
}

const NameResult& Relabeler::name_result(const RelabelRule& r, Name n) const {
  if (r.by_name.size() <= n.id()) r.by_name.resize(n.id() + 64);
  NameResult& res = r.by_name[n.id()];
  if (res.state != 0) return res;
  const bool mapping = r.config.action == RelabelAction::labelmap;
  const bool matched = mapping ? r.regex.match(n.text(), r.groups) : r.regex.match(n.text());
  res.state = matched ? 1 : -1;
  if (matched && mapping) {
    r.scratch.clear();
    r.regex.expand(r.config.replacement, r.groups, r.scratch);
    if (!r.scratch.empty()) res.mapped = Name::intern(r.scratch);
  }
  return res;
}

// Prometheus iterates untouched labels in name-text order, then added ones,
// and the last write to a name wins. The snapshot here is in Name id order,
// so when two sources map to one name the winner is chosen explicitly.
void Relabeler::labelmap(const RelabelRule& r, LabelBuilder& b) const {
  const std::size_t base_count = b.snapshot(r.entries);
  // True when entry x comes after entry y in Prometheus's iteration order.
  auto later = [&](std::size_t x, std::size_t y) {
    const bool ax = x >= base_count, ay = y >= base_count;
    if (ax != ay) return ax;
    return ax ? x > y : r.entries[x].first.text() > r.entries[y].first.text();
  };
  r.writes.clear();
  ++r.generation;
  for (std::size_t i = 0; i < r.entries.size(); ++i) {
    const NameResult& res = name_result(r, r.entries[i].first);
    if (res.state != 1 || res.mapped.empty()) continue;
    if (r.stamps.size() <= res.mapped.id()) r.stamps.resize(res.mapped.id() + 64);
    auto& stamp = r.stamps[res.mapped.id()];
    if (stamp.first == r.generation) {  // two sources map to one name
      auto& earlier = r.writes[stamp.second];
      if (later(i, earlier.second)) earlier.second = i;
      continue;
    }
    stamp = {r.generation, static_cast<std::uint32_t>(r.writes.size())};
    r.writes.emplace_back(res.mapped, i);
  }
  // Snapshot entries are views of the base or of b's own values.
  for (const auto& [mapped, i] : r.writes) b.set_view(mapped, r.entries[i].second);
}

void Relabeler::labelfilter(const RelabelRule& r, LabelBuilder& b, bool keep) const {
  b.snapshot(r.entries);
  for (const auto& [n, v] : r.entries) {
    const bool matched = name_result(r, n).state == 1;
    if (matched != keep) b.del(n);
  }
}

}  // namespace allocation
