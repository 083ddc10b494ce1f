// Timeline export in Chrome's Trace Event format (JSON), which Perfetto and
// chrome://tracing open.
//
// Process 1 "devices" has one track (thread) per device stream, tid = device id,
// with a complete event ("ph": "X") per kernel named after its op (a fused kernel
// after its root, "+N fused" appended), and one memory counter ("ph": "C") per device.
// Process 2 "links" has one track per link that carried data, tid = from * D + to,
// named "gpu:0 -> gpu:1", with an event per transfer named after the tensor.
// Times are microseconds, as the format expects.
#pragma once

#include <string>

#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

namespace graphopt {

// Fails if the result has no timeline (simulate with SimOptions::record_timeline).
StatusOr<std::string> ChromeTraceJson(const Graph& graph, const Cluster& cluster, const SimResult& result);
// Writes the trace atomically.
Status WriteChromeTrace(const Graph& graph, const Cluster& cluster, const SimResult& result, const std::string& path);

}  // namespace graphopt
