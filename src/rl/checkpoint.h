// What a checkpoint folder belongs to, and the checks a resume makes before trusting
// it (every learned method's checkpoint: the GO search's state.json and the
// trainers' own files).
//
//  - Identity: the graph (name, op count and a fingerprint of its whole JSON form, so
//    a graph edited under the same name is caught), the cluster (name and fingerprint),
//    the method, its config (every option that changes the decisions; budgets and
//    thread counts may change between runs), the seed and the graphopt version that
//    wrote it. A resume under any other identity is an error naming the state file
//    and the field.
//  - Plans: a checkpoint's best plan is re-simulated on resume: it must be valid for
//    the graph and cluster and simulate to the score the checkpoint records (the
//    simulator is deterministic), or the file holding it is named in the error.
//  - Files: a folder with some of a checkpoint's files but not its state is refused
//    (an interrupted first save, or a deleted state) rather than silently restarted
//    and overwritten; every file the state says was written must be present.
//  - Temporaries: saves write "<file>.tmp.<pid>" then rename; a save interrupted
//    before the rename leaves the temporary, which the next run removes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/version.h"
#include "rl/local_search.h"  // PlanScore
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

// 64-bit FNV-1a of a text (fingerprints of a graph's and a cluster's JSON form).
uint64_t Fingerprint(const std::string& text);

struct CheckpointIdentity {
  std::string graph;
  int64_t num_ops = 0;
  uint64_t graph_fingerprint = 0;
  std::string cluster;
  uint64_t cluster_fingerprint = 0;
  std::string method;
  std::string config;
  uint64_t seed = 0;
  std::string version = GraphoptVersion();

  // The identity of a run of `method` with `config` and `seed` on the simulator's
  // graph and cluster (serializes both once: ~0.1 s for an 80k-op graph).
  static CheckpointIdentity Of(const Simulator& sim, const std::string& method, const std::string& config,
                               uint64_t seed);
  nlohmann::json ToJson() const;
  // Checks the identity recorded in `recorded` (ToJson's form) against this one; the
  // error names `path` and the first field that differs, with both values.
  Status Verify(const nlohmann::json& recorded, const std::string& path) const;
};

// Re-simulates a plan read from a checkpoint (`path` names its file): it must pass
// ValidatePlan and simulate to `recorded` (step time within 1e-9 relative, the same
// OOM verdict). Returns the score it simulates to.
StatusOr<PlanScore> VerifyCheckpointPlan(const Simulator& sim, const Plan& plan, const PlanScore& recorded,
                                         const std::string& path);

// Fails with NotFound naming the first of `files` (names inside `dir`) that is
// missing; `why` ends the message ("the state says the trainer saved it").
Status RequireCheckpointFiles(const std::string& dir, const std::vector<std::string>& files, const std::string& why);

// Refuses a folder that holds any of `files` but not `state`: its state was lost or
// never written, and starting afresh would overwrite the rest.
Status RefuseOrphanCheckpointFiles(const std::string& dir, const std::string& state,
                                   const std::vector<std::string>& files);

// Opens the checkpoint folder of a run that may resume: removes stale temporaries
// (RemoveStaleTemporaries), refuses orphan files (RefuseOrphanCheckpointFiles), and
// returns the state file `dir`/`state`, parsed with its header checked against
// `format` and `version`; or, if there is none, creates the folder, checks that the
// state can be written (a run fails now, not after its first steps) and returns
// nullopt.
StatusOr<std::optional<nlohmann::json>> OpenCheckpointState(const std::string& dir, const std::string& state,
                                                             const std::vector<std::string>& files,
                                                             const std::string& format, int version);

// Removes the temporaries interrupted saves left in `dir` ("*.tmp" and "*.tmp.<pid>"
// of other processes); returns how many were removed.
int RemoveStaleTemporaries(const std::string& dir);

}  // namespace graphopt
