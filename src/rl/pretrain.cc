#include "rl/pretrain.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "baselines/baseline.h"
#include "core/files.h"
#include "core/json_fields.h"
#include "core/strings.h"
#include "core/version.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "rl/checkpoint.h"
#include "rl/ppo.h"
#include "rl/training_util.h"
#include "sim/batch.h"
#include "sim/cluster.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kStateFormat = "graphopt-pretrain-state";
constexpr int kStateVersion = 1;
constexpr const char* kStateFile = "pretrain_state.json";

// The baselines whose fastest plan is a task's reward reference: cheap on any graph.
const char* const kReferenceBaselines[] = {"single", "tf-default", "expert"};

uint64_t TrainerSeed(uint64_t seed, int64_t task) {
  uint64_t z = (seed + 0x2545F4914F6CDD1Dull) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(task);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Json RecordJson(const PretrainTaskRecord& r) {
  return Json{{"index", r.task.index},       {"family", r.task.family},     {"model", r.task.model},
              {"cluster", r.task.cluster},   {"ops", r.task.num_ops},       {"units", r.num_units},
              {"reference", r.reference},    {"reference_us", r.reference_us}, {"steps", r.steps},
              {"first_batch_us", r.first_batch_us}, {"last_batch_us", r.last_batch_us}, {"best_us", r.best_us},
              {"seconds", r.seconds}};
}

StatusOr<PretrainTaskRecord> RecordFromJson(const Json& j, const std::string& where) {
  PretrainTaskRecord r;
  constexpr int64_t kMaxCount = int64_t{1} << 50;
  GO_ASSIGN_OR_RETURN(r.task.index, JsonMemberInt(j, "index", where, 0, kMaxCount));
  GO_ASSIGN_OR_RETURN(r.task.family, JsonMemberString(j, "family", where));
  GO_ASSIGN_OR_RETURN(r.task.model, JsonMemberString(j, "model", where));
  GO_ASSIGN_OR_RETURN(r.task.cluster, JsonMemberString(j, "cluster", where));
  GO_ASSIGN_OR_RETURN(const int64_t ops, JsonMemberInt(j, "ops", where, 0, INT32_MAX));
  GO_ASSIGN_OR_RETURN(const int64_t units, JsonMemberInt(j, "units", where, 0, INT32_MAX));
  GO_ASSIGN_OR_RETURN(r.reference, JsonMemberString(j, "reference", where));
  GO_ASSIGN_OR_RETURN(r.reference_us, JsonMemberNumber(j, "reference_us", where, 0, 1e18));
  GO_ASSIGN_OR_RETURN(const int64_t steps, JsonMemberInt(j, "steps", where, 0, INT32_MAX));
  GO_ASSIGN_OR_RETURN(r.first_batch_us, JsonMemberNumber(j, "first_batch_us", where, 0, 1e18));
  GO_ASSIGN_OR_RETURN(r.last_batch_us, JsonMemberNumber(j, "last_batch_us", where, 0, 1e18));
  GO_ASSIGN_OR_RETURN(r.best_us, JsonMemberNumber(j, "best_us", where, 0, 1e18));
  GO_ASSIGN_OR_RETURN(r.seconds, JsonMemberNumber(j, "seconds", where, 0, 1e9));
  r.task.num_ops = static_cast<int>(ops);
  r.num_units = static_cast<int>(units);
  r.steps = static_cast<int>(steps);
  return r;
}

}  // namespace

// One task's environment: its graph, simulator, policy input and trainer (the trainer
// refers to the others, so the environment is built in place and never moved).
struct PretrainEnv {
  PretrainTask task;
  Graph graph;
  std::unique_ptr<Simulator> sim;
  PolicyInput input;
  std::unique_ptr<BatchSimulator> batch;
  std::unique_ptr<PpoTrainer> trainer;
};

struct Pretrainer::Impl {
  PretrainConfig config;
  PretrainStream stream;
  GoPolicyConfig policy_config;
  PpoConfig ppo_config;
  GoPolicy policy{nullptr};
  std::shared_ptr<torch::optim::Adam> optimizer;  // shared by the tasks' trainers; null before the first
  double entropy_coef = 0;
  int64_t task_index = 0;
  int task_step = 0;  // steps done on task_index
  bool weights_pending = false;  // resumed at a task's end: the next trainer loads the checkpoint's weights
  std::unique_ptr<PretrainEnv> env;
  PretrainResult result;
  double elapsed_offset = 0;
  Clock::time_point start;

