// The REINFORCE plumbing ColocRL and HDP share (rl/reinforce.h).
#include "rl/reinforce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "core/json_fields.h"
#include "core/strings.h"
#include "policy/archive_io.h"
#include "rl/checkpoint.h"
#include "rl/rollout.h"
#include "rl/score_json.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;

}  // namespace


double PlacementReward(const PlanScore& score, double reference_us, const std::string& reward, double oom_step_factor) {
  const double step = score.fits() ? score.step_time_us : oom_step_factor * reference_us;
  const double x = std::max(0.0, step) / reference_us;
  return reward == "linear" ? -x : -std::sqrt(x);
}

StatusOr<TaskDefaults> ReinforceTaskDefaults(const std::string& tasks, const Simulator& sim) {
  if (tasks == "all") return TaskDefaults();
  if (tasks == "placement") return TaskDefaults::Create(kTaskPlacement, "", sim.graph(), sim.cluster(), sim.cost_model());
  return InvalidArgument("tasks \"" + tasks + "\": placement or all");
}

std::vector<float> ScoreReinforceBatch(const std::vector<StatusOr<SimResult>>& results, std::vector<Plan>* plans,
                                       const std::vector<std::vector<int32_t>>& unit_devices, const std::string& reward,
                                       double oom_step_factor, ReinforceState* state, TrainerStepStats* stats) {
  const size_t b = results.size();
  GO_CHECK(plans->size() == b && unit_devices.size() == b);
  std::vector<float> rewards(b);
  stats->best_step_us_in_batch = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < b; ++i) {
    PlanScore score;
    if (results[i].ok()) score = PlanScore::Of(*results[i]);
    rewards[i] = static_cast<float>(PlacementReward(score, state->reference_us, reward, oom_step_factor));
    stats->mean_reward += rewards[i] / static_cast<int>(b);  // float / int, as before
    if (!score.fits()) ++stats->oom_samples;
    if (score.fits()) stats->best_step_us_in_batch = std::min(stats->best_step_us_in_batch, score.step_time_us);
    if (score.BetterThan(state->best_score)) {
      state->best_score = score;
      state->best_plan = std::move((*plans)[i]);
      state->best_unit_device = unit_devices[i];
      stats->improved = true;
    }
  }
  if (!state->has_baseline) {
    state->baseline = stats->mean_reward;
    state->has_baseline = true;
  }
  return rewards;
}

namespace {
std::string PolicyFile(const ReinforceCheckpointId& id) { return id.method + "_policy.pt"; }
std::string OptimizerFile(const ReinforceCheckpointId& id) { return id.method + "_optimizer.pt"; }
std::string StateFile(const ReinforceCheckpointId& id) { return id.method + "_state.json"; }
// The format name written inside the policy archive.
std::string PolicyFormat(const ReinforceCheckpointId& id) { return "graphopt-" + id.method + "-trainer-policy"; }

// What the state belongs to: the graph (name, ops, units), the cluster, the method,
// its config and the seed.
CheckpointIdentity Identity(const ReinforceCheckpointId& id, const Simulator& sim, const PolicyInput& input) {
  CheckpointIdentity identity;
  identity.Add("graph", sim.graph().name())
      .Add("num_ops", std::to_string(input.num_ops))
      .Add("num_units", std::to_string(input.num_units))
      .Add("cluster", sim.cluster().name())
      .Add("method", id.method)
      .Add("seed", std::to_string(id.seed))
      .Add("config", id.config);
  return identity;
}
}  // namespace

std::vector<std::string> ReinforceCheckpointFiles(const std::string& method) {
  return {method + "_state.json", method + "_policy.pt", method + "_optimizer.pt"};
}

