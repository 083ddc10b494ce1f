// Planners: every method that produces a plan, by name, in one registry.
//
// A Planner turns a graph on a cluster into a complete, valid plan. The registry
// holds one PlannerInfo per method (its name, kind, one-line summary and a factory)
// and the stages any plan can pass through after its planner ("fusion": greedy legal
// fusion; "cp": critical-path-first priorities). A method as the tables and the
// command line name it is a pipeline: a planner and stages joined with "+"
// ("metis+fusion", "heft+fusion+cp"); RunPipeline checks the plan with ValidatePlan
// after the planner and after every stage, naming the step that broke it.
//
// A planner may take an argument in its name, NAME:ARGUMENT (PlannerInfo::argument):
// "plan:FILE" is the plan in a plan file (baselines/plan_file.cc), so that a placement
// from anywhere takes the stages too ("plan:runs/mine.json+fusion+cp"). The argument is
// everything after the first ':' up to the first '+' (a stage): it may hold ':', '/'
// and '.', not '+'. Find resolves such a name to an entry of its own, made on the first
// lookup and kept, whose factory sees the argument in PlannerSettings::argument.
//
// The baselines are registered by baselines/registry.cc (adding one is a new file and
// one line there: docs/architecture.md, "Adding a planner"); the learned methods by
// rl/planners.h RegisterLearnedPlanners, which the command line calls at start-up.
// Lookups are thread-safe; an entry, once registered, stays at the same address.
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"
#include "sim/plan.h"

namespace graphopt {

class Simulator;

// What a planner may spend: a searching planner stops at the first limit it reaches.
struct RunBudget {
  double time_limit_s = 0;  // wall-clock seconds; 0: no limit
  int64_t max_steps = 0;    // training or search steps; 0: no limit
  int threads = 0;          // worker threads; 0: one per core
};

// What a planner plans for. `simulator` (of the same graph and cluster) is there for
// the planners that search by simulating; a baseline sees only the graph, the cluster
// and the cost model, never a simulated result.
struct PlanContext {
  const Graph& graph;
  const Cluster& cluster;
  const CostModel& cost_model;
  const Simulator* simulator = nullptr;
};

// What a searching planner reports of its last run (the bench's convergence charts):
// the best step time that fits after `seconds[i]` and `plans[i]` plans scored.
struct SearchReport {
  std::vector<double> seconds;
  std::vector<int64_t> plans;
  std::vector<double> best_us;
  double reference_us = 0;  // the best baseline's step time (0: none fits or none ran)
  double end_seconds = 0;
  int64_t end_plans = 0;
  double seconds_to_best = 0;
  double policy_best_us = 0;  // the best plan the policy itself sampled
  int improvements_policy = 0;
  int improvements_polish = 0;
  int improvements_sample_polish = 0;
};

class Planner {
 public:
  virtual ~Planner() = default;
  // A complete plan of context.graph for context.cluster, or why there is none.
  virtual StatusOr<Plan> Run(const PlanContext& context) = 0;
  // The search of the last Run, or null for planners that do not search.
  virtual const SearchReport* report() const { return nullptr; }
};

// What an entry of the registry is. Every kind but a baseline scores plans by
// simulating them (it needs PlanContext::simulator).
enum class PlannerKind : uint8_t {
  kBaseline,           // a heuristic: the graph, the cluster and the cost model alone
  kLearned,            // a learned method: trains or runs a policy (go, colocrl, hdp, zero-shot)
  kPreset,             // a learned method with a named set of its options (go-one: go with ...)
  kTaskConfiguration,  // a column of the GO paper's multi-task table (rl/task_configurations.h)
};
// "baseline", "learned method", "preset", "task configuration".
const char* PlannerKindName(PlannerKind kind);

// How a planner is made for one run. A factory rejects settings it cannot honour.
struct PlannerSettings {
  uint64_t seed = 0;
  RunBudget budget;
  // Baselines: place on the accelerators alone (the partitioners may use the CPU too).
  bool accelerators_only = true;
  // Learned planners that start from a pre-trained policy: the policy file, or a folder
  // of leave-one-out policies (no-<family>.pt), of which the one without the graph's
  // family is used.
  std::string pretrained;
  // The planner's own typed config (a learned planner's: rl/learned_search.h
  // LearnedSearchConfig), set by PlannerInfo::configure; empty: the planner's defaults for
  // the seed and budget above.
  std::any config;
  // The argument of a planner named NAME:ARGUMENT (plan:FILE: the file), as the
  // registry's entry for that name sets it; empty for the others.
  std::string argument;
};

using PlannerFactory = std::function<StatusOr<std::unique_ptr<Planner>>(const PlannerSettings& settings)>;

struct PlannerInfo {
  std::string name;  // as methods are named on the command line and in tables
  PlannerKind kind = PlannerKind::kBaseline;
  std::string summary;  // one line, for `graphopt methods`
  // One of the baselines every comparison includes (BaselineNames), in the order
  // registered; a planner registered without it runs only when named.
  bool standard = false;
  // Its plans come with fusion decided: the "fusion" stage leaves them as they are.
  bool decides_fusion = false;
  PlannerFactory create;
  // What of the RunBudget it heeds: nothing (it takes the time it takes), the time
  // limit (a search to a time limit), or a number of steps (default_steps unless the
  // budget sets max_steps).
  enum class Budget : uint8_t { kNone, kSeconds, kSteps };
  Budget budget = Budget::kNone;
  int64_t default_steps = 0;
  // It cannot run without PlannerSettings::pretrained.
  bool needs_pretrained = false;
  // Its options take `tasks=` (which decisions the policy makes): a placement table
  // gives it tasks=placement unless its options say otherwise.
  bool takes_tasks = false;
  // Parses the planner's own options ("key=value,...", as the command line gives them)
  // into settings->config, over its defaults for the settings' seed and budget (so set
  // those first: a planner made with a config uses the config's); unknown keys and bad
  // values are errors naming them. Null: the planner takes no options.
  std::function<Status(const std::string& options, PlannerSettings* settings)> configure = nullptr;
  // Non-empty: the planner is named NAME:ARGUMENT, and this says what the argument is
  // ("FILE"); its factory finds the argument in PlannerSettings::argument, and fails
  // without one (the bare NAME).
  std::string argument = "";

