// The GO search's options (rl/go_search.h ParseGoSearchOptions, DefaultSearchConfig).
#include <algorithm>
#include <string>

#include "core/strings.h"
#include "policy/go_policy.h"
#include "rl/go_search.h"
#include "rl/methods.h"
#include "rl/ppo.h"

namespace graphopt {
namespace {

bool IsPpoKey(const std::string& key) {
  static const char* keys[] = {"samples", "samples_per_step", "epochs", "clip", "lr", "entropy", "entropy_decay",
                               "entropy_min", "baseline_decay", "normalize_advantages", "oom_penalty", "temperature",
                               "max_grad_norm", "include_best", "critical_path_priorities", "warm_start_level",
                               "warm_start_steps", "warm_start_target", "imitation"};
  for (const char* k : keys) {
    if (key == k) return true;
  }
  return false;
}

std::string AppendKey(const std::string& list, const std::string& key, const std::string& value) {
  return list + (list.empty() ? "" : ",") + key + "=" + value;
}

}  // namespace

StatusOr<GoSearchConfig> ParseGoSearchOptions(const std::string& text, GoSearchConfig c) {
  if (Trim(text).empty()) return c;
  GO_ASSIGN_OR_RETURN(auto values, ParseKeyValues(text, "optimizer options"));
  for (const auto& [key, value] : values) {
    const std::string context = "optimizer option " + key;
    if (key == "baselines" || key == "warm_start" || key == "ppo" || key == "polish" || key == "polish_samples" ||
        key == "plan_units") {
      GO_ASSIGN_OR_RETURN(bool v, ParseBool(value, context));
      (key == "baselines"          ? c.baselines
       : key == "warm_start"       ? c.warm_start
       : key == "ppo"              ? c.ppo_enabled
       : key == "polish"           ? c.polish
       : key == "plan_units"       ? c.plan_units
                                   : c.polish_samples) = v;
    } else if (key == "polish_evaluations" || key == "max_steps" || key == "threads" || key == "checkpoint_every" ||
               key == "polish_batch" || key == "units_per_device") {
      GO_ASSIGN_OR_RETURN(int64_t v, ParseInt(value, context));
      if (key == "units_per_device") {
        if (v < 0 || v > 1 << 20) return InvalidArgument(context + ": must be in [0, 1048576]");
        c.units_per_device = static_cast<int>(v);
      }
      if (key == "polish_evaluations") c.polish_evaluations = v;
      if (key == "max_steps") c.max_steps = v;
      if (key == "threads") c.threads = static_cast<int>(v);
      if (key == "checkpoint_every") c.checkpoint_every = static_cast<int>(std::max<int64_t>(1, v));
      if (key == "polish_batch") c.polish_config.batch = static_cast<int>(std::max<int64_t>(1, v));
    } else if (key == "time_limit") {
      GO_ASSIGN_OR_RETURN(c.time_limit_s, ParseDouble(value, context));
    } else if (key == "explore") {
      GO_ASSIGN_OR_RETURN(c.explore, ParseDouble(value, context));
      if (!(c.explore >= 0 && c.explore <= 1)) return InvalidArgument(context + ": must be a fraction in [0, 1]");
    } else if (c.method != "go") {
      c.method_options = AppendKey(c.method_options, key, value);
    } else if (IsPpoKey(key)) {
      c.ppo = AppendKey(c.ppo, key, value);
    } else {
      c.policy = AppendKey(c.policy, key, value);
    }
  }
  if (c.method == "go") {
    GO_RETURN_IF_ERROR(PpoConfig::FromString(c.ppo).status());
    GO_RETURN_IF_ERROR(GoPolicyConfig::FromString(c.policy).status());
  } else {
    GO_RETURN_IF_ERROR(ValidateMethodOptions(c.method, c.method_options));
  }
  return c;
}

StatusOr<GoSearchConfig> DefaultSearchConfig(const std::string& method) {
  GoSearchConfig c;
  const auto& names = LearnedMethodNames();
  if (std::find(names.begin(), names.end(), method) == names.end()) {
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    return InvalidArgument("unknown method \"" + method + "\" (known: " + known + ")");
  }
  c.method = method;
  if (method != "go") {
    // The published placers start from scratch and only learn from their own samples.
    c.baselines = false;
    c.warm_start = false;
    c.polish = false;
  }
  return c;
}

}  // namespace graphopt
