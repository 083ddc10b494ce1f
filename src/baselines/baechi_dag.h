// The task DAG that the Baechi placers (baselines/baechi.h) share: every task's
// inputs grouped by producer, its distinct successors, and the breadth-first
// topological order the paper's code numbers tasks by. Internal to baselines/.
#pragma once

#include <cstdint>
#include <vector>

#include "baselines/baechi.h"

namespace graphopt {
namespace baechi_internal {

// The tensors a task reads from one producer.
struct InEdge {
  int32_t producer = 0;
  std::vector<int32_t> tensors;
};

struct TaskDag {
  std::vector<std::vector<InEdge>> in;        // per task, by producer in first-read order
  std::vector<std::vector<int32_t>> succs;    // per task, distinct consumers in id order
  std::vector<std::vector<int32_t>> outputs;  // per task, the tensors it produces
  std::vector<int32_t> order;                 // breadth first from the entry tasks (in id order)
  std::vector<int32_t> rank;                  // position of each task in `order`
};

// The DAG of a problem whose sizes and ids are valid; order is shorter than
// num_tasks if the problem has a cycle.
TaskDag BuildTaskDag(const BaechiProblem& problem);

inline bool IsDeferred(const BaechiProblem& p, int task) {
  return !p.deferred.empty() && p.deferred[static_cast<size_t>(task)] != 0;
}
inline int32_t GroupOf(const BaechiProblem& p, int task) {
  return p.group.empty() ? -1 : p.group[static_cast<size_t>(task)];
}
inline int64_t ResidentOf(const BaechiProblem& p, int task) {
  return p.resident.empty() ? 0 : p.resident[static_cast<size_t>(task)];
}
inline int64_t CapacityOf(const BaechiProblem& p, int proc) {
  return p.capacity.empty() ? INT64_MAX : p.capacity[static_cast<size_t>(proc)];
}
// Number of groups: one more than the largest group id.
int32_t NumGroups(const BaechiProblem& problem);

// The list scheduler of m-ETF (favourite == nullptr) and m-SCT (a favourite child
// per task, -1 for none), baselines/baechi_list.cc.
BaechiSchedule ListSchedule(const BaechiProblem& problem, const TaskDag& dag, const std::vector<int32_t>* favourite);

}  // namespace baechi_internal
}  // namespace graphopt
