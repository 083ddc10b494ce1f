#include "cli/command.h"

#include <cstdio>

#include "cli/commands.h"
#include "core/strings.h"

namespace graphopt {
namespace {

constexpr size_t kWidth = 100;

const FlagSpec kHelpFlag{"help", false, "show this help"};

// "graphopt NAME POSITIONAL [--flag F] ...", wrapped at kWidth with the flags of
// continuation lines under the first flag.
std::string UsageLine(const Command& c, const std::string& prefix) {
  std::string head = prefix + "graphopt " + c.name;
  if (!c.selector.empty()) head += " --" + c.selector;
  if (!c.positional.empty()) head += " " + c.positional;
  const std::string indent(std::min<size_t>(head.size() + 1, 28), ' ');
  std::string out = head, line = head;
  for (const FlagSpec& f : c.flags()) {
    if (f.name == c.selector) continue;  // already in the head
    const std::string item = "[" + f.Usage() + "]";
    if (line.size() + 1 + item.size() > kWidth && line.size() > indent.size()) {
      out += "\n" + indent + item;
      line = indent + item;
    } else {
      out += " " + item;
      line += " " + item;
    }
  }
  return out + "\n";
}

std::string CountError(const Command& c, size_t given) {
  const std::string what = c.positional.empty() ? "" : c.positional;
  std::string bare = what;
  if (!bare.empty() && bare.front() == '[') bare = bare.substr(1, bare.size() - 2);
  std::string message;
  if (c.max_positional == 0) {
    message = "expected no arguments, got " + std::to_string(given);
  } else if (c.min_positional == c.max_positional && c.max_positional == 1) {
    message = StrFormat("expected one %s, got %zu arguments", bare.c_str(), given);
  } else if (c.min_positional == 0 && c.max_positional == 1) {
    message = StrFormat("expected at most one %s, got %zu arguments", bare.c_str(), given);
  } else {
    message = StrFormat("expected %d to %d arguments, got %zu", c.min_positional, c.max_positional, given);
  }
  return message + " (see graphopt " + c.name + (c.selector.empty() ? "" : " --" + c.selector) + " --help)";
}

// The prologue and the run of one command; an error becomes its one error line.
int RunCommand(const Command& c, int argc, char** argv) {
  std::vector<FlagSpec> specs = c.flags();
  specs.push_back(kHelpFlag);
  auto status = [&]() -> Status {
    GO_ASSIGN_OR_RETURN(const Args args, Args::Parse(c.name, argc, argv, 2, specs));
    if (args.Has("help")) {
      std::printf("%s", CommandHelp(c).c_str());
      return Status::Ok();
    }
    const size_t given = args.positional().size();
    if (given < static_cast<size_t>(c.min_positional) || given > static_cast<size_t>(c.max_positional)) {
      return InvalidArgument(CountError(c, given));
    }
    GO_RETURN_IF_ERROR(args.CheckOutputs(c.outputs));
    return c.run(args);
  }();
  return status.ok() ? 0 : CommandError(c.name, status.message());
}

}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      ModelsCommand(),   MethodsCommand(),  InspectCommand(),  ConvertCommand(),  SimulateCommand(),
      ExecuteCommand(),  ProfileCommand(),  BaselineCommand(), RunBaselinesCommand(), ExportCommand(),
      OptimizeCommand(), PretrainCommand(), BenchCommand(),    FidelityCommand(),
  };
  return commands;
}

int DispatchCommand(int argc, char** argv) {
  const std::string name = argv[1];
  const Command* main_form = nullptr;
  for (const Command& c : Commands()) {
    if (c.name != name) continue;
    if (c.selector.empty()) main_form = &c;
    for (int i = 2; i < argc && !c.selector.empty(); ++i) {
      if (argv[i] == "--" + c.selector) return RunCommand(c, argc, argv);
    }
  }
  if (main_form != nullptr) return RunCommand(*main_form, argc, argv);
  std::fprintf(stderr, "graphopt: unknown command '%s'\n\n%s", name.c_str(), MainUsage().c_str());
  return 2;
}

std::string CommandHelp(const Command& c) {
  std::vector<FlagSpec> flags = c.flags();
  flags.push_back(kHelpFlag);
  std::string out = UsageLine(c, "usage: ") + c.summary + "\n";
  if (!c.notes.empty()) out += c.notes + (c.notes.back() == '\n' ? "" : "\n");
  return out + "flags:\n" + FlagsHelp(flags);
}

std::string CommandList() {
  std::string out;
  for (const Command& c : Commands()) {
    std::string left = "  " + c.name + (c.selector.empty() ? "" : " --" + c.selector) +
                       (c.positional.empty() ? "" : " " + c.positional);
    if (left.size() < 24) left.resize(24, ' ');
    out += left + "  " + c.summary + "\n";
  }
  return out;
}

std::string Synopsis() {
  std::string out;
  for (const Command& c : Commands()) out += UsageLine(c, "");
  return out;
}

std::string MainUsage() {
  return "graphopt: a learned graph optimizer for ML compilers (placement, scheduling, fusion)\n"
         "\n"
         "usage: graphopt COMMAND [ARGS]\n"
         "\n"
         "commands:\n" +
         CommandList() +
         "\n"
         "MODEL is a .onnx, .json or PipeDream .txt file, or a built-in name with optional\n"
         "parameters, e.g. gnmt or gnmt:layers=4,batch=128. An ONNX model with symbolic\n"
         "dimensions takes their sizes from --dim, e.g. --dim batch=32,seq=512, on every\n"
         "command. Run 'graphopt COMMAND --help' for the flags of a command, 'graphopt help\n"
         "--synopsis' for every command with every flag.\n";
}

}  // namespace graphopt
