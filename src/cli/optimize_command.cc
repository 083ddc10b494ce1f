// `graphopt optimize [MODEL] --cluster C`: the GO optimizer (rl/learned_search.h) on one
// model and cluster, with a progress line, clean stops (Ctrl-C, --time-limit),
// checkpoints and resume, and a closing table of the found plan against every
// baseline and the lower bound.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "cli/flag_table.h"
#include "cli/granularity.h"
#include "cli/interrupt.h"
#include "core/files.h"
#include "core/progress.h"
#include "core/strings.h"
#include "dist/world.h"
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

int Fail(const std::string& message) { return CommandError("optimize", message); }

#ifdef GRAPHOPT_HAVE_RL

std::string Seconds(double us) { return StrFormat("%.4f s", us / 1e6); }

// What found a plan, from its convergence source (rl/learned_search.h ConvergencePoint).
std::string PlanSourceText(const std::string& source) {
  if (source == "ppo") return "a policy sample";
  if (source == "ppo+polish") return "a polished policy sample";
  if (source == "polish") return "the local search";
  if (source.rfind("baseline:", 0) == 0) return "the baseline " + source.substr(9);
  return source;
}

// The found plan against every plain baseline and the lower bound.
void PrintPlanTable(const std::string& label, const PlanScore& found, const std::vector<BaselineScore>& baselines,
                    double bound) {
  double expert = 0;
  for (const BaselineScore& b : baselines) {
    if (b.method == "expert" && b.score.fits()) expert = b.score.step_time_us;
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
int WriteOutputs(const Args& args, const Graph& graph, const Simulator& sim, const Plan& plan) {
  if (args.Has("out")) {
    Status w = WritePlanJson(graph, plan, args.Get("out"));
    if (!w.ok()) return Fail(w.message());
    std::printf("plan written to %s\n", args.Get("out").c_str());
  }
  if (args.Has("trace")) {
    SimOptions options;
    options.record_timeline = true;
    auto timeline = sim.Simulate(plan, options);
    if (!timeline.ok()) return Fail(timeline.status().message());
    Status w = WriteChromeTrace(graph, sim.cluster(), *timeline, args.Get("trace"));
    if (!w.ok()) return Fail(w.message());
    std::printf("timeline written to %s\n", args.Get("trace").c_str());
  }
  return 0;
}

// --zero-shot: one pass of the pre-trained policy, then the closing table against
// the baselines (planned after the clock stopped).
int RunZeroShot(const Args& args, const Graph& graph, const Simulator& sim, const LearnedSearchConfig& config) {
  const ZeroShotOptions options = SearchZeroShotOptions(config);
  auto z = ZeroShotPlan(sim, config.pretrained, options);
  if (!z.ok()) return Fail(z.status().message());
  BaselineScoring scoring;
  scoring.seed = config.seed;
  const std::vector<BaselineScore> baselines = ScoreBaselines(sim, scoring);
  PrintPlanTable("zero-shot", z->score, baselines, sim.lower_bound().value_us());
  const char* source = z->from_single_device ? "best single-device"
                       : z->from_greedy      ? "greedy"
                       : z->from_coupled     ? "best coupled sampled"
                       : z->from_budgeted    ? "best memory-budgeted"
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
              config.pretrained.c_str(), z->seconds, z->forward_seconds, z->num_units, source,
              z->greedy_score.ToString().c_str(), options.samples,
              group(z->best_sample_score, z->best_sample_stopped).c_str(), options.coupled_samples,
              group(z->best_coupled_score, z->best_coupled_stopped).c_str());
  if (z->best_budgeted_score.scored()) {
    const std::string lower =
        z->lower_rung_plans > 0 ? StrFormat(" (%d at lower budgets: no other plan fit)", z->lower_rung_plans) : "";
    std::printf(", best of %d memory-budgeted plans%s %s", options.budgeted_plans + z->lower_rung_plans,
                lower.c_str(), group(z->best_budgeted_score, z->best_budgeted_stopped).c_str());
  }
  if (z->best_single_device_score.scored()) {
    std::printf(", best of %d plans on the fastest accelerator alone %s", options.single_device_plans,
                group(z->best_single_device_score, z->best_single_device_stopped).c_str());
  }
  std::printf("; %d of %d simulations stopped early (they could not win)\n", z->stopped_plans, z->num_plans);
  return WriteOutputs(args, graph, sim, z->plan);
}

#endif

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
    {"steps", &LearnedSearchConfig::max_steps, "stop after this many steps, 0 for no limit", AtLeast(0)},
    {"time-limit", &LearnedSearchConfig::time_limit_s, "stop after this many seconds, 0 for no limit", AtLeast(0)},
    {"seed", &LearnedSearchConfig::seed, "random seed"},
    {"checkpoint", &LearnedSearchConfig::checkpoint_dir,
     "checkpoint folder: saved every " + std::to_string(LearnedSearchConfig{}.checkpoint_every) +
         " steps and at the end; resumed from if it holds one"},
    {"fixed-placement", &LearnedSearchConfig::fixed_placement,
     "with placement not among the tasks: the baseline whose placement every plan keeps "
     "(none given: tf-default; expert for the GO paper's sch+fu)"},
};

