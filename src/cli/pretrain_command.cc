// `graphopt pretrain`: one GO policy pre-trained over a stream of graphs and clusters
// (rl/pretrain.h), with a progress line, clean stops (Ctrl-C, --time-limit, --steps),
// checkpoints and resume, then the policy file (--out) and a report beside it.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

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

// The usage line's values of the bound flags (their table has no metavars).
const std::map<std::string, std::string> kBoundMetavars{
    {"steps-per-task", "K"}, {"graphs-per-step", "N"}, {"max-ops", "N"},    {"steps", "N"},
    {"time-limit", "S"},     {"seed", "S"},            {"init", "start.pt"}, {"checkpoint", "DIR"},
};

std::vector<FlagSpec> PretrainFlags() {
  std::vector<FlagSpec> flags = FlagsAround(
      {
          {"families", true, "built-in families to train on, comma-separated (default: all six)", "F,..."},
          {"holdout", true, "a family left out of training (evaluate on it later)", "FAMILY"},
          {"models", true, "model files or built-in specs separated by ';': together one more family of the stream",
           "M;..."},
          {"clusters", true, "clusters to draw from, comma-separated presets, files or specs like 2xV100+1xP100",
           "C,..."},
      },
      kPretrainFlags,
      {
          {"threads", true, "threads for the simulator and LibTorch, 1 to 4 x the cores (default: every core)", "N"},
          {"out", true,
           std::string("write the policy to this file (default ") + kDefaultPolicyOut + "), and a report to FILE.json",
           "policy.pt"},
          {"policy", true, "options \"key=value,...\": the network (hidden=64,...) and PPO (samples=32,lr=...)",
           "K=V,..."},
      });
  for (FlagSpec& f : flags) {
    if (const auto it = kBoundMetavars.find(f.name); it != kBoundMetavars.end()) f.metavar = it->second;
  }
  return flags;
}

// Under mpirun every rank trains; rank 0 alone prints and writes, and a rank that
// fails ends the job (dist/world.h).
template <class T>
StatusOr<T> EndJobOnError(StatusOr<T> result) {
  World& world = World::Get();
  if (!result.ok() && world.distributed()) {
    world.Abort(StrFormat("error: pretrain: rank %d: ", world.rank()) + result.status().message());
  }
  return result;
}

// The stream of --families, --holdout, --models and --clusters.
Status ApplyStreamFlags(const Args& args, PretrainStreamOptions* stream) {
  if (args.Has("families")) stream->families = SplitList(args.Get("families"), ',');
  if (args.Has("holdout")) {
    const std::string holdout = args.Get("holdout");
    auto& f = stream->families;
    const auto it = std::find(f.begin(), f.end(), holdout);
    if (it == f.end()) return InvalidArgument("--holdout: \"" + holdout + "\" is not among the families trained on");
    f.erase(it);
  }
  if (args.Has("models")) stream->models = SplitList(args.Get("models"), ';');
  if (args.Has("clusters")) stream->clusters = SplitList(args.Get("clusters"), ',');
  return Status::Ok();
}

// The training's config from every flag but --out.
StatusOr<PretrainConfig> ConfigFromFlags(const Args& args) {
  PretrainConfig config;
  GO_RETURN_IF_ERROR(ApplyStreamFlags(args, &config.stream));
  GO_RETURN_IF_ERROR(ApplyBoundFlags(args, kPretrainFlags, &config));
  GO_ASSIGN_OR_RETURN(config.threads, ThreadsFlag(args, ThreadsPerRank()));
  // --policy: network keys and PPO keys, routed as optimize routes them.
  if (args.Has("policy")) {
    GO_ASSIGN_OR_RETURN(const auto values, ParseKeyValues(args.Get("policy"), "--policy"));
    for (const auto& [key, value] : values) {
      GO_RETURN_IF_ERROR(SetGoOption(key, value, &config.ppo, &config.policy, "--policy"));
    }
  }
  return config;
}

