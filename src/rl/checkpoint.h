// A learned method's checkpoint folder (the GO search's, its PPO, ColocRL or HDP
// trainer's, pre-training's): where its files are, the one schema of its state files,
// and the checks a resume makes before trusting any of them.
//
// Every state file is one JSON object with the same header, the part's fields beside
// it:
//   {"format": "graphopt-checkpoint", "version": 1, "part": "ppo",
//    "identity": {"graphopt_version": "0.9.0", "config": "lr=0.001,..."}, "step": 12, ...}
//  - part: whose state it is: "search", "ppo", "colocrl", "hdp", "pretrain". A
//    folder may hold several (a search's state.json beside its trainer's state).
//  - version: of the whole schema, every part's fields included. A state file of
//    another version, or in a format of graphopt before this schema, is refused with
//    the file and both versions named: resume it with the graphopt that wrote it, or
//    start afresh.
//  - identity: what the state belongs to (rl/checkpoint_identity.h), checked field by
//    field before any other field is read.
//  - Files: a folder with some of a checkpoint's files but not its state is refused
//    (an interrupted first save, or a deleted state) rather than silently restarted
//    and overwritten; every file the state says was written must be present; a plan
//    the state records is re-simulated to the score it records.
//  - Temporaries: saves write "<file>.tmp.<pid>" then rename (core/files.h); a save
//    interrupted before the rename leaves the temporary, which the next Open removes.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "rl/checkpoint_identity.h"
#include "rl/local_search.h"  // PlanScore
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

class CheckpointStore {
 public:
  static constexpr const char* kFormat = "graphopt-checkpoint";
  static constexpr int kVersion = 1;

  // The folder `dir` (created by the first Open or Write that needs it).
  explicit CheckpointStore(std::string dir);

  const std::string& dir() const { return dir_; }
  std::string Path(const std::string& file) const { return dir_ + "/" + file; }

  // Opens the folder of a run that may resume: removes stale temporaries, refuses
  // `files` (names inside the folder) without the state file `state`, and returns the
  // state, its header and identity checked (Read); or, if there is none, creates the
  // folder, checks that the state can be written (a run fails now, not after its first
  // steps) and returns nullopt.
  StatusOr<std::optional<nlohmann::json>> Open(const std::string& state, const std::string& part,
                                               const CheckpointIdentity& identity,
                                               const std::vector<std::string>& files) const;

  // Reads the state file `state`, which must exist: the schema's header, `part` and
  // `identity` checked; the part's fields are the caller's to check.
  StatusOr<nlohmann::json> Read(const std::string& state, const std::string& part,
                                const CheckpointIdentity& identity) const;

  // Writes `fields` (an object) under the header as the state file `state`,
  // atomically, creating the folder if needed.
  Status Write(const std::string& state, const std::string& part, const CheckpointIdentity& identity,
               nlohmann::json fields) const;

  // Fails with NotFound naming the first of `files` that is missing; `why` ends the
  // message ("the state says the trainer saved it").
  Status Require(const std::vector<std::string>& files, const std::string& why) const;

  // Fails if the folder holds any of `files` but not `state`: its state was lost or
  // never written, and starting afresh would overwrite the rest.
  Status RefuseOrphans(const std::string& state, const std::vector<std::string>& files) const;

  // Removes the temporaries interrupted saves left ("*.tmp", and "*.tmp.<pid>" of
  // other processes); returns how many were removed.
  int RemoveStaleTemporaries() const;

  // Writes `plan` of `graph` as the file `file`.
  Status WritePlan(const std::string& file, const Graph& graph, const Plan& plan) const;

  // Reads the plan file `file`, which the state says was written, and re-simulates it
  // (VerifyCheckpointPlan); returns the score it simulates to. `why` as in Require.
  StatusOr<PlanScore> ReadPlan(const std::string& file, const Simulator& sim, const PlanScore& recorded,
                               const std::string& why, Plan* plan) const;

 private:
  std::string dir_;
};

}  // namespace graphopt
