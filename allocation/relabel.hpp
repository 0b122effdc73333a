// Prometheus relabeling (relabel_configs) for target label sets.
// Contract: parse_relabel_configs() reads Prometheus's YAML/JSON fields
// (source_labels, separator, regex, modulus, target_label, replacement,
// action) with Prometheus's defaults (separator ";", regex "(.*)",
// replacement "$1", action replace) and its validation rules; problems are
// RelabelError with "<path>.<field>: <problem>". Label names follow the
// rule's NameValidation (UTF-8 unless the job asks for legacy names). A Relabeler applies rules in
// order exactly as Prometheus's relabel.ProcessBuilder does; process() is
// not thread-safe (it caches per-label-name regex results), so give each
// thread its own Relabeler.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "allocation/label_builder.hpp"
#include "allocation/prom_regex.hpp"
#include "model/value.hpp"

namespace allocation {

enum class RelabelAction {
  replace,
  keep,
  drop,
  keepequal,
  dropequal,
  hashmod,
  labelmap,
  labeldrop,
  labelkeep,
  lowercase,
  uppercase
};

struct RelabelConfig {
  std::vector<std::string> source_labels;
  std::string separator = ";";
  std::string regex = "(.*)";
  std::uint64_t modulus = 0;
  std::string target_label;
  std::string replacement = "$1";
  RelabelAction action = RelabelAction::replace;
  // Label names the rule accepts and may write (Prometheus 3's default).
  NameValidation validation = NameValidation::utf8;
};

class RelabelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `path` prefixes errors, e.g. "scrape_configs[0].relabel_configs";
// `scheme` is the job's metric_name_validation_scheme.
std::vector<RelabelConfig> parse_relabel_configs(const model::Value& list, std::string_view path,
                                                 NameValidation scheme = NameValidation::utf8);
RelabelConfig parse_relabel_config(const model::Value& item, std::string_view path,
                                   NameValidation scheme = NameValidation::utf8);
// Prometheus's Config.Validate; throws RelabelError naming the field.
void validate(const RelabelConfig& c, std::string_view path);

// Internal: one compiled rule with its per-label-name caches.
struct NameResult {
  std::int8_t state = 0;  // 0 unknown, 1 matched, -1 not matched
  Name mapped;            // labelmap: the expanded name
};

struct RelabelRule {
  RelabelConfig config;
  PromRegex regex;
  std::vector<Name> sources;
  Name target;  // when target_label has no '$'
  bool target_templated = false;
  bool replacement_templated = false;
  bool replacement_is_group1 = false;  // "$1" or "${1}": no template walk
  bool copies_source = false;          // one source, "(.*)"-like, "$1", fixed target
  // No earlier rule of the list can write or delete the sources / the
  // fixed target, so the builder's changes need not be searched for them.
  bool sources_unchanged = false, target_unchanged = false;
  mutable std::vector<NameResult> by_name;  // indexed by Name id
  mutable std::vector<std::string_view> groups;
  mutable std::string joined, scratch, scratch2;
  mutable std::vector<LabelBuilder::Entry> entries;
  mutable std::vector<std::pair<Name, std::size_t>> writes;             // labelmap: (name, entry)
  mutable std::vector<std::pair<std::uint32_t, std::uint32_t>> stamps;  // labelmap: by Name id
  mutable std::uint32_t generation = 0;
};

class Relabeler {
 public:
  Relabeler() = default;
  // Compiles (and validates) the rules; throws RelabelError.
  explicit Relabeler(const std::vector<RelabelConfig>& configs, std::string_view path = "relabel_configs");

  bool empty() const { return rules_.empty(); }
  // Applies every rule to `b`; false when a rule drops the target.
  bool process(LabelBuilder& b) const;
  // Convenience for tests and tools: the relabeled labels sorted by name, or
  // nullopt when dropped.
  std::optional<std::vector<std::pair<std::string, std::string>>> apply(const LabelSet& labels) const;

 private:
  bool apply_rule(const RelabelRule& r, LabelBuilder& b) const;
  // Sets sources_unchanged / target_unchanged from what earlier rules write.
  void mark_unchanged_reads();
  void replace(const RelabelRule& r, std::string_view value, LabelBuilder& b) const;
  void labelmap(const RelabelRule& r, LabelBuilder& b) const;
  void labelfilter(const RelabelRule& r, LabelBuilder& b, bool keep) const;
  const NameResult& name_result(const RelabelRule& r, Name n) const;

  std::vector<RelabelRule> rules_;
};

}  // namespace allocation
