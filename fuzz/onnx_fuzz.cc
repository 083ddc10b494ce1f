// ONNX models (import/onnx_import.h), as `graphopt inspect model.onnx --dim '*=2'`
// reads them: import from the bytes, then expand into the training step.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/logging.h"
#include "graph/training.h"
#include "import/onnx_import.h"

using namespace graphopt;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  SetLogLevel(LogLevel::kSilent);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  OnnxImportOptions options;
  options.default_dim = 2;  // symbolic dimensions of the inputs: 2
  options.warnings = &warnings;
  StatusOr<Graph> forward = ImportOnnxBytes(bytes, "fuzz.onnx", options);
  if (!forward.ok()) return 0;
  (void)BuildTrainingGraph(*forward);
  return 0;
}
