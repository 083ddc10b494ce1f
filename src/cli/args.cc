#include "cli/args.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <thread>

#include "core/files.h"
#include "core/options.h"
#include "core/strings.h"

namespace graphopt {

StatusOr<Args> Args::Parse(const std::string& command, int argc, char** argv, int first, const std::vector<FlagSpec>& specs,
                           const std::string& program) {
  const std::string help = program + (command.empty() ? "" : " " + command) + " --help";
  Args args;
  args.argv_ = argv;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
      std::string name = a.substr(2), value;
      bool has_inline = false;
      const size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        has_inline = true;
      }
      const FlagSpec* spec = nullptr;
      for (const auto& s : specs) {
        if (s.name == name) spec = &s;
      }
      if (spec == nullptr) return InvalidArgument("unknown flag --" + name + " (see " + help + ")");
      if (spec->takes_value && !has_inline) {
        if (i + 1 >= argc) return InvalidArgument("flag --" + name + " needs a value");
        const std::string next = argv[i + 1];
        if (next.size() >= 2 && next[0] == '-' && next[1] == '-') {
          return InvalidArgument("flag --" + name + " needs a value, got the flag " + next +
                                 " (write --" + name + "=" + next + " if that is the value)");
        }
        value = argv[++i];
      } else if (!spec->takes_value && has_inline) {
        return InvalidArgument("flag --" + name + " takes no value");
      }
      args.values_[name] = value;
    } else {
      args.positional_.push_back(a);
    }
  }
  return args;
}

std::string Args::Get(const std::string& flag, const std::string& fallback) const {
  auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second;
}

StatusOr<int64_t> Args::GetInt(const std::string& flag, int64_t fallback) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  return ParseInt(it->second, "--" + flag);
}

StatusOr<int64_t> Args::GetIntInRange(const std::string& flag, int64_t fallback, int64_t lo, int64_t hi) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  return ParseIntInRange(it->second, "--" + flag, lo, hi);
}

Status Args::CheckOutputs(const std::vector<std::string>& flags) const {
  for (const std::string& flag : flags) {
    auto it = values_.find(flag);
    if (it != values_.end()) GO_RETURN_IF_ERROR(CheckOutputWritable(it->second, "--" + flag));
  }
  return Status::Ok();
}

StatusOr<double> Args::GetDouble(const std::string& flag, double fallback) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  return ParseDouble(it->second, "--" + flag);
}

int MaxThreads() {
  const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::min(256, 4 * hardware);
}

StatusOr<int> ThreadsFlag(const Args& args, int fallback) {
  GO_ASSIGN_OR_RETURN(const int64_t threads, args.GetIntInRange("threads", fallback, 1, MaxThreads()));
  return static_cast<int>(threads);
}

FlagSpec DimFlag() {
  return {"dim", true, "sizes of an ONNX model's symbolic dimensions: batch=32,seq=512 (*=N: every unbound one)"};
}

StatusOr<LoadOptions> ModelLoadOptions(const Args& args) {
  LoadOptions options;
  if (args.Has("dim")) GO_RETURN_IF_ERROR(ParseDimBindings(args.Get("dim"), &options.onnx));
  return options;
}

std::string FlagSpec::Usage() const {
  if (!takes_value) return "--" + name;
  std::string value = metavar;
  if (value.empty()) {
    for (char c : name) value += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return "--" + name + " " + value;
}

std::string FlagsHelp(const std::vector<FlagSpec>& specs) {
  // The help column starts after the longest "--name VALUE" up to 32 columns.
  size_t width = 0;
  for (const auto& s : specs) width = std::max(width, std::min<size_t>(32, 2 + s.Usage().size()));
  std::string out;
  for (const auto& s : specs) {
    std::string left = "  " + s.Usage();
    if (left.size() < width) left.resize(width, ' ');
    out += left + "  " + s.help + "\n";
  }
  return out;
}

int CommandError(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "error: %s: %s\n", command.c_str(), message.c_str());
  return 1;
}

}  // namespace graphopt
