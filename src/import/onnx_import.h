// ONNX importer: reads an .onnx model (with or without its external weights file)
// into a forward Graph, using ONNX shape inference for every intermediate shape.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "graph/graph.h"

namespace graphopt {

struct OnnxImportOptions {
  // Value for symbolic or unknown batch-like dimensions.
  int64_t default_dim = 1;
  // Values of named symbolic dimensions (dim_param of the graph inputs, e.g.
  // {"batch", 32}); names not listed take default_dim.
  std::map<std::string, int64_t> dim_values;
};

// Each initializer becomes a Variable op (param_bytes from its dims; the weights
// themselves are never read), each graph input an Input op, each node an op of the
// matching kind with its cost. Unknown node types import as Generic ops costed by
// their bytes, with one warning listing them. Errors name the file and the node.
StatusOr<Graph> ImportOnnx(const std::string& path, const OnnxImportOptions& options = {});

}  // namespace graphopt
