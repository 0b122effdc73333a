// Server-side printing: the meta.k8s.io/v1 Table kubectl's human-readable
// `get` asks for (Accept: application/json;as=Table;...), with the
// columns the real server prints for common kinds and each CRD's
// additionalPrinterColumns.
// Contract: pure; `now` ages the rows; includeObject is "None",
// "Metadata" (default) or "Object".
#pragma once

#include <string>
#include <vector>

#include "k8s/sim/clock.hpp"
#include "k8s/sim/resource_types.hpp"
#include "k8s/sim/watch.hpp"

namespace k8s::sim {

bool wants_table(const std::string& accept);

model::Value make_table(const ResourceType& t, const model::Value& printer_columns,
                        const std::vector<SnapshotPtr>& items, Clock::time_point now,
                        const std::string& include_object);

// "5s", "3m10s", "4h", "12d": kubectl's age format.
std::string human_age(Clock::time_point created, Clock::time_point now);

}  // namespace k8s::sim
