// PipeDream profiles (import/pipedream_import.h), as `graphopt inspect profile.txt`
// reads them: parse into the forward graph, then expand into the training step.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/logging.h"
#include "graph/training.h"
#include "import/pipedream_import.h"

using namespace graphopt;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  SetLogLevel(LogLevel::kSilent);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  StatusOr<Graph> forward = ParsePipeDream(text, "fuzz.txt");
  if (!forward.ok()) return 0;
  (void)BuildTrainingGraph(*forward);
  return 0;
}
