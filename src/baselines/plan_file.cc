// The plan-file planner, "plan:FILE": the plan a file holds (sim/plan.h ReadPlanJson,
// the one reader of plan files: what `graphopt baseline --out` writes and `graphopt
// simulate --plan` reads), checked against the graph and the cluster, so that a
// placement made anywhere (by hand, by another tool, by an earlier run) takes the
// stages (plan:FILE+fusion+cp) and is scored on the same defaults as every baseline.
//
// The file is read when the planner runs, not when the method is named. A plan file
// names its graph and op count (both checked) but not its cluster: a plan of another
// cluster is refused when a device is out of range or the plan breaks a rule of
// ValidatePlan there, and is otherwise taken as it is.
#include <memory>
#include <string>

#include "baselines/planner.h"

namespace graphopt {
namespace {

class PlanFilePlanner : public Planner {
 public:
  explicit PlanFilePlanner(std::string path) : path_(std::move(path)) {}

  StatusOr<Plan> Run(const PlanContext& context) override {
    // ReadPlanJson's errors begin with the path: a missing file, damaged JSON, another graph.
    GO_ASSIGN_OR_RETURN(Plan plan, ReadPlanJson(path_, context.graph));
    const Status complete = CompletePlan(context.graph, &plan);
    if (!complete.ok()) return InvalidArgument(path_ + ": " + complete.message());
    const Status valid = ValidatePlan(context.graph, context.cluster, plan);
    if (!valid.ok()) {
      return InvalidArgument(path_ + ": not a valid plan of " + context.graph.name() + " on cluster " +
                             context.cluster.name() + ": " + valid.message());
    }
    return plan;
  }

 private:
  std::string path_;
};

}  // namespace

StatusOr<std::unique_ptr<Planner>> NewPlanFilePlanner(const PlannerSettings& settings) {
  if (settings.argument.empty()) {
    return InvalidArgument("the plan method takes the plan file after ':' (plan:FILE, e.g. plan:plan.json+fusion)");
  }
  return std::unique_ptr<Planner>(new PlanFilePlanner(settings.argument));
}

}  // namespace graphopt
