#include "rl/pretrain.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "core/rng.h"
#include "core/strings.h"
#include "core/version.h"
#include "dist/deal.h"
#include "rl/baseline_scores.h"
#include "rl/checkpoint.h"
#include "rl/gradient_sum.h"
#include "rl/pretrain_impl.h"
#include "rl/training_util.h"
#include "sim/cluster.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The baselines whose fastest plan is a task's reward reference: cheap on any graph.
const char* const kReferenceBaselines[] = {"single", "tf-default", "expert"};

uint64_t TrainerSeed(uint64_t seed, int64_t task) {
  return MixBits((seed + 0x2545F4914F6CDD1Dull) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(task));
}

// FNV-1a of every parameter's name and bytes.
std::string ParameterFingerprint(const GoPolicy& policy) {
  std::string bytes;
  for (const auto& item : policy->named_parameters()) {
    const torch::Tensor t = item.value().detach().contiguous();
    bytes += item.key();
    bytes.append(static_cast<const char*>(t.data_ptr()), static_cast<size_t>(t.numel()) * t.element_size());
  }
  return StrFormat("%016llx", static_cast<unsigned long long>(Fingerprint(bytes)));
}

// The fastest fitting sample of a step over the task's reference (0 if none fit).
double Ratio(double us, double reference) { return us > 0 && reference > 0 ? us / reference : 0; }

}  // namespace

CheckpointIdentity Pretrainer::Impl::Identity() const {
  CheckpointIdentity id;
  id.Add("stream", stream.Identity())
      .Add("steps_per_task", std::to_string(config.steps_per_task))
      .Add("units_per_device", std::to_string(config.units_per_device))
      .Add("imitate_baselines", std::to_string(config.imitate_baselines))
      .Add("sample_teacher_levels", std::to_string(config.sample_teacher_levels))
      .Add("policy", policy_config.ToString())
      .Add("ppo", config.ppo.ToString());
  id.Add("init", init_fingerprint.empty() ? "none" : init_fingerprint);
  return id;
}

StatusOr<std::unique_ptr<PretrainEnv>> Pretrainer::Impl::BuildTask(int64_t index, PretrainTaskRecord* record) {
  const Clock::time_point t0 = Clock::now();
  auto env = std::make_unique<PretrainEnv>();
  GO_ASSIGN_OR_RETURN(env->task, stream.Task(index, &env->graph));
  const std::string where = "pre-training task " + std::to_string(index) + " (" + env->task.model + " on " +
                            env->task.cluster + ")";
  StatusOr<Cluster> cluster = LoadCluster(env->task.cluster);
  if (!cluster.ok()) return cluster.status().WithContext(where);
  StatusOr<Simulator> sim = Simulator::Create(env->graph, *cluster);
  if (!sim.ok()) return sim.status().WithContext(where);
  env->sim = std::make_unique<Simulator>(std::move(*sim));
  StatusOr<PolicyInput> input = BuildPolicyInput(env->graph, env->sim->cluster(), env->sim->cost_model(),
                                                 UnitsPerDeviceOptions(env->sim->cluster(), config.units_per_device,
                                                                       policy_config.layer_units));
  if (!input.ok()) return input.status().WithContext(where);
  env->input = std::move(*input);
  env->batch = std::make_unique<BatchSimulator>(*env->sim, config.threads);
  PretrainTaskRecord r;
  r.task = env->task;
  r.num_units = env->input.num_units;
  // One pass over the baselines: the reference is the fastest plain plan of the cheap
  // three; the teacher (imitate_baselines) the fastest fitting plan of all, plain or fused.
  PlanScore reference, teacher_score;
  Plan teacher;
  BaselineScoring scoring;
  if (!config.imitate_baselines) scoring.methods.assign(std::begin(kReferenceBaselines), std::end(kReferenceBaselines));
  scoring.fused = config.imitate_baselines;
  scoring.seed = config.seed;
  ScoreBaselines(*env->sim, scoring, [&](const BaselineScore& b, Plan* plan) {
    if (!b.error.empty()) return;
    const bool cheap = std::find(std::begin(kReferenceBaselines), std::end(kReferenceBaselines), b.method) !=
                       std::end(kReferenceBaselines);
    if (cheap && b.score.BetterThan(reference)) {
      reference = b.score;
      r.reference = b.method;
    }
    if (config.imitate_baselines && b.score.fits() && b.score.BetterThan(teacher_score)) {
      teacher_score = b.score;
      teacher = std::move(*plan);
    }
  });
  r.reference_us = reference.scored() ? reference.step_time_us : 1e6;
  try {
    env->trainer = std::make_unique<PpoTrainer>(*env->sim, env->batch.get(), env->input, policy, config.ppo,
                                                TrainerSeed(config.seed, index));
  } catch (const std::exception& e) {
    return InternalError(where + ": creating the trainer: " + e.what());
  }
  env->trainer->set_reference_us(r.reference_us);
  if (teacher_score.fits()) {
    if (config.sample_teacher_levels) {
      env->trainer->OfferPlanWithSampledLevels(teacher, teacher_score);
    } else {
      env->trainer->OfferPlan(teacher, teacher_score);
    }
  }
  if (optimizer) env->trainer->UseOptimizer(optimizer);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (record != nullptr) *record = r;
  return env;
}

