// The baselines every comparison includes, each producing a Plan for a graph on a
// cluster: single device, the TensorFlow default, the human expert placement of the
// model family, METIS and Scotch graph partitions, HEFT list scheduling; plus two
// passes any placement can take: critical-path-first priorities and greedy fusion.
//
// A baseline sees only the graph, the cluster and the cost model (never the
// simulator's result), and returns a complete, valid plan (sim/plan.h
// ValidatePlan passes) or an error saying why it cannot place this graph.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "baselines/heft.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"
#include "sim/plan.h"

namespace graphopt {

struct BaselineOptions {
  uint64_t seed = 0;      // for partitioners' randomized refinement
  bool fusion = false;    // apply greedy fusion to the placement
  // Restrict placement to the accelerators (true) or allow the host CPU too.
  bool accelerators_only = true;
};

// The baseline the tables' ratios are against: the human expert's placement.
inline constexpr const char* kExpertBaseline = "expert";

// The baselines every comparison includes, in order: single, tf-default, expert,
// metis, scotch, heft (the registry's standard baselines, baselines/planner.h).
std::vector<std::string> BaselineNames();

// Runs a baseline of the registry by name (standard or not), with the stages joined
// to it ("heft+fusion+cp", baselines/planner.h), then greedy fusion if options.fusion
// and no stage does it (not for tf-default, which has its own); the plan is checked
// with ValidatePlan after each step. Unknown names list the known baselines.
StatusOr<Plan> RunBaseline(const std::string& method, const Graph& graph, const Cluster& cluster,
                           const CostModel& cost_model, const BaselineOptions& options = {});

// Everything on the first accelerator, ready order, no fusion.
Plan SingleDevicePlan(const Graph& graph, const Cluster& cluster);
// TensorFlow's default: each op on the first accelerator that can run it, ready
// order, greedy fusion of elementwise ops into their producers (as XLA does).
Plan TfDefaultPlan(const Graph& graph, const Cluster& cluster);
// The human expert placement of the graph's model family (layer tags); graphs
// without a family (imported) fall back to a cost-balanced split of the
// topological order into contiguous stages.
StatusOr<Plan> ExpertPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model);
// k-way partitions (k = accelerators): vertex weights from op costs, edge weights
// from tensor bytes, balanced parts.
StatusOr<Plan> MetisPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                         const BaselineOptions& options = {});
StatusOr<Plan> ScotchPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                          const BaselineOptions& options = {});
// What the list placers (HEFT, Baechi's, the exact program) start from: the devices
// they place on, the cluster's accelerators or else its first device (an error names
// `who` if the cluster has no devices or the graph a cycle), and every op's kernel time
// on each of them (row major, op x device; an instant op costs 0).
StatusOr<std::vector<DeviceId>> ListPlacerDevices(const Graph& graph, const Cluster& cluster, const std::string& who);
std::vector<double> OpCostTable(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                const std::vector<DeviceId>& devices);
// HEFT: upward rank with average computation and communication costs, then each op
// (in decreasing rank) on the device giving the earliest finish time (insertion
// based); the rank becomes the plan's priority.
StatusOr<Plan> HeftPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model);

// Sets priorities to critical-path-first (the longest path from the op to a sink,
// with op times on the plan's devices and transfer times between them).
void SetCriticalPathPriorities(const Graph& graph, const Cluster& cluster, const CostModel& cost_model, Plan* plan);
// The same for many plans of one graph and cluster: the topological order, the op
// edges and every op's kernel time on every device computed once (the graph and the
// cluster must outlive it). Apply is const and thread-safe.
class CriticalPathScheduler {
 public:
  CriticalPathScheduler(const Graph& graph, const Cluster& cluster, const CostModel& cost_model);
  void Apply(Plan* plan) const;

 private:
  const Graph* graph_;
  const Cluster* cluster_;
  std::vector<OpId> order_;
  std::vector<HeftEdge> edges_;    // grouped by producer: edges of op o are [begin_[o], begin_[o + 1])
  std::vector<int32_t> begin_;
  std::vector<double> time_us_;    // [op * devices + device]
};
// The most tensors a fused kernel of the greedy fusion reads from outside plus writes
// for readers outside (or for no reader): XLA's GPU fusion cap
// (kMaxOperandsAndOutputsPerFusion), which bounds a kernel's parameters. Without it a
// chain of accumulations fuses into one kernel that waits for all of its inputs and
// holds them all at once (docs/baselines.md, "Baselines").
inline constexpr int kMaxFusionOperandsAndOutputs = 64;

// Greedy producer-consumer fusion of fusible kinds on the plan's devices without
// creating cycles or kernels of more than kMaxFusionOperandsAndOutputs operands and
// outputs. Returns the number of ops fused.
int ApplyGreedyFusion(const Graph& graph, Plan* plan);
// ApplyGreedyFusion restricted to ops whose kind `fusible` accepts (on top of
// CanFuseKind).
int ApplyGreedyFusionOfKinds(const Graph& graph, const std::function<bool(OpKind)>& fusible, Plan* plan);
// TensorFlow's default fusion (TfDefaultPlan's): greedy fusion of elementwise ops only.
int ApplyDefaultFusion(const Graph& graph, Plan* plan);
// The framework's defaults for everything but the placement: ready order (priority 0
// everywhere) and ApplyDefaultFusion on the plan's devices. What a placement is
// measured with in a placement table, and what an optimizer that does not decide
// scheduling and fusion leaves them at.
void ApplyFrameworkDefaults(const Graph& graph, Plan* plan);

}  // namespace graphopt
