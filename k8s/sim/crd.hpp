// CustomResourceDefinitions: what a CRD object serves (one ResourceType per
// served version) and the schema of each version, as the API server
// derives them when the CRD is created.
// Contract: crd_problems() lists the 422 causes of a malformed CRD (empty
// when valid); describe_crd() assumes a valid CRD.
#pragma once

#include <string>
#include <vector>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/resource_types.hpp"
#include "model/value.hpp"

namespace k8s::sim {

struct CrdVersion {
  ResourceType type;
  model::Value schema;           // openAPIV3Schema (may be null)
  model::Value printer_columns;  // additionalPrinterColumns (array or null)
};

std::vector<Cause> crd_problems(const model::Value& crd);
std::vector<CrdVersion> describe_crd(const model::Value& crd);
// The status a freshly established CRD gets: NamesAccepted and Established
// conditions, acceptedNames and storedVersions.
model::Value crd_status(const model::Value& crd, const std::string& now);

// OpenAPI component name of a custom kind, as the real server publishes it:
// "com.grafana.monitoring.v1alpha1.GrafanaAgent".
std::string crd_component_name(const std::string& group, const std::string& version, const std::string& kind);

}  // namespace k8s::sim
