#include "rl/go_search.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "baselines/baseline.h"
#include "core/files.h"
#include "core/json_fields.h"
#include "core/strings.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "rl/checkpoint.h"
#include "rl/methods.h"
#include "rl/ppo.h"
#include "rl/rollout.h"
#include "rl/score_json.h"
#include "rl/training_util.h"
#include "sim/batch.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kStateFormat = "graphopt-go-search";
constexpr int kStateVersion = 3;  // 2: the identity (rl/checkpoint.h); 3: the sample polish's descent in both phases

uint64_t PolishSeed(uint64_t seed, int64_t step) {
  uint64_t z = (seed + 0x51ED270B27D5A1ull) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(step);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Json TraceJson(const std::vector<ConvergencePoint>& trace) {
  Json a = Json::array();
  for (const ConvergencePoint& p : trace) {
    a.push_back(Json{{"seconds", p.seconds}, {"plans", p.plans}, {"step", p.step}, {"best_step_time_us", p.best_step_us},
                     {"fits", p.fits}, {"source", p.source}});
  }
  return a;
}

}  // namespace

std::string ConvergenceJson(const std::vector<ConvergencePoint>& trace) {
  Json j{{"format", "graphopt-convergence"}, {"version", 1}, {"points", TraceJson(trace)}};
  return j.dump(1) + "\n";
}

struct GoSearch::Impl {
  const Simulator& sim;
  GoSearchConfig config;
  GoPolicyConfig policy_config;
  PpoConfig ppo_config;
  PolicyInput input;
  PolicyInputOptions input_options;
  TaskDefaults defaults;  // of the tasks the search does not decide
  Plan units_plan;  // the plan the units are split by (empty: none)
  std::unique_ptr<BatchSimulator> batch;
  std::unique_ptr<LocalSearch> polish;
  std::unique_ptr<LocalSearch> sample_polish;
  std::unique_ptr<Trainer> trainer;
  PpoTrainer* ppo = nullptr;  // the trainer, if the method is go

  Plan best;
  PlanScore best_score;
  // Ingredient 6: whether the policy still explores.
  bool exploring = false;
  // Ingredient 5: the policy's plan under the sample polish, its score, and the score
  // of the policy's plan it was taken from (unscored: no descent yet).
  Plan descent_plan;
  PlanScore descent_score;
  PlanScore descent_seen;
  CheckpointIdentity identity;  // set by Create when checkpoints are on
  GoSearchResult result;
  double elapsed_offset = 0;  // seconds of earlier runs (resume)
  Clock::time_point start;

  Impl(const Simulator& s, GoSearchConfig c) : sim(s), config(std::move(c)) {}

  // A fresh network, or the pre-trained one.
  StatusOr<GoPolicy> NewPolicy() const {
    if (config.pretrained.empty()) return GoPolicy(policy_config);
    return LoadGoPolicy(config.pretrained);
  }

  // The pre-trained policy's zero-shot plan as the first plan.
  Status PlanZeroShot() {
    GO_ASSIGN_OR_RETURN(const ZeroShotResult z, ZeroShotPlan(sim, config.pretrained, SearchZeroShotOptions(config)));
    result.plans_simulated += 1 + config.zero_shot_samples;
    result.zero_shot_score = z.score;
    result.zero_shot_seconds = z.seconds;
    Plan plan = z.plan;
    PlanScore score = z.score;
    if (!WithDefaults(&plan, &score)) return Status::Ok();
    Offer(plan, score, "zero-shot");
    if (trainer) trainer->OfferPlan(plan, score);
    return Status::Ok();
  }

