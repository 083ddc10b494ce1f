#include "rl/colocrl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

// ---------------------------------------------------------------------------
// Groups and their features

std::vector<int32_t> ColocRlGroups(const PolicyInput& input, int max_groups, int* num_groups) {
  const int u_count = input.num_units;
  std::vector<int32_t> group(static_cast<size_t>(u_count));
  if (u_count <= max_groups) {
    for (int u = 0; u < u_count; ++u) group[static_cast<size_t>(u)] = u;
    *num_groups = u_count;
    return group;
  }
  // Chunk of a unit: where its first op falls among num_ops / max_groups equal slices
  // of the ops counted in unit order; then the chunks are numbered densely.
  const int64_t n = std::max(1, input.num_ops);
  int64_t ops_before = 0;
  int32_t last_raw = -1, next = -1;
  for (int u = 0; u < u_count; ++u) {
    const int32_t raw = static_cast<int32_t>(std::min<int64_t>(max_groups - 1, ops_before * max_groups / n));
    if (raw != last_raw) {
      ++next;
      last_raw = raw;
    }
    group[static_cast<size_t>(u)] = next;
    ops_before += input.unit_offsets[static_cast<size_t>(u) + 1] - input.unit_offsets[static_cast<size_t>(u)];
  }
  *num_groups = next + 1;
  return group;
}

std::vector<float> OpShapeFeatures(const Graph& graph, const PolicyInput& input) {
  std::vector<float> f(static_cast<size_t>(input.num_ops) * kShapeFeatures, 0.0f);
  for (int i = 0; i < input.num_ops; ++i) {
    const Op& op = graph.op(input.order[static_cast<size_t>(i)]);
    for (size_t o = 0; o < op.outputs.size() && o < static_cast<size_t>(kShapeOutputs); ++o) {
      const Shape& shape = graph.tensor(op.outputs[o]).shape;
      for (size_t d = 0; d < shape.size() && d < static_cast<size_t>(kShapeDims); ++d) {
        f[static_cast<size_t>(i) * kShapeFeatures + o * kShapeDims + d] =
            static_cast<float>(std::log1p(static_cast<double>(std::max<int64_t>(0, shape[d]))) / 10.0);
      }
    }
  }
  return f;
}

torch::Tensor GroupFeatures(const PolicyInput& input, const std::vector<float>& op_shapes,
                            const std::vector<int32_t>& group_of_node, int num_groups) {
  const int64_t g_count = num_groups;
  const int64_t width = kGroupFixedFeatures + 2 * g_count;
  torch::Tensor t = torch::zeros({g_count, width}, torch::kFloat);
  float* f = t.data_ptr<float>();
  std::vector<int64_t> count(static_cast<size_t>(g_count), 0);
  constexpr int64_t kShapeCol = kNumKindIndices;
  constexpr int64_t kSizeCol = kNumKindIndices + kShapeFeatures;
  constexpr int64_t kAdjCol = kGroupFixedFeatures;
  for (int n = 0; n < input.num_ops; ++n) {
    const int64_t g = group_of_node[static_cast<size_t>(n)];
    float* row = f + g * width;
    ++count[static_cast<size_t>(g)];
    row[input.op_kind[static_cast<size_t>(n)]] += 1;
    for (int j = 0; j < kShapeFeatures; ++j)
      row[kShapeCol + j] += op_shapes[static_cast<size_t>(n) * kShapeFeatures + j];
    for (int32_t e = input.succ_offsets[static_cast<size_t>(n)]; e < input.succ_offsets[static_cast<size_t>(n) + 1];
         ++e) {
      const int64_t h = group_of_node[static_cast<size_t>(input.succ_index[static_cast<size_t>(e)])];
      row[kAdjCol + h] += 1;                      // out to h
      f[h * width + kAdjCol + g_count + g] += 1;  // in from g
    }
  }
  for (int64_t g = 0; g < g_count; ++g) {
    const int64_t c = count[static_cast<size_t>(g)];
    if (c == 0) continue;
    float* row = f + g * width;
    for (int64_t j = 0; j < kSizeCol; ++j) row[j] /= static_cast<float>(c);
    row[kSizeCol] = static_cast<float>(std::log1p(static_cast<double>(c)) / 10.0);
    float max_adj = 1;
    for (int64_t j = kAdjCol; j < width; ++j) max_adj = std::max(max_adj, row[j]);
    for (int64_t j = kAdjCol; j < width; ++j) row[j] /= max_adj;
  }
  return t;
}

// ---------------------------------------------------------------------------
// REINFORCE plumbing

