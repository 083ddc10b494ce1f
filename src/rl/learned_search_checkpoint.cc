// LearnedSearch's checkpoints (rl/learned_search.h): state.json with the search's cursor, trace
// and counters, the best plan and the plans in play, and the trainer's own files.
#include <sys/stat.h>

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "core/files.h"
#include "core/json_fields.h"
#include "rl/learned_search_impl.h"
#include "rl/score_json.h"

namespace graphopt {
namespace learned_search_internal {

nlohmann::json TraceJson(const std::vector<ConvergencePoint>& trace) {
  nlohmann::json a = nlohmann::json::array();
  for (const ConvergencePoint& p : trace) {
    a.push_back(nlohmann::json{{"seconds", p.seconds},
                               {"plans", p.plans},
                               {"step", p.step},
                               {"best_step_time_us", p.best_step_us},
                               {"fits", p.fits},
                               {"source", p.source}});
  }
  return a;
}

}  // namespace learned_search_internal

namespace {

using Json = nlohmann::json;
using learned_search_internal::TraceJson;

constexpr const char* kPart = "search";
constexpr const char* kStateFile = "state.json";

// The file of the i-th of the top plans (LearnedSearchResult::top_plans).
std::string TopPlanFile(size_t i) { return "top_plan_" + std::to_string(i) + ".json"; }

}  // namespace

Status LearnedSearch::Impl::SaveCheckpoint() {
  const std::string& dir = config.checkpoints.dir;
  if (dir.empty() || !Root()) return Status::Ok();
  const CheckpointStore store(dir);
  ::mkdir(dir.c_str(), 0755);
  GO_RETURN_IF_ERROR(store.WritePlan("best_plan.json", sim.graph(), best));
  Json state{{"seconds", Seconds()},
             {"seconds_to_best", result.seconds_to_best},
             {"steps", result.steps},
             {"plans_simulated", Plans()},
             {"policy_best_us", std::isfinite(result.policy_best_us) ? result.policy_best_us : -1.0},
             {"improvements_policy", result.improvements_policy},
             {"improvements_polish", result.improvements_polish},
             {"improvements_sample_polish", result.improvements_sample_polish},
             {"best", PlanScoreToJson(best_score)},
             {"trace", TraceJson(result.trace)}};
  if (local_search) {
    state["polish"] = CursorToJson(local_search->cursor());
  }
  if (trainer) GO_RETURN_IF_ERROR(trainer->SaveCheckpoint(dir));
  state["trainer"] = trainer != nullptr;
  if (sample_polish && sample_polish->started()) {
    GO_ASSIGN_OR_RETURN(state["descent"], sample_polish->Save(store));
  }
  Json top_plans = Json::array();
  for (size_t i = 0; i < top.plans().size(); ++i) {
    const RankedPlan& p = top.plans()[i];
    GO_RETURN_IF_ERROR(store.WritePlan(TopPlanFile(i), sim.graph(), p.plan));
    top_plans.push_back(Json{{"score", PlanScoreToJson(p.score)}, {"source", p.source}});
  }
  state["top_plans"] = std::move(top_plans);
  state["exploring"] = exploring;
  state["units_plan"] = !units_plan.device.empty();
  if (!units_plan.device.empty()) GO_RETURN_IF_ERROR(store.WritePlan("units_plan.json", sim.graph(), units_plan));
  return store.Write(kStateFile, kPart, identity, std::move(state));
}

// The files of a checkpoint besides state.json.
std::vector<std::string> LearnedSearch::Impl::CheckpointFiles() const {
  std::vector<std::string> files{"best_plan.json", "units_plan.json", "descent_plan.json"};
  for (size_t i = 0; i < static_cast<size_t>(kMaxTopPlans); ++i) files.push_back(TopPlanFile(i));
  if (trainer) {
    for (const std::string& f : trainer->CheckpointFiles()) files.push_back(f);
  }
  return files;
}

// The top plans a checkpoint records (none before it recorded them), each re-simulated,
// offered to `top` again.
Status LearnedSearch::Impl::LoadTopPlans(const Json& state, const CheckpointStore& store, const std::string& path) {
  if (!state.contains("top_plans") || top.capacity() == 0) return Status::Ok();
  const Json& list = state["top_plans"];
  if (!list.is_array() || list.size() > static_cast<size_t>(kMaxTopPlans)) {
    return ParseError(path + ": top_plans must be an array of at most " + std::to_string(kMaxTopPlans) + " plans");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = path + ": top_plans[" + std::to_string(i) + "]";
    GO_ASSIGN_OR_RETURN(const Json* score_json, JsonMember(list[i], "score", where));
    GO_ASSIGN_OR_RETURN(const PlanScore recorded, PlanScoreFromJson(*score_json, where + ".score"));
    GO_ASSIGN_OR_RETURN(const Json* source_json, JsonMember(list[i], "source", where));
    GO_ASSIGN_OR_RETURN(const std::string source, JsonString(*source_json, where + ".source"));
    Plan plan;
    GO_ASSIGN_OR_RETURN(const PlanScore score, store.ReadPlan(TopPlanFile(i), sim, recorded, "the state records it", &plan));
    top.Offer(plan, score, source);
  }
  return Status::Ok();
}

// Restores a checkpoint if the folder has one; returns whether it did. Every value
// is checked before use (checkpoint.h): identity, ranges, files, re-simulated plans.
StatusOr<bool> LearnedSearch::Impl::LoadCheckpoint() {
  const std::string& dir = config.checkpoints.dir;
  if (dir.empty()) return false;
  const CheckpointStore store(dir);
  GO_ASSIGN_OR_RETURN(const std::optional<Json> opened, store.Open(kStateFile, kPart, identity, CheckpointFiles()));
  if (!opened) return false;
  Json state = *opened;
  // A checkpoint written before the policy's figures had one name.
  for (const auto& [before, now] : {std::pair{"ppo_best_us", "policy_best_us"}, {"improvements_ppo", "improvements_policy"}}) {
    if (!state.contains(now) && state.contains(before)) state[now] = state[before];
  }
  const std::string path = store.Path(kStateFile);
  auto number = [&](const char* name, double lo, double hi) { return JsonMemberNumber(state, name, path, lo, hi); };
  auto integer = [&](const char* name, int64_t hi) { return JsonMemberInt(state, name, path, 0, hi); };
  auto flag = [&](const char* name) { return JsonMemberBool(state, name, path); };
  constexpr double kMaxSeconds = 1e9;  // 31 years
  constexpr int64_t kMaxCount = int64_t{1} << 50;
  GO_ASSIGN_OR_RETURN(elapsed_offset, number("seconds", 0, kMaxSeconds));
  GO_ASSIGN_OR_RETURN(result.seconds_to_best, number("seconds_to_best", 0, elapsed_offset));
  GO_ASSIGN_OR_RETURN(result.steps, integer("steps", kMaxCount));
  GO_ASSIGN_OR_RETURN(result.plans_simulated, integer("plans_simulated", kMaxCount));
  GO_ASSIGN_OR_RETURN(const double policy_best, number("policy_best_us", -1, 1e18));
  if (policy_best != -1 && policy_best <= 0) return ParseError(path + ": policy_best_us must be -1 (none) or positive");
  result.policy_best_us = policy_best < 0 ? std::numeric_limits<double>::infinity() : policy_best;
  GO_ASSIGN_OR_RETURN(const int64_t imp_policy, integer("improvements_policy", kMaxCount));
  GO_ASSIGN_OR_RETURN(const int64_t imp_polish, integer("improvements_polish", kMaxCount));
  GO_ASSIGN_OR_RETURN(const int64_t imp_sample, integer("improvements_sample_polish", kMaxCount));
  result.improvements_policy = static_cast<int>(std::min<int64_t>(imp_policy, INT32_MAX));
  result.improvements_polish = static_cast<int>(std::min<int64_t>(imp_polish, INT32_MAX));
  result.improvements_sample_polish = static_cast<int>(std::min<int64_t>(imp_sample, INT32_MAX));
  GO_ASSIGN_OR_RETURN(const Json* trace, JsonMember(state, "trace", path));
  if (!trace->is_array()) return ParseError(path + ": trace must be an array");
  for (size_t i = 0; i < trace->size(); ++i) {
    const Json& p = (*trace)[i];
    const std::string where = path + ": trace[" + std::to_string(i) + "]";
    ConvergencePoint c;
    auto field = [&](const char* name) { return JsonMember(p, name, where); };
    GO_ASSIGN_OR_RETURN(const Json* seconds, field("seconds"));
    GO_ASSIGN_OR_RETURN(c.seconds, JsonNumber(*seconds, where + ".seconds", 0, elapsed_offset));
    GO_ASSIGN_OR_RETURN(const Json* plans, field("plans"));
    GO_ASSIGN_OR_RETURN(c.plans, JsonInt(*plans, where + ".plans", 0, result.plans_simulated));
    GO_ASSIGN_OR_RETURN(const Json* step, field("step"));
    GO_ASSIGN_OR_RETURN(c.step, JsonInt(*step, where + ".step", 0, kMaxCount));
    GO_ASSIGN_OR_RETURN(const Json* us, field("best_step_time_us"));
    GO_ASSIGN_OR_RETURN(c.best_step_us, JsonNumber(*us, where + ".best_step_time_us", 1e-9, 1e18));
    GO_ASSIGN_OR_RETURN(const Json* fits, field("fits"));
    GO_ASSIGN_OR_RETURN(c.fits, JsonBool(*fits, where + ".fits"));
    GO_ASSIGN_OR_RETURN(const Json* source, field("source"));
    GO_ASSIGN_OR_RETURN(c.source, JsonString(*source, where + ".source"));
    if (c.source == "ppo") c.source = "policy";  // the names of a checkpoint before they settled
    if (c.source == "ppo+polish") c.source = "sample-polish";
    result.trace.push_back(std::move(c));
  }
  // The best plan, re-simulated: the checkpoint's word for its score is not taken.
  GO_ASSIGN_OR_RETURN(const Json* best_json, JsonMember(state, "best", path));
  GO_ASSIGN_OR_RETURN(const PlanScore recorded_best, PlanScoreFromJson(*best_json, path + ": best"));
  if (recorded_best.scored()) {
    GO_ASSIGN_OR_RETURN(best_score,
                        store.ReadPlan("best_plan.json", sim, recorded_best, "the state records a best plan", &best));
  }
  GO_RETURN_IF_ERROR(LoadTopPlans(state, store, path));
  if (local_search && state.contains("polish")) {
    GO_ASSIGN_OR_RETURN(const LocalSearch::Cursor c, CursorFromJson(state["polish"], path + ": polish"));
    local_search->set_cursor(c);
  }
  GO_ASSIGN_OR_RETURN(const bool saved_units, flag("units_plan"));
  if (saved_units && ppo) {
    const std::string units_path = store.Path("units_plan.json");
    GO_RETURN_IF_ERROR(store.Require({"units_plan.json"}, "the checkpoint's policy decides units split by that plan"));
    GO_ASSIGN_OR_RETURN(Plan split, ReadPlanJson(units_path, sim.graph()));
    if (Status valid = ValidatePlan(sim.graph(), sim.cluster(), split); !valid.ok())
      return valid.WithContext(units_path);
    GO_RETURN_IF_ERROR(SplitUnitsBy(split));  // the trainer's checkpoint restores its state
  }
  GO_ASSIGN_OR_RETURN(const bool was_exploring, flag("exploring"));
  exploring = ppo != nullptr && was_exploring;
  if (state.contains("descent") && sample_polish && ppo) {
    GO_RETURN_IF_ERROR(sample_polish->Load(state["descent"], store, path + ": descent"));
  }
  GO_ASSIGN_OR_RETURN(const bool saved_trainer, flag("trainer"));
  if (saved_trainer != (trainer != nullptr)) {
    return FailedPrecondition(path + ": the checkpoint " + (saved_trainer ? "has" : "has no") +
                              " trainer state, this run " + (trainer ? "trains one" : "trains none"));
  }
  if (trainer) {
    GO_RETURN_IF_ERROR(store.Require(trainer->CheckpointFiles(), "the state says the trainer saved it"));
    GO_RETURN_IF_ERROR(trainer->LoadCheckpoint(dir));
    // The overall best joins the batches if the trainer's own is worse.
    if (TrainerImitates()) OfferToTrainer(best, best_score);
  }
  return true;
}

}  // namespace graphopt
