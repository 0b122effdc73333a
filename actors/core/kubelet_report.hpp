// Internal to the kubelet machine (kubelet_machine.cpp): what a plan
// reports about the Nodes the render left out.
// Contract: each skipped Node is reported (log line, and a Warning Event
// when settings.emit_events) once per distinct problem, and logged again
// when it has an address or is gone; `st.reported` remembers what was said.
#pragma once

#include "actors/core/kubelet_machine.hpp"
#include "model/kubelet.hpp"

namespace actors::core {

// The component name on the kubelet machine's log lines.
inline constexpr const char* kKubeletComponent = "kubelet-service";

WriterEffects report_kubelet_nodes(KubeletState& st, const model::KubeletObjects& objs);

}  // namespace actors::core
