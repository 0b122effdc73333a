#include "k8s/sim/table.hpp"

#include <cctype>
#include <cstdlib>
#include <ctime>

#include "k8s/sim/selector.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

struct Column {
  std::string name, type, format, path;
};

Clock::time_point parse_time(const std::string& s) {
  std::tm tm{};
  if (!strptime(s.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return {};
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

std::vector<Column> columns_for(const ResourceType& t, const Value& printer_columns) {
  std::vector<Column> cols = {{"Name", "string", "name", ".metadata.name"}};
  if (t.custom && printer_columns.is_array()) {
    for (const Value& c : printer_columns.as_array())
      cols.push_back(
          {field_text(c, "name"), field_text(c, "type"), field_text(c, "format"), field_text(c, "jsonPath")});
    return cols;
  }
  if (t.group.empty() && t.kind == "Pod") {
    cols.push_back({"Ready", "string", "", "ready"});
    cols.push_back({"Status", "string", "", ".status.phase"});
    cols.push_back({"Restarts", "string", "", "restarts"});
  } else if (t.group.empty() && t.kind == "Service") {
    cols.push_back({"Type", "string", "", ".spec.type"});
    cols.push_back({"Cluster-IP", "string", "", ".spec.clusterIP"});
  } else if (t.group.empty() && t.kind == "Namespace") {
    cols.push_back({"Status", "string", "", ".status.phase"});
  }
  cols.push_back({"Age", "date", "", ".metadata.creationTimestamp"});
  return cols;
}

Value pod_ready(const Value& pod) {
  const Value* spec = pod.find("spec");
  const Value* containers = spec ? spec->find("containers") : nullptr;
  std::size_t total = containers ? containers->size() : 0, ready = 0;
  const Value* status = pod.find("status");
  const Value* statuses = status ? status->find("containerStatuses") : nullptr;
  if (statuses && statuses->is_array())
    for (const Value& s : statuses->as_array())
      if (field_text(s, "ready") == "true") ++ready;
  return std::to_string(ready) + "/" + std::to_string(total);
}

// The JSONPath subset CRD printer columns use: ".a.b", ".a[0]" and
// ".a[?(@.k=="v")].b" (the first matching element, as kubectl prints it).
const Value* filter_match(const Value& list, const std::string& filter) {
  auto eq = filter.find("==");
  if (filter.rfind("?(@.", 0) != 0 || eq == std::string::npos || filter.back() != ')') return nullptr;
  std::string key = filter.substr(4, eq - 4);
  std::string want = filter.substr(eq + 2, filter.size() - eq - 3);
  if (want.size() >= 2 && (want.front() == '"' || want.front() == '\'')) want = want.substr(1, want.size() - 2);
  if (!list.is_array()) return nullptr;
  for (const Value& item : list.as_array())
    if (field_text(item, key) == want) return &item;
  return nullptr;
}

std::string json_path_text(const Value& object, const std::string& path) {
  const Value* cur = &object;
  std::size_t i = path.size() > 0 && path[0] == '.' ? 1 : 0;
  while (cur && i < path.size()) {
    std::size_t end = path.find_first_of(".[", i);
    std::string name = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (!name.empty()) cur = cur->find(name);
    i = end == std::string::npos ? path.size() : end;
    if (cur && i < path.size() && path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string::npos) return "";
      std::string inner = path.substr(i + 1, close - i - 1);
      if (!inner.empty() && inner[0] == '?')
        cur = filter_match(*cur, inner);
      else if (cur->is_array() && !inner.empty() && std::isdigit(static_cast<unsigned char>(inner[0])))
        cur = std::stoul(inner) < cur->size() ? &cur->as_array()[std::stoul(inner)] : nullptr;
      else
        cur = nullptr;
      i = close + 1;
    }
    if (i < path.size() && path[i] == '.') ++i;
  }
  if (!cur || cur->is_null()) return "";
  if (cur->is_string()) return cur->as_string();
  return model::to_json(*cur);
}

Value cell(const Column& c, const Value& object, Clock::time_point now) {
  if (c.path == "ready") return pod_ready(object);
  if (c.path == "restarts") return "0";
  std::string text = json_path_text(object, c.path);
  if (c.type == "date") return text.empty() ? "<unknown>" : human_age(parse_time(text), now);
  if (text.empty()) return c.type == "string" ? Value("<none>") : Value();
  char* end = nullptr;
  long long n = std::strtoll(text.c_str(), &end, 10);
  if (c.type == "integer" && *end == '\0') return Value(static_cast<std::int64_t>(n));
  return text;
}

Value partial_metadata(const Value& object) {
  const Value* m = object.find("metadata");
  return Value::obj(
      {{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", m ? *m : Value::object()}});
}

}  // namespace

bool wants_table(const std::string& accept) {
  return accept.find("as=Table") != std::string::npos;
}

std::string human_age(Clock::time_point created, Clock::time_point now) {
  long long s = std::chrono::duration_cast<std::chrono::seconds>(now - created).count();
  if (s < -1) return "<invalid>";
  if (s < 0) s = 0;
  long long m = s / 60, h = s / 3600, d = s / 86400;
  if (s < 120) return std::to_string(s) + "s";
  if (m < 10) return std::to_string(m) + "m" + (s % 60 ? std::to_string(s % 60) + "s" : "");
  if (m < 180) return std::to_string(m) + "m";
  if (h < 8) return std::to_string(h) + "h" + (m % 60 ? std::to_string(m % 60) + "m" : "");
  if (h < 48) return std::to_string(h) + "h";
  if (h < 192) return std::to_string(d) + "d" + (h % 24 ? std::to_string(h % 24) + "h" : "");
  if (d < 730) return std::to_string(d) + "d";
  return std::to_string(d / 365) + "y";
}

Value make_table(const ResourceType& t, const Value& printer_columns, const std::vector<SnapshotPtr>& items,
                 Clock::time_point now, const std::string& include_object) {
  std::vector<Column> cols = columns_for(t, printer_columns);
  Value defs = Value::array();
  for (const Column& c : cols)
    defs.push(Value::obj({{"name", c.name},
                          {"type", c.type == "date" ? "string" : c.type},
                          {"format", c.format},
                          {"description", ""},
                          {"priority", 0}}));
  Value rows = Value::array();
  for (const SnapshotPtr& item : items) {
    Value cells = Value::array();
    for (const Column& c : cols) cells.push(cell(c, item->value, now));
    Value row = Value::obj({{"cells", std::move(cells)}});
    if (include_object == "Object")
      row.set("object", item->value);
    else if (include_object != "None")
      row.set("object", partial_metadata(item->value));
    rows.push(std::move(row));
  }
  return Value::obj({{"kind", "Table"},
                     {"apiVersion", "meta.k8s.io/v1"},
                     {"metadata", Value::object()},
                     {"columnDefinitions", std::move(defs)},
                     {"rows", std::move(rows)}});
}

}  // namespace k8s::sim
