// GoSearch's checkpoints (rl/go_search.h): state.json with the search's cursor, trace
// and counters, the best plan and the plans in play, and the trainer's own files.
#include <sys/stat.h>

#include <cmath>
#include <limits>
#include <optional>

#include "core/files.h"
#include "core/json_fields.h"
#include "rl/go_search_impl.h"
#include "rl/score_json.h"

namespace graphopt {
namespace go_search_internal {

nlohmann::json TraceJson(const std::vector<ConvergencePoint>& trace) {
  nlohmann::json a = nlohmann::json::array();
  for (const ConvergencePoint& p : trace) {
    a.push_back(nlohmann::json{{"seconds", p.seconds}, {"plans", p.plans}, {"step", p.step},
                               {"best_step_time_us", p.best_step_us}, {"fits", p.fits}, {"source", p.source}});
  }
  return a;
}

}  // namespace go_search_internal

namespace {

using Json = nlohmann::json;
using go_search_internal::TraceJson;

constexpr const char* kStateFormat = "graphopt-go-search";
constexpr int kStateVersion = 3;  // 2: the identity (rl/checkpoint.h); 3: the sample polish's descent in both phases

}  // namespace

Status GoSearch::Impl::SaveCheckpoint() {
  const std::string& dir = config.checkpoint_dir;
  if (dir.empty() || !Root()) return Status::Ok();
  ::mkdir(dir.c_str(), 0755);
  GO_RETURN_IF_ERROR(WritePlanJson(sim.graph(), best, dir + "/best_plan.json"));
  Json state{{"format", kStateFormat},
             {"version", kStateVersion},
             {"identity", identity.ToJson()},
             {"seconds", Seconds()},
             {"seconds_to_best", result.seconds_to_best},
             {"steps", result.steps},
             {"plans_simulated", Plans()},
             {"ppo_best_us", std::isfinite(result.ppo_best_us) ? result.ppo_best_us : -1.0},
             {"improvements_ppo", result.improvements_ppo},
             {"improvements_polish", result.improvements_polish},
             {"improvements_sample_polish", result.improvements_sample_polish},
             {"best", PlanScoreToJson(best_score)},
             {"trace", TraceJson(result.trace)}};
  if (polish) {
    state["polish"] = CursorToJson(polish->cursor());
  }
  if (trainer) GO_RETURN_IF_ERROR(trainer->SaveCheckpoint(dir));
  state["trainer"] = trainer != nullptr;
  if (sample_polish && sample_polish->started()) {
    GO_ASSIGN_OR_RETURN(state["descent"], sample_polish->Save(dir));
  }
  state["exploring"] = exploring;
  state["units_plan"] = !units_plan.device.empty();
  if (!units_plan.device.empty()) GO_RETURN_IF_ERROR(WritePlanJson(sim.graph(), units_plan, dir + "/units_plan.json"));
  return WriteFileAtomic(dir + "/state.json", state.dump() + "\n");
}

// The files of a checkpoint besides state.json.
std::vector<std::string> GoSearch::Impl::CheckpointFiles() const {
  std::vector<std::string> files{"best_plan.json", "units_plan.json", "descent_plan.json"};
  if (trainer) {
    for (const std::string& f : trainer->CheckpointFiles()) files.push_back(f);
  }
  return files;
}

// Restores a checkpoint if the folder has one; returns whether it did. Every value
// is checked before use (checkpoint.h): identity, ranges, files, re-simulated plans.
StatusOr<bool> GoSearch::Impl::LoadCheckpoint() {
  const std::string& dir = config.checkpoint_dir;
  if (dir.empty()) return false;
  GO_ASSIGN_OR_RETURN(const std::optional<Json> opened,
                      OpenCheckpointState(dir, "state.json", CheckpointFiles(), kStateFormat, kStateVersion));
  if (!opened) return false;
  const Json& state = *opened;
  const std::string path = dir + "/state.json";
  GO_ASSIGN_OR_RETURN(const Json* recorded_identity, JsonMember(state, "identity", path));
  GO_RETURN_IF_ERROR(identity.Verify(*recorded_identity, path));
  auto number = [&](const char* name, double lo, double hi) { return JsonMemberNumber(state, name, path, lo, hi); };
  auto integer = [&](const char* name, int64_t hi) { return JsonMemberInt(state, name, path, 0, hi); };
  auto flag = [&](const char* name) { return JsonMemberBool(state, name, path); };
  constexpr double kMaxSeconds = 1e9;       // 31 years
  constexpr int64_t kMaxCount = int64_t{1} << 50;
  GO_ASSIGN_OR_RETURN(elapsed_offset, number("seconds", 0, kMaxSeconds));
  GO_ASSIGN_OR_RETURN(result.seconds_to_best, number("seconds_to_best", 0, elapsed_offset));
  GO_ASSIGN_OR_RETURN(result.steps, integer("steps", kMaxCount));
  GO_ASSIGN_OR_RETURN(result.plans_simulated, integer("plans_simulated", kMaxCount));
  GO_ASSIGN_OR_RETURN(const double ppo_best, number("ppo_best_us", -1, 1e18));
  if (ppo_best != -1 && ppo_best <= 0) return ParseError(path + ": ppo_best_us must be -1 (none) or positive");
  result.ppo_best_us = ppo_best < 0 ? std::numeric_limits<double>::infinity() : ppo_best;
  GO_ASSIGN_OR_RETURN(const int64_t imp_ppo, integer("improvements_ppo", kMaxCount));
  GO_ASSIGN_OR_RETURN(const int64_t imp_polish, integer("improvements_polish", kMaxCount));
  GO_ASSIGN_OR_RETURN(const int64_t imp_sample, integer("improvements_sample_polish", kMaxCount));
  result.improvements_ppo = static_cast<int>(std::min<int64_t>(imp_ppo, INT32_MAX));
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
    result.trace.push_back(std::move(c));
  }
  // The best plan, re-simulated: the checkpoint's word for its score is not taken.
  GO_ASSIGN_OR_RETURN(const Json* best_json, JsonMember(state, "best", path));
  GO_ASSIGN_OR_RETURN(const PlanScore recorded_best, PlanScoreFromJson(*best_json, path + ": best"));
  if (recorded_best.scored()) {
    const std::string best_path = dir + "/best_plan.json";
    GO_RETURN_IF_ERROR(RequireCheckpointFiles(dir, {"best_plan.json"}, "the state records a best plan"));
    GO_ASSIGN_OR_RETURN(Plan plan, ReadPlanJson(best_path, sim.graph()));
    GO_ASSIGN_OR_RETURN(best_score, VerifyCheckpointPlan(sim, plan, recorded_best, best_path));
    best = std::move(plan);
  }
  if (polish && state.contains("polish")) {
    GO_ASSIGN_OR_RETURN(const LocalSearch::Cursor c, CursorFromJson(state["polish"], path + ": polish"));
    polish->set_cursor(c);
  }
  GO_ASSIGN_OR_RETURN(const bool saved_units, flag("units_plan"));
  if (saved_units && ppo) {
    const std::string units_path = dir + "/units_plan.json";
    GO_RETURN_IF_ERROR(RequireCheckpointFiles(dir, {"units_plan.json"},
                                              "the checkpoint's policy decides units split by that plan"));
    GO_ASSIGN_OR_RETURN(Plan split, ReadPlanJson(units_path, sim.graph()));
    if (Status valid = ValidatePlan(sim.graph(), sim.cluster(), split); !valid.ok()) return valid.WithContext(units_path);
    GO_RETURN_IF_ERROR(SplitUnitsBy(split));  // the trainer's checkpoint restores its state
  }
  GO_ASSIGN_OR_RETURN(const bool was_exploring, flag("exploring"));
  exploring = ppo != nullptr && was_exploring;
  if (state.contains("descent") && sample_polish && ppo) {
    GO_RETURN_IF_ERROR(sample_polish->Load(state["descent"], dir, path + ": descent"));
  }
  GO_ASSIGN_OR_RETURN(const bool saved_trainer, flag("trainer"));
  if (saved_trainer != (trainer != nullptr)) {
    return FailedPrecondition(path + ": the checkpoint " + (saved_trainer ? "has" : "has no") + " trainer state, this run " +
                              (trainer ? "trains one" : "trains none"));
  }
  if (trainer) {
    GO_RETURN_IF_ERROR(RequireCheckpointFiles(dir, trainer->CheckpointFiles(), "the state says the trainer saved it"));
    GO_RETURN_IF_ERROR(trainer->LoadCheckpoint(dir));
    // The overall best joins the batches if the trainer's own is worse.
    if (TrainerImitates()) OfferToTrainer(best, best_score);
  }
  return true;
}

}  // namespace graphopt