  // The GO policy explores on its own (ingredient 6) instead of imitating the best plan.
  bool Explores() const { return ppo != nullptr && exploring; }
  bool ExplorationOver(double run_seconds, int64_t steps_this_run) const {
    if (config.max_steps > 0) return result.steps >= static_cast<int64_t>(config.explore * config.max_steps);
    if (config.time_limit_s > 0) return run_seconds >= config.explore * config.time_limit_s;
    return steps_this_run >= static_cast<int64_t>(config.explore * kExploreStepsWithoutLimit);
  }
  // Plans found by other means join the trainer's batches.
  bool TrainerImitates() const { return trainer != nullptr && !Explores(); }

  double Seconds() const { return elapsed_offset + std::chrono::duration<double>(Clock::now() - start).count(); }
  int64_t Plans() const { return result.plans_simulated; }

  // Records a new best plan if it is better.
  bool Offer(const Plan& plan, const PlanScore& score, const std::string& source) {
    if (!score.BetterThan(best_score)) return false;
    best = plan;
    best_score = score;
    result.seconds_to_best = Seconds();
    result.trace.push_back(ConvergencePoint{result.seconds_to_best, Plans(), trainer ? trainer->step() : result.steps,
                                            score.step_time_us, score.fits(), source});
    if (source == "ppo" || (trainer && source == trainer->method())) ++result.improvements_ppo;
    if (source == "polish") ++result.improvements_polish;
    if (source == "ppo+polish") ++result.improvements_sample_polish;
    return true;
  }

  // A plan made elsewhere (a baseline, the zero-shot plan) with the defaults of the
  // tasks not decided, re-scored if they apply; false if it could not be simulated.
  bool WithDefaults(Plan* plan, PlanScore* score) {
    if (defaults.all()) return true;
    defaults.Apply(sim.graph(), plan);
    StatusOr<SimResult> r = sim.Simulate(*plan);
    ++result.plans_simulated;
    if (!r.ok()) return false;
    *score = PlanScore::Of(*r);
    return true;
  }

  // The search's trainer (a fresh one, or one on new units) plans with the defaults.
  void UseDefaults(PpoTrainer* trainer_of_go) {
    if (!defaults.all()) trainer_of_go->set_task_defaults(&defaults);
  }

  void RunBaselines() {
    PlanScore best_plain;
    for (const std::string& method : BaselineNames()) {
      for (int fused = 0; fused < 2; ++fused) {
        if (fused == 1 && method == "tf-default") continue;
        BaselineScore b;
        b.method = method + (fused ? kFusionSuffixForSearch : "");
        b.plain = fused == 0;
        BaselineOptions options;
        options.fusion = fused == 1;
        options.seed = config.seed;
        StatusOr<Plan> plan = RunBaseline(method, sim.graph(), sim.cluster(), sim.cost_model(), options);
        if (!plan.ok()) {
          b.error = plan.status().message();
          result.baselines.push_back(b);
          continue;
        }
        StatusOr<SimResult> r = sim.Simulate(*plan);
        ++result.plans_simulated;
        if (!r.ok()) {
          b.error = r.status().message();
          result.baselines.push_back(b);
          continue;
        }
        b.score = PlanScore::Of(*r);
        if (b.plain && b.score.fits() && b.score.BetterThan(best_plain)) {
          best_plain = b.score;
          result.best_baseline = b.method;
          result.best_baseline_score = b.score;
        }
        PlanScore offered = b.score;
        if (config.baselines && WithDefaults(&*plan, &offered)) Offer(*plan, offered, "baseline:" + b.method);
        result.baselines.push_back(b);
      }
    }
  }

  static constexpr const char* kFusionSuffixForSearch = "+fusion";

