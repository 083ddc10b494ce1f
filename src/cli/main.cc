// graphopt: the command-line entry point. Dispatches to one subcommand.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <string>

#include "cli/commands.h"
#include "dist/world.h"

namespace {

const char* kUsage =
    "graphopt: a learned graph optimizer for ML compilers (placement, scheduling, fusion)\n"
    "\n"
    "usage: graphopt COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  models                      list the built-in model graphs with their op counts\n"
    "  inspect MODEL               ops, tensors, parameters, FLOPs, memory, op-kind histogram\n"
    "  convert MODEL --to json|dot [--out FILE]   write a model as graph JSON or Graphviz DOT\n"
    "  simulate MODEL [--cluster C] [--plan P] [--trace T]   simulate one training step\n"
    "  execute MODEL [--plan P] [--cluster local[:N]] [--trace T]   run the step for real on this\n"
    "                              machine's cores (each device a group of cores) and measure it\n"
    "  profile MODEL [--cluster local[:N]] [--out F]   measure every op on this machine's cores;\n"
    "                              simulate and optimize take the file with --profile\n"
    "  baseline MODEL --method M [--cluster C] [--out P]     one baseline's plan and its step time\n"
    "  run [MODEL] [--cluster C]   every baseline side by side (default: gnmt:layers=4 on 4xV100)\n"
    "  optimize [MODEL] [--cluster C] [--time-limit S] [--out P]   learn a plan (GO policy + PPO;\n"
    "                              --method colocrl|hdp for the earlier learned placers)\n"
    "  pretrain [--holdout F] [--time-limit S] [--out policy.pt]   pre-train one GO policy over many\n"
    "                              graphs and clusters; plan unseen graphs with optimize --pretrained\n"
    "  bench [--rows R] [--methods M] [--fusion]   the 13-row placement suite of the GO paper\n"
    "  methods [--markdown]        every method (baselines, learned), the stages and presets\n"
    "  export MODEL --plan P --to device-map   a plan that keeps modules whole as {module: device}\n"
    "\n"
    "MODEL is a .onnx, .json or PipeDream .txt file, or a built-in name with optional\n"
    "parameters, e.g. gnmt or gnmt:layers=4,batch=128. An ONNX model with symbolic\n"
    "dimensions takes their sizes from --dim, e.g. --dim batch=32,seq=512, on every\n"
    "command. 'graphopt inspect --check DIR' imports an ONNX corpus (data/onnx_corpus)\n"
    "and compares it with the exporter's counts. Run 'graphopt COMMAND --help' for the\n"
    "flags of a command.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  // Training runs LibTorch's OpenMP threads next to the simulator's threads. OpenMP's
  // default is to spin between parallel regions, which on a small or shared machine
  // takes the cores the simulator needs (2-3x slower at 2 threads). The runtime reads
  // the policy when it loads, before main, so the commands that train restart
  // themselves once with passive waiting unless the user chose a policy.
  if ((command == "optimize" || command == "bench" || command == "pretrain") && std::getenv("OMP_WAIT_POLICY") == nullptr) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
  }
  // Under mpirun, bench spreads its rows, pretrain its graphs and optimize its samples
  // over the ranks; every other command is one process's work, and N copies would
  // write the same files.
  if (graphopt::LaunchedByMpi() && command != "bench" && command != "pretrain" && command != "optimize" &&
      graphopt::World::Get().distributed()) {
    graphopt::World& world = graphopt::World::Get();
    if (world.root()) {
      std::fprintf(stderr,
                   "graphopt: %s runs in one process, not over %d MPI ranks (under mpirun: bench, pretrain, optimize); "
                   "run it without mpirun\n",
                   command.c_str(), world.size());
    }
    world.Barrier();
    return 2;
  }
  graphopt::RegisterAllPlanners();
  if (command == "methods") return graphopt::RunMethodsCommand(argc, argv);
  if (command == "models") return graphopt::RunModelsCommand(argc, argv);
  if (command == "inspect") return graphopt::RunInspectCommand(argc, argv);
  if (command == "convert") return graphopt::RunConvertCommand(argc, argv);
  if (command == "simulate") return graphopt::RunSimulateCommand(argc, argv);
  if (command == "execute") return graphopt::RunExecuteCommand(argc, argv);
  if (command == "profile") return graphopt::RunProfileCommand(argc, argv);
  if (command == "baseline") return graphopt::RunBaselineCommand(argc, argv);
  if (command == "run") return graphopt::RunRunCommand(argc, argv);
  if (command == "bench") return graphopt::RunBenchCommand(argc, argv);
  if (command == "optimize") return graphopt::RunOptimizeCommand(argc, argv);
  if (command == "pretrain") return graphopt::RunPretrainCommand(argc, argv);
  if (command == "export") return graphopt::RunExportCommand(argc, argv);
  std::fprintf(stderr, "graphopt: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return 2;
}
