#include "rl/methods.h"

namespace graphopt {

const std::vector<std::string>& LearnedMethodNames() {
  static const std::vector<std::string> names = {"go", "colocrl", "hdp"};
  return names;
}

Status ValidateMethodOptions(const std::string& method, const std::string& options) {
  (void)options;
  if (method == "go") return Status::Ok();
  return InvalidArgument("unknown learned method \"" + method + "\" (known: go)");
}

StatusOr<std::unique_ptr<Trainer>> CreateMethodTrainer(const std::string& method, const Simulator& simulator,
                                                       BatchSimulator* batch, const PolicyInput& input,
                                                       const std::string& options, uint64_t seed) {
  (void)simulator;
  (void)batch;
  (void)input;
  (void)options;
  (void)seed;
  return InvalidArgument("unknown learned method \"" + method + "\" (known: go)");
}

}  // namespace graphopt