  // The policy input with its units split by `plan`'s placement, and a fresh GO
  // trainer on it (the policy is not trained yet when this happens).
  Status SplitUnitsBy(const Plan& plan) {
    PolicyInputOptions options = input_options;
    options.split_by_device = plan.device;
    GO_ASSIGN_OR_RETURN(PolicyInput split, BuildPolicyInput(sim.graph(), sim.cluster(), sim.cost_model(), options));
    trainer.reset();
    ppo = nullptr;
    input = std::move(split);
    GO_ASSIGN_OR_RETURN(GoPolicy policy, NewPolicy());
    try {
      auto fresh = std::make_unique<PpoTrainer>(sim, batch.get(), input, policy, ppo_config, config.seed);
      UseDefaults(fresh.get());
      ppo = fresh.get();
      trainer = std::move(fresh);
    } catch (const std::exception& e) {
      return InternalError(std::string("creating the go policy on the plan's units: ") + e.what());
    }
    units_plan = plan;
    return Status::Ok();
  }

  // Ingredient 5: one slice of the sample polish on a plan of the policy; the descent
  // goes on across steps until it converges. Exploring, it starts from the best plan
  // the policy has sampled and restarts whenever the policy samples a better one.
  // Imitating, it starts from the best sample of the last batch and takes a new one
  // when it has converged or a sample beats the plan under descent: the policy's
  // samples are the perturbations of an iterated local search, whose descents may end
  // in basins the polish of the best plan does not reach. (A descent cut short after
  // one slice, as every step's sample had before, never got below the best plan.)
  void PolishPolicySample(const std::function<bool()>& stop) {
    const PlanScore& sampled = exploring ? ppo->best_score() : ppo->last_sample_score();
    if (!sampled.scored()) return;
    const bool restart = exploring ? sampled.BetterThan(descent_seen) || descent_seen.BetterThan(sampled)
                                   : !descent_seen.scored() || sample_polish->converged() || sampled.BetterThan(descent_score);
    if (restart) {
      descent_plan = exploring ? ppo->best_plan() : ppo->last_sample_plan();
      descent_score = sampled;
      descent_seen = sampled;
      sample_polish->Reset();
    }
    if (sample_polish->converged()) return;
    Rng rng(PolishSeed(config.seed ^ 0x5A5A5A5Aull, result.steps));
    const LocalSearchStats ls = sample_polish->Polish(&descent_plan, &descent_score, rng, config.polish_evaluations, stop);
    result.plans_simulated += ls.evaluations;
    if (Offer(descent_plan, descent_score, "ppo+polish") && !exploring) {
      trainer->OfferPlan(best, best_score);
      polish->Reset();
    }
  }

  // Ingredients 2, 3 and 5 after the exploration (or from the start): the units are
  // split by the best plan, the policy imitates it, and plans found by any means join
  // its batches.
  Status StartImitation(double reference, const std::function<bool()>& stop) {
    exploring = false;
    descent_seen = PlanScore();  // the next descent starts from the imitating policy's samples
    if (!trainer || !best_score.scored()) return Status::Ok();
    if (ppo && config.plan_units && config.baselines) {
      GO_RETURN_IF_ERROR(SplitUnitsBy(best));
      trainer->set_reference_us(reference);
    }
    trainer->OfferPlan(best, best_score);
    if (config.warm_start) trainer->WarmStart(stop);
    return Status::Ok();
  }

