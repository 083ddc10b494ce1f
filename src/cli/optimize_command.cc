// `graphopt optimize [MODEL] --cluster C`: the GO optimizer (rl/learned_search.h) on one
// model and cluster, with a progress line, clean stops (Ctrl-C, --time-limit),
// checkpoints and resume, and a closing table of the found plan against every
// baseline and the lower bound.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "baselines/baseline.h"
#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "cli/flag_table.h"
#include "cli/granularity.h"
#include "cli/interrupt.h"
#include "cli/verify_found.h"
#include "core/files.h"
#include "core/progress.h"
#include "core/strings.h"
#include "dist/world.h"
#include "exec/verify_plans.h"  // VerifyOptions (declarations only: no LibTorch in it)
#include "models/load.h"
#include "rl/learned_search.h"  // LearnedSearchConfig, whose fields the flags bind (no LibTorch in it)
#include "sim/cluster.h"
#include "sim/plan.h"
#include "sim/simulator.h"
#include "sim/trace.h"

#ifdef GRAPHOPT_HAVE_RL
#include "policy/go_policy_config.h"
#include "rl/baseline_scores.h"
#include "rl/default_policy.h"
#include "rl/methods.h"
#endif
#ifdef GRAPHOPT_HAVE_EXEC
#include "exec/measured_reward.h"
#endif

