// LoadModel: the one entry point for "a model" wherever the CLI takes one: a .onnx,
// .json or PipeDream .txt file, or a built-in spec ("gnmt:layers=4").
#pragma once

#include <string>

#include "graph/graph.h"
#include "graph/training.h"
#include "import/onnx_import.h"

namespace graphopt {

struct LoadOptions {
  // Expand forward graphs (ONNX, PipeDream, built-ins) into the training step.
  // JSON graphs are taken as they are.
  bool training = true;
  TrainingOptions training_options;
  // Sizes of the symbolic dimensions of ONNX models (the --dim flag).
  OnnxImportOptions onnx;
};

StatusOr<Graph> LoadModel(const std::string& spec, const LoadOptions& options = {});

}  // namespace graphopt