// The run's header: families, models, the init policy, clusters, limits, ranks.
void PrintHeader(const Args& args, const PretrainConfig& config, const Pretrainer& pretrainer) {
  std::string families;
  for (const std::string& f : config.stream.families) families += (families.empty() ? "" : ", ") + f;
  std::printf("families  %s%s\n", families.empty() ? "(none)" : families.c_str(),
              args.Has("holdout") ? (" (held out: " + args.Get("holdout") + ")").c_str() : "");
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
  const World& world = World::Get();
  if (world.distributed()) {
    std::printf("ranks     %d (%d threads each); each step sums %lld gradient floats (%.2f MB) over the ranks\n",
                world.size(), config.threads, static_cast<long long>(pretrainer.ParameterCount()),
                pretrainer.ParameterCount() * 4.0 / 1e6);
  }
  std::fflush(stdout);
}

// The training to its stop, with its progress line (rank 0).
StatusOr<PretrainResult> RunWithProgress(Pretrainer* pretrainer, const PretrainConfig& config) {
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
  GO_ASSIGN_OR_RETURN(PretrainResult result, pretrainer->Run(interrupt.flag(), on_step));
  bar.Finish(StrFormat("stopped (%s) after %lld steps on %zu tasks, %.1f s", result.stop_reason.c_str(),
                       static_cast<long long>(result.steps), result.tasks.size(), result.seconds));
  return result;
}
#endif

std::vector<FlagSpec> Flags() {
#ifdef GRAPHOPT_HAVE_RL
  return PretrainFlags();
#else
  return {};
#endif
}

Status Pretrain(const Args& args) {
#ifndef GRAPHOPT_HAVE_RL
  (void)args;
  return FailedPrecondition("this build has no training library (LibTorch was not found)");
#else
  GO_ASSIGN_OR_RETURN(PretrainConfig config, ConfigFromFlags(args));
  const std::string out = args.Get("out", kDefaultPolicyOut);
  const std::string report = out + ".json";
  if (!args.Has("out")) GO_RETURN_IF_ERROR(CheckOutputWritable(out, "--out"));

  GO_ASSIGN_OR_RETURN(const std::unique_ptr<Pretrainer> pretrainer, EndJobOnError(Pretrainer::Create(config)));
  config.policy = pretrainer->policy_config();  // the init file's network, for the report
  if (!World::Get().root()) return EndJobOnError(pretrainer->Run()).status();
  PrintHeader(args, config, *pretrainer);
  GO_ASSIGN_OR_RETURN(const PretrainResult result, EndJobOnError(RunWithProgress(pretrainer.get(), config)));
  if (result.resumed) std::printf("resumed from %s\n", config.checkpoint_dir.c_str());
  GO_RETURN_IF_ERROR(pretrainer->SavePolicy(out));
  GO_RETURN_IF_ERROR(WriteFileAtomic(report, PretrainReportJson(config, result, pretrainer->PolicyFingerprint())));
  std::printf("%lld steps, %zu tasks (%d per step), %lld plans simulated, %.1f s\n"
              "policy written to %s (report %s), fingerprint %s\n",
              static_cast<long long>(result.steps), result.tasks.size(), result.graphs_per_step,
              static_cast<long long>(result.plans), result.seconds, out.c_str(), report.c_str(),
              pretrainer->PolicyFingerprint().c_str());
  return Status::Ok();
#endif
}

}  // namespace

Command PretrainCommand() {
  Command c;
  c.name = "pretrain";
  c.summary = "pre-train one GO policy over many graphs and clusters, for zero-shot plans";
  c.flags = Flags;
  c.outputs = {"out"};
  c.notes = "Pre-trains one GO policy with PPO over graphs of the built-in families at many sizes (and the given\n"
            "model files) on varied clusters, switching graph every K steps, so that it plans unseen graphs:\n"
            "'graphopt optimize MODEL --pretrained policy.pt --zero-shot'. Ctrl-C stops after the current step,\n"
            "saves the checkpoint and writes the policy. Data-parallel over the ranks of an MPI job:\n"
            "'mpirun -np N graphopt pretrain ...' trains N graphs per step, one per rank (rank 0 writes and prints).";
  c.run = Pretrain;
  return c;
}

}  // namespace graphopt