namespace graphopt {

namespace {

constexpr const char* kDefaultModel = "gnmt:layers=4";

// The command's own settings, bound to flags (cli/flag_table.h).
struct OptimizeRun {
  std::string method = "go";
  std::string cluster = kDefaultCluster;
  std::string profile;
  std::string reward = "simulated";
  bool zero_shot = false;
};
const OptionTable<OptimizeRun> kRunFlags{
    {"cluster", &OptimizeRun::cluster, "cluster preset, cluster .json file or local[:N]"},
    {"profile", &OptimizeRun::profile, "measured op times (graphopt profile) instead of the roofline"},
    {"reward", &OptimizeRun::reward,
     "measured: every plan the search scores is executed on --cluster local[:N] instead (the median of 3 steps "
     "after 1 warm-up), as ColocRL's reward is",
     OneOf({"simulated", "measured"})},
    {"method", &OptimizeRun::method, "learned optimizer: go, colocrl or hdp (graphopt methods lists them)"},
    {"zero-shot", &OptimizeRun::zero_shot,
     "plan in one pass of the policy (the greedy plan and the best of zero_shot_samples samples, " +
         std::to_string(ZeroShotOptions{}.samples) + " by default), no training"},
};

// The flags bound to LearnedSearchConfig's fields.
const OptionTable<LearnedSearchConfig> kOptimizeFlags{
    {"steps", &LearnedSearchConfig::budget, &SearchBudget::max_steps, "stop after this many steps, 0 for no limit", AtLeast(0)},
    {"time-limit", &LearnedSearchConfig::budget, &SearchBudget::time_limit_s, "stop after this many seconds, 0 for no limit", AtLeast(0)},
    {"seed", &LearnedSearchConfig::seed, "random seed"},
    {"checkpoint", &LearnedSearchConfig::checkpoints, &SearchCheckpoints::dir,
     "checkpoint folder: saved every " + std::to_string(LearnedSearchConfig{}.checkpoints.every) +
         " steps and at the end; resumed from if it holds one"},
    {"fixed-placement", &LearnedSearchConfig::fixed_placement,
     "with placement not among the tasks: the baseline whose placement every plan keeps "
     "(none given: tf-default; expert for the GO paper's sch+fu)"},
};

// The usage line's values of the bound flags (their tables have no metavars).
const std::map<std::string, std::string> kBoundMetavars{
    {"cluster", "C"},   {"profile", "F"},     {"reward", "simulated|measured"}, {"method", "go|colocrl|hdp"},
    {"steps", "N"},     {"time-limit", "S"},  {"seed", "S"},                    {"checkpoint", "DIR"},
    {"fixed-placement", "BASELINE"},
};

std::vector<FlagSpec> OptimizeFlags() {
  std::vector<FlagSpec> flags = FlagsAround(
      BoundFlags(kRunFlags), kOptimizeFlags,
      {
          {"threads", true, "threads for the simulator and LibTorch, 1 to 4 x the cores (default: every core)", "N"},
          {"out", true, "write the best plan to this .json file", "plan.json"},
          {"verify", true,
           "with --cluster local[:N]: execute the best plans of the K best placements the search found, the baselines' "
           "plans of other placements and the single-device plan on this machine's cores (" +
               std::to_string(VerifyOptions{}.steps) +
               " rounds, each plan's median step) "
               "and keep the one measured fastest (1 to " +
               std::to_string(kMaxTopPlans) + ")",
           "K"},
          {"trace", true, "write the best plan's timeline (Chrome trace) to this .json file", "trace.json"},
          {"convergence", true, "write the convergence trace (best step time over time) to this .json file",
           "conv.json"},
          {"policy", true,
           "options \"key=value,...\": policy config (hidden=64,...), PPO config (samples=32,epochs=1,lr=...) "
           "and the optimizer's ingredients (baselines=1,warm_start=1,train=1,polish=1,polish_evaluations=48); "
           "for colocrl and hdp, their own options; --policy help lists every key",
           "K=V,..."},
          {"preset", true,
           "a named set of --policy options (graphopt methods lists them: go-one, policy-alone, "
           "search-only, finetune); the keys of --policy override it"},
          {"tasks", true,
           "the decisions optimized: placement, scheduling, fusion joined with + (default all); the "
           "others keep TensorFlow's default (all ops on the first GPU, ready order, elementwise fusion)"},
          {"pretrained", true,
           "start from this pre-trained policy (graphopt pretrain): its zero-shot plan first, then training; "
           "none: a new policy (default: $GRAPHOPT_POLICY, else policies/default.pt if shipped)",
           "policy.pt|none"},
          {"finetune-steps", true,
           "fine-tune the pre-trained policy for this many PPO steps, then stop (as --steps); each step samples "
           "at least " +
               std::to_string(kFinetuneStepOps) +
               " ops in all (--policy step_ops=0: " + std::to_string(PpoConfig{}.samples_per_step) + " plans a step)",
           "N"},
      });
  for (FlagSpec& f : flags) {
    if (const auto it = kBoundMetavars.find(f.name); it != kBoundMetavars.end()) f.metavar = it->second;
  }
  for (const FlagSpec& f : GranularityFlags()) flags.push_back(f);
  flags.push_back(DimFlag());
  return flags;
}

#ifdef GRAPHOPT_HAVE_RL

std::string Seconds(double us) { return StrFormat("%.4f s", us / 1e6); }

// What found a plan, from its convergence source (rl/learned_search.h ConvergencePoint).
std::string PlanSourceText(const std::string& source) {
  if (source == "policy") return "a policy sample";
  if (source == "sample-polish") return "a polished policy sample";
  if (source == "polish") return "the polish of the best plan";
  if (source.rfind("baseline:", 0) == 0) return "the baseline " + source.substr(9);
  return source;
}

// The found plan against every plain baseline and the lower bound.
void PrintPlanTable(const std::string& label, const PlanScore& found, const std::vector<BaselineScore>& baselines,
                    double bound) {
  double expert = 0;
  for (const BaselineScore& b : baselines) {
    if (b.method == kExpertBaseline && b.score.fits()) expert = b.score.step_time_us;
  }
  std::printf("\n%-16s %12s %10s %10s %12s\n", "plan", "step time", "vs bound", "vs expert", "found plan is");
  auto row = [&](const std::string& name, const PlanScore& s, const std::string& error) {
    if (!error.empty()) {
      std::printf("%-16s %12s  %s\n", name.c_str(), "error", error.c_str());
      return;
    }
    if (!s.fits()) {
      std::printf("%-16s %12s %10s %10s %12s\n", name.c_str(), "OOM", "", "", "");
      return;
    }
    const std::string vs_expert = expert > 0 ? StrFormat("%.2fx", expert / s.step_time_us) : "-";
    const std::string faster = found.fits() ? StrFormat("%.2fx faster", s.step_time_us / found.step_time_us) : "-";
    std::printf("%-16s %12s %9.2fx %10s %12s\n", name.c_str(), Seconds(s.step_time_us).c_str(), s.step_time_us / bound,
                vs_expert.c_str(), faster.c_str());
  };
  row(label, found, "");
  for (const BaselineScore& b : baselines) {
    if (b.plain) row(b.method, b.score, b.error);
  }
  std::printf("%-16s %12s %9.2fx\n", "lower bound", Seconds(bound).c_str(), 1.0);
}

// --out and --trace of the plan.
Status WriteOutputs(const Args& args, const Graph& graph, const Simulator& sim, const Plan& plan) {
  if (args.Has("out")) {
    GO_RETURN_IF_ERROR(WritePlanJson(graph, plan, args.Get("out")));
    std::printf("plan written to %s\n", args.Get("out").c_str());
  }
  if (args.Has("trace")) {
    SimOptions options;
    options.record_timeline = true;
    GO_ASSIGN_OR_RETURN(const SimResult timeline, sim.Simulate(plan, options));
    GO_RETURN_IF_ERROR(WriteChromeTrace(graph, sim.cluster(), timeline, args.Get("trace")));
    std::printf("timeline written to %s\n", args.Get("trace").c_str());
  }
  return Status::Ok();
}

// --zero-shot: one pass of the pre-trained policy, then the closing table against
// the baselines (planned after the clock stopped).
Status RunZeroShot(const Args& args, const Graph& graph, const Simulator& sim, const LearnedSearchConfig& config) {
  const ZeroShotOptions options = SearchZeroShotOptions(config);
  GO_ASSIGN_OR_RETURN(const ZeroShotResult z, ZeroShotPlan(sim, config.pretrained.file, options));
  BaselineScoring scoring;
  scoring.seed = config.seed;
  const std::vector<BaselineScore> baselines = ScoreBaselines(sim, scoring);
  PrintPlanTable("zero-shot", z.score, baselines, sim.lower_bound().value_us());
  const char* source = z.from_single_device ? "best single-device"
                       : z.from_greedy      ? "greedy"
                       : z.from_coupled     ? "best coupled sampled"
                       : z.from_budgeted    ? "best memory-budgeted"
                                            : "best sampled";
  // A group's best is where its simulation stopped when it did: no plan of the group
  // beats the plan chosen.
  auto group = [&](const PlanScore& s, bool stopped) {
    if (!s.scored()) return std::string("-");
    if (stopped && !s.fits()) return std::string("OOM (simulation stopped at an overflow: it could not win)");
    if (stopped) return StrFormat("over %.4f s (simulation stopped there)", s.step_time_us / 1e6);
    return s.ToString();
  };
  std::printf("\nzero-shot plan of %s in %.2f s of wall time (forward passes and decoding %.2f s; %d units): the %s plan; "
              "greedy %s, best of %d samples %s, best of %d coupled samples %s",
              config.pretrained.file.c_str(), z.seconds, z.forward_seconds, z.num_units, source,
              z.greedy_score.ToString().c_str(), options.samples,
              group(z.best_sample_score, z.best_sample_stopped).c_str(), options.coupled_samples,
              group(z.best_coupled_score, z.best_coupled_stopped).c_str());
  if (z.best_budgeted_score.scored()) {
    const std::string lower =
        z.lower_rung_plans > 0 ? StrFormat(" (%d at lower budgets: no other plan fit)", z.lower_rung_plans) : "";
    std::printf(", best of %d memory-budgeted plans%s %s", options.budgeted_plans + z.lower_rung_plans,
                lower.c_str(), group(z.best_budgeted_score, z.best_budgeted_stopped).c_str());
  }
  if (z.best_single_device_score.scored()) {
    std::printf(", best of %d plans on the fastest accelerator alone %s", options.single_device_plans,
                group(z.best_single_device_score, z.best_single_device_stopped).c_str());
  }
  std::printf("; %d of %d simulations stopped early (they could not win)\n", z.stopped_plans, z.num_plans);
  return WriteOutputs(args, graph, sim, z.plan);
}

// The header's lines of a GO search: the tasks it decides (if not all) and the policy it
// starts from.
void PrintPolicyLines(const LearnedSearchConfig& config, const DefaultPolicy& policy) {
  const std::optional<GoPolicyConfig>& policy_config = config.policy;
  if (policy_config && policy_config->tasks != kAllTasks) {
    std::string others = "the others TensorFlow's default";
    if ((policy_config->tasks & kTaskPlacement) == 0) {
      others += " (placement of " + (config.fixed_placement.empty() ? "tf-default" : config.fixed_placement) + ")";
    }
    std::printf("tasks    %s optimized; %s\n", TasksToString(policy_config->tasks).c_str(), others.c_str());
  }
  if (config.pretrained.file.empty()) {
    std::printf("policy   new, trained from scratch (%s)\n", policy.origin.c_str());
  } else {
    std::printf("policy   pre-trained %s (%s)\n", config.pretrained.file.c_str(), policy.origin.c_str());
  }
}

// What a finished search found: its plan against the baselines, where the plan came
// from, the policy's samples, the speed-up over the best baseline.
void PrintSearchReport(const std::string& method, const LearnedSearchResult& r, const Simulator& sim) {
  PrintPlanTable(method + " (found)", r.score, r.baselines, sim.lower_bound().value_us());
  std::printf(
      "\nfound after %.1f s (%lld plans simulated in %lld steps, %.1f s in all); improvements: %d by policy samples, "
      "%d by polished policy samples, %d by the polish",
      r.seconds_to_best, static_cast<long long>(r.plans_simulated), static_cast<long long>(r.steps), r.seconds,
      r.improvements_policy, r.improvements_sample_polish, r.improvements_polish);
  if (!r.trace.empty()) {
    const std::string last = r.trace.back().source, origin = PlanOrigin(r.trace);
    std::printf("; the plan comes from %s", PlanSourceText(last).c_str());
    if (origin != last) std::printf(", polishing %s", PlanSourceText(origin).c_str());
  }
  if (r.zero_shot_score.scored()) {
    std::printf("; zero-shot plan of the pre-trained policy %s in %.2f s", r.zero_shot_score.ToString().c_str(),
                r.zero_shot_seconds);
  }
  if (std::isfinite(r.policy_best_us) && r.score.scored()) {
    std::printf("; best policy sample %s (%.2fx the plan's time)", Seconds(r.policy_best_us).c_str(),
                r.policy_best_us / r.score.step_time_us);
  }
  std::printf("\n");
  // How far the policy's samples were from the best plan they explore around or imitate.
  for (const auto& [phase, d] :
       {std::pair{"exploring", r.explore_distance}, std::pair{"imitating", r.imitate_distance}}) {
    if (d.steps == 0) continue;
    std::string tasks = StrFormat("%.1f%% of units placed elsewhere", 100 * d.units);
    if (d.levels >= 0) tasks += StrFormat(", %.1f%% of ops at another priority level", 100 * d.levels);
    if (d.fuse >= 0) tasks += StrFormat(", %.1f%% of fusion flags flipped", 100 * d.fuse);
    std::printf("policy samples against the best plan while %s (mean of %lld steps): %s\n", phase,
                static_cast<long long>(d.steps), tasks.c_str());
  }
  if (!r.best_baseline.empty()) {
    std::printf("best baseline: %s (%s); the found plan is %.2fx faster\n", r.best_baseline.c_str(),
                Seconds(r.best_baseline_score.step_time_us).c_str(),
                r.best_baseline_score.step_time_us / r.score.step_time_us);
  }
}

// What the flags decide before the model is loaded.
struct OptimizeSetup {
  OptimizeRun run;
  std::string model;
  bool default_model = false;
  const LearnedMethod* learned = nullptr;
  LearnedSearchConfig config;
  SearchHandles handles;                    // the ranks, the measured reward
  DefaultPolicy policy;                     // the pre-trained policy chosen, or none
  std::vector<std::vector<int>> core_sets;  // of the local cluster, with a measured reward or --verify
  int verify = 0;                           // --verify K (0: none)
};

// Under mpirun the ranks search together (SearchHandles::world); rank 0 alone
// prints and writes, and a rank that fails ends the job (dist/world.h).
Status EndJobOnError(const Status& status) {
  World& world = World::Get();
  if (!status.ok() && world.distributed()) {
    world.Abort(StrFormat("error: optimize: rank %d: ", world.rank()) + status.message());
  }
  return status;
}
template <class T>
StatusOr<T> EndJobOnError(StatusOr<T> result) {
  if (!result.ok()) EndJobOnError(result.status());
  return result;
}

// --threads and the ranks of an MPI job: the ranks other than 0 print nothing.
Status JoinRanks(const Args& args, bool zero_shot, LearnedSearchConfig* config, SearchHandles* handles) {
  World& world = World::Get();
  if (world.distributed() && zero_shot) {
    return InvalidArgument("--zero-shot is one forward pass of one process: run it without mpirun");
  }
  if (world.distributed() && !world.root() && std::freopen("/dev/null", "w", stdout) == nullptr) {
    return IoError(StrFormat("rank %d cannot leave the printing to rank 0", world.rank()));
  }
  GO_ASSIGN_OR_RETURN(const int threads, ThreadsFlag(args, ThreadsPerRank()));
  config->budget.threads = threads;
  handles->world = world.distributed() ? &world : nullptr;
  return Status::Ok();
}

// The method, its defaults and the flags bound to the run and to the search,
// checked against each other.
Status ApplyRunFlags(const Args& args, OptimizeSetup* s) {
  GO_RETURN_IF_ERROR(ApplyBoundFlags(args, kRunFlags, &s->run));
  auto defaults = DefaultSearchConfig(s->run.method);
  if (!defaults.ok()) return defaults.status().WithContext("--method");
  s->learned = FindLearnedMethod(s->run.method).value();
  s->default_model = args.positional().empty();
  s->model = s->default_model ? kDefaultModel : args.positional()[0];
  if (args.Has("verify")) {
    GO_ASSIGN_OR_RETURN(const int64_t k, args.GetIntInRange("verify", 0, 1, kMaxTopPlans));
    s->verify = static_cast<int>(k);
    if (s->run.zero_shot) return InvalidArgument("--verify executes the plans a search found: not with --zero-shot");
    if (World::Get().distributed()) return InvalidArgument("--verify runs plans on this machine's cores: without mpirun");
  }
  for (const auto& [wanted, flag] : {std::pair{s->run.reward == "measured", "--reward measured"},
                                     std::pair{s->verify > 0, "--verify"}}) {
    if (!wanted || !s->core_sets.empty()) continue;
#ifdef GRAPHOPT_HAVE_EXEC
    auto sets = LocalCoresWithThreads(s->run.cluster, args.argv());
    if (!sets.ok()) return sets.status().WithContext(flag);
    s->core_sets = std::move(*sets);
#else
    return FailedPrecondition(std::string(flag) + ": this build has no executor (LibTorch was not found)");
#endif
  }
  s->config = std::move(*defaults);
  GO_RETURN_IF_ERROR(ApplyBoundFlags(args, kOptimizeFlags, &s->config));
  if (s->run.zero_shot && (args.Has("finetune-steps") || args.Has("steps") || args.Has("checkpoint"))) {
    return InvalidArgument("--zero-shot trains nothing: it takes no --steps, --finetune-steps or --checkpoint");
  }
  if (args.Has("finetune-steps")) {
    if (args.Has("steps")) return InvalidArgument("give --steps or --finetune-steps, not both");
    GO_ASSIGN_OR_RETURN(s->config.budget.max_steps, args.GetIntInRange("finetune-steps", 0, 1, int64_t{1} << 40));
    s->config.sampling.step_ops = kFinetuneStepOps;
  }
  GO_RETURN_IF_ERROR(JoinRanks(args, s->run.zero_shot, &s->config, &s->handles));
  if (args.Has("pretrained") && args.Get("pretrained") != "none" && !s->learned->go_policy) {
    return InvalidArgument("--pretrained is a GO policy: it needs --method go");
  }
  return Status::Ok();
}

// --preset, --policy and --tasks into the search's options; the pre-trained policy.
Status ApplyPolicyFlags(const Args& args, OptimizeSetup* s) {
  if ((args.Has("tasks") || args.Has("fixed-placement")) && !s->learned->go_policy) {
    return InvalidArgument("--tasks and --fixed-placement are options of --method go (the others decide placement only)");
  }
  std::string options = args.Get("policy");
  if (args.Has("preset")) options = "preset=" + args.Get("preset") + (options.empty() ? "" : "," + options);
  if (args.Has("tasks")) options += (options.empty() ? "" : ",") + std::string("tasks=") + args.Get("tasks");
  GO_ASSIGN_OR_RETURN(s->config, ParseLearnedSearchOptions(options, s->config));
  std::optional<std::string> given;
  if (args.Has("pretrained")) given = args.Get("pretrained");
  GO_ASSIGN_OR_RETURN(s->policy, ChoosePretrained(given, "--pretrained", s->learned->name, s->learned->go_policy,
                                                  s->config.policy.has_value(), ProgramCheckout()));
  s->config.pretrained.file = s->policy.path;
  if ((s->run.zero_shot || args.Has("finetune-steps")) && s->config.pretrained.file.empty()) {
    return InvalidArgument("--zero-shot and --finetune-steps need a pre-trained policy: --pretrained FILE (" +
                           s->policy.origin + ")");
  }
  return Status::Ok();
}

// The run's header: model, cluster, limits, preset, tasks and policy, ranks.
void PrintHeader(const Args& args, const OptimizeSetup& s, const Graph& graph, const Cluster& cluster,
                 const std::string& granularity) {
  const LearnedSearchConfig& config = s.config;
  std::printf("model    %s%s: %d ops\n", s.model.c_str(), s.default_model ? " (default)" : "", graph.num_ops());
  std::printf("cluster  %s\n", cluster.Summary().c_str());
  if (!granularity.empty()) std::printf("%s\n", granularity.c_str());
  std::printf("limits   %s, %s; seed %llu\n",
              config.budget.max_steps > 0 ? StrFormat("%lld steps", static_cast<long long>(config.budget.max_steps)).c_str() : "no step limit",
              config.budget.time_limit_s > 0 ? StrFormat("%.0f s", config.budget.time_limit_s).c_str() : "no time limit",
              static_cast<unsigned long long>(config.seed));
  if (args.Has("preset")) {
    std::printf("preset   %s (%s)\n", args.Get("preset").c_str(), FindSearchPreset(args.Get("preset")).value()->options.c_str());
  }
  if (s.learned->go_policy) PrintPolicyLines(config, s.policy);
  const World& world = World::Get();
  if (world.distributed()) {
    std::printf("ranks    %d (%d threads each): each PPO step's samples shared out over them, the gradients summed; "
                "a local search on each; the best plan shared after every step\n",
                world.size(), config.budget.threads);
  }
  std::fflush(stdout);
}

// --reward measured: every plan the search scores is executed on the local cluster.
Status UseMeasuredReward(const Simulator& sim, OptimizeSetup* s) {
  if (World::Get().distributed()) {
    return InvalidArgument("--reward measured runs plans on this machine's cores: without mpirun");
  }
#ifdef GRAPHOPT_HAVE_EXEC
  MeasuredRewardOptions measure;
  measure.seed = s->config.seed;
  s->handles.measure = MeasuredReward(sim, s->core_sets, measure);
  std::printf("reward   measured: every plan scored is executed on %s (median of %d steps after %d warm-up)\n",
              s->run.cluster.c_str(), measure.steps, measure.warmup);
  std::fflush(stdout);
#else
  (void)sim;
  (void)s;
#endif
  return Status::Ok();
}

// The search to its stop, on every rank; rank 0 shows its progress line.
StatusOr<LearnedSearchResult> RunSearch(const Simulator& sim, const LearnedSearchConfig& config,
                                        const SearchHandles& handles) {
  GO_ASSIGN_OR_RETURN(const std::unique_ptr<LearnedSearch> search, LearnedSearch::Create(sim, config, handles));
  const ScopedInterrupt interrupt;
  if (!World::Get().root()) return search->Run(interrupt.flag());
  ProgressBar bar("optimize", config.budget.max_steps);
  auto on_step = [&](const LearnedSearchProgress& p) {
    std::string suffix = "best " + p.best.ToString();
    if (p.best_baseline_us > 0 && p.best.fits())
      suffix += StrFormat(" (%.2fx of best baseline)", p.best.step_time_us / p.best_baseline_us);
    suffix += StrFormat("  %lld plans", static_cast<long long>(p.plans));
    bar.Update(p.step, "iter " + std::to_string(p.step) + "  " + suffix);
  };
  GO_ASSIGN_OR_RETURN(LearnedSearchResult result, search->Run(interrupt.flag(), on_step));
  bar.Finish(StrFormat("stopped (%s) after %lld steps, %.1f s", result.stop_reason.c_str(),
                       static_cast<long long>(result.steps), result.seconds));
  return result;
}

// The search, then (on rank 0) its report and the files of --convergence, --out, --trace.
Status Train(const Args& args, const Graph& graph, const Simulator& sim, OptimizeSetup* s) {
  if (s->run.reward == "measured") GO_RETURN_IF_ERROR(EndJobOnError(UseMeasuredReward(sim, s)));
  s->config.keep_plans = s->verify;
  GO_ASSIGN_OR_RETURN(const LearnedSearchResult result, EndJobOnError(RunSearch(sim, s->config, s->handles)));
  if (!World::Get().root()) return Status::Ok();
  if (result.resumed) std::printf("resumed from %s\n", s->config.checkpoints.dir.c_str());
  PrintSearchReport(s->run.method, result, sim);
  if (args.Has("convergence")) {
    GO_RETURN_IF_ERROR(WriteFileAtomic(args.Get("convergence"), ConvergenceJson(result.trace)));
    std::printf("convergence trace written to %s\n", args.Get("convergence").c_str());
  }
  if (s->verify == 0) return WriteOutputs(args, graph, sim, result.plan);
#ifdef GRAPHOPT_HAVE_EXEC
  std::printf(
      "\nverify   executing the best plans of the %zu best placements found, the baselines' plans of "
      "other placements and the single-device plan on %s\n",
      result.top_plans.size(), s->run.cluster.c_str());
  std::fflush(stdout);
  const ScopedInterrupt interrupt;
  GO_ASSIGN_OR_RETURN(
      const VerifyResult verified,
      VerifyFoundPlans(sim, s->core_sets, result.top_plans, result.baseline_plans, s->config.seed, interrupt.flag()));
  return WriteOutputs(args, graph, sim, verified.plan);
#else
  return FailedPrecondition("--verify: this build has no executor");
#endif
}

#endif

Status Optimize(const Args& args) {
#ifndef GRAPHOPT_HAVE_RL
  (void)args;
  return FailedPrecondition("this build has no training library (LibTorch was not found)");
#else
  OptimizeSetup setup;
  GO_RETURN_IF_ERROR(ApplyRunFlags(args, &setup));
  if (args.Get("policy") == "help") {
    std::printf(
        "--policy \"key=value,...\" of --method %s: every key, its value in this run, its meaning and range\n%s",
        setup.run.method.c_str(), LearnedSearchOptionsHelp(setup.config).c_str());
    return Status::Ok();
  }
  GO_RETURN_IF_ERROR(ApplyPolicyFlags(args, &setup));

  GO_ASSIGN_OR_RETURN(const LoadOptions load, ModelLoadOptions(args));
  GO_ASSIGN_OR_RETURN(Graph graph, LoadModel(setup.model, load));
  GO_ASSIGN_OR_RETURN(const Cluster cluster, LoadClusterAndProfile(setup.run.cluster, setup.run.profile, &graph));
  GO_ASSIGN_OR_RETURN(const std::string granularity, ApplyGranularityFlags(args, cluster, &graph));
  GO_ASSIGN_OR_RETURN(const Simulator sim, Simulator::Create(graph, cluster));
  PrintHeader(args, setup, graph, cluster, granularity);
  if (setup.run.zero_shot) {
    if (setup.run.reward == "measured") {
      return InvalidArgument("--zero-shot ranks its plans by the simulator: no --reward measured");
    }
    return RunZeroShot(args, graph, sim, setup.config);
  }
  return Train(args, graph, sim, &setup);
#endif
}

}  // namespace

Command OptimizeCommand() {
  Command c;
  c.name = "optimize";
  c.positional = "[MODEL]";
  c.max_positional = 1;
  c.summary = std::string("learn a plan (default: ") + kDefaultModel + " on " + kDefaultCluster + ")";
  c.flags = OptimizeFlags;
  c.outputs = {"out", "trace", "convergence"};
  c.notes = std::string("Optimizes the plan of MODEL (default ") + kDefaultModel + " on " + kDefaultCluster +
            ") with the GO policy trained by PPO,\n"
            "starting from the best baseline and polishing with local search; --method colocrl|hdp trains the\n"
            "earlier learned placers instead, from scratch as published. Ctrl-C stops after the current step and\n"
            "keeps the best plan. 'mpirun -np N graphopt optimize ...' shares each PPO step's samples out over N\n"
            "ranks, sums their gradients and shares the best plan after every step (rank 0 writes and prints).";
  c.run = Optimize;
  return c;
}

}  // namespace graphopt