void Pretrainer::Impl::AssignSlots() {
  slots.clear();
  const int ranks = world->size();
  std::vector<int> owner(static_cast<size_t>(graphs));
  if (graphs == ranks || ranks == 1) {
    for (int g = 0; g < graphs; ++g) owner[static_cast<size_t>(g)] = g % ranks;
  } else {
    std::vector<double> ops;  // a graph's cost: its op count
    for (int g = 0; g < graphs; ++g) {
      Graph graph;
      StatusOr<PretrainTask> task = stream.Task(round * graphs + g, &graph);
      ops.push_back(task.ok() ? static_cast<double>(task->num_ops) : 0.0);  // a task that fails fails when built
    }
    owner = DealByCost(ops, ranks);
  }
  for (int g = 0; g < graphs; ++g) {
    if (owner[static_cast<size_t>(g)] == world->rank()) slots.push_back(PretrainSlot{g, nullptr, {}, {}});
  }
}

Status Pretrainer::Impl::StartRound() {
  AssignSlots();
  for (PretrainSlot& s : slots) {
    GO_ASSIGN_OR_RETURN(s.env, BuildTask(round * graphs + s.slot, &s.record));
    if (!optimizer) optimizer = s.env->trainer->shared_optimizer();  // the first trainer's Adam, shared from now on
    PpoTrainer::State state = s.env->trainer->state();
    state.entropy_coef = entropy_coef;
    s.env->trainer->set_state(state);
  }
  if (!pending_weights.empty()) {
    GO_RETURN_IF_ERROR(slots.front().env->trainer->LoadWeights(pending_weights));
    pending_weights.clear();
  }
  return Status::Ok();
}

Status Pretrainer::Impl::CombineGradients() {
  if (graphs == 1 && !world->distributed()) return Status::Ok();
  const std::vector<torch::Tensor> params = policy->parameters();
  GO_RETURN_IF_ERROR(SumGradientsOverRanks(params, world));
  if (graphs > 1) DivideGradients(params, static_cast<double>(graphs));
  return Status::Ok();
}

Status Pretrainer::Impl::TrainStep() {
  try {
    for (PretrainSlot& s : slots) s.env->trainer->Rollout();
    PpoTrainer& first = *slots.front().env->trainer;
    for (int epoch = 0; epoch < config.ppo.epochs; ++epoch) {
      first.ZeroGrad();  // the shared optimizer: every parameter
      for (PretrainSlot& s : slots) s.env->trainer->Backward(epoch);
      GO_RETURN_IF_ERROR(CombineGradients());
      first.OptimizerStep();
    }
    for (PretrainSlot& s : slots) s.last = s.env->trainer->FinishStep();
  } catch (const std::exception& e) {
    return InternalError("pre-training step on " + slots.front().record.task.model + ": " + e.what());
  }
  return Status::Ok();
}

StatusOr<std::vector<PretrainTaskRecord>> Pretrainer::Impl::GatherRecords() {
  Json mine = Json::array();
  for (const PretrainSlot& s : slots) mine.push_back(PretrainRecordJson(s.record));
  GO_ASSIGN_OR_RETURN(const std::vector<std::string> texts, world->GatherToRoot(mine.dump()));
  std::vector<PretrainTaskRecord> records;
  for (size_t r = 0; r < texts.size(); ++r) {
    const std::string where = "the task records of rank " + std::to_string(r);
    GO_ASSIGN_OR_RETURN(const Json j, ParseJsonText(texts[r], where));
    for (size_t i = 0; i < j.size(); ++i) {
      GO_ASSIGN_OR_RETURN(PretrainTaskRecord rec, PretrainRecordFromJson(j[i], where));
      records.push_back(std::move(rec));
    }
  }
  std::sort(records.begin(), records.end(),
            [](const PretrainTaskRecord& a, const PretrainTaskRecord& b) { return a.task.index < b.task.index; });
  return records;
}

