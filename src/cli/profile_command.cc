// `graphopt profile MODEL [--cluster local[:N]] [--out profile.json]`: measures every
// op of the model's training step on this machine's cores (exec/profiler.h), for
// `simulate`, `optimize` and `bench` to use with --profile instead of the roofline.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "cli/flag_table.h"
#include "core/files.h"
#include "core/options.h"
#include "core/strings.h"
#include "models/load.h"
#ifdef GRAPHOPT_HAVE_EXEC
#include "cli/interrupt.h"
#include "exec/profiler.h"
#endif

namespace graphopt {
namespace {

// The command's settings, bound to its flags.
struct ProfileRun {
  std::string cluster = "local";
  std::string out = "profile.json";
  uint64_t seed = 0;
  bool in_step = false;
  int64_t steps = 10;
};
const OptionTable<ProfileRun> kProfileFlags{
    {"cluster", &ProfileRun::cluster,
     "local (one device per core) or local:N: the ops are measured on the first device's cores"},
    {"out", &ProfileRun::out, "profile file to write"},
    {"seed", &ProfileRun::seed, "seed of the data the ops run on", InRange(0, 0x1p62)},
    {"in-step", &ProfileRun::in_step,
     "take each op's time inside executed one-device steps (step stats), not in isolation"},
    {"steps", &ProfileRun::steps, "with --in-step: steps measured after 2 warm-ups, each op's median kept",
     InRange(1, 100000)},
};

std::vector<FlagSpec> ProfileFlags() {
  return FlagsAround({}, kProfileFlags, {DimFlag(), {"help", false, "show this help"}});
}

std::string Usage() {
  return "usage: graphopt profile MODEL [--cluster local[:N]] [--out profile.json]\n"
         "  measures each op of MODEL's training step on this machine (ops of one kind and shapes\n"
         "  once, in isolation; or, with --in-step, inside executed steps); simulate, optimize and\n"
         "  bench take the file with --profile\n" +
         FlagsHelp(ProfileFlags());
}

int Fail(const std::string& message) { return CommandError("profile", message); }

}  // namespace

int RunProfileCommand(int argc, char** argv) {
#ifndef GRAPHOPT_HAVE_EXEC
  (void)argc;
  (void)argv;
  return Fail("this build has no executor (LibTorch was not found)");
#else
  const std::vector<FlagSpec> specs = ProfileFlags();
  auto args = Args::Parse("profile", argc, argv, 2, specs);
  if (!args.ok()) return Fail(args.status().message());
  if (args->Has("help")) {
    std::printf("%s", Usage().c_str());
    return 0;
  }
  ProfileRun run;
  if (Status flags = ApplyBoundFlags(*args, kProfileFlags, &run); !flags.ok()) return Fail(flags.message());
  Status writable = CheckOutputWritable(run.out, "--out");
  if (!writable.ok()) return Fail(writable.message());
  if (args->positional().size() != 1) {
    return Fail(StrFormat("expected one MODEL, got %zu arguments\n", args->positional().size()) + Usage());
  }
  if (args->Has("steps") && !run.in_step) return Fail("--steps goes with --in-step");
  auto core_sets = LocalCoresWithThreads(run.cluster, argv);
  if (!core_sets.ok()) return Fail(core_sets.status().message());
  const std::string model = args->positional()[0];
  auto load = ModelLoadOptions(*args);
  if (!load.ok()) return Fail(load.status().message());
  auto graph = LoadModel(model, *load);
  if (!graph.ok()) return Fail(graph.status().message());
  auto cluster = LoadClusterFlag(run.cluster);
  if (!cluster.ok()) return Fail(cluster.status().message());
  std::printf("graph        %s: %d ops\n", model.c_str(), graph->num_ops());
  std::printf("cluster      %s\n", cluster->Summary().c_str());
  std::fflush(stdout);

  ScopedInterrupt interrupt;
  ProfileOptions options;
  options.seed = run.seed;
  options.interrupt = interrupt.flag();
  options.progress = [](int done, int all) {
    if (done == all || done % 64 == 0) std::fprintf(stderr, "\rprofile %d/%d ops", done, all);
  };
  const bool in_step = run.in_step;
  if (in_step) {
    options.progress = [](int done, int all) { std::fprintf(stderr, "\rprofile step %d/%d", done, all); };
  }
  auto profile = in_step ? ProfileInStep(*graph, *cluster, core_sets->front(), static_cast<int>(run.steps), options)
                         : ProfileGraph(*graph, *cluster, core_sets->front(), options);
  std::fprintf(stderr, "\n");
  if (!profile.ok()) return Fail(profile.status().message());
  double total = 0;
  int timed = 0;
  for (double t : profile->op_time_us) {
    if (t < 0) continue;
    total += t;
    ++timed;
  }
  std::printf("measured     %d ops in %d distinct kinds and shapes, %s, %d thread%s; sum of op times %.3f ms\n", timed,
              profile->signatures, in_step ? "in executed steps" : "in isolation", profile->threads,
              profile->threads == 1 ? "" : "s", total / 1e3);
  Status written = WriteProfileJson(*graph, *profile, run.out);
  if (!written.ok()) return Fail(written.message());
  std::printf("wrote        %s\n", run.out.c_str());
  return 0;
#endif
}

}  // namespace graphopt
