// Versioned JSON format of a Graph. Round-trips exactly: every field of every op and
// tensor, costs (doubles written with 17 significant digits), attributes, metadata,
// layer names and colocation groups.
//
// {"format": "graphopt-graph", "version": 1, "name": ..., "family": ..., "metadata": {...},
//  "layers": [...], "colocation_groups": n,
//  "tensors": [{"name", "shape", "dtype"}],
//  "ops": [{"name", "kind", "phase", "inputs", "outputs", "attrs", "flops", "macs",
//           "bytes_read", "bytes_written", "param_bytes", "time_us", "backward_us",
//           "group", "layer", "forward_op"}]}
// Optional op fields may be omitted and take their defaults.
#pragma once

#include <string>

#include "graph/graph.h"

namespace graphopt {

inline constexpr int kGraphJsonVersion = 1;

std::string GraphToJson(const Graph& graph);
// Parses and verifies a graph; `source` names the file in error messages.
StatusOr<Graph> GraphFromJson(const std::string& text, const std::string& source);

Status WriteGraphJson(const Graph& graph, const std::string& path);
StatusOr<Graph> ReadGraphJson(const std::string& path);

}  // namespace graphopt
