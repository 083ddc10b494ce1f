// Suite results JSON (eval/results.h), as `graphopt bench` reads the file it adds
// to: parse; results that load must write back to JSON that loads, and merge.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/logging.h"
#include "eval/results.h"

using namespace graphopt;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  SetLogLevel(LogLevel::kSilent);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  StatusOr<SuiteResults> results = ResultsFromJson(text, "fuzz.json");
  if (!results.ok()) return 0;
  StatusOr<SuiteResults> again = ResultsFromJson(ResultsToJson(*results), "written.json");
  GO_CHECK_MSG(again.ok(), again.status().message());
  (void)MethodColumns(*results);
  (void)MergeResults(*results, &*again);
  return 0;
}
