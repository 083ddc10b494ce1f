// PipeDream profile importer: a layer graph profiled on a real GPU, one line per
// layer ("nodeK -- <layer> -- forward_compute_time=<ms>, backward_compute_time=<ms>,
// activation_size=<bytes>, parameter_size=<bytes>") and one per edge
// ("nodeA -- nodeB"), becomes a forward Graph whose ops carry the measured times.
#pragma once

#include <string>

#include "graph/graph.h"

namespace graphopt {

// Errors name the file, the line number and what is wrong.
StatusOr<Graph> ImportPipeDream(const std::string& path);
StatusOr<Graph> ParsePipeDream(const std::string& text, const std::string& source);

}  // namespace graphopt
