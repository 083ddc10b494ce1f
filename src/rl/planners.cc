// The learned planners of the registry (rl/planners.h).
#include "rl/planners.h"

#include <any>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>

#include "core/files.h"
#include "rl/methods.h"
#include "rl/task_configurations.h"
#include "rl/zero_shot.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

SearchReport ReportOf(const LearnedSearchResult& r) {
  SearchReport report;
  report.reference_us = r.best_baseline_score.fits() ? r.best_baseline_score.step_time_us : 0;
  for (const ConvergencePoint& p : r.trace) {
    // The step time of a plan that does not fit is not a result: the series starts at
    // the first best plan that fits (after it, every best plan fits).
    if (!p.fits) continue;
    report.seconds.push_back(p.seconds);
    report.plans.push_back(p.plans);
    report.best_us.push_back(p.best_step_us);
  }
  report.end_seconds = r.seconds;
  report.end_plans = r.plans_simulated;
  report.seconds_to_best = r.seconds_to_best;
  report.policy_best_us = r.policy_best_us;
  report.improvements_policy = r.improvements_policy;
  report.improvements_polish = r.improvements_polish;
  report.improvements_sample_polish = r.improvements_sample_polish;
  return report;
}

Status NeedsSimulator(const PlanContext& context) {
  if (context.simulator == nullptr) return InvalidArgument("a learned planner needs the simulator of the graph");
  return Status::Ok();
}

// go, colocrl, hdp and finetune: a GO search driver run.
class SearchPlanner : public Planner {
 public:
  SearchPlanner(LearnedSearchConfig config, std::string pretrained)
      : config_(std::move(config)), pretrained_(std::move(pretrained)) {}

  StatusOr<Plan> Run(const PlanContext& context) override {
    GO_RETURN_IF_ERROR(NeedsSimulator(context));
    LearnedSearchConfig c = config_;
    if (!pretrained_.empty()) {
      GO_ASSIGN_OR_RETURN(c.pretrained.file, PolicyForGraph(pretrained_, context.graph));
    }
    GO_ASSIGN_OR_RETURN(auto search, LearnedSearch::Create(*context.simulator, c));
    GO_ASSIGN_OR_RETURN(LearnedSearchResult r, search->Run());
    report_ = ReportOf(r);
    return r.plan;
  }
  const SearchReport* report() const override { return report_ ? &*report_ : nullptr; }

 private:
  LearnedSearchConfig config_;
  std::string pretrained_;
  std::optional<SearchReport> report_;
};

class ZeroShotPlanner : public Planner {
 public:
  ZeroShotPlanner(LearnedSearchConfig config, std::string pretrained)
      : config_(std::move(config)), pretrained_(std::move(pretrained)) {}

  StatusOr<Plan> Run(const PlanContext& context) override {
    GO_RETURN_IF_ERROR(NeedsSimulator(context));
    GO_ASSIGN_OR_RETURN(const std::string policy, PolicyForGraph(pretrained_, context.graph));
    GO_ASSIGN_OR_RETURN(ZeroShotResult z, ZeroShotPlan(*context.simulator, policy, SearchZeroShotOptions(config_)));
    return z.plan;
  }

 private:
  LearnedSearchConfig config_;
  std::string pretrained_;
};

// The search config of a learned method: its defaults, the budget, the seed and the
// preset's options ("": none; finetune: its recipe for the settings' steps).
StatusOr<LearnedSearchConfig> DefaultConfig(const std::string& method, const PlannerSettings& s,
                                            const std::string& preset) {
  GO_ASSIGN_OR_RETURN(LearnedSearchConfig c, DefaultSearchConfig(method));
  c.budget.time_limit_s = s.budget.time_limit_s;
  c.budget.max_steps = s.budget.max_steps;
  c.budget.threads = s.budget.threads;
  c.seed = s.seed;
  if (preset == kFinetunePreset) {
    GO_RETURN_IF_ERROR(ApplyFinetuneRecipe(s.budget.max_steps > 0 ? s.budget.max_steps : kFinetuneDefaultSteps, &c));
  } else if (!preset.empty()) {
    GO_ASSIGN_OR_RETURN(c, ParseLearnedSearchOptions("preset=" + preset, c));
  }
  return c;
}

