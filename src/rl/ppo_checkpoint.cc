// PpoTrainer's checkpoints (rl/ppo.h): the weights (policy.pt, optimizer.pt) and the
// trainer's own state (ppo_state.json and the files it names: the best plan, the
// cached trunk output, the unit and fusion biases of rl/head_tuning.h).
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "core/files.h"
#include "core/json_fields.h"
#include "policy/archive_io.h"
#include "rl/checkpoint.h"
#include "rl/ppo.h"
#include "rl/score_json.h"

namespace graphopt {
namespace {

constexpr const char* kPart = "ppo";
constexpr const char* kStateFile = "ppo_state.json";
constexpr const char* kTrunkFile = "trunk.pt";
// The best plan itself: one offered from outside (a baseline, a teacher, the local
// search) is not in general the plan its actions build (priorities, fusion flags).
constexpr const char* kBestPlanFile = "ppo_best_plan.json";

}  // namespace

Status PpoTrainer::SaveCheckpoint(const std::string& dir) {
  GO_RETURN_IF_ERROR(SaveWeights(dir));
  return SaveState(dir);
}

Status PpoTrainer::SaveWeights(const std::string& dir) {
  GO_RETURN_IF_ERROR(SaveGoPolicy(policy_, dir + "/policy.pt"));
  torch::serialize::OutputArchive archive;
  try {
    optimizer_->save(archive);
  } catch (const c10::Error& e) {
    return IoError("cannot write " + dir + "/optimizer.pt: " + e.what_without_backtrace());
  }
  return SaveArchiveAtomic(archive, dir + "/optimizer.pt");
}

// What a trainer's state belongs to: its PPO config (the search's or pre-training's
// state names the graph, the cluster and the seed).
CheckpointIdentity PpoTrainer::StateIdentity() const { return CheckpointIdentity().Add("config", config_.ToString()); }

Status PpoTrainer::SaveState(const std::string& dir) {
  const CheckpointStore store(dir);
  // The trunk output the next steps reuse (trunk_every > 1), so that a resumed trainer
  // continues exactly: it was computed from weights the trainer no longer has.
  const PolicyOutput& trunk = cached_trunk_;
  const bool trunk_cache = !tuning_.frozen() && trunk.node_states.defined();
  if (trunk_cache) {
    std::vector<std::pair<const char*, torch::Tensor>> tensors{{"node_states", trunk.node_states},
                                                               {"device_embeddings", trunk.device_embeddings},
                                                               {"graph_embedding", trunk.graph_embedding}};
    if (trunk.film.defined()) tensors.emplace_back("film", trunk.film);
    GO_RETURN_IF_ERROR(SaveTensors(store.Path(kTrunkFile), tensors));
  }
  const bool unit_bias = tuning_.has_unit_bias();
  const bool fusion_bias = tuning_.has_fusion_bias();
  GO_RETURN_IF_ERROR(tuning_.SaveBiases(store));
  const bool best_plan_file = best_score_.scored();
  if (best_plan_file) GO_RETURN_IF_ERROR(store.WritePlan(kBestPlanFile, sim_.graph(), best_plan_));
  const State s = state();
  nlohmann::json j{{"step", s.step},
                   {"plans_simulated", s.plans_simulated},
                   {"running_baseline", s.running_baseline},
                   {"has_baseline", s.has_baseline},
                   {"entropy_coef", s.entropy_coef},
                   {"reference_us", s.reference_us},
                   {"trunk_frozen", tuning_.frozen()},
                   {"trunk_cache", trunk_cache},
                   {"unit_bias", unit_bias},
                   {"fusion_bias", fusion_bias},
                   {"best", PlanScoreToJson(best_score_)},
                   {"best_plan_file", best_plan_file},
                   {"best_levels_sampled", best_levels_sampled_},
                   {"best_actions", nlohmann::json{{"unit_device", best_actions_.unit_device},
                                                   {"priority_level", best_actions_.priority_level},
                                                   {"fuse", best_actions_.fuse}}}};
  return store.Write(kStateFile, kPart, StateIdentity(), std::move(j));
}

// Everything is read and checked before anything is changed: the state, the policy,
// the optimizer state (tried on a scratch optimizer), the best plan (re-simulated).
Status PpoTrainer::LoadCheckpoint(const std::string& dir) {
  GO_RETURN_IF_ERROR(CheckpointStore(dir).Require(CheckpointFiles(), "a PPO checkpoint has all three files"));
  GO_ASSIGN_OR_RETURN(const SavedState saved, ReadState(dir));
  GO_ASSIGN_OR_RETURN(const Weights weights, ReadWeights(dir, saved.frozen));
  CopyParameters(weights);
  // The optimizer of the trainer the state was saved from (the trunk recomputed from
  // the restored weights: frozen, they are the weights it was computed from).
  tuning_.Thaw();
  cached_trunk_ = PolicyOutput();
  optimizer_ = tuning_.NewAdam(policy_);
  if (saved.frozen) FreezeTrunk();
  tuning_.SetBiases(saved.biases);
  optimizer_->load(*weights.optimizer);
  ApplyState(saved);
  return Status::Ok();
}

Status PpoTrainer::LoadState(const std::string& dir) {
  GO_ASSIGN_OR_RETURN(const SavedState saved, ReadState(dir));
  if (saved.frozen || tuning_.frozen()) {
    return FailedPrecondition(dir + "/" + kStateFile +
                              ": a trainer with a frozen trunk has weights of its own, not a shared policy's");
  }
  ApplyState(saved);
  return Status::Ok();
}

void PpoTrainer::ApplyState(const SavedState& saved) {
  if (!tuning_.frozen()) cached_trunk_ = saved.cached_trunk;
  set_state(saved.state);
  if (saved.has_best) {
    set_best(saved.best_plan, saved.best_score, &saved.best_actions);
    best_levels_sampled_ = saved.best_levels_sampled;
  }
}

StatusOr<PpoTrainer::SavedState> PpoTrainer::ReadState(const std::string& dir) const {
  const CheckpointStore store(dir);
  const std::string path = store.Path(kStateFile);
  GO_ASSIGN_OR_RETURN(const nlohmann::json j, store.Read(kStateFile, kPart, StateIdentity()));
  constexpr int64_t kMaxCount = int64_t{1} << 50;
  SavedState saved;
  State& s = saved.state;
  GO_ASSIGN_OR_RETURN(s.step, JsonMemberInt(j, "step", path, 0, kMaxCount));
  GO_ASSIGN_OR_RETURN(s.plans_simulated, JsonMemberInt(j, "plans_simulated", path, 0, kMaxCount));
  GO_ASSIGN_OR_RETURN(s.running_baseline, JsonMemberNumber(j, "running_baseline", path));
  GO_ASSIGN_OR_RETURN(s.has_baseline, JsonMemberBool(j, "has_baseline", path));
  GO_ASSIGN_OR_RETURN(s.entropy_coef, JsonMemberNumber(j, "entropy_coef", path, 0, 1e6));
  GO_ASSIGN_OR_RETURN(s.reference_us, JsonMemberNumber(j, "reference_us", path, 0, 1e18));
  GO_ASSIGN_OR_RETURN(saved.frozen, JsonMemberBool(j, "trunk_frozen", path));
  GO_ASSIGN_OR_RETURN(const bool trunk_cache, JsonMemberBool(j, "trunk_cache", path));
  if (saved.frozen && trunk_cache) return ParseError(path + ": a frozen trunk has no cached output (trunk_cache is true)");
  GO_ASSIGN_OR_RETURN(const bool unit_bias, JsonMemberBool(j, "unit_bias", path));
  if (unit_bias != (saved.frozen && tuning_.UsesUnitBias())) {
    return ParseError(path + ": unit_bias must be true exactly when the trunk is frozen and the PPO config has unit_bias");
  }
  GO_ASSIGN_OR_RETURN(const bool fusion_bias, JsonMemberBool(j, "fusion_bias", path));
  if (fusion_bias != (saved.frozen && tuning_.UsesFusionBias())) {
    return ParseError(path +
                      ": fusion_bias must be true exactly when the trunk is frozen and the PPO config has fusion_bias");
  }
  GO_ASSIGN_OR_RETURN(const nlohmann::json* best_json, JsonMember(j, "best", path));
  GO_ASSIGN_OR_RETURN(const PlanScore recorded_best, PlanScoreFromJson(*best_json, path + ": best"));
  Actions& a = saved.best_actions;
  {
    GO_ASSIGN_OR_RETURN(const nlohmann::json* ja, JsonMember(j, "best_actions", path));
    const std::string where = path + ": best_actions";
    GO_ASSIGN_OR_RETURN(const nlohmann::json* devices, JsonMember(*ja, "unit_device", where));
    GO_RETURN_IF_ERROR(JsonIntArray(*devices, where + ".unit_device", &a.unit_device, 0, input_.num_devices - 1));
    GO_ASSIGN_OR_RETURN(const nlohmann::json* levels, JsonMember(*ja, "priority_level", where));
    GO_RETURN_IF_ERROR(JsonIntArray(*levels, where + ".priority_level", &a.priority_level, 0,
                                    policy_->config().priority_levels - 1));
    GO_ASSIGN_OR_RETURN(const nlohmann::json* fuse, JsonMember(*ja, "fuse", where));
    GO_RETURN_IF_ERROR(JsonIntArray(*fuse, where + ".fuse", &a.fuse, 0, 1));
    const size_t units = static_cast<size_t>(input_.num_units);
    const size_t ops = static_cast<size_t>(input_.num_ops);
    const bool sizes_ok = a.unit_device.size() == units && (a.priority_level.empty() || a.priority_level.size() == ops) &&
                          (a.fuse.empty() || a.fuse.size() == ops);
    if (recorded_best.scored() && !sizes_ok) {
      return ParseError(where + ": " + std::to_string(a.unit_device.size()) + " unit devices, " +
                        std::to_string(a.priority_level.size()) + " priority levels and " + std::to_string(a.fuse.size()) +
                        " fusion flags do not fit the graph's " + std::to_string(units) + " units and " +
                        std::to_string(ops) + " ops");
    }
  }
  GO_ASSIGN_OR_RETURN(const bool best_plan_file, JsonMemberBool(j, "best_plan_file", path));
  if (best_plan_file != recorded_best.scored()) {
    return ParseError(path + ": best_plan_file must be true exactly when a best plan is recorded");
  }
  GO_ASSIGN_OR_RETURN(saved.best_levels_sampled, JsonMemberBool(j, "best_levels_sampled", path));
  if (saved.best_levels_sampled && !recorded_best.scored()) {
    return ParseError(path + ": best_levels_sampled is true but no best plan is recorded");
  }
  if (recorded_best.scored()) {
    // The best plan, re-simulated: the state's word for its score is not taken.
    GO_ASSIGN_OR_RETURN(saved.best_score, store.ReadPlan(kBestPlanFile, sim_, recorded_best,
                                                         "the state records a best plan", &saved.best_plan));
    saved.has_best = true;
  }
  GO_ASSIGN_OR_RETURN(saved.biases, tuning_.ReadBiases(store, unit_bias, fusion_bias));
  if (trunk_cache) {
    GO_RETURN_IF_ERROR(store.Require({kTrunkFile}, "the state says the trainer cached the trunk's output"));
    GO_ASSIGN_OR_RETURN(saved.cached_trunk, LoadTrunkCache(store.Path(kTrunkFile)));
  }
  return saved;
}

Status PpoTrainer::LoadWeights(const std::string& dir) {
  GO_RETURN_IF_ERROR(
      CheckpointStore(dir).Require({"policy.pt", "optimizer.pt"}, "the weights of a policy and its optimizer"));
  GO_ASSIGN_OR_RETURN(const Weights weights, ReadWeights(dir, tuning_.frozen()));
  CopyParameters(weights);
  if (!tuning_.frozen()) cached_trunk_ = PolicyOutput();  // computed from the weights replaced
  optimizer_->load(*weights.optimizer);
  return Status::Ok();
}

StatusOr<PpoTrainer::Weights> PpoTrainer::ReadWeights(const std::string& dir, bool frozen) const {
  Weights w;
  GO_ASSIGN_OR_RETURN(w.policy, LoadGoPolicy(dir + "/policy.pt"));
  if (w.policy->config().ToString() != policy_->config().ToString()) {
    return FailedPrecondition(dir + "/policy.pt: the checkpoint's policy config (" + w.policy->config().ToString() +
                              ") differs from this run's (" + policy_->config().ToString() + ")");
  }
  const std::string optimizer_path = dir + "/optimizer.pt";
  w.optimizer = std::make_shared<torch::serialize::InputArchive>();
  GO_RETURN_IF_ERROR(LoadArchive(optimizer_path, w.optimizer.get()));
  try {
    tuning_.ScratchAdam(w.policy, frozen)->load(*w.optimizer);
  } catch (const c10::Error& e) {
    return ParseError(optimizer_path + ": not this policy's optimizer state: " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return ParseError(optimizer_path + ": not this policy's optimizer state: " + e.what());
  }
  return w;
}

void PpoTrainer::CopyParameters(const Weights& weights) {
  torch::NoGradGuard no_grad;
  auto dst = policy_->named_parameters();
  for (const auto& item : weights.policy->named_parameters()) dst[item.key()].copy_(item.value());
  auto dst_buffers = policy_->named_buffers();
  for (const auto& item : weights.policy->named_buffers()) dst_buffers[item.key()].copy_(item.value());
}

StatusOr<PolicyOutput> PpoTrainer::LoadTrunkCache(const std::string& path) const {
  torch::serialize::InputArchive archive;
  GO_RETURN_IF_ERROR(LoadArchive(path, &archive));
  const GoPolicyConfig& pc = policy_->config();
  const int64_t h = pc.hidden;
  PolicyOutput t;
  auto read = [&](const char* key, torch::Tensor* tensor, const std::vector<int64_t>& shape, bool required) {
    return ReadTensor(archive, path, key, shape, required, tensor);
  };
  GO_RETURN_IF_ERROR(read("node_states", &t.node_states, {input_.num_ops, h}, true));
  GO_RETURN_IF_ERROR(read("device_embeddings", &t.device_embeddings, {input_.num_devices, h}, true));
  GO_RETURN_IF_ERROR(read("graph_embedding", &t.graph_embedding, {h}, true));
  const bool film = pc.superposition;  // GoPolicyImpl::forward: [max(1, attention layers), 2, H]
  GO_RETURN_IF_ERROR(read("film", &t.film, {std::max(1, pc.attention_layers), 2, h}, film));
  if (!film && t.film.defined()) return ParseError(path + ": a film tensor this policy does not have");
  return t;  // read from a file: no gradient
}

}  // namespace graphopt
