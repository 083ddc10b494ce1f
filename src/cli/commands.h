// The graphopt subcommands. Each takes the whole argv (argv[1] is the subcommand)
// and returns the process exit code; errors are printed to stderr as one clear line.
#pragma once

namespace graphopt {

int RunModelsCommand(int argc, char** argv);
int RunInspectCommand(int argc, char** argv);
int RunConvertCommand(int argc, char** argv);
int RunSimulateCommand(int argc, char** argv);
int RunExecuteCommand(int argc, char** argv);
int RunProfileCommand(int argc, char** argv);
int RunBaselineCommand(int argc, char** argv);
int RunRunCommand(int argc, char** argv);
int RunBenchCommand(int argc, char** argv);
// `bench --fidelity` (cli/fidelity_command.cc), which RunBenchCommand hands over to.
int RunFidelityBench(int argc, char** argv);
int RunOptimizeCommand(int argc, char** argv);
int RunPretrainCommand(int argc, char** argv);
int RunMethodsCommand(int argc, char** argv);
int RunExportCommand(int argc, char** argv);

// Registers the planners of the libraries this build has in the registry
// (baselines/planner.h; the baselines are there from the start): the learned ones
// when the training library is built. main calls it once, before any command.
void RegisterAllPlanners();

}  // namespace graphopt
