// Shared by allocation_bench's sections: the pipeline's synthetic discovery
// output and job, and the helpers each section times with.
// Contract: discovery_output(n, per_group) is deterministic (the same n
// gives the same label sets), so sections and runs compare like with like.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "allocation/allocator.hpp"

namespace allocation_bench {

using WallClock = std::chrono::steady_clock;

double ms_since(WallClock::time_point t);
// The middle value of a non-empty sample (the upper one of an even count).
double median(std::vector<double> v);
std::vector<allocation::Collector> collectors(std::size_t n);
std::unique_ptr<allocation::Allocator> make_allocator(const std::string& strategy,
                                                      const allocation::ManualClock& clock);

// ~40 labels per target as Kubernetes endpoints discovery produces them.
std::vector<allocation::TargetGroup> discovery_output(std::size_t n, std::size_t per_group);
// One target of discovery_output: target i of group g, with a variant
// number in its pod name (identity) and container id (meta only).
std::shared_ptr<const allocation::LabelSet> endpoint_target(std::size_t g, std::size_t i, std::size_t per_group,
                                                            int pod_variant, int meta_variant);
// A ServiceMonitor-style job: 9 relabel rules (keep, drop, replace, hashmod).
extern const char* const kPipelineConfig;

// Whether two allocators hold the same result: generation, jobs, target
// and unassigned counts, and every bucket's version and targets in order
// (by identity). The incremental and runtime sections check each round.
bool same_allocation(const allocation::Allocator& a, const allocation::Allocator& b);

// Resident set size of this process (VmRSS), in bytes.
std::size_t rss_bytes();

// `incremental` section: 1% of targets rediscovered, update_targets
// against a full reprocess (allocation_incremental.cpp).
void incremental(bool quick, std::size_t only_targets, int reps);
// `runtime` section: a 1% discovery update through runtime::State and
// AllocationServer::publish, incremental against every target reprocessed
// (allocation_runtime.cpp). `side`: "both", or "incremental" / "full" to
// run the rounds through that State alone (for profiling one path; the
// other side's columns then read 0).
void runtime(bool quick, std::size_t only_targets, int reps, const std::string& side = "both");

}  // namespace allocation_bench
