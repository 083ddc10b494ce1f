#include "rl/baseline_scores.h"

#include <utility>

#include "baselines/baseline.h"
#include "baselines/planner.h"

namespace graphopt {

std::vector<BaselineScore> ScoreBaselines(const Simulator& simulator, const BaselineScoring& options,
                                          const std::function<void(const BaselineScore& score, Plan* plan)>& each) {
  const std::vector<std::string> methods = options.methods.empty() ? BaselineNames() : options.methods;
  std::vector<BaselineScore> scores;
  for (const std::string& method : methods) {
    const PlannerInfo* info = PlannerRegistry::Global().Find(method);
    const bool own_fusion = info != nullptr && info->decides_fusion;
    for (int fused = 0; fused < (options.fused && !own_fusion ? 2 : 1); ++fused) {
      BaselineScore b;
      b.method = method + (fused ? "+fusion" : "");
      b.plain = fused == 0;
      BaselineOptions planning;
      planning.fusion = fused == 1;
      planning.seed = options.seed;
      StatusOr<Plan> plan = RunBaseline(method, simulator.graph(), simulator.cluster(), simulator.cost_model(), planning);
      if (!plan.ok()) {
        b.error = plan.status().message();
      } else {
        StatusOr<SimResult> r = options.score ? options.score(*plan) : simulator.Simulate(*plan);
        if (r.ok()) {
          b.score = PlanScore::Of(*r);
        } else {
          b.error = r.status().message();
        }
      }
      if (each) each(b, plan.ok() ? &*plan : nullptr);
      scores.push_back(std::move(b));
    }
  }
  return scores;
}

const BaselineScore* BestPlainBaseline(const std::vector<BaselineScore>& scores) {
  const BaselineScore* best = nullptr;
  for (const BaselineScore& b : scores) {
    if (b.plain && b.error.empty() && b.score.fits() && (best == nullptr || b.score.BetterThan(best->score))) best = &b;
  }
  return best;
}

}  // namespace graphopt
