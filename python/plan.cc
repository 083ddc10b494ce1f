// graphopt.Plan and graphopt.baseline: a device, a priority and a fusion flag per op.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "baselines/baseline.h"
#include "bindings.h"
#include "graph/modules.h"
#include "sim/cost_model.h"
#include "sim/device_map.h"

namespace graphopt::python {
namespace {

// A numpy array of `n` elements of `dtype` over `data`, owned by (and alive with) `owner`.
py::array View(const py::dtype& dtype, size_t n, size_t item, void* data, py::handle owner) {
  return py::array(dtype, {n}, {item}, data, owner);
}

// Copies `values` (one per op) into `field`, or fails naming the field.
template <class T, class Array>
void Assign(const char* field, const Array& values, std::vector<T>* out) {
  if (values.ndim() != 1 || static_cast<size_t>(values.size()) != out->size()) {
    throw StatusError(InvalidArgument(std::string("plan.") + field + ": expected " + std::to_string(out->size()) +
                                      " values (one per op), got an array of shape " +
                                      std::to_string(values.ndim() == 1 ? values.size() : -1)));
  }
  auto v = values.template unchecked<1>();
  for (py::ssize_t i = 0; i < values.size(); ++i) (*out)[static_cast<size_t>(i)] = static_cast<T>(v(i));
}

std::shared_ptr<BoundPlan> Bind(std::shared_ptr<const Graph> graph, Plan plan) {
  auto bound = std::make_shared<BoundPlan>();
  bound->graph = std::move(graph);
  bound->plan = std::move(plan);
  return bound;
}

}  // namespace

std::shared_ptr<const Graph> Granular(const std::shared_ptr<Graph>& graph, const Cluster& cluster,
                                      const std::string& granularity, int depth) {
  if (granularity == "op" && depth == 0) return graph;
  auto colocated = std::make_shared<Graph>(*graph);
  Value(ApplyGranularity(granularity, depth, cluster, colocated.get()));
  return colocated;
}

void CheckPlanOf(const BoundPlan& plan, const std::shared_ptr<const Graph>& graph) {
  if (plan.graph == graph) return;
  throw StatusError(InvalidArgument("the plan is of graph " + plan.graph->name() + " (" +
                                    std::to_string(plan.graph->num_ops()) + " ops), not of " + graph->name() + " (" +
                                    std::to_string(graph->num_ops()) + " ops): plan each graph for itself"));
}

void BindPlan(py::module_& m) {
  py::class_<BoundPlan, std::shared_ptr<BoundPlan>>(
      m, "Plan",
      "A plan of one graph: for every op its device (an id of the cluster's devices), its scheduling\n"
      "priority (higher runs first among the ops ready on a device) and whether it is fused into its\n"
      "producer. The arrays are numpy views of the plan itself: writing to them changes the plan.")
      .def(py::init([](std::shared_ptr<Graph> graph, int device) {
             return Bind(graph, DefaultPlan(*graph, device));
           }),
           py::arg("graph"), py::arg("device") = 0, "Every op on `device`, ready order, no fusion.")
      .def_property_readonly("graph", [](const BoundPlan& p) { return std::const_pointer_cast<Graph>(p.graph); },
                             "The graph the plan is of.")
      .def_property(
          "device",
          [](py::object self) {
            BoundPlan& p = self.cast<BoundPlan&>();
            return View(py::dtype::of<int32_t>(), p.plan.device.size(), sizeof(int32_t), p.plan.device.data(), self);
          },
          [](BoundPlan& p, const py::array_t<int32_t, py::array::c_style | py::array::forcecast>& a) {
            Assign("device", a, &p.plan.device);
          },
          "int32 array: each op's device.")
      .def_property(
          "priority",
          [](py::object self) {
            BoundPlan& p = self.cast<BoundPlan&>();
            return View(py::dtype::of<double>(), p.plan.priority.size(), sizeof(double), p.plan.priority.data(), self);
          },
          [](BoundPlan& p, const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
            Assign("priority", a, &p.plan.priority);
          },
          "float64 array: each op's scheduling priority.")
      .def_property(
          "fuse",
          [](py::object self) {
            BoundPlan& p = self.cast<BoundPlan&>();
            return View(py::dtype("bool"), p.plan.fuse_with_producer.size(), 1, p.plan.fuse_with_producer.data(), self);
          },
          [](BoundPlan& p, const py::array_t<bool, py::array::c_style | py::array::forcecast>& a) {
            Assign("fuse", a, &p.plan.fuse_with_producer);
          },
          "bool array: each op fused into its producer's kernel.")
      .def("copy", [](const BoundPlan& p) { return Bind(p.graph, p.plan); }, "An independent copy.")
      .def(
          "save",
          [](const BoundPlan& p, const std::string& path) { Check(WritePlanJson(*p.graph, p.plan, path)); },
          py::arg("path"), "Writes the plan as graphopt's plan .json (graphopt simulate --plan reads it).")
      .def_static(
          "load",
          [](const std::string& path, std::shared_ptr<Graph> graph) { return Bind(graph, Value(ReadPlanJson(path, *graph))); },
          py::arg("path"), py::arg("graph"), "Reads a plan .json of `graph`; a plan of another graph is an error.")
      .def(
          "device_map",
          [](const BoundPlan& p, const Cluster& cluster, int depth) {
            const ModuleMap modules = Value(ClusterModules(*p.graph, cluster, depth));
            const DeviceMap map = Value(PlanDeviceMap(*p.graph, p.plan, modules));
            py::dict out;
            for (size_t i = 0; i < map.modules.size(); ++i) {
              const std::optional<int> index = AcceleratorIndex(cluster, map.device[i]);
              out[py::str(map.modules[i])] = index ? py::object(py::int_(*index)) : py::object(py::str("cpu"));
            }
            return out;
          },
          py::arg("cluster"), py::arg("depth") = 0,
          "{module name: device} for a plan that keeps every module of `depth` on one device (optimize or\n"
          "baseline with granularity='module'): the devices as Accelerate's dispatch_model takes them (an\n"
          "accelerator's index, or 'cpu'). depth 0: as granularity='module' chooses it for `cluster`. A plan\n"
          "that splits a module is refused, naming it.")
      .def("__len__", [](const BoundPlan& p) { return p.plan.device.size(); }, "The ops of its graph.")
      .def("__repr__", [](const BoundPlan& p) { return "<graphopt.Plan of " + p.graph->name() + ">"; });

  m.def(
      "baseline",
      [](std::shared_ptr<Graph> graph, std::shared_ptr<Cluster> cluster, const std::string& method, bool fusion,
         uint64_t seed, const std::string& granularity, int depth) {
        BaselineOptions options;
        options.fusion = fusion;
        options.seed = seed;
        const std::shared_ptr<const Graph> planned = Granular(graph, *cluster, granularity, depth);
        StatusOr<Plan> plan = [&] {
          py::gil_scoped_release release;
          return RunBaseline(method, *planned, *cluster, CostModel(), options);
        }();
        return Bind(graph, Value(std::move(plan)));
      },
      py::arg("graph"), py::arg("cluster"), py::arg("method"), py::arg("fusion") = false, py::arg("seed") = 0,
      py::arg("granularity") = "op", py::arg("depth") = 0,
      "A baseline's plan: 'single', 'tf-default', 'expert', 'metis', 'scotch', 'heft' or 'random'\n"
      "(graphopt.baselines() lists them), any other baseline by name ('m-etf', 'baechi', ...), or\n"
      "'plan:FILE' (a plan file's placement), each with stages ('metis+fusion+cp'); fusion=True adds\n"
      "greedy legal fusion; `seed` drives the\n"
      "randomized partitioners; granularity='module' keeps every module of `depth` on one device\n"
      "(Plan.device_map).");
  m.def("baselines", &BaselineNames, "The baselines every comparison includes, in order.");
}

}  // namespace graphopt::python