Pretrainer::Pretrainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Pretrainer::~Pretrainer() = default;

StatusOr<std::unique_ptr<Pretrainer>> Pretrainer::Create(PretrainConfig config) {
  if (config.steps_per_task < 1) return InvalidArgument("pre-training steps per task must be at least 1");
  if (config.checkpoint_every < 1) return InvalidArgument("pre-training checkpoint_every must be at least 1");
  if (config.max_steps < 0) return InvalidArgument("pre-training max_steps must be >= 0");
  if (config.units_per_device < 0) return InvalidArgument("pre-training units_per_device must be >= 0");
  if (config.sample_teacher_levels && !config.imitate_baselines) {
    return InvalidArgument("pre-training sample_teacher_levels needs imitate_baselines (there is no teacher without it)");
  }
  if (config.graphs_per_step < 0 || config.graphs_per_step > 4096) {
    return InvalidArgument("pre-training graphs per step must be 1 to 4096 (0: one per rank)");
  }
  config.stream.seed = config.seed;
  GO_ASSIGN_OR_RETURN(PretrainStream stream, PretrainStream::Create(config.stream));
  auto impl = std::make_unique<Impl>(std::move(config), std::move(stream));
  impl->world = &World::Get();
  GO_RETURN_IF_ERROR(impl->config.policy.Validate());
  GO_RETURN_IF_ERROR(impl->config.ppo.Validate());
  impl->policy_config = impl->config.policy;
  if (impl->policy_config.seed == GoPolicyConfig().seed) impl->policy_config.seed = impl->config.seed + 1;
  ConfigureTorchThreads(impl->config.threads);
  if (!impl->config.init_policy.empty()) {
    if (impl->config.policy.ToString() != GoPolicyConfig().ToString()) {
      return InvalidArgument("pre-training from " + impl->config.init_policy +
                             ": the network is the file's; leave the network's options at their defaults");
    }
    GO_ASSIGN_OR_RETURN(impl->policy, LoadGoPolicy(impl->config.init_policy));
    impl->policy_config = impl->policy->config();
    impl->config.policy = impl->policy_config;
    impl->init_fingerprint = ParameterFingerprint(impl->policy);
  } else {
    try {
      impl->policy = GoPolicy(impl->policy_config);
    } catch (const std::exception& e) {
      return InternalError(std::string("creating the GO policy: ") + e.what());
    }
  }
  impl->entropy_coef = impl->config.ppo.entropy;
  return std::unique_ptr<Pretrainer>(new Pretrainer(std::move(impl)));
}

