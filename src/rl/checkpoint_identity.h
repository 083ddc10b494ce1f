// What a checkpoint belongs to, and how a resume checks a plan it recorded.
//
//  - Identity: named fields compared one by one on resume; a learned run's holds the
//    graph (name, op count and a fingerprint of its whole JSON form, so a graph edited
//    under the same name is caught), the cluster (name and fingerprint), the method,
//    its config (every option that changes the decisions; budgets and thread counts
//    may change between runs), the seed, and always the graphopt version that wrote
//    it. A resume under any other identity is an error naming the state file and the
//    first field that differs, with both values.
//  - Plans: a checkpoint's best plan is re-simulated on resume: it must be valid for
//    the graph and cluster and simulate to the score the checkpoint records (the
//    simulator is deterministic), or the file holding it is named in the error.
// The folder, its state files and their schema: rl/checkpoint.h.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "rl/local_search.h"  // PlanScore
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

// 64-bit FNV-1a of a text (fingerprints of a graph's and a cluster's JSON form).
uint64_t Fingerprint(const std::string& text);

class CheckpointIdentity {
 public:
  // graphopt_version alone.
  CheckpointIdentity();

  // The identity of a run of `method` with `config` and `seed` on the simulator's
  // graph and cluster (serializes both once: ~0.1 s for an 80k-op graph).
  static CheckpointIdentity Of(const Simulator& sim, const std::string& method, const std::string& config,
                               uint64_t seed);

  // Adds a field (compared after those before it). A value holding ',' or ';' is
  // an option list: a mismatch names the first option that differs.
  CheckpointIdentity& Add(const std::string& name, const std::string& value);

  // The value of `name` ("" if there is none).
  std::string Get(const std::string& name) const;

  // {name: value, ...}, every value a string.
  nlohmann::json ToJson() const;

  // Checks the identity recorded in `recorded` (ToJson's form) against this one; the
  // error names `path` and the first field that differs, with both values.
  Status Verify(const nlohmann::json& recorded, const std::string& path) const;

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

// Re-simulates a plan read from a checkpoint (`path` names its file): it must pass
// ValidatePlan and simulate to `recorded` (step time within 1e-9 relative, the same
// OOM verdict). Returns the score it simulates to.
StatusOr<PlanScore> VerifyCheckpointPlan(const Simulator& sim, const Plan& plan, const PlanScore& recorded,
                                         const std::string& path);

}  // namespace graphopt