  Impl(PretrainConfig c, PretrainStream s) : config(std::move(c)), stream(std::move(s)) {}

  double Seconds() const { return elapsed_offset + std::chrono::duration<double>(Clock::now() - start).count(); }

  // Everything that decides the run's decisions (budgets and threads may change).
  std::string Identity() const {
    return StrFormat("stream=%s;steps_per_task=%d;units_per_device=%d;imitate_baselines=%d;policy=%s;ppo=%s;version=%s",
                     stream.Identity().c_str(), config.steps_per_task, config.units_per_device, config.imitate_baselines,
                     policy_config.ToString().c_str(), ppo_config.ToString().c_str(), GraphoptVersion());
  }

  StatusOr<std::unique_ptr<PretrainEnv>> BuildTask(int64_t index, PretrainTaskRecord* record) {
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
                                                   UnitsPerDeviceOptions(env->sim->cluster(), config.units_per_device));
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
    for (const std::string& name : BaselineNames()) {
      const bool cheap = std::find(std::begin(kReferenceBaselines), std::end(kReferenceBaselines), name) !=
                         std::end(kReferenceBaselines);
      for (bool fusion : {false, true}) {
        if (!config.imitate_baselines && (fusion || !cheap)) continue;
        BaselineOptions options;
        options.fusion = fusion;
        options.seed = config.seed;
        StatusOr<Plan> plan = RunBaseline(name, env->graph, env->sim->cluster(), env->sim->cost_model(), options);
        if (!plan.ok()) continue;
        StatusOr<SimResult> simulated = env->sim->Simulate(*plan);
        if (!simulated.ok()) continue;
        const PlanScore score = PlanScore::Of(*simulated);
        if (cheap && !fusion && score.BetterThan(reference)) {
          reference = score;
          r.reference = name;
        }
        if (config.imitate_baselines && score.fits() && score.BetterThan(teacher_score)) {
          teacher_score = score;
          teacher = std::move(*plan);
        }
      }
    }
    r.reference_us = reference.scored() ? reference.step_time_us : 1e6;
    try {
      env->trainer = std::make_unique<PpoTrainer>(*env->sim, env->batch.get(), env->input, policy, ppo_config,
                                                  TrainerSeed(config.seed, index));
    } catch (const std::exception& e) {
      return InternalError(where + ": creating the trainer: " + e.what());
    }
    env->trainer->set_reference_us(r.reference_us);
    if (teacher_score.fits()) env->trainer->OfferPlan(teacher, teacher_score);
    if (optimizer) env->trainer->UseOptimizer(optimizer);
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (record != nullptr) *record = r;
    return env;
  }

  // The shared optimizer is the trainer's (the first trainer's, or one a checkpoint restored).
  void AdoptTrainerOptimizer() { optimizer = env->trainer->shared_optimizer(); }

  Status Save() {
    const std::string& dir = config.checkpoint_dir;
    if (dir.empty() || !env) return Status::Ok();
    ::mkdir(dir.c_str(), 0755);
    GO_RETURN_IF_ERROR(env->trainer->SaveCheckpoint(dir));
    Json tasks = Json::array();
    for (const PretrainTaskRecord& r : result.tasks) tasks.push_back(RecordJson(r));
    Json state{{"format", kStateFormat}, {"version", kStateVersion}, {"identity", Identity()},
               {"task_index", task_index}, {"task_step", task_step},  {"steps", result.steps},
               {"plans", result.plans},    {"seconds", Seconds()},   {"entropy_coef", entropy_coef},
               {"tasks", tasks}};
    return WriteFileAtomic(dir + "/" + kStateFile, state.dump(1) + "\n");
  }

  // Restores a checkpoint if the folder has one; returns whether it did.
  StatusOr<bool> Load() {
    const std::string& dir = config.checkpoint_dir;
    if (dir.empty()) return false;
    const std::vector<std::string> trainer_files{"policy.pt", "optimizer.pt", "ppo_state.json"};
    GO_ASSIGN_OR_RETURN(const std::optional<Json> opened,
                        OpenCheckpointState(dir, kStateFile, trainer_files, kStateFormat, kStateVersion));
    if (!opened) return false;
    const Json& state = *opened;
    const std::string path = dir + "/" + kStateFile;
    GO_ASSIGN_OR_RETURN(const std::string identity, JsonMemberString(state, "identity", path));
    if (identity != Identity()) {
      // Name the first option that differs ("key=value" fields separated by ';').
      const std::vector<std::string> theirs = Split(identity, ';'), ours = Split(Identity(), ';');
      size_t i = 0;
      while (i < theirs.size() && i < ours.size() && theirs[i] == ours[i]) ++i;
      return FailedPrecondition(path + ": the checkpoint was made by a run with other options: " +
                                (i < theirs.size() ? theirs[i] : "(none)") + ", this run has " +
                                (i < ours.size() ? ours[i] : "(none)"));
    }
    constexpr int64_t kMaxCount = int64_t{1} << 50;
    GO_ASSIGN_OR_RETURN(const int64_t index, JsonMemberInt(state, "task_index", path, 0, kMaxCount));
    GO_ASSIGN_OR_RETURN(const int64_t done, JsonMemberInt(state, "task_step", path, 1, config.steps_per_task));
    GO_ASSIGN_OR_RETURN(result.steps, JsonMemberInt(state, "steps", path, 1, kMaxCount));
    GO_ASSIGN_OR_RETURN(result.plans, JsonMemberInt(state, "plans", path, 0, kMaxCount));
    GO_ASSIGN_OR_RETURN(elapsed_offset, JsonMemberNumber(state, "seconds", path, 0, 1e9));
    GO_ASSIGN_OR_RETURN(entropy_coef, JsonMemberNumber(state, "entropy_coef", path, 0, 1e6));
    GO_ASSIGN_OR_RETURN(const Json* tasks, JsonMember(state, "tasks", path));
    if (!tasks->is_array() || tasks->empty()) return ParseError(path + ": tasks must be a non-empty array");
    for (size_t i = 0; i < tasks->size(); ++i) {
      GO_ASSIGN_OR_RETURN(PretrainTaskRecord r, RecordFromJson((*tasks)[i], path + ": tasks[" + std::to_string(i) + "]"));
      result.tasks.push_back(std::move(r));
    }
    if (result.tasks.back().task.index != index || result.tasks.back().steps != done) {
      return ParseError(path + ": the last task record is not the current task (task_index, task_step)");
    }
    GO_RETURN_IF_ERROR(RequireCheckpointFiles(dir, trainer_files, "the state says the trainer saved it"));
    if (done >= config.steps_per_task) {
      // The task was finished: the next one starts from the checkpoint's weights.
      task_index = index + 1;
      task_step = 0;
      weights_pending = true;
      return true;
    }
    task_index = index;
    task_step = static_cast<int>(done);
    GO_ASSIGN_OR_RETURN(env, BuildTask(index, nullptr));
    GO_RETURN_IF_ERROR(env->trainer->LoadCheckpoint(dir));
    AdoptTrainerOptimizer();
    return true;
  }

  // The fastest fitting sample of a step over the task's reference (0 if none fit).
  static double Ratio(double us, double reference) { return us > 0 && reference > 0 ? us / reference : 0; }
};

