// Shared by the kernel tests: a model's training graph by spec or file.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/load.h"

namespace graphopt {

// The training graph of a built-in spec or a model file; ONNX files at batch 1 (their
// symbolic dims, where they have any, bound to 1). An empty graph on failure.
inline Graph Training(const std::string& spec) {
  LoadOptions options;
  std::vector<std::string> warnings;
  if (spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".onnx") == 0) {
    options.onnx.default_dim = 1;  // batch 1 (the files' symbolic dims, where they have any)
    options.onnx.warnings = &warnings;
  }
  StatusOr<Graph> g = LoadModel(spec, options);
  EXPECT_TRUE(g.ok()) << spec << ": " << g.status().ToString();
  return g.ok() ? std::move(*g) : Graph();
}

}  // namespace graphopt
