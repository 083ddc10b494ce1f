// ONNX importer: reads an .onnx model (with or without its external weights file)
// into a forward Graph. Every shape is computed (onnx_shapes.h), never guessed: a
// tensor whose shape cannot be computed is an error naming it and its node.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace graphopt {

struct OnnxImportOptions {
  // Sizes of the named symbolic dimensions of the graph inputs (their dim_param,
  // e.g. {"batch", 32}). A name the inputs do not have is an error.
  std::map<std::string, int64_t> dim_values;
  // Size of the symbolic dimensions dim_values does not bind; 0: an unbound
  // dimension is an error naming it. A default that is used is named in a warning.
  int64_t default_dim = 0;
  // If set, warnings are appended here instead of being logged.
  std::vector<std::string>* warnings = nullptr;
};

// Each initializer becomes a Variable op (param_bytes from its dims; the weights
// themselves are never read), each graph input an Input op, each node an op of the
// kind of the operator table (onnx_op_table.h) with its cost. Node types the table
// does not know import as Generic ops costed by their bytes, with one warning
// listing them; their output shapes come from ONNX's schema or from the shapes the
// file declares. Errors name the file and the node.
StatusOr<Graph> ImportOnnx(const std::string& path, const OnnxImportOptions& options = {});
// The same from the bytes of a model; `source` names the file in errors and gives
// the graph its name (its stem). ImportOnnx reads the file and calls this.
StatusOr<Graph> ImportOnnxBytes(const std::string& bytes, const std::string& source,
                                const OnnxImportOptions& options = {});

// Parses symbolic-dimension bindings "name=value,name=value" (the --dim flag) into
// options->dim_values; "*=value" sets options->default_dim. Values must be >= 1.
Status ParseDimBindings(const std::string& text, OnnxImportOptions* options);

}  // namespace graphopt
