// graphopt: the command-line entry point. Dispatches to one subcommand.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <string>

#include "cli/commands.h"
#include "dist/world.h"

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    graphopt::RegisterAllPlanners();
    if (argc == 3 && std::strcmp(argv[2], "--synopsis") == 0) {
      std::fputs(graphopt::Synopsis().c_str(), stdout);
      return 0;
    }
    std::fputs(graphopt::MainUsage().c_str(), argc < 2 ? stderr : stdout);
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
  return graphopt::DispatchCommand(argc, argv);
}
