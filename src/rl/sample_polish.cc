#include "rl/sample_polish.h"

#include <utility>

#include "rl/checkpoint.h"
#include "rl/score_json.h"

namespace graphopt {
namespace {

constexpr const char* kDescentPlanFile = "descent_plan.json";

}  // namespace

SamplePolish::SamplePolish(const Simulator& simulator, BatchSimulator* batch, const LocalSearchConfig& config,
                             const TaskDefaults* defaults)
    : sim_(simulator), search_(simulator, batch, config) {
  search_.set_task_defaults(defaults);
}

std::optional<LocalSearchStats> SamplePolish::Step(const Plan& sampled, const PlanScore& score, bool exploring,
                                                    Rng& rng, int64_t evaluations, const std::function<bool()>& stop) {
  const bool restart = exploring ? score.BetterThan(seen_) || seen_.BetterThan(score)
                                 : !seen_.scored() || search_.converged() || score.BetterThan(score_);
  if (restart) {
    plan_ = sampled;
    score_ = score;
    seen_ = score;
    search_.Reset();
  }
  if (search_.converged()) return std::nullopt;
  return search_.Polish(&plan_, &score_, rng, evaluations, stop);
}

StatusOr<nlohmann::json> SamplePolish::Save(const CheckpointStore& store) const {
  nlohmann::json saved = CursorToJson(search_.cursor());
  saved["score"] = PlanScoreToJson(score_);
  saved["seen"] = PlanScoreToJson(seen_);
  GO_RETURN_IF_ERROR(store.WritePlan(kDescentPlanFile, sim_.graph(), plan_));
  return saved;
}

Status SamplePolish::Load(const nlohmann::json& saved, const CheckpointStore& store, const std::string& where) {
  GO_ASSIGN_OR_RETURN(const nlohmann::json* score, JsonMember(saved, "score", where));
  GO_ASSIGN_OR_RETURN(const PlanScore recorded, PlanScoreFromJson(*score, where + ".score"));
  GO_ASSIGN_OR_RETURN(const nlohmann::json* seen_json, JsonMember(saved, "seen", where));
  GO_ASSIGN_OR_RETURN(const PlanScore seen, PlanScoreFromJson(*seen_json, where + ".seen"));
  Plan plan;
  GO_ASSIGN_OR_RETURN(
      const PlanScore verified,
      store.ReadPlan(kDescentPlanFile, sim_, recorded, "the checkpoint was polishing that plan of the policy", &plan));
  GO_ASSIGN_OR_RETURN(const LocalSearch::Cursor cursor, CursorFromJson(saved, where));
  seen_ = seen;
  score_ = verified;
  plan_ = std::move(plan);
  search_.set_cursor(cursor);
  return Status::Ok();
}

}  // namespace graphopt
