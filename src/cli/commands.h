// The graphopt subcommands, each as the table of cli/command.h holds it: one function
// per command giving its metadata and its body, defined in its own file.
#pragma once

#include "cli/command.h"

namespace graphopt {

Command ModelsCommand();    // cli/graph_commands.cc
Command InspectCommand();   // cli/graph_commands.cc
Command ConvertCommand();   // cli/graph_commands.cc
Command MethodsCommand();   // cli/methods_command.cc
Command SimulateCommand();  // cli/simulate_command.cc
Command ExecuteCommand();   // cli/execute_command.cc
Command ProfileCommand();   // cli/profile_command.cc
Command BaselineCommand();  // cli/baseline_command.cc
Command RunBaselinesCommand();  // `graphopt run`, cli/baseline_command.cc
Command ExportCommand();    // cli/export_command.cc
Command OptimizeCommand();  // cli/optimize_command.cc
Command PretrainCommand();  // cli/pretrain_command.cc
Command BenchCommand();     // cli/bench_command.cc
Command FidelityCommand();  // `graphopt bench --fidelity`, cli/fidelity_command.cc

// Registers the planners of the libraries this build has in the registry
// (baselines/planner.h; the baselines are there from the start): the learned ones
// when the training library is built. main calls it once, before any command.
void RegisterAllPlanners();

}  // namespace graphopt
