// `graphopt pretrain`: one GO policy pre-trained over a stream of graphs and clusters
// (rl/pretrain.h), with a progress line, clean stops (Ctrl-C, --time-limit, --steps),
// checkpoints and resume, then the policy file (--out) and a report beside it.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flag_table.h"
#include "cli/interrupt.h"
#include "core/files.h"
#include "core/progress.h"
#include "core/strings.h"
#include "dist/world.h"

#ifdef GRAPHOPT_HAVE_RL
#include "policy/go_policy_config.h"
#include "rl/ppo_config.h"
#include "rl/pretrain.h"
#endif

namespace graphopt {
namespace {

// Where the policy goes without --out.
constexpr const char* kDefaultPolicyOut = "policy.pt";

int Fail(const std::string& message) { return CommandError("pretrain", message); }

#ifdef GRAPHOPT_HAVE_RL
// The flags bound to PretrainConfig's fields (cli/flag_table.h).
const OptionTable<PretrainConfig> kPretrainFlags{
    {"steps-per-task", &PretrainConfig::steps_per_task, "PPO steps on a graph before the stream moves on",
     InRange(1, 1000000)},
    {"graphs-per-step", &PretrainConfig::graphs_per_step,
     "graphs trained together in each step, their gradients averaged; 0: one per MPI rank, or the checkpoint's",
     InRange(0, 4096)},
    {"max-ops", &PretrainConfig::stream, &PretrainStreamOptions::max_ops, "largest training graph of a drawn task, in ops",
     InRange(100, 100000000)},
    {"imitate-baselines", &PretrainConfig::imitate_baselines,
     "per task, the fastest baseline plan joins every batch as a teacher"},
    {"sample-teacher-levels", &PretrainConfig::sample_teacher_levels,
     "with --imitate-baselines: the teacher's placement and fusion are imitated, its priority levels sampled"},
    {"steps", &PretrainConfig::max_steps, "stop after this many steps in all, 0 for no limit", InRange(0, 1e12)},
    {"time-limit", &PretrainConfig::time_limit_s, "stop this run after this many seconds, 0 for no limit", AtLeast(0)},
    {"seed", &PretrainConfig::seed, "random seed"},
    {"init", &PretrainConfig::init_policy,
     "start from this policy file (its network and weights, e.g. one pre-trained under another judge) "
     "instead of a fresh network; --policy may then set PPO's options only"},
    {"checkpoint", &PretrainConfig::checkpoint_dir,
     "checkpoint folder: saved every " + std::to_string(PretrainConfig{}.checkpoint_every) +
         " steps and at the end; resumed from if it holds one"},
};

std::vector<FlagSpec> PretrainFlags() {
  return FlagsAround(
      {
          {"families", true, "built-in families to train on, comma-separated (default: all six)"},
          {"holdout", true, "a family left out of training (evaluate on it later)"},
          {"models", true, "model files or built-in specs separated by ';': together one more family of the stream"},
          {"clusters", true, "clusters to draw from, comma-separated presets, files or specs like 2xV100+1xP100"},
      },
      kPretrainFlags,
      {
          {"threads", true, "threads for the simulator and LibTorch, 1 to 4 x the cores (default: every core)"},
          {"out", true,
           std::string("write the policy to this file (default ") + kDefaultPolicyOut + "), and a report to FILE.json"},
          {"policy", true, "options \"key=value,...\": the network (hidden=64,...) and PPO (samples=32,lr=...)"},
          {"help", false, "show this help"},
      });
}

std::string Usage() {
  return "usage: graphopt pretrain [--families F,...] [--holdout FAMILY] [--models M;...] [--clusters C,...]\n"
         "                         [--steps-per-task K] [--steps N] [--time-limit S] [--checkpoint DIR] [--out policy.pt]\n"
         "                         [--init start.pt] [--policy key=value,...]\n"
         "  Pre-trains one GO policy with PPO over graphs of the built-in families at many sizes (and the given\n"
         "  model files) on varied clusters, switching graph every K steps, so that it plans unseen graphs:\n"
         "  'graphopt optimize MODEL --pretrained policy.pt --zero-shot'. Ctrl-C stops after the current step,\n"
         "  saves the checkpoint and writes the policy. Data-parallel over the ranks of an MPI job:\n"
         "  'mpirun -np N graphopt pretrain ...' trains N graphs per step, one per rank (rank 0 writes and prints).\n" +
         FlagsHelp(PretrainFlags());
}
#endif

}  // namespace

int RunPretrainCommand(int argc, char** argv) {
#ifndef GRAPHOPT_HAVE_RL
  (void)argc;
  (void)argv;
  return Fail("this build has no training library (LibTorch was not found)");
#else
  auto args = Args::Parse("pretrain", argc, argv, 2, PretrainFlags());
  if (!args.ok()) return Fail(args.status().message() + "\n" + Usage());
  if (args->Has("help")) {
    std::printf("%s", Usage().c_str());
    return 0;
  }
  if (!args->positional().empty()) return Fail("unexpected argument \"" + args->positional()[0] + "\"\n" + Usage());
  PretrainConfig config;
  if (args->Has("families")) config.stream.families = SplitList(args->Get("families"), ',');
  if (args->Has("holdout")) {
    const std::string holdout = args->Get("holdout");
    auto& f = config.stream.families;
    const auto it = std::find(f.begin(), f.end(), holdout);
    if (it == f.end()) return Fail("--holdout: \"" + holdout + "\" is not among the families trained on");
    f.erase(it);
  }
  if (args->Has("models")) config.stream.models = SplitList(args->Get("models"), ';');
  if (args->Has("clusters")) config.stream.clusters = SplitList(args->Get("clusters"), ',');
  if (Status flags = ApplyBoundFlags(*args, kPretrainFlags, &config); !flags.ok()) return Fail(flags.message());
  auto threads = ThreadsFlag(*args);
  if (!threads.ok()) return Fail(threads.status().message());
  config.threads = args->Has("threads") ? *threads : ThreadsPerRank();
  // --policy: network keys and PPO keys, routed as optimize routes them.
  if (args->Has("policy")) {
    auto values = ParseKeyValues(args->Get("policy"), "--policy");
    if (!values.ok()) return Fail(values.status().message());
    for (const auto& [key, value] : *values) {
      const Status set = SetGoOption(key, value, &config.ppo, &config.policy, "--policy");
      if (!set.ok()) return Fail(set.message());
    }
  }
  const std::string out = args->Get("out", kDefaultPolicyOut);
  const std::string report = out + ".json";
  if (Status w = CheckOutputWritable(out, "--out"); !w.ok()) return Fail(w.message());

  // Under mpirun every rank trains; rank 0 alone prints and writes, and a rank that
  // fails ends the job (dist/world.h).
  World& world = World::Get();
  auto fail_all = [&](const std::string& message) {
    if (world.distributed()) world.Abort(StrFormat("error: pretrain: rank %d: ", world.rank()) + message);
    return Fail(message);
  };
  auto pretrainer = Pretrainer::Create(config);
  if (!pretrainer.ok()) return fail_all(pretrainer.status().message());
  config.policy = (*pretrainer)->policy_config();  // the init file's network, for the report
  if (!world.root()) {
    auto result = (*pretrainer)->Run();
    if (!result.ok()) return fail_all(result.status().message());
    return 0;
  }
  std::string families;
  for (const std::string& f : config.stream.families) families += (families.empty() ? "" : ", ") + f;
  std::printf("families  %s%s\n", families.empty() ? "(none)" : families.c_str(),
              args->Has("holdout") ? (" (held out: " + args->Get("holdout") + ")").c_str() : "");
  if (!config.stream.models.empty()) std::printf("models    %zu files\n", config.stream.models.size());
  if (!config.init_policy.empty()) {
    std::printf("init      %s (its network: %s)\n", config.init_policy.c_str(), config.policy.ToString().c_str());
  }
  std::printf("clusters  %zu (", config.stream.clusters.size());
  for (size_t i = 0; i < config.stream.clusters.size(); ++i) std::printf("%s%s", i ? ", " : "", config.stream.clusters[i].c_str());
  std::printf(")\nlimits    %s, %s; %d steps per task; seed %llu\n",
              config.max_steps > 0 ? StrFormat("%lld steps", static_cast<long long>(config.max_steps)).c_str()
                                   : "no step limit",
              config.time_limit_s > 0 ? StrFormat("%.0f s", config.time_limit_s).c_str() : "no time limit",
              config.steps_per_task, static_cast<unsigned long long>(config.seed));
  if (world.distributed()) {
    std::printf("ranks     %d (%d threads each); each step sums %lld gradient floats (%.2f MB) over the ranks\n",
                world.size(), config.threads, static_cast<long long>((*pretrainer)->ParameterCount()),
                (*pretrainer)->ParameterCount() * 4.0 / 1e6);
  }
  std::fflush(stdout);

  const ScopedInterrupt interrupt;
  ProgressBar bar("pretrain", config.max_steps);
  auto on_step = [&](const PretrainProgress& p) {
    std::string suffix = StrFormat("task %lld step %d: %s on %s (%d ops)", static_cast<long long>(p.task->index),
                                   p.task_step, p.task->model.c_str(), p.task->cluster.c_str(), p.task->num_ops);
    if (p.graphs > 1) suffix += StrFormat(" and %d more", p.graphs - 1);
    if (p.batch_best_ratio > 0) suffix += StrFormat("  best sample %.2fx the reference", p.batch_best_ratio);
    suffix += StrFormat("  %lld plans", static_cast<long long>(p.plans));
    bar.Update(p.step, suffix);
  };
  auto result = (*pretrainer)->Run(interrupt.flag(), on_step);
  if (!result.ok()) return fail_all(result.status().message());
  bar.Finish(StrFormat("stopped (%s) after %lld steps on %zu tasks, %.1f s", result->stop_reason.c_str(),
                       static_cast<long long>(result->steps), result->tasks.size(), result->seconds));
  if (result->resumed) std::printf("resumed from %s\n", config.checkpoint_dir.c_str());
  if (Status w = (*pretrainer)->SavePolicy(out); !w.ok()) return Fail(w.message());
  if (Status w = WriteFileAtomic(report, PretrainReportJson(config, *result, (*pretrainer)->PolicyFingerprint())); !w.ok()) return Fail(w.message());
  std::printf("%lld steps, %zu tasks (%d per step), %lld plans simulated, %.1f s\n"
              "policy written to %s (report %s), fingerprint %s\n",
              static_cast<long long>(result->steps), result->tasks.size(), result->graphs_per_step,
              static_cast<long long>(result->plans),
              result->seconds, out.c_str(), report.c_str(), (*pretrainer)->PolicyFingerprint().c_str());
  return 0;
#endif
}

}  // namespace graphopt
