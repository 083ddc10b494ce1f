// `graphopt profile MODEL [--cluster local[:N]] [--out profile.json]`: measures every
// op of the model's training step on this machine's cores (exec/profiler.h), for
// `simulate`, `optimize` and `bench` to use with --profile instead of the roofline.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "cli/flag_table.h"
#include "core/files.h"
#include "core/options.h"
#include "core/strings.h"
#include "models/load.h"
#ifdef GRAPHOPT_HAVE_EXEC
#include "cli/interrupt.h"
#include "exec/busy_profile.h"
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
  bool busy = false;
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
    {"busy", &ProfileRun::busy,
     "with --in-step on two devices or more: every step taken once more with every other device running the same "
     "step, and each op kind's slowdown kept in the profile's cluster (simulate and optimize slow a kernel of that "
     "kind by it while the other devices run)"},
};

std::vector<FlagSpec> ProfileFlags() { return FlagsAround({}, kProfileFlags, {DimFlag()}); }

Status ProfileModel(const Args& args) {
#ifndef GRAPHOPT_HAVE_EXEC
  (void)args;
  return FailedPrecondition("this build has no executor (LibTorch was not found)");
#else
  ProfileRun run;
  GO_RETURN_IF_ERROR(ApplyBoundFlags(args, kProfileFlags, &run));
  GO_RETURN_IF_ERROR(CheckOutputWritable(run.out, "--out"));
  if (args.Has("steps") && !run.in_step) return InvalidArgument("--steps goes with --in-step");
  if (run.busy && !run.in_step) return InvalidArgument("--busy goes with --in-step");
  GO_ASSIGN_OR_RETURN(const auto core_sets, LocalCoresWithThreads(run.cluster, args.argv()));
  const std::string model = args.positional()[0];
  GO_ASSIGN_OR_RETURN(const LoadOptions load, ModelLoadOptions(args));
  GO_ASSIGN_OR_RETURN(const Graph graph, LoadModel(model, load));
  GO_ASSIGN_OR_RETURN(const Cluster cluster, LoadClusterFlag(run.cluster));
  std::printf("graph        %s: %d ops\n", model.c_str(), graph.num_ops());
  std::printf("cluster      %s\n", cluster.Summary().c_str());
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
  if (run.busy && core_sets.size() < 2) {
    return InvalidArgument("--busy: cluster " + run.cluster + " has one device; the others' load needs two or more");
  }
  StatusOr<Profile> profile = Profile{};
  std::map<OpKind, double> kinds;
  if (run.busy) {
    auto both = ProfileInStepBusy(graph, cluster, core_sets, static_cast<int>(run.steps), options);
    std::fprintf(stderr, "\n");
    GO_RETURN_IF_ERROR(both.status());
    kinds = both->kinds;
    Contention contention = both->idle.cluster.contention();
    contention.kinds = kinds;
    both->idle.cluster.set_contention(contention);
    profile = std::move(both->idle);
  } else {
    profile = in_step ? ProfileInStep(graph, cluster, core_sets.front(), static_cast<int>(run.steps), options)
                      : ProfileGraph(graph, cluster, core_sets.front(), options);
    std::fprintf(stderr, "\n");
  }
  GO_RETURN_IF_ERROR(profile.status());
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
  if (run.busy) {
    std::printf("busy         %zu op kinds slowed with every other device running the step: %s\n", kinds.size(),
                KindSlowdownsText(kinds).c_str());
  }
  GO_RETURN_IF_ERROR(WriteProfileJson(graph, *profile, run.out));
  std::printf("wrote        %s\n", run.out.c_str());
  return Status::Ok();
#endif
}

}  // namespace

Command ProfileCommand() {
  Command c;
  c.name = "profile";
  c.positional = "MODEL";
  c.min_positional = c.max_positional = 1;
  c.summary = "measure every op on this machine's cores; simulate and optimize take the file with --profile";
  c.flags = ProfileFlags;
  c.notes =
      "Measures each op of MODEL's training step on this machine (ops of one kind and shapes once, in\n"
      "isolation; or, with --in-step, inside executed steps); simulate, optimize and bench take the file\n"
      "with --profile. With --in-step --busy (two devices or more) each op kind's slowdown while the other\n"
      "devices run the same step goes into the profile's cluster, which simulate and optimize then plan on.";
  c.run = ProfileModel;
  return c;
}

}  // namespace graphopt
