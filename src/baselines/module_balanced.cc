// The module-balanced planner: a model's modules (sim/device_map.h ClusterModules, at
// the shallowest depth with two modules holding parameters per accelerator) in op order,
// cut into contiguous runs of about equal parameter bytes, one run per accelerator, as
// Hugging Face Accelerate's device_map="balanced" splits a model's layers; the ops of
// no module take a neighbour's device. Ready order, no fusion. For models whose op
// names are module paths (ONNX exported from PyTorch, the built-in graphs).
#include <algorithm>
#include <memory>
#include <vector>

#include "baselines/planner.h"
#include "graph/modules.h"
#include "graph/neighbour_fill.h"
#include "graph/verifier.h"
#include "sim/device_map.h"

namespace graphopt {
namespace {

class ModuleBalancedPlanner : public Planner {
 public:
  StatusOr<Plan> Run(const PlanContext& context) override {
    const Graph& graph = context.graph;
    const std::vector<DeviceId> accelerators = context.cluster.Accelerators();
    if (accelerators.empty()) return InvalidArgument("the cluster has no accelerator");
    const int n = static_cast<int>(accelerators.size());
    GO_ASSIGN_OR_RETURN(const ModuleMap modules, ClusterModules(graph, context.cluster, 0));
    // Each module's share of the total (its parameter bytes, or its op count when no
    // module holds parameters), and the accelerator whose run holds its middle.
    std::vector<double> weight(modules.names.size(), 0);
    double total = 0;
    for (size_t m = 0; m < weight.size(); ++m) total += weight[m] = static_cast<double>(modules.param_bytes[m]);
    if (total <= 0) {
      for (int32_t m : modules.op_module) {
        if (m != kNoId) weight[static_cast<size_t>(m)] += 1;
      }
      for (double w : weight) total += w;
    }
    std::vector<int32_t> slot(modules.names.size(), 0);
    double before = 0;
    for (size_t m = 0; m < weight.size(); ++m) {
      slot[m] = std::min(n - 1, static_cast<int32_t>((before + weight[m] / 2) * n / total));
      before += weight[m];
    }
    std::vector<int32_t> values(static_cast<size_t>(graph.num_ops()), kNoId);
    for (OpId o = 0; o < graph.num_ops(); ++o) {
      const int32_t m = modules.op_module[static_cast<size_t>(o)];
      if (m != kNoId) values[static_cast<size_t>(o)] = slot[static_cast<size_t>(m)];
    }
    GO_ASSIGN_OR_RETURN(const std::vector<OpId> order, TopologicalOrder(graph));
    FillFromNeighbours(graph, order, &values);
    Plan plan = DefaultPlan(graph, accelerators[0]);
    for (OpId o = 0; o < graph.num_ops(); ++o) {
      const int32_t v = values[static_cast<size_t>(o)];
      plan.device[static_cast<size_t>(o)] = accelerators[static_cast<size_t>(v == kNoId ? 0 : v)];
    }
    RespectColocation(graph, &plan);
    return plan;
  }
};

}  // namespace

StatusOr<std::unique_ptr<Planner>> NewModuleBalancedPlanner(const PlannerSettings&) {
  return std::unique_ptr<Planner>(new ModuleBalancedPlanner());
}

}  // namespace graphopt
