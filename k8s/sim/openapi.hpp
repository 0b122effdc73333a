// OpenAPI v3 documents as /openapi/v3 serves them: an index of
// group-versions with content hashes, and one document per group-version
// with its REST paths and the component schemas they reference.
// Contract: PATCH operations carry x-kubernetes-group-version-kind and the
// fieldValidation query parameter (kubectl then leaves validation to the
// server). They do not list application/strategic-merge-patch+json, so
// kubectl computes apply patches for built-ins from its compiled-in types,
// exactly the patches a real server receives; simcluster still applies
// strategic merge patches using the merge keys in these schemas.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "k8s/sim/cluster.hpp"

namespace k8s::sim {

class OpenApi {
 public:
  explicit OpenApi(const Cluster& cluster) : cluster_(cluster) {}
  // The /openapi/v3 index (JSON text).
  std::string index();
  // The document for "api/v1" or "apis/<group>/<version>"; "" if unknown.
  std::string document(const std::string& gv_path);

 private:
  struct Cached {
    unsigned long generation = 0;
    std::string json;
    std::string hash;
  };
  const Cached* cached(const std::string& gv_path);

  const Cluster& cluster_;
  std::mutex mutex_;
  std::map<std::string, Cached> cache_;
};

// Builds one group-version document (exposed for tests).
model::Value openapi_document(const std::vector<ResourceType>& types, const SchemaSet& schemas,
                              const std::string& group, const std::string& version);

}  // namespace k8s::sim
