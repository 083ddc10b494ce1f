#include "cli/args.h"

#include "core/strings.h"

namespace graphopt {

StatusOr<Args> Args::Parse(const std::string& command, int argc, char** argv, int first, const std::vector<FlagSpec>& specs) {
  Args args;
  args.command_ = command;
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
      if (spec == nullptr) return InvalidArgument(command + ": unknown flag --" + name + " (see graphopt " + command + " --help)");
      if (spec->takes_value && !has_inline) {
        if (i + 1 >= argc) return InvalidArgument(command + ": flag --" + name + " needs a value");
        value = argv[++i];
      } else if (!spec->takes_value && has_inline) {
        return InvalidArgument(command + ": flag --" + name + " takes no value");
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
  return ParseInt(it->second, command_ + ": --" + flag);
}

StatusOr<double> Args::GetDouble(const std::string& flag, double fallback) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  return ParseDouble(it->second, command_ + ": --" + flag);
}

FlagSpec DimFlag() {
  return {"dim", true, "sizes of an ONNX model's symbolic dimensions: batch=32,seq=512 (*=N: every unbound one)"};
}

StatusOr<LoadOptions> ModelLoadOptions(const Args& args) {
  LoadOptions options;
  if (args.Has("dim")) GO_RETURN_IF_ERROR(ParseDimBindings(args.Get("dim"), &options.onnx));
  return options;
}

std::string FlagsHelp(const std::vector<FlagSpec>& specs) {
  std::string out;
  for (const auto& s : specs) {
    std::string left = "  --" + s.name + (s.takes_value ? " VALUE" : "");
    if (left.size() < 24) left.resize(24, ' ');
    out += left + " " + s.help + "\n";
  }
  return out;
}

}  // namespace graphopt