Pretrainer::Pretrainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Pretrainer::~Pretrainer() = default;

StatusOr<std::unique_ptr<Pretrainer>> Pretrainer::Create(PretrainConfig config) {
  if (config.steps_per_task < 1) return InvalidArgument("pre-training steps per task must be at least 1");
  if (config.checkpoint_every < 1) return InvalidArgument("pre-training checkpoint_every must be at least 1");
  if (config.max_steps < 0) return InvalidArgument("pre-training max_steps must be >= 0");
  if (config.units_per_device < 0) return InvalidArgument("pre-training units_per_device must be >= 0");
  config.stream.seed = config.seed;
  GO_ASSIGN_OR_RETURN(PretrainStream stream, PretrainStream::Create(config.stream));
  auto impl = std::make_unique<Impl>(std::move(config), std::move(stream));
  GO_ASSIGN_OR_RETURN(impl->policy_config, GoPolicyConfig::FromString(impl->config.policy));
  GO_ASSIGN_OR_RETURN(impl->ppo_config, PpoConfig::FromString(impl->config.ppo));
  if (impl->policy_config.seed == GoPolicyConfig().seed) impl->policy_config.seed = impl->config.seed + 1;
  ConfigureTorchThreads(impl->config.threads);
  try {
    impl->policy = GoPolicy(impl->policy_config);
  } catch (const std::exception& e) {
    return InternalError(std::string("creating the GO policy: ") + e.what());
  }
  impl->entropy_coef = impl->ppo_config.entropy;
  return std::unique_ptr<Pretrainer>(new Pretrainer(std::move(impl)));
}

