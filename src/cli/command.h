// A graphopt subcommand as the dispatcher (cli/main.cc) runs it, and the table of them.
//
// A command is its metadata and one hook. The dispatcher owns the prologue every
// command shares: it parses the arguments against `flags` (a typo is an error), answers
// --help, checks the number of positional arguments and that every output file can be
// written, and then calls `run`. `run` prints its results on stdout and returns a Status;
// the dispatcher alone turns an error into the one line "error: NAME: MESSAGE" on stderr
// and exit code 1. A command never prints its own error line.
//
// The table is also the one source of the command synopsis: `graphopt --help` lists
// CommandList(), `graphopt help --synopsis` prints Synopsis(), and the README and
// docs/usage.md carry those texts (tests/cli/synopsis_test.cc compares them).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "core/status.h"

namespace graphopt {

struct Command {
  std::string name;
  // The command runs instead of another of the same name when this flag is given
  // (`bench --fidelity`); empty for a command's main form.
  std::string selector;
  // The positional arguments as the synopsis writes them: "MODEL", "[MODEL]" or "".
  std::string positional;
  int min_positional = 0;
  int max_positional = 0;
  // One line for the command list of `graphopt --help`.
  std::string summary;
  // The flags, in the order `graphopt NAME --help` lists them; the dispatcher adds
  // --help. A function: flags may list what the registry holds when the command runs.
  std::function<std::vector<FlagSpec>()> flags;
  // The flags that name files the command writes, checked writable before it runs.
  std::vector<std::string> outputs;
  // Text of `graphopt NAME --help` between the usage line and the flags.
  std::string notes;
  // The command itself, given its parsed arguments.
  std::function<Status(const Args& args)> run;
};

// Every command, in the order `graphopt --help` lists them.
const std::vector<Command>& Commands();

// Runs argv[1] with the prologue above; returns the exit code (2: no such command).
int DispatchCommand(int argc, char** argv);

// "usage: graphopt NAME ..." with every flag, wrapped; then the notes and the flags' help.
std::string CommandHelp(const Command& command);
// The section "commands:" of `graphopt --help`: one line per command.
std::string CommandList();
// Every command with every flag, one block per command, wrapped at 100 columns.
std::string Synopsis();
// What `graphopt --help` prints.
std::string MainUsage();

}  // namespace graphopt
