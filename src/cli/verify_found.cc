// Built with the executor only (GRAPHOPT_HAVE_EXEC); optimize refuses --verify without it.
#include "cli/verify_found.h"

#ifdef GRAPHOPT_HAVE_EXEC
#include <cstdio>
#include <string>

#include "core/strings.h"
#include "exec/verify_plans.h"

namespace graphopt {
namespace {

std::string VerifiedTable(const VerifyResult& v, int steps) {
  std::string out = StrFormat("\n%-24s %14s %14s %12s\n", "plan", "simulated", "measured", "noise");
  for (size_t i = 0; i < v.plans.size(); ++i) {
    const VerifiedPlan& row = v.plans[i];
    const std::string name = row.name + (static_cast<int>(i) == v.best ? " *" : "");
    if (!row.error.empty()) {
      out += StrFormat("%-24s %11.3f ms %14s  %s\n", name.c_str(), row.simulated_us / 1e3, "error", row.error.c_str());
      continue;
    }
    out += StrFormat("%-24s %11.3f ms %11.3f ms %11.1f%%\n", name.c_str(), row.simulated_us / 1e3,
                     row.measured_us / 1e3, 100 * row.half_gap);
  }
  const VerifiedPlan& best = v.plans[static_cast<size_t>(v.best)];
  const VerifiedPlan& first = v.plans.front();
  out += StrFormat("kept     %s, measured fastest (median of %d steps; noise floor %.1f%%)", best.name.c_str(), steps,
                   100 * v.noise_floor);
  if (v.best != 0 && first.error.empty() && first.measured_us > 0) {
    const double slower = first.measured_us / best.measured_us - 1;
    out += StrFormat("; the simulator's pick measured %.3f ms, %.1f%% slower%s", first.measured_us / 1e3, 100 * slower,
                     slower <= v.noise_floor ? " (within the noise floor)" : "");
  }
  return out + "\n";
}

}  // namespace

StatusOr<VerifyResult> VerifyFoundPlans(const Simulator& sim, const std::vector<std::vector<int>>& core_sets,
                                        const std::vector<RankedPlan>& top, const std::vector<RankedPlan>& baselines,
                                        uint64_t seed, const std::atomic<bool>* stop) {
  GO_ASSIGN_OR_RETURN(const std::vector<VerifyCandidate> candidates, TopPlanCandidates(sim, top, baselines));
  VerifyOptions options;
  options.seed = seed;
  options.stop = stop;
  options.on_round = [](int done, int rounds) {
    std::fprintf(stderr, "\rverify   round %d/%d", done, rounds);
    if (done == rounds) std::fprintf(stderr, "\n");
  };
  GO_ASSIGN_OR_RETURN(const VerifyResult r, VerifyPlans(sim.graph(), sim.cluster(), core_sets, candidates, options));
  std::printf("%s", VerifiedTable(r, options.steps).c_str());
  return r;
}

}  // namespace graphopt

#endif  // GRAPHOPT_HAVE_EXEC