// The settings' config (PlannerInfo::configure), or DefaultConfig.
StatusOr<LearnedSearchConfig> SearchConfig(const std::string& method, const PlannerSettings& s,
                                           const std::string& preset) {
  if (!s.config.has_value()) return DefaultConfig(method, s, preset);
  const auto* c = std::any_cast<LearnedSearchConfig>(&s.config);
  if (c == nullptr) return InvalidArgument("the settings of " + method + " hold another planner's config");
  if (c->method != method) return InvalidArgument("the settings of " + method + " hold the config of " + c->method);
  return *c;
}

// PlannerInfo::configure of a learned method: DefaultConfig, then the options
// (rl/learned_search.h ParseLearnedSearchOptions).
std::function<Status(const std::string&, PlannerSettings*)> Configure(const std::string& method,
                                                                     const std::string& preset = "") {
  return [method, preset](const std::string& options, PlannerSettings* s) -> Status {
    GO_ASSIGN_OR_RETURN(LearnedSearchConfig c, DefaultConfig(method, *s, preset));
    GO_ASSIGN_OR_RETURN(c, ParseLearnedSearchOptions(options, c));
    s->config = std::move(c);
    return Status::Ok();
  };
}

Status NeedsPretrained(const PlannerSettings& s, const std::string& method) {
  if (s.pretrained.empty()) return InvalidArgument(method + " needs a pre-trained policy");
  return Status::Ok();
}

// A search driver run of `method` with `preset`'s options first ("": none); `entry`
// (the registry's name) starts from the settings' pre-trained policy if `pretrained`.
PlannerFactory SearchFactory(const std::string& method, const std::string& preset = "",
                             const std::string& entry = "", bool pretrained = false) {
  return [method, preset, entry, pretrained](const PlannerSettings& s) -> StatusOr<std::unique_ptr<Planner>> {
    if (pretrained) GO_RETURN_IF_ERROR(NeedsPretrained(s, entry));
    GO_ASSIGN_OR_RETURN(LearnedSearchConfig c, SearchConfig(method, s, preset));
    return std::unique_ptr<Planner>(new SearchPlanner(std::move(c), pretrained ? s.pretrained : ""));
  };
}

// A preset of go as a planner: go's search with the preset's options first; finetune
// runs a pre-trained policy for a number of steps.
PlannerInfo PresetPlanner(const SearchPreset& preset) {
  const std::string name = preset.name;
  const bool finetune = name == kFinetunePreset;
  PlannerInfo info = PlannerInfo::Of(name, PlannerKind::kPreset, preset.summary + " (go with " + preset.options + ")",
                                     SearchFactory("go", name, name, finetune));
  info.DecidesFusion().TakesTasks().WithOptions(Configure("go", name));
  if (finetune) {
    info.WithBudget(PlannerInfo::Budget::kSteps, kFinetuneDefaultSteps).NeedsPretrained();
  } else {
    info.WithBudget(PlannerInfo::Budget::kSeconds);
  }
  return info;
}

// A configuration of the multi-task table (rl/task_configurations.h) as a planner; its
// learned parts are GO searches of the settings' config and budget.
class TaskConfigurationPlanner : public Planner {
 public:
  TaskConfigurationPlanner(std::string name, LearnedSearchConfig base)
      : name_(std::move(name)), base_(std::move(base)) {}

  StatusOr<Plan> Run(const PlanContext& context) override {
    GO_RETURN_IF_ERROR(NeedsSimulator(context));
    return PlanTaskConfiguration(name_, *context.simulator, base_);
  }

