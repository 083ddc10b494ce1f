// The measurement protocol of `graphopt bench --fidelity` (cli/fidelity_command.cc):
// how the step times of a graph's plans are measured so that the machine's drift falls
// on every plan alike (docs/experiments/2026-11-29-fidelity.md, "How the measurement
// had to be made").
//
// Every plan gets its executor before the rounds start. Then `warmup` rounds of one
// unmeasured step of every plan, and `steps` measured rounds of two steps of every
// plan, the first unmeasured (a step right after another plan's finds the caches full
// of that plan's data); the order of the plans rotates by one from round to round.
// After every measured round, a reference GEMM on each device's cores (ReferenceGemmUs,
// exec/local_cluster.h) records the machine's own speed apart from any plan, and the
// caller may measure more of the machine (RoundsOptions::after_measured_round).
//
// A plan's time is the median of its measured steps (MeasuredUs); the noise floor is
// what two halves of the same rounds disagree by, the median of the odd rounds against
// that of the even ones (HalfGap), beside the spread of the steps (Spread).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "sim/simulator.h"

namespace graphopt {

// One plan as the rounds run it; RunRounds fills the fields after `required`.
struct RoundsPlan {
  std::string name;
  // One step of the plan (an Executor's RunStep, exec/executor.h); empty: the plan is
  // not run. RunRounds empties it when a step fails, which releases what it holds.
  std::function<StatusOr<SimResult>()> step;
  // A run the bench cannot do without (the in-step profile's): a failing step ends the
  // rounds with its error. Another plan's failure only drops that plan.
  bool required = false;

  std::string error;             // why its steps stopped ("" if they did not)
  std::vector<double> steps_us;  // its measured step of each measured round; cleared on a failure
  std::vector<SimResult> timelines;  // the measured steps that came with a timeline
};

struct RoundsOptions {
  int warmup = 2;  // rounds of one unmeasured step of every plan
  int steps = 9;   // measured rounds, two steps of every plan each, the second measured
  // The cores of each device, for the reference GEMM after every measured round (empty:
  // none).
  std::vector<std::vector<int>> reference_cores;
  const std::atomic<bool>* stop = nullptr;  // when set, the rounds end: Cancelled("interrupted")
  std::function<void(int done, int rounds)> on_round;  // after every round (progress), if set
  // After every measured round, after the reference GEMM (the fidelity bench samples
  // the devices' contention there), if set; an error ends the rounds with it.
  std::function<Status()> after_measured_round;
};

// Runs the rounds over the plans that have a step. On success `reference_us` holds, per
// device of `reference_cores`, its reference GEMM's time (us) of every measured round.
// On failure (a required plan's step failed, with its name as context, or `stop` was
// set) the plans keep what the rounds before measured.
Status RunRounds(const RoundsOptions& options, std::vector<RoundsPlan>* plans,
                 std::vector<std::vector<double>>* reference_us);

// The time of a plan: the median of its measured steps (0 if none).
double MeasuredUs(const std::vector<double>& steps_us);
// (max - min) / median of a series; 0 if empty.
double Spread(const std::vector<double>& v);
// |median of the odd rounds - median of the even rounds| / median of all: the noise
// floor of one plan's measurement; 0 with fewer than two rounds.
double HalfGap(const std::vector<double>& steps_us);

}  // namespace graphopt
