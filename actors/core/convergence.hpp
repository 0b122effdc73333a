// Whether an operator has converged, judged from outside by what a cluster
// holds: the objects render_all wants over the cluster's current inputs
// versus the owned objects (the managed-by label) it holds. Shared by the
// e2e fixture and the chaos soak (benchmarks/chaos_soak.cpp), which read
// the same kinds from an in-process or a separate simcluster.
// Contract: pure. Objects are API objects with kind and metadata. Owned
// objects are compared by config-hash annotation (the operator stamps every
// write with config_hash of what it wanted), so a missing, stale or left
// over object shows up; comparable_content() is what two clusters fed the
// same inputs must agree on.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/render.hpp"
#include "model/value.hpp"

namespace actors::core {

// The kinds the operator reads as inputs and the kinds it writes.
const std::vector<std::string>& input_kinds();
const std::vector<std::string>& owned_kinds();
// Carries the managed-by label of the operator.
bool is_managed(const model::Value& obj);
// "Kind ns/name".
std::string object_id(const model::Value& obj);

// "missing ID", "stale ID" (config hash differs) and "leftover ID" lines;
// empty when `owned` is exactly the `desired` objects.
std::vector<std::string> compare_owned(const std::vector<model::Value>& desired,
                                       const std::vector<model::Value>& owned);
// compare_owned() against what render_all wants over `inputs`.
std::vector<std::string> divergence(const std::vector<model::Value>& inputs, const std::vector<model::Value>& owned,
                                    const model::RenderOptions& options = {});

// Object id -> its data (Secrets) or spec (the rest) as JSON: the end state
// that clusters fed the same inputs share. Config hashes and metadata are
// left out: they cover ownerReferences, whose uids differ between clusters.
std::map<std::string, std::string> comparable_content(const std::vector<model::Value>& owned);

}  // namespace actors::core