std::vector<FlagSpec> OptimizeFlags() {
  std::vector<FlagSpec> flags = FlagsAround(
      BoundFlags(kRunFlags), kOptimizeFlags,
      {
          {"threads", true, "threads for the simulator and LibTorch, 1 to 4 x the cores (default: every core)"},
          {"out", true, "write the best plan to this .json file"},
          {"trace", true, "write the best plan's timeline (Chrome trace) to this .json file"},
          {"convergence", true, "write the convergence trace (best step time over time) to this .json file"},
          {"policy", true,
           "options \"key=value,...\": policy config (hidden=64,...), PPO config (samples=32,epochs=1,lr=...) "
           "and the optimizer's ingredients (baselines=1,warm_start=1,ppo=1,polish=1,polish_evaluations=48); "
           "for colocrl and hdp, their own options; --policy help lists every key"},
          {"preset", true,
           "a named set of --policy options (graphopt methods lists them: go-one, policy-alone, "
           "search-only, finetune); the keys of --policy override it"},
          {"tasks", true,
           "the decisions optimized: placement, scheduling, fusion joined with + (default all); the "
           "others keep TensorFlow's default (all ops on the first GPU, ready order, elementwise fusion)"},
          {"pretrained", true,
           "start from this pre-trained policy (graphopt pretrain): its zero-shot plan first, then training; "
           "none: a new policy (default: $GRAPHOPT_POLICY, else policies/default.pt if shipped)"},
          {"finetune-steps", true,
           "fine-tune the pre-trained policy for this many PPO steps, then stop (as --steps); each step samples "
           "at least " +
               std::to_string(kFinetuneStepOps) +
               " ops in all (--policy step_ops=0: " + std::to_string(PpoConfig{}.samples_per_step) + " plans a step)"},
      });
  for (const FlagSpec& f : GranularityFlags()) flags.push_back(f);
  flags.push_back(DimFlag());
  flags.push_back({"help", false, "show this help"});
  return flags;
}

std::string Usage() {
  return std::string("usage: graphopt optimize [MODEL] [--cluster C] [--steps N] [--time-limit S] [--seed S] [--out plan.json]\n"
                     "                         [--trace trace.json] [--checkpoint DIR] [--method go|colocrl|hdp] [--policy K=V,...]\n"
                     "                         [--pretrained policy.pt|none] [--zero-shot | --finetune-steps N]\n"
                     "                         [--tasks placement+scheduling+fusion] [--fixed-placement BASELINE]\n"
                     "  Optimizes the plan of MODEL (default ") +
         kDefaultModel + " on " + kDefaultCluster +
         ") with the GO policy trained by PPO, starting from the best baseline and polishing with local search;\n"
         "  --method colocrl|hdp trains the earlier learned placers instead, from scratch as published.\n"
         "  Ctrl-C stops after the current step and keeps the best plan.\n"
         "  'mpirun -np N graphopt optimize ...' shares each PPO step's samples out over N ranks, sums their gradients\n"
         "  and shares the best plan after every step (rank 0 writes and prints).\n" +
         FlagsHelp(OptimizeFlags());
}

