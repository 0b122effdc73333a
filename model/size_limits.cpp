#include "model/size_limits.hpp"

#include <algorithm>
#include <map>

#include "model/codec.hpp"
#include "model/object_fields.hpp"

namespace model {

namespace {

std::size_t annotation_bytes(const Value* ann) {
  std::size_t n = 0;
  if (ann && ann->is_object())
    for (const auto& [k, v] : ann->as_object()) n += k.size() + (v.is_string() ? v.as_string().size() : 0);
  return n;
}

std::size_t data_bytes(const Value& obj, bool base64) {
  std::size_t n = 0;
  for (const char* field : {"data", "binaryData"}) {
    const Value* data = obj.find(field);
    if (!data || !data->is_object()) continue;
    bool encoded = base64 || std::string_view(field) == "binaryData";
    for (const auto& [k, v] : data->as_object()) {
      if (!v.is_string()) continue;
      const std::string& s = v.as_string();
      std::size_t pad = s.size() >= 2 ? (s[s.size() - 1] == '=') + (s[s.size() - 2] == '=') : 0;
      n += encoded ? s.size() / 4 * 3 - pad : s.size();
    }
  }
  return n;
}

}  // namespace

std::optional<Oversize> check_size(const Value& obj) {
  const Value* kind = obj.find("kind");
  std::string k = kind && kind->is_string() ? kind->as_string() : "";
  if (k == "Secret" || k == "ConfigMap") {
    std::size_t n = data_bytes(obj, k == "Secret");
    if (n > kMaxDataBytes) return Oversize{"data", n, kMaxDataBytes};
  }
  std::size_t n = annotation_bytes(find_path(obj, {"metadata", "annotations"}));
  if (n > kMaxAnnotationBytes) return Oversize{"metadata.annotations", n, kMaxAnnotationBytes};
  n = annotation_bytes(find_path(obj, {"spec", "template", "metadata", "annotations"}));
  if (n > kMaxAnnotationBytes) return Oversize{"spec.template.metadata.annotations", n, kMaxAnnotationBytes};
  return std::nullopt;
}

std::optional<std::string> config_text(const Value& secret) {
  const Value* data = secret.find("data");
  if (!data || !data->is_object() || data->size() == 0) return std::nullopt;
  const Value& first = data->as_object().begin()->second;
  if (!first.is_string()) return std::nullopt;
  auto bytes = base64_decode(first.as_string());
  if (!bytes) return std::nullopt;
  if (bytes->size() >= 2 && static_cast<unsigned char>((*bytes)[0]) == 0x1f &&
      static_cast<unsigned char>((*bytes)[1]) == 0x8b)
    return gzip_decompress(*bytes);
  return bytes;
}

namespace {

std::size_t indent_of(std::string_view line) {
  return line.find_first_not_of(' ');
}

// "  - name: x" or "    name: x" at the item's key indent: the value.
std::optional<std::string_view> key_value(std::string_view line, std::size_t key_indent, std::string_view key) {
  std::size_t at = indent_of(line);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at);
  if (rest.substr(0, 2) == "- ") rest.remove_prefix(2), at += 2;
  if (at != key_indent || rest.substr(0, key.size()) != key || rest.substr(key.size(), 2) != ": ") return std::nullopt;
  return rest.substr(key.size() + 2);
}

// serviceMonitor/ns/name/0 -> ServiceMonitor ns/name.
std::string monitor_of(std::string_view job) {
  static const std::pair<const char*, const char*> kPrefixes[] = {{"serviceMonitor/", "ServiceMonitor"},
                                                                  {"podMonitor/", "PodMonitor"},
                                                                  {"probe/", "Probe"},
                                                                  {"podLogs/", "PodLogs"}};
  for (const auto& [prefix, kind] : kPrefixes) {
    std::string_view p(prefix);
    if (job.substr(0, p.size()) != p) continue;
    std::string_view rest = job.substr(p.size());
    std::size_t slash = rest.find('/');
    std::size_t second = slash == std::string_view::npos ? slash : rest.find('/', slash + 1);
    return std::string(kind) + " " + std::string(rest.substr(0, second));
  }
  return "job " + std::string(job);
}

struct Scan {
  std::map<std::string, std::size_t> sizes;
  std::string section;        // metrics, logs, integrations
  std::string instance, job;  // names, once seen
  std::size_t instance_bytes = 0, job_bytes = 0;
  bool in_jobs = false, in_job = false, in_instance = false;

  void close_job() {
    if (in_job && !job.empty()) sizes[monitor_of(job)] += job_bytes;
    in_job = false, job.clear(), job_bytes = 0;
  }
  void close_instance() {
    close_job();
    const char* kind = section == "logs" ? "LogsInstance " : "MetricsInstance ";
    if (in_instance && !instance.empty()) sizes[kind + instance] += instance_bytes;
    in_instance = false, in_jobs = false, instance.clear(), instance_bytes = 0;
  }
  void line(std::string_view l);
};

void Scan::line(std::string_view l) {
  std::size_t ind = indent_of(l);
  if (ind == std::string_view::npos) return;
  bool item = l.substr(ind, 2) == "- ";
  if (ind == 0) close_instance(), section = std::string(l.substr(0, l.find(':')));
  if (ind == 2 && item) close_instance(), in_instance = section == "metrics" || section == "logs";
  if (ind == 4 && !item) close_job(), in_jobs = l.substr(4) == "scrape_configs:";
  if (ind == 4 && item && in_jobs) close_job(), in_job = true;
  if (in_instance && instance.empty())
    if (auto v = key_value(l, 4, "name")) instance = std::string(*v);
  if (in_job && job.empty())
    if (auto v = key_value(l, 6, "job_name")) job = std::string(*v);
  instance_bytes += in_instance ? l.size() + 1 : 0;
  job_bytes += in_job ? l.size() + 1 : 0;
}

}  // namespace

std::vector<std::pair<std::string, std::size_t>> config_contributors(std::string_view yml, std::size_t top) {
  Scan scan;
  for (std::size_t pos = 0; pos < yml.size();) {
    std::size_t end = yml.find('\n', pos);
    if (end == std::string_view::npos) end = yml.size();
    scan.line(yml.substr(pos, end - pos));
    pos = end + 1;
  }
  scan.close_instance();
  std::vector<std::pair<std::string, std::size_t>> out(scan.sizes.begin(), scan.sizes.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (out.size() > top) out.resize(top);
  return out;
}

}  // namespace model
