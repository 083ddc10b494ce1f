// LearnedSearch over the ranks of an MPI job (rl/learned_search.h SearchHandles::world): the
// decisions every rank must make alike, and the best plan shared after every step.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "rl/learned_search_impl.h"
#include "rl/score_json.h"

namespace graphopt {

using Json = nlohmann::json;

StatusOr<LearnedSearch::Impl::Agreement> LearnedSearch::Impl::Agree(const Agreement& mine) {
  if (world == nullptr) return mine;
  const Json j{{"reason", mine.reason}, {"explore_over", mine.explore_over}, {"converged", mine.converged}};
  GO_ASSIGN_OR_RETURN(const std::vector<std::string> texts, world->GatherAll(j.dump()));
  Agreement agreed;
  agreed.converged = true;
  for (size_t r = 0; r < texts.size(); ++r) {
    const std::string where = "the decisions of rank " + std::to_string(r);
    GO_ASSIGN_OR_RETURN(const Json theirs, ParseJsonText(texts[r], where));
    GO_ASSIGN_OR_RETURN(const bool converged, JsonMemberBool(theirs, "converged", where));
    agreed.converged = agreed.converged && converged;
    if (r != 0) continue;
    GO_ASSIGN_OR_RETURN(agreed.reason, JsonMemberString(theirs, "reason", where));
    GO_ASSIGN_OR_RETURN(agreed.explore_over, JsonMemberBool(theirs, "explore_over", where));
  }
  return agreed;
}

Status LearnedSearch::Impl::ShareBest() {
  if (world == nullptr) return Status::Ok();
  // Every rank's best score and where it came from, its plans and its best policy sample.
  const Json j{{"score", PlanScoreToJson(best_score)},
               {"source", result.trace.empty() ? "" : result.trace.back().source},
               {"plans", result.plans_simulated},
               {"policy_best_us", std::isfinite(result.policy_best_us) ? result.policy_best_us : -1.0}};
  GO_ASSIGN_OR_RETURN(const std::vector<std::string> texts, world->GatherAll(j.dump()));
  std::vector<PlanScore> scores;
  std::vector<std::string> sources;
  int64_t plans = 0;
  for (size_t r = 0; r < texts.size(); ++r) {
    const std::string where = "the best plan of rank " + std::to_string(r);
    GO_ASSIGN_OR_RETURN(const Json theirs, ParseJsonText(texts[r], where));
    GO_ASSIGN_OR_RETURN(const Json* score, JsonMember(theirs, "score", where));
    GO_ASSIGN_OR_RETURN(PlanScore s, PlanScoreFromJson(*score, where + ".score"));
    scores.push_back(s);
    GO_ASSIGN_OR_RETURN(std::string source, JsonMemberString(theirs, "source", where));
    sources.push_back(std::move(source));
    GO_ASSIGN_OR_RETURN(const int64_t p, JsonMemberInt(theirs, "plans", where, 0, int64_t{1} << 50));
    plans += p;
    GO_ASSIGN_OR_RETURN(const double policy_us, JsonMemberNumber(theirs, "policy_best_us", where, -1, 1e18));
    if (policy_us >= 0) result.policy_best_us = std::min(result.policy_best_us, policy_us);
  }
  others_plans = plans - result.plans_simulated;
  size_t winner = 0;
  for (size_t r = 1; r < scores.size(); ++r) {
    if (scores[r].BetterThan(scores[winner])) winner = r;
  }
  bool behind = false;  // some rank has a worse plan than the winner's
  for (const PlanScore& s : scores) behind = behind || scores[winner].BetterThan(s);
  if (!behind) return Status::Ok();
  const int from = static_cast<int>(winner);
  std::string text = world->rank() == from ? PlanToJson(sim.graph(), best) : "";
  GO_RETURN_IF_ERROR(world->Broadcast(&text, from));
  if (!scores[winner].BetterThan(best_score)) return Status::Ok();
  GO_ASSIGN_OR_RETURN(const Plan plan,
                      PlanFromJson(text, sim.graph(), "the best plan of rank " + std::to_string(from)));
  Offer(plan, scores[winner], sources[winner]);
  if (trainer && (TrainerImitates() || sources[winner] == "policy")) OfferToTrainer(best, best_score);
  if (local_search) local_search->Reset();
  return Status::Ok();
}

}  // namespace graphopt
