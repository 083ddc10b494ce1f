// `graphopt profile MODEL [--cluster local[:N]] [--out profile.json]`: measures every
// op of the model's training step on this machine's cores (exec/profiler.h), for
// `simulate`, `optimize` and `bench` to use with --profile instead of the roofline.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "core/files.h"
#include "core/strings.h"
#include "models/load.h"
#ifdef GRAPHOPT_HAVE_EXEC
#include "cli/interrupt.h"
#include "exec/profiler.h"
#endif

namespace graphopt {
namespace {

std::vector<FlagSpec> ProfileFlags() {
  return {
      {"cluster", true, "local (one device per core, the default) or local:N: the ops are measured on the first device's cores"},
      {"out", true, "profile file to write (default profile.json)"},
      {"seed", true, "seed of the data the ops run on (default 0)"},
      {"in-step", false, "take each op's time inside executed one-device steps (step stats), not in isolation"},
      {"steps", true, "with --in-step: steps measured after 2 warm-ups, each op's median kept (default 10)"},
      DimFlag(),
      {"help", false, "show this help"},
  };
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
  const std::string out = args->Get("out", "profile.json");
  Status writable = CheckOutputWritable(out, "--out");
  if (!writable.ok()) return Fail(writable.message());
  if (args->positional().size() != 1) {
    return Fail(StrFormat("expected one MODEL, got %zu arguments\n", args->positional().size()) + Usage());
  }
  auto seed = args->GetIntInRange("seed", 0, 0, int64_t{1} << 62);
  if (!seed.ok()) return Fail(seed.status().message());
  auto steps = args->GetIntInRange("steps", 10, 1, 100000);
  if (!steps.ok()) return Fail(steps.status().message());
  if (args->Has("steps") && !args->Has("in-step")) return Fail("--steps goes with --in-step");
  const std::string cluster_name = args->Get("cluster", "local");
  auto core_sets = LocalCoresWithThreads(cluster_name, argv);
  if (!core_sets.ok()) return Fail(core_sets.status().message());
  const std::string model = args->positional()[0];
  auto load = ModelLoadOptions(*args);
  if (!load.ok()) return Fail(load.status().message());
  auto graph = LoadModel(model, *load);
  if (!graph.ok()) return Fail(graph.status().message());
  auto cluster = LoadClusterFlag(cluster_name);
  if (!cluster.ok()) return Fail(cluster.status().message());
  std::printf("graph        %s: %d ops\n", model.c_str(), graph->num_ops());
  std::printf("cluster      %s\n", cluster->Summary().c_str());
  std::fflush(stdout);

  ScopedInterrupt interrupt;
  ProfileOptions options;
  options.seed = static_cast<uint64_t>(*seed);
  options.interrupt = interrupt.flag();
  options.progress = [](int done, int all) {
    if (done == all || done % 64 == 0) std::fprintf(stderr, "\rprofile %d/%d ops", done, all);
  };
  const bool in_step = args->Has("in-step");
  if (in_step) {
    options.progress = [](int done, int all) { std::fprintf(stderr, "\rprofile step %d/%d", done, all); };
  }
  auto profile = in_step ? ProfileInStep(*graph, *cluster, core_sets->front(), static_cast<int>(*steps), options)
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
  Status written = WriteProfileJson(*graph, *profile, out);
  if (!written.ok()) return Fail(written.message());
  std::printf("wrote        %s\n", out.c_str());
  return 0;
#endif
}

}  // namespace graphopt
