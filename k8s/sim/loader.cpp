#include "k8s/sim/loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/selector.hpp"
#include "model/codec.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;
namespace fs = std::filesystem;

namespace {

struct Manifest {
  std::string source;
  Value object;
};

std::vector<std::string> expand(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    if (!fs::is_directory(p)) {
      files.push_back(p);
      continue;
    }
    std::vector<std::string> inner;
    for (const auto& e : fs::directory_iterator(p)) {
      std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
        inner.push_back(e.path().string());
    }
    std::sort(inner.begin(), inner.end());
    files.insert(files.end(), inner.begin(), inner.end());
  }
  return files;
}

void read_file(const std::string& path, std::vector<Manifest>& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  for (auto& doc : model::parse_documents(ss.str(), path)) {
    if (!doc.value.is_object()) continue;
    const Value* items = doc.value.find("items");
    if (field_text(doc.value, "kind") == "List" && items && items->is_array()) {
      for (const Value& item : items->as_array()) out.push_back({path, item});
    } else {
      out.push_back({path, std::move(doc.value)});
    }
  }
}

int rank(const Value& object) {
  std::string kind = field_text(object, "kind");
  if (kind == "CustomResourceDefinition") return 0;
  if (kind == "Namespace") return 1;
  return 2;
}

}  // namespace

std::size_t load_manifests(Cluster& cluster, const std::vector<std::string>& paths) {
  std::vector<Manifest> manifests;
  for (const std::string& file : expand(paths)) read_file(file, manifests);
  std::stable_sort(manifests.begin(), manifests.end(),
                   [](const Manifest& a, const Manifest& b) { return rank(a.object) < rank(b.object); });
  for (Manifest& m : manifests) {
    std::string what = field_text(m.object, "kind") + " " + field_text(m.object, "metadata.name");
    try {
      cluster.apply_manifest(std::move(m.object));
    } catch (const ApiError& e) {
      throw std::runtime_error(m.source + ": " + what + ": " + e.what());
    }
  }
  return manifests.size();
}

std::string kubeconfig_yaml(const std::string& server_url, const std::string& ca_pem, const std::string& token) {
  Value cluster = Value::obj({{"server", server_url}});
  if (!ca_pem.empty()) cluster.set("certificate-authority-data", model::base64_encode(ca_pem));
  Value named_cluster = Value::obj({{"name", "simcluster"}, {"cluster", cluster}});
  Value context = Value::obj(
      {{"name", "simcluster"},
       {"context", Value::obj({{"cluster", "simcluster"}, {"user", "simcluster"}, {"namespace", "default"}})}});
  Value credentials = Value::object();
  if (!token.empty()) credentials.set("token", token);
  Value user = Value::obj({{"name", "simcluster"}, {"user", credentials}});
  Value config = Value::obj({{"apiVersion", "v1"},
                             {"kind", "Config"},
                             {"clusters", Value::arr({named_cluster})},
                             {"contexts", Value::arr({context})},
                             {"users", Value::arr({user})},
                             {"current-context", "simcluster"},
                             {"preferences", Value::object()}});
  return model::to_yaml(config);
}

}  // namespace k8s::sim
