// The simulator's pick checked by execution (optimize --verify K, the Python module's
// optimize(verify=K)): the best distinct plans a search found, executed on this
// machine's cores in the rounds of exec/fidelity_rounds.h (every plan measured in every
// round, the order rotating, so that the machine's drift falls on every plan alike), and
// the plan that ran fastest returned with what each one was simulated and measured at.
//
// The search ranks plans by the simulator, whose model of the local cores can be wrong
// about a plan split over them (they share memory bandwidth and caches, and the host
// that runs this virtual machine gives its cores more or less from one minute to the
// next: docs/experiments/2026-12-06-local-concurrency.md). Executing the few plans the
// simulator puts at the top and keeping the fastest makes the answer what the machine
// does; the noise floor says how far two plans' times must differ before the pick means
// anything.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/plan.h"
#include "sim/simulator.h"
#include "sim/top_plans.h"

namespace graphopt {

struct VerifyCandidate {
  std::string name;         // as the report shows it ("1: policy", "single device")
  Plan plan;
  double simulated_us = 0;  // what the search's simulator said
};

struct VerifyOptions {
  int warmup = 2;  // rounds of one unmeasured step of every plan
  int steps = 7;   // measured rounds (RoundsOptions::steps), at least 2
  uint64_t seed = 0;  // of the data the executors make
  const std::atomic<bool>* stop = nullptr;  // set: Cancelled("interrupted")
  std::function<void(int done, int rounds)> on_round;
};

struct VerifiedPlan {
  std::string name;
  double simulated_us = 0;
  double measured_us = 0;  // the median of its measured steps; 0 if it could not run
  double half_gap = 0;     // its noise floor (HalfGap)
  double spread = 0;       // (max - min) / median of its steps
  std::string error;       // why it did not run ("" if it did)
};

struct VerifyResult {
  std::vector<VerifiedPlan> plans;  // in the candidates' order
  int best = -1;                    // the index of the fastest measured plan
  Plan plan;                        // its plan
  double noise_floor = 0;           // the median of the plans' half gaps
};

// The candidates of a search's top plans (best first, named "1 (policy)", "2 (polish)",
// ... by their rank and source), then each of `baselines` (LearnedSearchResult::
// baseline_plans, named "heft (baseline)" by their source) whose placement no candidate
// before it has, so that the plain planners' plans are executed too when the simulator
// ranks them below the top; then the single-device plan (every op on the first device,
// unfused: the single baseline), named "single device", unless one of them is that plan.
// Simulated times from `sim`, the search's simulator.
StatusOr<std::vector<VerifyCandidate>> TopPlanCandidates(const Simulator& sim, const std::vector<RankedPlan>& top,
                                                         const std::vector<RankedPlan>& baselines);

// Executes every candidate on `core_sets` (one core set per device of `cluster`, a
// local cluster: exec/local_cluster.h). A candidate that cannot be executed (its data
// does not fit, a kernel fails) is reported with its error and the others go on;
// InvalidArgument for no candidates or options out of range, FailedPrecondition when
// none could run.
StatusOr<VerifyResult> VerifyPlans(const Graph& graph, const Cluster& cluster,
                                   const std::vector<std::vector<int>>& core_sets,
                                   const std::vector<VerifyCandidate>& candidates, const VerifyOptions& options);

}  // namespace graphopt
