// The learned methods the search driver (rl/go_search.h) runs, one descriptor each:
// go (the GO policy, trained by the driver's own PPO trainer), colocrl (rl/colocrl.h)
// and hdp (rl/hdp.h). The driver and its option parser ask the descriptor, never the
// name: what keys the method takes, how to check them and how to make its trainer.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "policy/features.h"
#include "rl/trainer.h"
#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {

struct GoSearchConfig;

struct LearnedMethod {
  std::string name;
  // The GO policy: trained by the driver's own PPO trainer; it may start from a
  // pre-trained policy, decide a subset of the tasks and train over the ranks of an
  // MPI job; its keys go to the PPO config (GoSearchConfig::ppo) and the network's
  // (GoSearchConfig::policy). The others decide placement alone, from scratch as
  // published (no baseline start, warm start or local search by default), in one
  // process; their keys go to GoSearchConfig::method_options.
  bool go_policy = false;
  std::function<bool(const std::string& key)> has_key;  // one of the method's own keys
  std::string known_keys;                                 // "PPO: samples, ...; GO policy: hidden, ..."
  // The method's own keys with their values in `c`, one line each, under a title.
  std::function<std::string(const GoSearchConfig& c)> help;
  // Checks the method's own options in `c`.
  std::function<Status(const GoSearchConfig& c)> validate;
  // Its trainer (not for the GO policy, whose trainer the driver makes). `simulator`,
  // `batch` and `input` (from the same graph and cluster) must outlive it.
  std::function<StatusOr<std::unique_ptr<Trainer>>(const Simulator& simulator, BatchSimulator* batch,
                                                   const PolicyInput& input, const std::string& options,
                                                   uint64_t seed)>
      create;
};

// go, colocrl, hdp.
const std::vector<LearnedMethod>& LearnedMethods();
// InvalidArgument naming the known methods if unknown.
StatusOr<const LearnedMethod*> FindLearnedMethod(const std::string& name);

// Every learned method `graphopt optimize --method` accepts: "go" first.
std::vector<std::string> LearnedMethodNames();

// Checks a method's options ("key=value,..." over its defaults); fails on an unknown
// method or a bad option, naming it. The GO policy's options are checked by the
// driver's parser (rl/go_search.h ParseGoSearchOptions).
Status ValidateMethodOptions(const std::string& method, const std::string& options);

// A trainer of a method other than the GO policy. `simulator`, `batch` and `input`
// (from the same graph and cluster) must outlive the trainer.
StatusOr<std::unique_ptr<Trainer>> CreateMethodTrainer(const std::string& method, const Simulator& simulator,
                                                       BatchSimulator* batch, const PolicyInput& input,
                                                       const std::string& options, uint64_t seed);

}  // namespace graphopt