  // An entry by named fields: PlannerInfo::Of("metis", kBaseline, "...", factory)
  // .Standard(), each setter naming the field it sets.
  static PlannerInfo Of(std::string name, PlannerKind kind, std::string summary, PlannerFactory create);
  PlannerInfo& Standard() { standard = true; return *this; }
  PlannerInfo& DecidesFusion(bool yes = true) { decides_fusion = yes; return *this; }
  PlannerInfo& WithBudget(Budget what, int64_t steps = 0) { budget = what; default_steps = steps; return *this; }
  PlannerInfo& NeedsPretrained() { needs_pretrained = true; return *this; }
  PlannerInfo& TakesTasks() { takes_tasks = true; return *this; }
  PlannerInfo& WithOptions(std::function<Status(const std::string&, PlannerSettings*)> parse) {
    configure = std::move(parse);
    return *this;
  }
  PlannerInfo& WithArgument(std::string what) { argument = std::move(what); return *this; }
};

// How the command line names a planner: "metis", or "plan:FILE" for one that takes an
// argument.
std::string PlannerUsageName(const PlannerInfo& info);

// A step any plan can take after its planner; it keeps a valid plan valid.
struct PlanStage {
  std::string name;     // "fusion", "cp"
  std::string summary;  // one line
  bool fusion = false;  // it decides fusion (skipped after a planner that decides_fusion)
  std::function<void(const PlanContext& context, Plan* plan)> apply;
};

class PlannerRegistry {
 public:
  // The process's registry: the baselines and the stages from the start.
  static PlannerRegistry& Global();

  // An empty registry (tests); Global() is this plus the baselines and the stages.
  PlannerRegistry() = default;
  // Fails on an empty or repeated name, a name with '+', ',', ':' or a space (a task
  // configuration's may hold '+': "pl+sch+fu"), or no factory.
  Status Register(PlannerInfo info);
  Status RegisterStage(PlanStage stage);

  // Null if unknown. "NAME:ARGUMENT" for a planner that takes an argument is the entry
  // of that name and argument (made on the first lookup, then the same): NAME's, with
  // a factory that passes the argument on; with an empty argument, null.
  const PlannerInfo* Find(const std::string& name) const;
  // NotFound naming the known planners (and what a planner that takes an argument
  // lacks without one).
  StatusOr<const PlannerInfo*> Get(const std::string& name) const;
  // In the order registered (the entries of NAME:ARGUMENT names are not among them).
  std::vector<const PlannerInfo*> Planners() const;
  std::vector<const PlanStage*> Stages() const;
  const PlanStage* FindStage(const std::string& name) const;
  // "single, tf-default, ..., plan:FILE, go, colocrl, ...": every planner's
  // PlannerUsageName.
  std::string KnownNames() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<PlannerInfo>> planners_;
  mutable std::vector<std::unique_ptr<PlannerInfo>> bound_;  // the NAME:ARGUMENT entries Find made
  std::vector<std::unique_ptr<PlanStage>> stages_;
};

// The registry lines: every baseline planner (baselines/registry.cc) and the stages.
void RegisterBaselines(PlannerRegistry* registry);
void RegisterStages(PlannerRegistry* registry);

// A method as the tables name it: a planner and the stages after it, in order.
struct Pipeline {
  std::string name;  // "metis+fusion"
  const PlannerInfo* planner = nullptr;
  std::vector<const PlanStage*> stages;
};

// Parses "planner[+stage...]" ("plan:FILE+fusion": the planner's argument ends at the
// first '+'); the planner is the longest run of leading '+'-parts that names one, so a
// task configuration's name ("pl+sch", "pl+sch+fu") is one planner. Unknown planners
// and stages, and a stage named twice, are errors naming what is known.
StatusOr<Pipeline> ParsePipeline(const std::string& name, const PlannerRegistry& registry = PlannerRegistry::Global());

// Runs `planner` (made from pipeline.planner) then the stages, with ValidatePlan
// after each; an invalid plan is an InternalError naming the step that made it.
StatusOr<Plan> RunPipeline(const Pipeline& pipeline, Planner& planner, const PlanContext& context);

// PlannerInfo::configure of `info` with `options`; empty options leave the settings as
// they are, and options for a planner that takes none are an error naming it.
Status ConfigurePlanner(const PlannerInfo& info, const std::string& options, PlannerSettings* settings);

// Makes the pipeline's planner with `settings` and runs the pipeline, with the
// method's name as the context of any error.
StatusOr<Plan> PlanWith(const Pipeline& pipeline, const PlannerSettings& settings, const PlanContext& context);

}  // namespace graphopt