Status SaveReinforceCheckpoint(const std::string& dir, const ReinforceCheckpointId& id, const Simulator& sim,
                               const PolicyInput& input, torch::nn::Module& module, torch::optim::Optimizer& optimizer,
                               const ReinforceState& state) {
  const CheckpointStore store(dir);
  try {
    torch::serialize::OutputArchive policy;
    policy.write("graphopt_format", c10::IValue(PolicyFormat(id)));
    policy.write("graphopt_config", c10::IValue(id.config));
    for (const auto& item : module.named_parameters()) policy.write("param/" + item.key(), item.value());
    GO_RETURN_IF_ERROR(SaveArchiveAtomic(policy, store.Path(PolicyFile(id))));
    torch::serialize::OutputArchive opt;
    optimizer.save(opt);
    GO_RETURN_IF_ERROR(SaveArchiveAtomic(opt, store.Path(OptimizerFile(id))));
  } catch (const c10::Error& e) {
    return IoError("cannot write the " + id.method + " checkpoint in " + dir + ": " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return IoError("cannot write the " + id.method + " checkpoint in " + dir + ": " + e.what());
  }
  Json j{{"step", state.step},
         {"plans_simulated", state.plans_simulated},
         {"baseline", state.baseline},
         {"has_baseline", state.has_baseline},
         {"reference_us", state.reference_us},
         {"best", PlanScoreToJson(state.best_score)},
         {"best_unit_device", state.best_unit_device}};
  return store.Write(StateFile(id), id.method, Identity(id, sim, input), std::move(j));
}

Status LoadReinforceCheckpoint(const std::string& dir, const ReinforceCheckpointId& id, const Simulator& sim,
                               const PolicyInput& input, const PlanBuilder& builder, torch::nn::Module& module,
                               torch::optim::Adam& optimizer, ReinforceState* state) {
  const CheckpointStore store(dir);
  const std::string state_path = store.Path(StateFile(id));
  const std::string policy_path = store.Path(PolicyFile(id));
  const std::string optimizer_path = store.Path(OptimizerFile(id));
  GO_RETURN_IF_ERROR(
      store.Require(ReinforceCheckpointFiles(id.method), "a " + id.method + " checkpoint has all three files"));
  // 1. The state file: identity, then the values, each checked.
  ReinforceState s;
  GO_ASSIGN_OR_RETURN(const Json j, store.Read(StateFile(id), id.method, Identity(id, sim, input)));
  constexpr int64_t kMaxCount = int64_t{1} << 50;
  GO_ASSIGN_OR_RETURN(s.step, JsonMemberInt(j, "step", state_path, 0, kMaxCount));
  GO_ASSIGN_OR_RETURN(s.plans_simulated, JsonMemberInt(j, "plans_simulated", state_path, 0, kMaxCount));
  GO_ASSIGN_OR_RETURN(s.baseline, JsonMemberNumber(j, "baseline", state_path));
  GO_ASSIGN_OR_RETURN(s.has_baseline, JsonMemberBool(j, "has_baseline", state_path));
  GO_ASSIGN_OR_RETURN(s.reference_us, JsonMemberNumber(j, "reference_us", state_path, 1e-9, 1e18));
  GO_ASSIGN_OR_RETURN(const Json* best, JsonMember(j, "best", state_path));
  GO_ASSIGN_OR_RETURN(const PlanScore recorded_best, PlanScoreFromJson(*best, state_path + ": best"));
  GO_ASSIGN_OR_RETURN(const Json* best_devices, JsonMember(j, "best_unit_device", state_path));
  GO_RETURN_IF_ERROR(JsonIntArray(*best_devices, state_path + ": best_unit_device", &s.best_unit_device, 0,
                                  input.num_devices - 1));
  if (!s.best_unit_device.empty() || recorded_best.scored()) {
    if (s.best_unit_device.size() != static_cast<size_t>(input.num_units)) {
      return ParseError(state_path + ": best_unit_device has " + std::to_string(s.best_unit_device.size()) +
                        " entries, the graph has " + std::to_string(input.num_units) + " units");
    }
    Actions a;
    a.unit_device = s.best_unit_device;
    s.best_plan = builder.Build(a);
    // The best plan, re-simulated: the state's word for its score is not taken.
    GO_ASSIGN_OR_RETURN(s.best_score, VerifyCheckpointPlan(sim, s.best_plan, recorded_best, state_path + ": best"));
  }
  // 2. The parameters, all read and checked before any is copied.
  std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;
  torch::serialize::InputArchive archive;
  GO_RETURN_IF_ERROR(LoadArchive(policy_path, &archive));
  try {
    c10::IValue value;
    if (!archive.try_read("graphopt_format", value) || !value.isString() || value.toStringRef() != PolicyFormat(id)) {
      return ParseError(policy_path + ": not a " + id.method + " policy checkpoint");
    }
    if (!archive.try_read("graphopt_config", value) || !value.isString() || value.toStringRef() != id.config) {
      return FailedPrecondition(policy_path + ": made for another " + id.method + " config");
    }
    for (const auto& item : module.named_parameters()) {
      torch::Tensor t;
      if (!archive.try_read("param/" + item.key(), t) || !t.defined()) {
        return ParseError(policy_path + ": no parameter " + item.key());
      }
      if (t.sizes() != item.value().sizes())
        return ParseError(policy_path + ": parameter " + item.key() + " has another shape");
      copies.emplace_back(item.value(), t);
    }
  } catch (const c10::Error& e) {
    return ParseError(policy_path + ": " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return ParseError(policy_path + ": " + e.what());
  }
  // 3. The optimizer state, tried on a scratch optimizer over the same parameters
  // first (loading touches no parameter values), so a bad file changes nothing.
  torch::serialize::InputArchive opt_archive;
  GO_RETURN_IF_ERROR(LoadArchive(optimizer_path, &opt_archive));
  try {
    torch::optim::Adam scratch(module.parameters(),
                               static_cast<const torch::optim::AdamOptions&>(optimizer.defaults()));
    scratch.load(opt_archive);
  } catch (const c10::Error& e) {
    return ParseError(optimizer_path + ": " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return ParseError(optimizer_path + ": " + e.what());
  }
  {
    torch::NoGradGuard no_grad;
    for (auto& [dst, src] : copies) dst.copy_(src);
  }
  optimizer.load(opt_archive);
  *state = std::move(s);
  return Status::Ok();
}

}  // namespace graphopt
