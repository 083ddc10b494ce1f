// The learned methods the search driver (rl/learned_search.h) runs, one descriptor each:
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

struct LearnedSearchConfig;

struct LearnedMethod {
  std::string name;
  // The GO policy: trained by the driver's own PPO trainer; it may start from a
  // pre-trained policy, decide a subset of the tasks and train over the ranks of an
  // MPI job; its keys set the PPO config (LearnedSearchConfig::ppo) and the network's
  // (LearnedSearchConfig::policy). The others decide placement alone, from scratch as
  // published (no baseline start, warm start or local search by default), in one
  // process; their keys set their own config (LearnedSearchConfig::method_config).
  bool go_policy = false;
  std::function<bool(const std::string& key)> has_key;  // one of the method's own keys
  std::string known_keys;                                 // "PPO: samples, ...; GO policy: hidden, ..."
  // Sets one of the method's own keys in *c; errors start with `context`.
  std::function<Status(const std::string& key, const std::string& value, LearnedSearchConfig* c,
                       const std::string& context)>
      set_key;
  // The method's own keys with their values in `c`, one line each, under a title.
  std::function<std::string(const LearnedSearchConfig& c)> help;
  // Checks the method's own config in `c` (ranges and the rules across fields).
  std::function<Status(const LearnedSearchConfig& c)> validate;
  // The method's own config in `c` in canonical form, "" when unset (not for the GO
  // policy, whose configs the driver reads).
  std::function<std::string(const LearnedSearchConfig& c)> config_text;
  // Its trainer over the method's config in `c` and c.seed (not for the GO policy,
  // whose trainer the driver makes). `simulator`, `batch` and `input` (from the same
  // graph and cluster) must outlive it.
  std::function<StatusOr<std::unique_ptr<Trainer>>(const Simulator& simulator, BatchSimulator* batch,
                                                   const PolicyInput& input, const LearnedSearchConfig& c)>
      create;
};

// go, colocrl, hdp.
const std::vector<LearnedMethod>& LearnedMethods();
// InvalidArgument naming the known methods if unknown.
StatusOr<const LearnedMethod*> FindLearnedMethod(const std::string& name);

// Every learned method `graphopt optimize --method` accepts: "go" first.
std::vector<std::string> LearnedMethodNames();

// A trainer of c.method, a method other than the GO policy, over its config in `c`
// (ParseLearnedSearchOptions sets it) and c.seed. `simulator`, `batch` and `input` (from
// the same graph and cluster) must outlive the trainer.
StatusOr<std::unique_ptr<Trainer>> CreateMethodTrainer(const LearnedSearchConfig& c, const Simulator& simulator,
                                                       BatchSimulator* batch, const PolicyInput& input);

}  // namespace graphopt
