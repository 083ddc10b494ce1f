// The pieces of the Python module `graphopt` (module.cc): each Bind* adds one
// concept's names. Bindings only: every decision is the C++ library's.
//
// Errors: a failed Status becomes a Python exception of graphopt's own hierarchy
// (graphopt.Error, with InvalidArgument also a ValueError, NotFound a LookupError,
// IoError an OSError), carrying the library's message unchanged.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/plan.h"

namespace graphopt::python {

namespace py = pybind11;

// A failed Status on its way to Python (module.cc translates it).
class StatusError : public std::runtime_error {
 public:
  explicit StatusError(Status status) : std::runtime_error(status.message()), status_(std::move(status)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

inline void Check(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}
template <class T>
T Value(StatusOr<T> value) {
  Check(value.status());
  return std::move(*value);
}

// A plan with the graph it is of: Python's graphopt.Plan.
struct BoundPlan {
  std::shared_ptr<const Graph> graph;
  Plan plan;
};

// `graph` as a planner sees it under `granularity` ("op": as it is; "module": a copy
// whose modules of `depth` are colocation groups, graph/modules.h).
std::shared_ptr<const Graph> Granular(const std::shared_ptr<Graph>& graph, const Cluster& cluster,
                                      const std::string& granularity, int depth);

// Fails unless `plan` is a plan of `graph` (the same loaded graph object).
void CheckPlanOf(const BoundPlan& plan, const std::shared_ptr<const Graph>& graph);

void BindErrors(py::module_& m);
void BindGraph(py::module_& m);
void BindCluster(py::module_& m);
void BindPlan(py::module_& m);
void BindSimulate(py::module_& m);
void BindOptimize(py::module_& m);

}  // namespace graphopt::python