  Status SaveCheckpoint() {
    const std::string& dir = config.checkpoint_dir;
    if (dir.empty()) return Status::Ok();
    ::mkdir(dir.c_str(), 0755);
    GO_RETURN_IF_ERROR(WritePlanJson(sim.graph(), best, dir + "/best_plan.json"));
    Json state{{"format", kStateFormat},
               {"version", kStateVersion},
               {"identity", identity.ToJson()},
               {"seconds", Seconds()},
               {"seconds_to_best", result.seconds_to_best},
               {"steps", result.steps},
               {"plans_simulated", result.plans_simulated},
               {"ppo_best_us", std::isfinite(result.ppo_best_us) ? result.ppo_best_us : -1.0},
               {"improvements_ppo", result.improvements_ppo},
               {"improvements_polish", result.improvements_polish},
               {"improvements_sample_polish", result.improvements_sample_polish},
               {"best", PlanScoreToJson(best_score)},
               {"trace", TraceJson(result.trace)}};
    if (polish) {
      const LocalSearch::Cursor c = polish->cursor();
      state["polish"] = Json{{"scale", c.scale}, {"failed_scales", c.failed_scales}};
    }
    if (trainer) GO_RETURN_IF_ERROR(trainer->SaveCheckpoint(dir));
    state["trainer"] = trainer != nullptr;
    if (sample_polish && descent_seen.scored()) {
      const LocalSearch::Cursor c = sample_polish->cursor();
      state["descent"] = Json{{"score", PlanScoreToJson(descent_score)},
                              {"seen", PlanScoreToJson(descent_seen)},
                              {"scale", c.scale},
                              {"failed_scales", c.failed_scales}};
      GO_RETURN_IF_ERROR(WritePlanJson(sim.graph(), descent_plan, dir + "/descent_plan.json"));
    }
    state["exploring"] = exploring;
    state["units_plan"] = !units_plan.device.empty();
    if (!units_plan.device.empty()) GO_RETURN_IF_ERROR(WritePlanJson(sim.graph(), units_plan, dir + "/units_plan.json"));
    return WriteFileAtomic(dir + "/state.json", state.dump() + "\n");
  }

  // The files of a checkpoint besides state.json.
  std::vector<std::string> CheckpointFiles() const {
    std::vector<std::string> files{"best_plan.json", "units_plan.json", "descent_plan.json"};
    if (trainer) {
      for (const std::string& f : trainer->CheckpointFiles()) files.push_back(f);
    }
    return files;
  }

  // Restores a checkpoint if the folder has one; returns whether it did. Every value
  // is checked before use (checkpoint.h): identity, ranges, files, re-simulated plans.
  StatusOr<bool> LoadCheckpoint() {
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
    // A local search's cursor ({"scale", "failed_scales"}); `where` names the object.
    auto cursor = [](const Json& obj, const std::string& where) -> StatusOr<LocalSearch::Cursor> {
      GO_ASSIGN_OR_RETURN(const Json* scale, JsonMember(obj, "scale", where));
      GO_ASSIGN_OR_RETURN(const Json* failed, JsonMember(obj, "failed_scales", where));
      LocalSearch::Cursor c{0, 0, 0};
      GO_RETURN_IF_ERROR(JsonIntTo(*scale, where + ".scale", &c.scale, 0, 64));
      GO_RETURN_IF_ERROR(JsonIntTo(*failed, where + ".failed_scales", &c.failed_scales, 0, 64));
      return c;
    };
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
      GO_ASSIGN_OR_RETURN(const LocalSearch::Cursor c, cursor(state["polish"], path + ": polish"));
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
      const std::string descent_path = dir + "/descent_plan.json";
      GO_RETURN_IF_ERROR(RequireCheckpointFiles(dir, {"descent_plan.json"},
                                                "the checkpoint was polishing that plan of the policy"));
      const Json& e = state["descent"];
      const std::string where = path + ": descent";
      GO_ASSIGN_OR_RETURN(const Json* score, JsonMember(e, "score", where));
      GO_ASSIGN_OR_RETURN(const PlanScore recorded_descent, PlanScoreFromJson(*score, where + ".score"));
      GO_ASSIGN_OR_RETURN(const Json* seen, JsonMember(e, "seen", where));
      GO_ASSIGN_OR_RETURN(descent_seen, PlanScoreFromJson(*seen, where + ".seen"));
      GO_ASSIGN_OR_RETURN(Plan plan, ReadPlanJson(descent_path, sim.graph()));
      GO_ASSIGN_OR_RETURN(descent_score, VerifyCheckpointPlan(sim, plan, recorded_descent, descent_path));
      descent_plan = std::move(plan);
      GO_ASSIGN_OR_RETURN(const LocalSearch::Cursor c, cursor(e, where));
      sample_polish->set_cursor(c);
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
      if (TrainerImitates()) trainer->OfferPlan(best, best_score);
    }
    return true;
  }
};

