// Leader election for the operator: the pure lease decision now lives in
// k8s/lease/leader.hpp (shared with cmd/target-allocator, which must not
// depend on actors/); these aliases keep the actors' spelling.
#pragma once

#include "k8s/lease/leader.hpp"

namespace actors::core {

using k8s::lease::decide_lease;
using k8s::lease::LeaderConfig;
using k8s::lease::LeaseDecision;
using k8s::lease::LeaseObservation;
using k8s::lease::LeaseStep;
using k8s::lease::micro_time;
using k8s::lease::release_lease;

}  // namespace actors::core