 private:
  std::string name_;
  LearnedSearchConfig base_;
};

PlannerInfo TaskConfigurationEntry(const TaskConfiguration& configuration) {
  const std::string name = configuration.name;
  PlannerInfo info = PlannerInfo::Of(
      name, PlannerKind::kTaskConfiguration, configuration.summary,
      [name](const PlannerSettings& s) -> StatusOr<std::unique_ptr<Planner>> {
        GO_ASSIGN_OR_RETURN(LearnedSearchConfig c, SearchConfig("go", s, ""));
        return std::unique_ptr<Planner>(new TaskConfigurationPlanner(name, std::move(c)));
      });
  info.DecidesFusion().WithOptions(Configure("go"));
  if (configuration.learned) info.WithBudget(PlannerInfo::Budget::kSeconds);
  return info;
}

}  // namespace

Status ApplyFinetuneRecipe(int64_t steps, LearnedSearchConfig* config) {
  GO_ASSIGN_OR_RETURN(*config, ParseLearnedSearchOptions(std::string("preset=") + kFinetunePreset, *config));
  config->budget.max_steps = steps;
  return Status::Ok();
}

StatusOr<std::string> PolicyForGraph(const std::string& pretrained, const Graph& graph) {
  if (!IsDirectory(pretrained)) return pretrained;
  if (graph.family().empty()) return InvalidArgument("graph " + graph.name() + " has no family to hold out");
  return pretrained + "/no-" + graph.family() + ".pt";
}

void RegisterLearnedPlanners(PlannerRegistry* r) {
  if (r->Find("go") != nullptr) return;
  auto add = [r](PlannerInfo info) {
    const Status s = r->Register(std::move(info));
    GO_CHECK_MSG(s.ok(), s.message());
  };
  constexpr PlannerKind kLearned = PlannerKind::kLearned;
  using Budget = PlannerInfo::Budget;
  add(PlannerInfo::Of("go", kLearned,
                      "GO: GraphSAGE + segment-recurrent attention trained by PPO, from the best baseline, with "
                      "local search",
                      SearchFactory("go"))
          .DecidesFusion()
          .WithBudget(Budget::kSeconds)
          .TakesTasks()
          .WithOptions(Configure("go")));
  add(PlannerInfo::Of("colocrl", kLearned,
                      "ColocRL: a seq2seq placer over colocation groups trained by REINFORCE, from scratch",
                      SearchFactory("colocrl"))
          .WithBudget(Budget::kSeconds)
          .TakesTasks()
          .WithOptions(Configure("colocrl")));
  add(PlannerInfo::Of("hdp", kLearned, "HDP: a grouper and a placer trained together by REINFORCE, from scratch",
                      SearchFactory("hdp"))
          .WithBudget(Budget::kSeconds)
          .TakesTasks()
          .WithOptions(Configure("hdp")));
  add(PlannerInfo::Of("zero-shot", kLearned,
                      "one pass of the pre-trained GO policy: its greedy plan and the best of its samples, no training",
                      [](const PlannerSettings& s) -> StatusOr<std::unique_ptr<Planner>> {
                        GO_RETURN_IF_ERROR(NeedsPretrained(s, "zero-shot"));
                        GO_ASSIGN_OR_RETURN(LearnedSearchConfig c, SearchConfig("go", s, ""));
                        return std::unique_ptr<Planner>(new ZeroShotPlanner(std::move(c), s.pretrained));
                      })
          .DecidesFusion()
          .NeedsPretrained()
          .WithOptions(Configure("go")));
  for (const SearchPreset& preset : SearchPresets()) add(PresetPlanner(preset));
  // tf-default, the table's first column, is the baseline of that name.
  for (const TaskConfiguration& configuration : TaskConfigurations()) {
    if (r->Find(configuration.name) == nullptr) add(TaskConfigurationEntry(configuration));
  }
}

}  // namespace graphopt
