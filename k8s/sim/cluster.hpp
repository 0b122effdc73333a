// The simulated cluster: kinds, schemas and objects behind one API. It is
// what the HTTP server calls for every REST verb, and what tests and
// benchmarks drive in-process. It checks requests as the real API server
// does (kind and namespace of the body, names and labels, OpenAPI schemas,
// fieldValidation), registers CRDs when they are written, and cascades
// deletes of namespaces and CRDs to their contents.
// Contract: thread-safe; failures throw ApiError; warnings (unknown fields
// under fieldValidation=Warn) are appended to the caller's vector.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "k8s/sim/clock.hpp"
#include "k8s/sim/resource_types.hpp"
#include "k8s/sim/schema_set.hpp"
#include "k8s/sim/store.hpp"

namespace k8s::sim {

enum class FieldValidation { ignore, warn, strict };
enum class PatchType { merge, json, strategic };

struct WriteOptions {
  FieldValidation validation = FieldValidation::warn;
  bool dry_run = false;
};

struct ClusterOptions {
  StoreOptions store;
};

class Cluster {
 public:
  explicit Cluster(const Clock& clock, ClusterOptions options = {});

  TypeRegistry& types() { return types_; }
  Store& store() { return store_; }
  const Clock& clock() const { return clock_; }
  std::vector<ResourceType> types_snapshot() const { return types_.all(); }
  std::optional<ResourceType> find_type(const std::string& group, const std::string& version,
                                        const std::string& plural) const {
    return types_.find(group, version, plural);
  }
  unsigned long types_generation() const { return types_.generation(); }
  // The schemas of the built-ins and of every registered CRD version.
  std::shared_ptr<const SchemaSet> schemas() const;
  // additionalPrinterColumns of a custom type (null when none).
  model::Value printer_columns(const ResourceType& t) const;

  SnapshotPtr create(const ResourceType& t, const std::string& ns, model::Value object, const WriteOptions& o,
                     std::vector<std::string>& warnings);
  SnapshotPtr update(const ResourceType& t, const std::string& ns, const std::string& name, model::Value object,
                     Subresource sub, const WriteOptions& o, std::vector<std::string>& warnings);
  SnapshotPtr patch(const ResourceType& t, const std::string& ns, const std::string& name, PatchType type,
                    const model::Value& patch, Subresource sub, const WriteOptions& o,
                    std::vector<std::string>& warnings);
  SnapshotPtr remove(const ResourceType& t, const std::string& ns, const std::string& name, const DeleteOptions& o);
  // The checks a create runs, for a body that is answered and never stored
  // (a review): apiVersion and kind (both set when absent), then the schema
  // under o.validation (unknown fields: 400 or warnings). Throws ApiError.
  void check_review(const ResourceType& t, model::Value& object, const WriteOptions& o,
                    std::vector<std::string>& warnings) const {
    check_body(t, "", object);
    check_schema(t, object, o, warnings);
  }
  // Creates the object, or replaces it if it exists (used to preload
  // manifests). The kind is looked up from apiVersion and kind.
  SnapshotPtr apply_manifest(model::Value object);

  // The type of a stored object as seen through `t`'s version: custom
  // resources read through another version get that apiVersion.
  static model::Value as_version(const ResourceType& t, const model::Value& object);

 private:
  void check_body(const ResourceType& t, const std::string& ns, model::Value& object) const;
  void check_metadata(const ResourceType& t, const model::Value& object) const;
  void check_schema(const ResourceType& t, model::Value& object, const WriteOptions& o,
                    std::vector<std::string>& warnings) const;
  void prepare_create(const ResourceType& t, model::Value& object);
  // Keeps what a PUT may leave out but the server assigned (clusterIP).
  static void carry_over(const ResourceType& t, const model::Value& current, model::Value& next);
  static bool has_finalizers(const model::Value& object);
  void after_write(const ResourceType& t, const SnapshotPtr& object);
  void after_delete(const ResourceType& t, const SnapshotPtr& object);
  void register_crd(const model::Value& crd);
  void ensure_default_service_account(const std::string& ns);
  void unregister_crd(const model::Value& crd);
  void delete_all(const ResourceType& t, const std::string& ns);
  // Garbage collection by ownerReferences (cluster_gc.cpp).
  std::vector<std::pair<ResourceType, SnapshotPtr>> dependents_of(const model::Value& owner) const;
  void collect_dependents(const model::Value& owner);
  void orphan_dependents(const model::Value& owner);
  // The real garbage collector deletes a dependent none of whose owners
  // exist (by uid), e.g. one a controller created while its owner was
  // being deleted; here that happens right after the create.
  bool owners_gone(const std::string& ns, const model::Value& object) const;
  void collect_if_orphaned(const ResourceType& t, const SnapshotPtr& created);
  void drop_owner_reference(const ResourceType& t, const SnapshotPtr& dependent, const std::string& uid);

  const Clock& clock_;
  TypeRegistry types_;
  Store store_;
  mutable std::mutex schemas_mutex_;
  std::shared_ptr<const SchemaSet> schemas_;
  std::map<std::string, model::Value> printer_columns_;  // schema_ref -> columns
  std::mutex ip_mutex_;
  unsigned next_ip_ = 10;  // service cluster IPs: 10.96.0.10 upwards
};

}  // namespace k8s::sim
