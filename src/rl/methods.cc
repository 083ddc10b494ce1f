#include "rl/methods.h"

#include "core/strings.h"
#include "rl/colocrl.h"
#include "rl/hdp.h"

namespace graphopt {
namespace {

Status UnknownMethod(const std::string& method) {
  return InvalidArgument("unknown learned method \"" + method + "\" (known: " + Join(LearnedMethodNames(), ", ") + ")");
}

}  // namespace

const std::vector<std::string>& LearnedMethodNames() {
  static const std::vector<std::string> names = {"go", "colocrl", "hdp"};
  return names;
}

Status ValidateMethodOptions(const std::string& method, const std::string& options) {
  if (method == "go") return Status::Ok();
  if (method == "colocrl") return ColocRlConfig::FromString(options).status();
  if (method == "hdp") return HdpConfig::FromString(options).status();
  return UnknownMethod(method);
}

StatusOr<std::unique_ptr<Trainer>> CreateMethodTrainer(const std::string& method, const Simulator& simulator,
                                                       BatchSimulator* batch, const PolicyInput& input,
                                                       const std::string& options, uint64_t seed) {
  if (method == "colocrl") {
    GO_ASSIGN_OR_RETURN(const ColocRlConfig config, ColocRlConfig::FromString(options));
    GO_ASSIGN_OR_RETURN(std::unique_ptr<ColocRlTrainer> trainer,
                        ColocRlTrainer::Create(simulator, batch, input, config, seed));
    return std::unique_ptr<Trainer>(std::move(trainer));
  }
  if (method == "hdp") {
    GO_ASSIGN_OR_RETURN(const HdpConfig config, HdpConfig::FromString(options));
    GO_ASSIGN_OR_RETURN(std::unique_ptr<HdpTrainer> trainer, HdpTrainer::Create(simulator, batch, input, config, seed));
    return std::unique_ptr<Trainer>(std::move(trainer));
  }
  if (method == "go") return InvalidArgument("method \"go\" is run by the GO search driver, not CreateMethodTrainer");
  return UnknownMethod(method);
}

}  // namespace graphopt