#ifdef GRAPHOPT_HAVE_RL
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
  if (config.pretrained.empty()) {
    std::printf("policy   new, trained from scratch (%s)\n", policy.origin.c_str());
  } else {
    std::printf("policy   pre-trained %s (%s)\n", config.pretrained.c_str(), policy.origin.c_str());
  }
}

// What a finished search found: its plan against the baselines, where the plan came
// from, the policy's samples, the speed-up over the best baseline.
void PrintSearchReport(const std::string& method, const LearnedSearchResult& r, const Simulator& sim) {
  PrintPlanTable(method + " (found)", r.score, r.baselines, sim.lower_bound().value_us());
  std::printf(
      "\nfound after %.1f s (%lld plans simulated in %lld steps, %.1f s in all); improvements: %d by PPO samples, "
      "%d by polished PPO samples, %d by local search",
      r.seconds_to_best, static_cast<long long>(r.plans_simulated), static_cast<long long>(r.steps), r.seconds,
      r.improvements_ppo, r.improvements_sample_polish, r.improvements_polish);
  if (!r.trace.empty()) {
    const std::string last = r.trace.back().source, origin = PlanOrigin(r.trace);
    std::printf("; the plan comes from %s", PlanSourceText(last).c_str());
    if (origin != last) std::printf(", polishing %s", PlanSourceText(origin).c_str());
  }
  if (r.zero_shot_score.scored()) {
    std::printf("; zero-shot plan of the pre-trained policy %s in %.2f s", r.zero_shot_score.ToString().c_str(),
                r.zero_shot_seconds);
  }
  if (std::isfinite(r.ppo_best_us) && r.score.scored()) {
    std::printf("; best policy sample %s (%.2fx the plan's time)", Seconds(r.ppo_best_us).c_str(),
                r.ppo_best_us / r.score.step_time_us);
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
#endif

}  // namespace

int RunOptimizeCommand(int argc, char** argv) {
  auto args = Args::Parse("optimize", argc, argv, 2, OptimizeFlags());
  if (!args.ok()) return Fail(args.status().message() + "\n" + Usage());
  if (args->Has("help")) {
    std::printf("%s", Usage().c_str());
    return 0;
  }
#ifndef GRAPHOPT_HAVE_RL
  return Fail("this build has no training library (LibTorch was not found)");
#else
  if (args->positional().size() > 1) return Fail("expected at most one MODEL\n" + Usage());
  OptimizeRun run;
  if (Status flags = ApplyBoundFlags(*args, kRunFlags, &run); !flags.ok()) return Fail(flags.message());
  const std::string& method = run.method;
  auto defaults = DefaultSearchConfig(method);
  if (!defaults.ok()) return Fail("--method: " + defaults.status().message());
  const LearnedMethod& learned = *FindLearnedMethod(method).value();
  const bool default_model = args->positional().empty();
  const std::string model = default_model ? kDefaultModel : args->positional()[0];
  const std::string& cluster_name = run.cluster;
  const std::string& reward = run.reward;
  std::vector<std::vector<int>> core_sets;  // of the local cluster, with a measured reward
  if (reward == "measured") {
#ifdef GRAPHOPT_HAVE_EXEC
    auto sets = LocalCoresWithThreads(cluster_name, argv);
    if (!sets.ok()) return Fail("--reward measured: " + sets.status().message());
    core_sets = std::move(*sets);
#else
    return Fail("--reward measured: this build has no executor (LibTorch was not found)");
#endif
  }
  LearnedSearchConfig config = *defaults;
  if (Status flags = ApplyBoundFlags(*args, kOptimizeFlags, &config); !flags.ok()) return Fail(flags.message());
  const bool zero_shot = run.zero_shot;
  if (zero_shot && (args->Has("finetune-steps") || args->Has("steps") || args->Has("checkpoint"))) {
    return Fail("--zero-shot trains nothing: it takes no --steps, --finetune-steps or --checkpoint");
  }
  if (args->Has("finetune-steps")) {
    if (args->Has("steps")) return Fail("give --steps or --finetune-steps, not both");
    auto steps = args->GetIntInRange("finetune-steps", 0, 1, int64_t{1} << 40);
    if (!steps.ok()) return Fail(steps.status().message());
    config.max_steps = *steps;
    config.step_ops = kFinetuneStepOps;
  }
  // Under mpirun the ranks search together (LearnedSearchConfig::world); rank 0 alone prints
  // and writes, and a rank that fails ends the job (dist/world.h).
  World& world = World::Get();
  if (world.distributed() && zero_shot) {
    return Fail("--zero-shot is one forward pass of one process: run it without mpirun");
  }
  if (world.distributed() && !world.root() && std::freopen("/dev/null", "w", stdout) == nullptr) {
    return Fail(StrFormat("rank %d cannot leave the printing to rank 0", world.rank()));
  }
  auto fail_all = [&](const std::string& message) {
    if (world.distributed()) world.Abort(StrFormat("error: optimize: rank %d: ", world.rank()) + message);
    return Fail(message);
  };
  auto threads = ThreadsFlag(*args, ThreadsPerRank());
  if (!threads.ok()) return Fail(threads.status().message());
  config.threads = static_cast<int>(*threads);
  config.world = world.distributed() ? &world : nullptr;
  if (args->Has("pretrained") && args->Get("pretrained") != "none" && !learned.go_policy) {
    return Fail("--pretrained is a GO policy: it needs --method go");
  }
  if (args->Get("policy") == "help") {
    std::printf(
        "--policy \"key=value,...\" of --method %s: every key, its value in this run, its meaning and range\n%s",
        method.c_str(), LearnedSearchOptionsHelp(config).c_str());
    return 0;
  }
  if ((args->Has("tasks") || args->Has("fixed-placement")) && !learned.go_policy) {
    return Fail("--tasks and --fixed-placement are options of --method go (the others decide placement only)");
  }
  std::string options = args->Get("policy");
  if (args->Has("preset")) options = "preset=" + args->Get("preset") + (options.empty() ? "" : "," + options);
  if (args->Has("tasks")) options += (options.empty() ? "" : ",") + std::string("tasks=") + args->Get("tasks");
  auto parsed = ParseLearnedSearchOptions(options, config);
  if (!parsed.ok()) return Fail(parsed.status().message());
  config = std::move(*parsed);
  std::optional<std::string> given;
  if (args->Has("pretrained")) given = args->Get("pretrained");
  auto policy = ChoosePretrained(given, "--pretrained", learned.name, learned.go_policy, config.policy.has_value(),
                                 ProgramCheckout());
  if (!policy.ok()) return Fail(policy.status().message());
  config.pretrained = policy->path;
  if ((zero_shot || args->Has("finetune-steps")) && config.pretrained.empty()) {
    return Fail("--zero-shot and --finetune-steps need a pre-trained policy: --pretrained FILE (" + policy->origin + ")");
  }

  // Before the long run: its results must have somewhere to go.
  Status outputs = args->CheckOutputs({"out", "trace", "convergence"});
  if (!outputs.ok()) return Fail(outputs.message());

  auto load = ModelLoadOptions(*args);
  if (!load.ok()) return Fail(load.status().message());
  auto graph = LoadModel(model, *load);
  if (!graph.ok()) return Fail(graph.status().message());
  auto cluster = LoadClusterAndProfile(cluster_name, run.profile, &*graph);
  if (!cluster.ok()) return Fail(cluster.status().message());
  auto granularity = ApplyGranularityFlags(*args, *cluster, &*graph);
  if (!granularity.ok()) return Fail(granularity.status().message());
  auto sim = Simulator::Create(*graph, *cluster);
  if (!sim.ok()) return Fail(sim.status().message());
  std::printf("model    %s%s: %d ops\n", model.c_str(), default_model ? " (default)" : "", graph->num_ops());
  std::printf("cluster  %s\n", cluster->Summary().c_str());
  if (!granularity->empty()) std::printf("%s\n", granularity->c_str());
  std::printf("limits   %s, %s; seed %llu\n",
              config.max_steps > 0 ? StrFormat("%lld steps", static_cast<long long>(config.max_steps)).c_str() : "no step limit",
              config.time_limit_s > 0 ? StrFormat("%.0f s", config.time_limit_s).c_str() : "no time limit",
              static_cast<unsigned long long>(config.seed));
  if (args->Has("preset")) {
    std::printf("preset   %s (%s)\n", args->Get("preset").c_str(), FindSearchPreset(args->Get("preset")).value()->options.c_str());
  }
  if (learned.go_policy) PrintPolicyLines(config, *policy);
  if (world.distributed()) {
    std::printf("ranks    %d (%d threads each): each PPO step's samples shared out over them, the gradients summed; "
                "a local search on each; the best plan shared after every step\n",
                world.size(), config.threads);
  }
  std::fflush(stdout);

  if (zero_shot) {
    if (reward == "measured") return Fail("--zero-shot ranks its plans by the simulator: no --reward measured");
    return RunZeroShot(*args, *graph, *sim, config);
  }
  if (reward == "measured") {
    if (world.distributed()) return fail_all("--reward measured runs plans on this machine's cores: without mpirun");
#ifdef GRAPHOPT_HAVE_EXEC
    MeasuredRewardOptions measure;
    measure.seed = config.seed;
    config.measure = MeasuredReward(*sim, core_sets, measure);
    std::printf("reward   measured: every plan scored is executed on %s (median of %d steps after %d warm-up)\n",
                cluster_name.c_str(), measure.steps, measure.warmup);
    std::fflush(stdout);
#endif
  }
  auto search = LearnedSearch::Create(*sim, config);
  if (!search.ok()) return fail_all(search.status().message());
  const ScopedInterrupt interrupt;
  if (!world.root()) {
    auto result = (*search)->Run(interrupt.flag());
    if (!result.ok()) return fail_all(result.status().message());
    return 0;
  }
  ProgressBar bar("optimize", config.max_steps);
  auto on_step = [&](const LearnedSearchProgress& p) {
    std::string suffix = "best " + p.best.ToString();
    if (p.best_baseline_us > 0 && p.best.fits())
      suffix += StrFormat(" (%.2fx of best baseline)", p.best.step_time_us / p.best_baseline_us);
    suffix += StrFormat("  %lld plans", static_cast<long long>(p.plans));
    bar.Update(p.step, "iter " + std::to_string(p.step) + "  " + suffix);
  };
  auto result = (*search)->Run(interrupt.flag(), on_step);
  if (!result.ok()) return fail_all(result.status().message());
  bar.Finish(StrFormat("stopped (%s) after %lld steps, %.1f s", result->stop_reason.c_str(),
                       static_cast<long long>(result->steps), result->seconds));

  if (result->resumed) std::printf("resumed from %s\n", config.checkpoint_dir.c_str());
  PrintSearchReport(method, *result, *sim);
  if (args->Has("convergence")) {
    Status w = WriteFileAtomic(args->Get("convergence"), ConvergenceJson(result->trace));
    if (!w.ok()) return Fail(w.message());
    std::printf("convergence trace written to %s\n", args->Get("convergence").c_str());
  }
  return WriteOutputs(*args, *graph, *sim, result->plan);
#endif
}

}  // namespace graphopt