std::string PlanOrigin(const std::vector<ConvergencePoint>& trace) {
  for (auto it = trace.rbegin(); it != trace.rend(); ++it) {
    if (it->source != "polish") return it->source;
  }
  return trace.empty() ? "" : "polish";
}

void GoSearchResult::SampleDistance::Add(double units_off, double levels_off, double fuse_off) {
  if (units_off < 0) return;
  const double n = static_cast<double>(steps);
  auto mean = [&](double old, double v) { return v < 0 ? old : (old < 0 ? v : (old * n + v) / (n + 1)); };
  units = mean(units, units_off);
  levels = mean(levels, levels_off);
  fuse = mean(fuse, fuse_off);
  ++steps;
}

GoSearch::GoSearch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GoSearch::~GoSearch() = default;

StatusOr<std::unique_ptr<GoSearch>> GoSearch::Create(const Simulator& simulator, GoSearchConfig config) {
  auto impl = std::make_unique<Impl>(simulator, std::move(config));
  GO_ASSIGN_OR_RETURN(impl->policy_config, GoPolicyConfig::FromString(impl->config.policy));
  if (!impl->config.pretrained.empty()) {
    if (impl->config.method != "go") return InvalidArgument("a pre-trained policy is a GO policy: method must be go");
    if (!impl->config.policy.empty()) {
      return InvalidArgument("the network options (" + impl->config.policy + ") cannot be combined with a pre-trained policy, " +
                             "whose network is " + impl->config.pretrained + "'s");
    }
    GO_ASSIGN_OR_RETURN(const GoPolicy pretrained, LoadGoPolicy(impl->config.pretrained));
    impl->policy_config = pretrained->config();
  }
  GO_ASSIGN_OR_RETURN(impl->ppo_config, PpoConfig::FromString(impl->config.ppo));
  if (impl->policy_config.seed == GoPolicyConfig().seed) impl->policy_config.seed = impl->config.seed + 1;
  ConfigureTorchThreads(impl->config.threads);
  impl->input_options = UnitsPerDeviceOptions(simulator.cluster(), impl->config.units_per_device);
  GO_ASSIGN_OR_RETURN(impl->input, BuildPolicyInput(simulator.graph(), simulator.cluster(), simulator.cost_model(),
                                                    impl->input_options));
  const uint32_t tasks = impl->config.method == "go" ? impl->policy_config.tasks : kAllTasks;
  if (impl->config.method != "go" && !impl->config.fixed_placement.empty()) {
    return InvalidArgument("a fixed placement is for go with placement left out of its tasks, not " + impl->config.method);
  }
  GO_ASSIGN_OR_RETURN(impl->defaults, TaskDefaults::Create(tasks, impl->config.fixed_placement, simulator.graph(),
                                                           simulator.cluster(), simulator.cost_model()));
  const TaskDefaults* defaults = impl->defaults.all() ? nullptr : &impl->defaults;
  impl->batch = std::make_unique<BatchSimulator>(simulator, impl->config.threads);
  if (impl->config.polish) {
    impl->polish = std::make_unique<LocalSearch>(simulator, impl->batch.get(), impl->config.polish_config);
    impl->polish->set_task_defaults(defaults);
  }
  if (impl->config.polish && impl->config.polish_samples) {
    impl->sample_polish = std::make_unique<LocalSearch>(simulator, impl->batch.get(), impl->config.polish_config);
    impl->sample_polish->set_task_defaults(defaults);
  }
  if (impl->config.ppo_enabled) {
    try {
      if (impl->config.method == "go") {
        GO_ASSIGN_OR_RETURN(GoPolicy policy, impl->NewPolicy());
        auto ppo = std::make_unique<PpoTrainer>(simulator, impl->batch.get(), impl->input, policy, impl->ppo_config,
                                                impl->config.seed);
        impl->UseDefaults(ppo.get());
        impl->ppo = ppo.get();
        impl->trainer = std::move(ppo);
      } else {
        GO_ASSIGN_OR_RETURN(impl->trainer, CreateMethodTrainer(impl->config.method, simulator, impl->batch.get(), impl->input,
                                                               impl->config.method_options, impl->config.seed));
      }
    } catch (const std::exception& e) {
      return InternalError("creating the " + impl->config.method + " policy: " + e.what());
    }
  }
  if (!impl->config.checkpoint_dir.empty()) {
    impl->identity = CheckpointIdentity::Of(simulator, impl->config.method, GoSearchIdentityConfig(impl->config, impl->policy_config.ToString(), impl->ppo_config.ToString()), impl->config.seed);
  }
  return std::unique_ptr<GoSearch>(new GoSearch(std::move(impl)));
}

