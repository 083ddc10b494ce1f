// A command's flags bound to the fields of its config struct by an OptionTable
// (core/options.h) whose option names are the flags' names without dashes:
//
//   const OptionTable<PretrainConfig> kPretrainFlags{
//       {"steps-per-task", &PretrainConfig::steps_per_task, "PPO steps on a graph", InRange(1, 1000000)},
//       {"imitate-baselines", &PretrainConfig::imitate_baselines, "a baseline teacher per task"}};
//
// Each flag given is parsed, range-checked and stored by the table (errors start
// "--NAME: "); the help line of each comes from the table, with the field's default
// in the struct the command starts from and its range. A bool field is a bare flag:
// "--imitate-baselines" sets it.
#pragma once

#include <string>
#include <vector>

#include "cli/args.h"
#include "core/options.h"
#include "core/status.h"
#include "core/strings.h"

namespace graphopt {

// The flags of `table` for Args::Parse and FlagsHelp, their defaults from `defaults`.
template <class Config>
std::vector<FlagSpec> BoundFlags(const OptionTable<Config>& table, const Config& defaults = Config{}) {
  std::vector<FlagSpec> flags;
  for (const Option<Config>& o : table.options()) {
    std::string help = o.help();
    if (!o.boolean()) {
      const std::string value = o.Get(defaults);
      const std::string domain = o.domain() == "text" ? "" : o.domain();
      std::string aside = value.empty() ? "" : "default " + value;
      if (!domain.empty()) aside += (aside.empty() ? "" : "; ") + domain;
      if (!aside.empty()) help += " (" + aside + ")";
    }
    // The value as usage lines write it: N for an integer, the words of a choice.
    std::string metavar;
    if (o.domain().rfind("integer", 0) == 0) metavar = "N";
    if (o.domain().rfind("one of ", 0) == 0) metavar = Join(SplitList(o.domain().substr(7), ','), "|");
    flags.push_back({o.names()[0], !o.boolean(), help, metavar});
  }
  return flags;
}

// A command's flags in the order its help lists them: `first`, the flags of `table`
// (BoundFlags), then `rest`.
template <class Config>
std::vector<FlagSpec> FlagsAround(std::vector<FlagSpec> first, const OptionTable<Config>& table,
                                  const std::vector<FlagSpec>& rest) {
  const std::vector<FlagSpec> bound = BoundFlags(table);
  first.insert(first.end(), bound.begin(), bound.end());
  first.insert(first.end(), rest.begin(), rest.end());
  return first;
}

// Sets the field of every flag of `table` given in `args`; fails on the first bad value.
template <class Config>
Status ApplyBoundFlags(const Args& args, const OptionTable<Config>& table, Config* config) {
  for (const Option<Config>& o : table.options()) {
    const std::string& name = o.names()[0];
    if (!args.Has(name)) continue;
    GO_RETURN_IF_ERROR(o.Set(o.boolean() ? "1" : args.Get(name), config, "--" + name));
  }
  return Status::Ok();
}

}  // namespace graphopt