double PlacementReward(const PlanScore& score, double reference_us, const std::string& reward, double oom_step_factor) {
  const double step = score.fits() ? score.step_time_us : oom_step_factor * reference_us;
  const double x = std::max(0.0, step) / reference_us;
  return reward == "linear" ? -x : -std::sqrt(x);
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
constexpr int kReinforceStateVersion = 1;
std::string PolicyPath(const std::string& dir, const ReinforceCheckpointId& id) {
  return dir + "/" + id.method + "_policy.pt";
}
std::string OptimizerPath(const std::string& dir, const ReinforceCheckpointId& id) {
  return dir + "/" + id.method + "_optimizer.pt";
}
std::string StatePath(const std::string& dir, const ReinforceCheckpointId& id) {
  return dir + "/" + id.method + "_state.json";
}
std::string StateFormat(const ReinforceCheckpointId& id) { return "graphopt-" + id.method + "-trainer"; }
}  // namespace

std::vector<std::string> ReinforceCheckpointFiles(const std::string& method) {
  return {method + "_policy.pt", method + "_optimizer.pt", method + "_state.json"};
}

Status SaveReinforceCheckpoint(const std::string& dir, const ReinforceCheckpointId& id, const Simulator& sim,
                               const PolicyInput& input, torch::nn::Module& module, torch::optim::Optimizer& optimizer,
                               const ReinforceState& state) {
  try {
    torch::serialize::OutputArchive policy;
    policy.write("graphopt_format", c10::IValue(StateFormat(id) + "-policy"));
    policy.write("graphopt_config", c10::IValue(id.config));
    for (const auto& item : module.named_parameters()) policy.write("param/" + item.key(), item.value());
    GO_RETURN_IF_ERROR(SaveArchiveAtomic(policy, PolicyPath(dir, id)));
    torch::serialize::OutputArchive opt;
    optimizer.save(opt);
    GO_RETURN_IF_ERROR(SaveArchiveAtomic(opt, OptimizerPath(dir, id)));
  } catch (const c10::Error& e) {
    return IoError("cannot write the " + id.method + " checkpoint in " + dir + ": " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return IoError("cannot write the " + id.method + " checkpoint in " + dir + ": " + e.what());
  }
  Json j{{"format", StateFormat(id)},
         {"version", kReinforceStateVersion},
         {"graph", sim.graph().name()},
         {"num_ops", input.num_ops},
         {"num_units", input.num_units},
         {"cluster", sim.cluster().name()},
         {"config", id.config},
         {"seed", id.seed},
         {"step", state.step},
         {"plans_simulated", state.plans_simulated},
         {"baseline", state.baseline},
         {"has_baseline", state.has_baseline},
         {"reference_us", state.reference_us},
         {"best", PlanScoreToJson(state.best_score)},
         {"best_unit_device", state.best_unit_device}};
  return WriteFileAtomic(StatePath(dir, id), j.dump() + "\n");
}

Status LoadReinforceCheckpoint(const std::string& dir, const ReinforceCheckpointId& id, const Simulator& sim,
                               const PolicyInput& input, bool critical_path_priorities, torch::nn::Module& module,
                               torch::optim::Adam& optimizer, ReinforceState* state) {
  const std::string state_path = StatePath(dir, id);
  const std::string policy_path = PolicyPath(dir, id);
  const std::string optimizer_path = OptimizerPath(dir, id);
  for (const std::string& path : {state_path, policy_path, optimizer_path}) {
    if (!FileExists(path)) return NotFound(id.method + " checkpoint: " + path + " does not exist");
  }
  // 1. The state file: identity, then the values, each checked.
  ReinforceState s;
  GO_ASSIGN_OR_RETURN(const std::string text, ReadFile(state_path));
  GO_ASSIGN_OR_RETURN(const Json j, ParseJsonText(text, state_path));
  GO_RETURN_IF_ERROR(CheckJsonHeader(j, state_path, StateFormat(id), kReinforceStateVersion));
  auto mismatch = [&](const std::string& what, const std::string& theirs, const std::string& ours) {
    return FailedPrecondition(state_path + ": the checkpoint is for " + what + " " + theirs + ", not " + ours);
  };
  {
    GO_ASSIGN_OR_RETURN(const std::string graph, JsonMemberString(j, "graph", state_path));
    GO_ASSIGN_OR_RETURN(const int64_t num_ops, JsonMemberInt(j, "num_ops", state_path, 0));
    GO_ASSIGN_OR_RETURN(const int64_t num_units, JsonMemberInt(j, "num_units", state_path, 0));
    if (graph != sim.graph().name() || num_ops != input.num_ops || num_units != input.num_units) {
      return mismatch("graph", graph + " (" + std::to_string(num_ops) + " ops)",
                      sim.graph().name() + " (" + std::to_string(input.num_ops) + " ops)");
    }
    GO_ASSIGN_OR_RETURN(const std::string cluster, JsonMemberString(j, "cluster", state_path));
    if (cluster != sim.cluster().name()) return mismatch("cluster", cluster, sim.cluster().name());
    GO_ASSIGN_OR_RETURN(const std::string config, JsonMemberString(j, "config", state_path));
    if (config != id.config) return mismatch("config", "\"" + config + "\"", "\"" + id.config + "\"");
    GO_ASSIGN_OR_RETURN(const Json* sd, JsonMember(j, "seed", state_path));
    if (!sd->is_number_unsigned() || sd->get<uint64_t>() != id.seed) {
      return mismatch("seed", sd->dump(), std::to_string(id.seed));
    }
  }
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
    s.best_plan = ActionsToPlan(sim.graph(), sim.cluster(), sim.cost_model(), input, a, critical_path_priorities);
    // The best plan, re-simulated: the state's word for its score is not taken.
    GO_ASSIGN_OR_RETURN(s.best_score, VerifyCheckpointPlan(sim, s.best_plan, recorded_best, state_path + ": best"));
  }
  // 2. The parameters, all read and checked before any is copied.
  std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;
  torch::serialize::InputArchive archive;
  GO_RETURN_IF_ERROR(LoadArchive(policy_path, &archive));
  try {
    c10::IValue value;
    if (!archive.try_read("graphopt_format", value) || !value.isString() ||
        value.toStringRef() != StateFormat(id) + "-policy") {
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

// ---------------------------------------------------------------------------
// Model

ColocRlModelImpl::ColocRlModelImpl(const ColocRlConfig& config, int num_groups, int num_devices, uint64_t seed) {
  Seq2SeqConfig s;
  s.input_size = config.type_embedding + kShapeFeatures + 1 + 2 * num_groups;
  s.num_devices = num_devices;
  s.hidden = config.hidden;
  s.bidirectional = config.bidirectional;
  s.attention = config.attention;
  s.attention_size = config.attention_size;
  s.logit_temperature = config.logit_temperature;
  s.tanh_constant = config.tanh_constant;
  s.seed = seed;
  placer_ = register_module("placer", Seq2SeqPlacer(s));
  WithTorchSeed(seed ^ 0x5DEECE66Dull, [&] {
    type_embedding_ = register_module(
        "type_embedding",
        torch::nn::Linear(torch::nn::LinearOptions(kNumKindIndices, config.type_embedding).bias(false)));
  });
}

torch::Tensor ColocRlModelImpl::Inputs(const torch::Tensor& group_features) {
  const torch::Tensor kinds = group_features.narrow(1, 0, kNumKindIndices);
  const torch::Tensor rest = group_features.narrow(1, kNumKindIndices, group_features.size(1) - kNumKindIndices);
  return torch::cat({type_embedding_(kinds), rest}, 1).unsqueeze(0);
}

// ---------------------------------------------------------------------------
// Trainer

StatusOr<std::unique_ptr<ColocRlTrainer>> ColocRlTrainer::Create(const Simulator& simulator, BatchSimulator* batch,
                                                                 const PolicyInput& input, const ColocRlConfig& config,
                                                                 uint64_t seed) {
  GO_RETURN_IF_ERROR(config.Validate());
  if (batch == nullptr) return InvalidArgument("ColocRL: no batch simulator");
  if (input.num_units < 1) return InvalidArgument("ColocRL: the graph has no ops to place");
  try {
    return std::unique_ptr<ColocRlTrainer>(new ColocRlTrainer(simulator, batch, input, config, seed));
  } catch (const c10::Error& e) {
    return InternalError(std::string("ColocRL: cannot build the policy: ") + e.what_without_backtrace());
  }
}

ColocRlTrainer::ColocRlTrainer(const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input,
                               const ColocRlConfig& config, uint64_t seed)
    : sim_(simulator),
      batch_(batch),
      input_(input),
      config_(config),
      builder_(simulator.graph(), simulator.cluster(), simulator.cost_model(), input, config.critical_path_priorities),
      seed_(seed) {
  group_of_unit_ = ColocRlGroups(input_, config_.max_groups, &num_groups_);
  std::vector<int32_t> group_of_node(static_cast<size_t>(input_.num_ops));
  for (int n = 0; n < input_.num_ops; ++n) {
    group_of_node[static_cast<size_t>(n)] =
        group_of_unit_[static_cast<size_t>(input_.node_unit[static_cast<size_t>(n)])];
  }
  group_features_ = GroupFeatures(input_, OpShapeFeatures(sim_.graph(), input_), group_of_node, num_groups_);
  device_mask_ = DeviceMaskTensor(input_.device_allowed);
  model_ = ColocRlModel(config_, num_groups_, input_.num_devices, seed_);
  optimizer_ = std::make_unique<torch::optim::Adam>(model_->parameters(), torch::optim::AdamOptions(config_.lr));
}

void ColocRlTrainer::set_reference_us(double reference_us) {
  if (reference_us > 0) state_.reference_us = reference_us;
}

bool ColocRlTrainer::OfferPlan(const Plan& plan, const PlanScore& score) {
  (void)plan;
  (void)score;
  return false;  // the published method learns from its own samples only
}

Actions ColocRlTrainer::ToActions(const int64_t* group_devices) const {
  Actions a;
  a.unit_device.resize(static_cast<size_t>(input_.num_units));
  for (int u = 0; u < input_.num_units; ++u) {
    a.unit_device[static_cast<size_t>(u)] = static_cast<int32_t>(group_devices[group_of_unit_[static_cast<size_t>(u)]]);
  }
  return a;
}

TrainerStepStats ColocRlTrainer::Step() {
  const auto start = std::chrono::steady_clock::now();
  TrainerStepStats stats;
  Rng rng(TrainingStepSeed(seed_, state_.step));
  model_->train();
  const int b = config_.samples_per_step;

  Seq2SeqEncoding encoding;
  Seq2SeqSample sample;
  {
    ScopedFlushDenormal flush;
    encoding = model_->placer()->Encode(model_->Inputs(group_features_));
    sample = model_->placer()->Sample(encoding, b, device_mask_, rng);
  }
  std::vector<Actions> actions;
  std::vector<Plan> plans;
  const int64_t* devices = sample.devices.data_ptr<int64_t>();
  for (int i = 0; i < b; ++i) actions.push_back(ToActions(devices + static_cast<int64_t>(i) * num_groups_));
  plans = builder_.BuildAll(actions, batch_->num_threads());
  const std::vector<StatusOr<SimResult>> results = batch_->Run(plans);
  state_.plans_simulated += b;

  std::vector<std::vector<int32_t>> unit_devices;
  for (const Actions& a : actions) unit_devices.push_back(a.unit_device);
  const std::vector<float> rewards =
      ScoreReinforceBatch(results, &plans, unit_devices, config_.reward, config_.oom_step_factor, &state_, &stats);
  {
    ScopedFlushDenormal flush;
    const torch::Tensor advantage = torch::tensor(rewards, torch::kFloat) - static_cast<float>(state_.baseline);
    const Seq2SeqEvaluation e = model_->placer()->Evaluate(encoding, sample.devices, device_mask_);
    const torch::Tensor loss = -(advantage * e.log_prob).mean();
    optimizer_->zero_grad();
    loss.backward();
    if (config_.max_grad_norm > 0) torch::nn::utils::clip_grad_norm_(model_->parameters(), config_.max_grad_norm);
    optimizer_->step();
    stats.loss = loss.item<double>();
    stats.entropy = e.entropy.mean().item<double>() / num_groups_;
  }
  state_.baseline = config_.baseline_decay * state_.baseline + (1 - config_.baseline_decay) * stats.mean_reward;
  ++state_.step;
  stats.step = state_.step;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

Plan ColocRlTrainer::GreedyPlan() {
  torch::NoGradGuard no_grad;
  Rng rng(0);
  Seq2SeqSample sample;
  {
    ScopedFlushDenormal flush;
    const Seq2SeqEncoding encoding = model_->placer()->Encode(model_->Inputs(group_features_));
    sample = model_->placer()->Sample(encoding, 1, device_mask_, rng, /*greedy=*/true);
  }
  return builder_.Build(ToActions(sample.devices.data_ptr<int64_t>()));
}

Status ColocRlTrainer::SaveCheckpoint(const std::string& dir) {
  return SaveReinforceCheckpoint(dir, {method(), config_.ToString(), seed_}, sim_, input_, *model_, *optimizer_,
                                 state_);
}

Status ColocRlTrainer::LoadCheckpoint(const std::string& dir) {
  return LoadReinforceCheckpoint(dir, {method(), config_.ToString(), seed_}, sim_, input_,
                                 config_.critical_path_priorities, *model_, *optimizer_, &state_);
}

}  // namespace graphopt