StatusOr<GoSearchResult> GoSearch::Run(const std::atomic<bool>* stop,
                                       const std::function<void(const GoSearchProgress&)>& progress) {
  Impl& m = *impl_;
  m.start = Clock::now();
  m.result.ppo_best_us = std::numeric_limits<double>::infinity();
  GO_ASSIGN_OR_RETURN(const bool resumed, m.LoadCheckpoint());
  m.result.resumed = resumed;
  // Baselines are always scored (for the report); they seed the search only on a
  // fresh run with baselines enabled.
  {
    const bool seed_from_baselines = m.config.baselines && !resumed;
    const bool keep = m.config.baselines;
    m.config.baselines = seed_from_baselines;
    const int64_t plans = m.result.plans_simulated;
    const double to_best = m.result.seconds_to_best;
    m.RunBaselines();
    if (resumed) {
      m.result.plans_simulated = plans;
      m.result.seconds_to_best = to_best;
    }
    m.config.baselines = keep;
  }
  // Reference of the reward: the best plain baseline, else the single-device plan.
  double reference = m.result.best_baseline_score.fits() ? m.result.best_baseline_score.step_time_us : 0;
  if (reference <= 0) {
    for (const BaselineScore& b : m.result.baselines) {
      if (b.error.empty() && b.score.scored() && (reference <= 0 || b.score.step_time_us < reference)) reference = b.score.step_time_us;
    }
  }
  if (reference <= 0) reference = 1e6;
  if (!resumed && !m.config.pretrained.empty()) GO_RETURN_IF_ERROR(m.PlanZeroShot());
  // Without baselines and without PPO, the local search starts from one device.
  if (!resumed && !m.best_score.scored() && !m.trainer) {
    Plan start = SingleDevicePlan(m.sim.graph(), m.sim.cluster());
    StatusOr<SimResult> r = m.sim.Simulate(start);
    if (r.ok()) m.Offer(start, PlanScore::Of(*r), "start:single");
  }
  if (!resumed) m.exploring = m.ppo != nullptr && m.config.explore > 0;
  if (m.trainer) {
    if (!resumed) {
      m.trainer->set_reference_us(reference);
      if (m.best_score.scored() && m.TrainerImitates()) m.trainer->OfferPlan(m.best, m.best_score);
    }
  }

  const double run_limit = m.config.time_limit_s;
  const Clock::time_point run_start = m.start;
  auto time_up = [&] {
    return run_limit > 0 && std::chrono::duration<double>(Clock::now() - run_start).count() >= run_limit;
  };
  auto stopped = [&] { return stop != nullptr && stop->load(); };
  // Polish the best baseline first (cheap and deterministic), then explore or imitate.
  if (!resumed && m.polish && m.best_score.scored()) {
    Plan plan = m.best;
    PlanScore score = m.best_score;
    Rng rng(PolishSeed(m.config.seed, -1));
    const LocalSearchStats ls = m.polish->Polish(&plan, &score, rng, 0, [&] { return stopped() || time_up(); });
    m.result.plans_simulated += ls.evaluations;
    if (m.Offer(plan, score, "polish") && m.TrainerImitates()) m.trainer->OfferPlan(m.best, m.best_score);
  }
  if (!resumed && !m.Explores()) GO_RETURN_IF_ERROR(m.StartImitation(reference, [&] { return stopped() || time_up(); }));
  int64_t steps_this_run = 0;
  double last_batch_best = 0;
  std::string reason;
  while (true) {
    reason = StopReason(stop, time_up(), m.result.steps, m.config.max_steps);
    if (!reason.empty()) break;
    if (!m.trainer && (!m.polish || m.polish->converged())) {
      reason = "converged";
      break;
    }
    if (m.Explores() &&
        m.ExplorationOver(std::chrono::duration<double>(Clock::now() - run_start).count(), steps_this_run)) {
      m.result.explore_seconds = m.Seconds();
      GO_RETURN_IF_ERROR(m.StartImitation(reference, [&] { return stopped() || time_up(); }));
    }
    if (m.trainer) {
      TrainerStepStats s;
      const int64_t before = m.trainer->plans_simulated();
      try {
        s = m.trainer->Step();
      } catch (const std::exception& e) {
        return InternalError(m.config.method + " training step: " + e.what());
      }
      m.result.plans_simulated += m.trainer->plans_simulated() - before;
      (m.Explores() ? m.result.explore_distance : m.result.imitate_distance).Add(s.units_off, s.levels_off, s.fuse_off);
      last_batch_best = s.best_step_us_in_batch;
      if (std::isfinite(s.best_step_us_in_batch)) m.result.ppo_best_us = std::min(m.result.ppo_best_us, s.best_step_us_in_batch);
      // (Exploring, the policy's plans are polished by the sample polish instead.)
      if (m.Offer(m.trainer->best_plan(), m.trainer->best_score(), m.ppo ? "ppo" : m.config.method) && m.polish &&
          !m.Explores()) {
        m.polish->Reset();
      }
    }
    if (m.polish && !m.polish->converged() && m.best_score.scored()) {
      Plan plan = m.best;
      PlanScore score = m.best_score;
      Rng rng(PolishSeed(m.config.seed, m.result.steps));
      const LocalSearchStats ls = m.polish->Polish(&plan, &score, rng, m.config.polish_evaluations, [&] {
        return stopped() || time_up();
      });
      m.result.plans_simulated += ls.evaluations;
      if (m.Offer(plan, score, "polish") && m.TrainerImitates()) m.trainer->OfferPlan(m.best, m.best_score);
    } else if (m.sample_polish && m.ppo) {
      m.PolishPolicySample([&] { return stopped() || time_up(); });
    }
    ++m.result.steps;
    ++steps_this_run;
    if (progress) {
      GoSearchProgress p;
      p.step = m.result.steps;
      p.seconds = m.Seconds();
      p.best = m.best_score;
      p.best_baseline_us = m.result.best_baseline_score.fits() ? m.result.best_baseline_score.step_time_us : 0;
      p.last_batch_best_us = last_batch_best;
      p.plans = m.result.plans_simulated;
      progress(p);
    }
    if (!m.config.checkpoint_dir.empty() && m.result.steps % m.config.checkpoint_every == 0) {
      GO_RETURN_IF_ERROR(m.SaveCheckpoint());
    }
  }
  m.result.stop_reason = reason;
  m.result.seconds = m.Seconds();
  m.result.num_units = m.ppo ? m.input.num_units : 0;
  m.result.units_split = !m.units_plan.device.empty();
  GO_RETURN_IF_ERROR(m.SaveCheckpoint());
  if (!m.best_score.scored()) return FailedPrecondition("the GO search found no plan that could be simulated");
  m.result.plan = m.best;
  m.result.score = m.best_score;
  return m.result;
}

}  // namespace graphopt