StatusOr<PretrainResult> Pretrainer::Run(const std::atomic<bool>* stop,
                                         const std::function<void(const PretrainProgress&)>& progress) {
  Impl& m = *impl_;
  m.start = Clock::now();
  GO_ASSIGN_OR_RETURN(m.result.resumed, m.Load());
  const Clock::time_point run_start = m.start;
  auto time_up = [&] {
    return m.config.time_limit_s > 0 &&
           std::chrono::duration<double>(Clock::now() - run_start).count() >= m.config.time_limit_s;
  };
  std::string reason;
  while (true) {
    reason = StopReason(stop, time_up(), m.result.steps, m.config.max_steps);
    if (!reason.empty()) break;
    if (m.env && m.task_step >= m.config.steps_per_task) {
      ++m.task_index;
      m.task_step = 0;
      m.env.reset();
    }
    if (!m.env) {
      PretrainTaskRecord record;
      GO_ASSIGN_OR_RETURN(m.env, m.BuildTask(m.task_index, &record));
      if (m.weights_pending) {
        GO_RETURN_IF_ERROR(m.env->trainer->LoadWeights(m.config.checkpoint_dir));
        m.weights_pending = false;
      }
      m.AdoptTrainerOptimizer();
      PpoTrainer::State s = m.env->trainer->state();
      s.entropy_coef = m.entropy_coef;
      m.env->trainer->set_state(s);
      m.result.tasks.push_back(record);
    }
    PretrainTaskRecord& record = m.result.tasks.back();
    const Clock::time_point t0 = Clock::now();
    const int64_t before = m.env->trainer->plans_simulated();
    TrainerStepStats stats;
    try {
      stats = m.env->trainer->Step();
    } catch (const std::exception& e) {
      return InternalError("pre-training step on " + record.task.model + ": " + e.what());
    }
    m.result.plans += m.env->trainer->plans_simulated() - before;
    ++m.result.steps;
    ++m.task_step;
    m.entropy_coef = m.env->trainer->state().entropy_coef;
    const double batch_us = std::isfinite(stats.best_step_us_in_batch) ? stats.best_step_us_in_batch : 0;
    if (record.steps == 0) record.first_batch_us = batch_us;
    record.last_batch_us = batch_us;
    if (batch_us > 0 && (record.best_us == 0 || batch_us < record.best_us)) record.best_us = batch_us;
    record.steps = m.task_step;
    record.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    if (progress) {
      PretrainProgress p;
      p.step = m.result.steps;
      p.seconds = m.Seconds();
      p.plans = m.result.plans;
      p.task = &record.task;
      p.task_step = m.task_step;
      p.batch_best_ratio = Impl::Ratio(batch_us, record.reference_us);
      progress(p);
    }
    if (!m.config.checkpoint_dir.empty() && m.result.steps % m.config.checkpoint_every == 0) GO_RETURN_IF_ERROR(m.Save());
  }
  m.result.stop_reason = reason;
  m.result.seconds = m.Seconds();
  GO_RETURN_IF_ERROR(m.Save());
  return m.result;
}

Status Pretrainer::SavePolicy(const std::string& path) { return SaveGoPolicy(impl_->policy, path); }

std::string PretrainReportJson(const PretrainConfig& config, const PretrainResult& result) {
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
    return out;
  };
  Json tasks = Json::array();
  for (const PretrainTaskRecord& r : result.tasks) tasks.push_back(RecordJson(r));
  Json j{{"format", "graphopt-pretrain-report"},
         {"version", 1},
         {"graphopt_version", GraphoptVersion()},
         {"families", join(config.stream.families)},
         {"models", join(config.stream.models)},
         {"clusters", join(config.stream.clusters)},
         {"max_ops", config.stream.max_ops},
         {"steps_per_task", config.steps_per_task},
         {"units_per_device", config.units_per_device},
         {"imitate_baselines", config.imitate_baselines},
         {"policy", config.policy},
         {"ppo", config.ppo},
         {"seed", config.seed},
         {"steps", result.steps},
         {"plans", result.plans},
         {"seconds", result.seconds},
         {"stop_reason", result.stop_reason},
         {"tasks", tasks}};
  return j.dump(1) + "\n";
}

}  // namespace graphopt