StatusOr<PretrainResult> Pretrainer::Run(const std::atomic<bool>* stop,
                                         const std::function<void(const PretrainProgress&)>& progress) {
  Impl& m = *impl_;
  World& world = *m.world;
  m.start = Clock::now();
  GO_ASSIGN_OR_RETURN(m.result.resumed, m.Load());
  m.result.graphs_per_step = m.graphs;
  m.result.ranks = world.size();
  m.result.init_fingerprint = m.init_fingerprint;
  const Clock::time_point run_start = m.start;
  std::string reason;
  while (true) {
    // Every rank stops at the same step: on a stop request or time limit of any.
    std::vector<int64_t> flags{stop != nullptr && stop->load() ? 1 : 0,
                               m.config.time_limit_s > 0 && std::chrono::duration<double>(Clock::now() - run_start).count() >=
                                                                m.config.time_limit_s
                                   ? 1
                                   : 0};
    GO_RETURN_IF_ERROR(world.SumAll(&flags));
    const std::atomic<bool> stopped(flags[0] > 0);
    reason = StopReason(&stopped, flags[1] > 0, m.result.steps, m.config.max_steps);
    if (!reason.empty()) break;
    if (m.task_step >= m.config.steps_per_task) {
      // The round is over: its records join the finished ones, the next tasks start.
      GO_ASSIGN_OR_RETURN(std::vector<PretrainTaskRecord> done, m.GatherRecords());
      for (PretrainTaskRecord& r : done) m.result.tasks.push_back(std::move(r));
      ++m.round;
      m.task_step = 0;
      m.slots.clear();
    }
    if (m.slots.empty()) GO_RETURN_IF_ERROR(m.StartRound());
    const Clock::time_point t0 = Clock::now();
    std::vector<int64_t> plans{0};
    for (const PretrainSlot& s : m.slots) plans[0] -= s.env->trainer->plans_simulated();
    GO_RETURN_IF_ERROR(m.TrainStep());
    for (const PretrainSlot& s : m.slots) plans[0] += s.env->trainer->plans_simulated();
    GO_RETURN_IF_ERROR(world.SumAll(&plans));
    m.result.plans += plans[0];
    ++m.result.steps;
    ++m.task_step;
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    for (PretrainSlot& s : m.slots) {
      m.entropy_coef = s.env->trainer->state().entropy_coef;
      PretrainTaskRecord& record = s.record;
      const TrainerStepStats& stats = s.last;
      const double batch_us = std::isfinite(stats.best_step_us_in_batch) ? stats.best_step_us_in_batch : 0;
      if (record.steps == 0) record.first_batch_us = batch_us;
      record.last_batch_us = batch_us;
      if (batch_us > 0 && (record.best_us == 0 || batch_us < record.best_us)) record.best_us = batch_us;
      record.steps = m.task_step;
      record.seconds += seconds;
    }
    if (progress && world.root()) {
      const PretrainSlot& first = m.slots.front();
      const double batch_us =
          std::isfinite(first.last.best_step_us_in_batch) ? first.last.best_step_us_in_batch : 0;
      PretrainProgress p;
      p.step = m.result.steps;
      p.seconds = m.Seconds();
      p.plans = m.result.plans;
      p.task = &first.record.task;
      p.graphs = m.graphs;
      p.task_step = m.task_step;
      p.batch_best_ratio = Ratio(batch_us, first.record.reference_us);
      progress(p);
    }
    if (!m.config.checkpoint_dir.empty() && m.result.steps % m.config.checkpoint_every == 0) {
      GO_RETURN_IF_ERROR(m.Save().status());
    }
  }
  m.result.stop_reason = reason;
  m.result.seconds = m.Seconds();
  GO_ASSIGN_OR_RETURN(std::vector<PretrainTaskRecord> current, m.Save());
  PretrainResult out = m.result;
  for (PretrainTaskRecord& r : current) out.tasks.push_back(std::move(r));
  return out;
}

Status Pretrainer::SavePolicy(const std::string& path) { return SaveGoPolicy(impl_->policy, path); }

int64_t Pretrainer::ParameterCount() const {
  int64_t n = 0;
  for (const torch::Tensor& p : impl_->policy->parameters()) n += p.numel();
  return n;
}

std::string Pretrainer::PolicyFingerprint() const { return ParameterFingerprint(impl_->policy); }

const GoPolicyConfig& Pretrainer::policy_config() const { return impl_->policy_config; }

std::string PretrainReportJson(const PretrainConfig& config, const PretrainResult& result, const std::string& fingerprint) {
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
    return out;
  };
  Json tasks = Json::array();
  for (const PretrainTaskRecord& r : result.tasks) tasks.push_back(PretrainRecordJson(r));
  Json j{{"format", "graphopt-pretrain-report"},
         {"version", 1},
         {"graphopt_version", GraphoptVersion()},
         {"families", join(config.stream.families)},
         {"models", join(config.stream.models)},
         {"clusters", join(config.stream.clusters)},
         {"max_ops", config.stream.max_ops},
         {"steps_per_task", config.steps_per_task},
         {"graphs_per_step", result.graphs_per_step},
         {"ranks", result.ranks},
         {"units_per_device", config.units_per_device},
         {"imitate_baselines", config.imitate_baselines},
         {"sample_teacher_levels", config.sample_teacher_levels},
         {"policy", config.policy.ToString()},
         {"ppo", config.ppo.ToString()},
         {"seed", config.seed},
         {"steps", result.steps},
         {"plans", result.plans},
         {"seconds", result.seconds},
         {"stop_reason", result.stop_reason},
         {"policy_fingerprint", fingerprint},
         {"tasks", tasks}};
  if (!config.init_policy.empty()) {
    j["init"] = config.init_policy;
    j["init_fingerprint"] = result.init_fingerprint;
  }
  return j.dump(1) + "\n";
}

}  // namespace graphopt
