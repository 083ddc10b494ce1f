#include "exec/fidelity_rounds.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/median.h"
#include "exec/local_cluster.h"

namespace graphopt {
namespace {

// One visit of a plan in a round: one step, or two with the second measured. A failing
// step of a plan that is not required drops the plan (Ok); of a required one, fails.
Status Visit(RoundsPlan* p, bool measured) {
  for (int k = 0; k < (measured ? 2 : 1) && p->step; ++k) {
    StatusOr<SimResult> r = p->step();
    if (!r.ok() && p->required) return r.status().WithContext(p->name);
    if (!r.ok()) {  // the plan is reported as not run; the others go on
      p->error = r.status().message();
      p->step = nullptr;
      p->steps_us.clear();
      break;
    }
    if (k == 1) p->steps_us.push_back(r->step_time_us);
    if (k == 1 && !r->timeline.empty()) p->timelines.push_back(std::move(*r));
  }
  return Status::Ok();
}

}  // namespace

Status RunRounds(const RoundsOptions& options, std::vector<RoundsPlan>* plans,
                 std::vector<std::vector<double>>* reference_us) {
  reference_us->assign(options.reference_cores.size(), {});
  std::vector<RoundsPlan*> live;
  for (RoundsPlan& p : *plans) {
    if (p.step) live.push_back(&p);
  }
  const int rounds = options.warmup + options.steps;
  for (int round = 0; round < rounds; ++round) {
    const bool measured = round >= options.warmup;
    for (size_t k = 0; k < live.size(); ++k) {
      if (options.stop != nullptr && options.stop->load()) return Cancelled("interrupted");
      GO_RETURN_IF_ERROR(Visit(live[(k + static_cast<size_t>(round)) % live.size()], measured));
    }
    for (size_t d = 0; d < options.reference_cores.size() && measured; ++d) {
      (*reference_us)[d].push_back(ReferenceGemmUs(options.reference_cores[d]));
    }
    if (measured && options.after_measured_round) GO_RETURN_IF_ERROR(options.after_measured_round());
    if (options.on_round) options.on_round(round + 1, rounds);
  }
  return Status::Ok();
}

double MeasuredUs(const std::vector<double>& steps_us) { return Median(steps_us); }

double Spread(const std::vector<double>& v) {
  if (v.empty()) return 0;
  return (*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end())) / Median(v);
}

double HalfGap(const std::vector<double>& steps_us) {
  std::vector<double> odd, even;
  for (size_t i = 0; i < steps_us.size(); ++i) (i % 2 == 0 ? even : odd).push_back(steps_us[i]);
  if (odd.empty() || even.empty()) return 0;
  return std::fabs(Median(odd) - Median(even)) / MeasuredUs(steps_us);
}

}  // namespace graphopt
