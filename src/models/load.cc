#include "models/load.h"

#include "core/files.h"
#include "graph/json_io.h"
#include "import/onnx_import.h"
#include "import/pipedream_import.h"
#include "models/registry.h"

namespace graphopt {

StatusOr<Graph> LoadModel(const std::string& spec, const LoadOptions& options) {
  if (spec.empty()) return InvalidArgument("no model given");
  const std::string ext = FileExtension(spec);
  const bool looks_like_file = FileExists(spec) || ext == "onnx" || ext == "json" || ext == "txt" || spec.find('/') != std::string::npos;
  const bool binds_dims = !options.onnx.dim_values.empty() || options.onnx.default_dim > 0;
  if (!looks_like_file || (IsBuiltinModelSpec(spec) && !FileExists(spec))) {
    if (binds_dims) {
      return InvalidArgument(spec + ": --dim applies to ONNX models only (a built-in takes its sizes as parameters, "
                                    "e.g. gnmt:batch=64)");
    }
    GO_ASSIGN_OR_RETURN(Graph forward, BuildBuiltinForward(spec));
    if (!options.training) return forward;
    return BuildTrainingGraph(forward, options.training_options);
  }
  if (!FileExists(spec)) return NotFound(spec + ": no such file");
  if (ext != "onnx" && binds_dims) {
    return InvalidArgument(spec + ": --dim applies to ONNX models only");
  }
  if (ext == "json") return ReadGraphJson(spec);
  Graph forward;
  if (ext == "onnx") {
    GO_ASSIGN_OR_RETURN(forward, ImportOnnx(spec, options.onnx));
  } else if (ext == "txt") {
    GO_ASSIGN_OR_RETURN(forward, ImportPipeDream(spec));
  } else {
    return InvalidArgument(spec + ": unknown model file type '." + ext + "' (expected .onnx, .json or a PipeDream .txt)");
  }
  if (!options.training) return forward;
  auto training = BuildTrainingGraph(forward, options.training_options);
  if (!training.ok()) return training.status().WithContext(spec);
  return training;
}

}  // namespace graphopt
