// The learned placers other than GO that the search driver (rl/go_search.h) can
// run: ColocRL (rl/colocrl.h) and HDP (rl/hdp.h), by name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "policy/features.h"
#include "rl/trainer.h"
#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {

// Every learned method `graphopt optimize --method` accepts: "go" first.
const std::vector<std::string>& LearnedMethodNames();

// Checks a method's options ("key=value,..." over its defaults); fails on an unknown
// method or a bad option, naming it.
Status ValidateMethodOptions(const std::string& method, const std::string& options);

// A trainer of a method other than "go" (GO's PPO trainer needs the policy and PPO
// configs the driver parses itself). `simulator`, `batch` and `input` (from the same
// graph and cluster) must outlive the trainer.
StatusOr<std::unique_ptr<Trainer>> CreateMethodTrainer(const std::string& method, const Simulator& simulator,
                                                       BatchSimulator* batch, const PolicyInput& input,
                                                       const std::string& options, uint64_t seed);

}  // namespace graphopt
