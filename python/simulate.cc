// graphopt.simulate and graphopt.Simulator: a plan's predicted training step.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "sim/simulator.h"
#include "sim/trace.h"

namespace graphopt::python {
namespace {

// A simulator with the graph and the cluster it refers to, and the buffers its
// simulations reuse (one call at a time; a call that finds them in use by another
// thread simulates with buffers of its own).
struct BoundSimulator {
  std::shared_ptr<const Graph> graph;
  std::shared_ptr<const Cluster> cluster;
  std::optional<Simulator> sim;
  std::mutex scratch_mu;
  SimScratch scratch;
};

// A simulated step and what it says of memory on its cluster.
struct Result {
  SimResult r;
  std::vector<double> utilization;
  std::string memory;
};

std::shared_ptr<BoundSimulator> NewSimulator(std::shared_ptr<Graph> graph, std::shared_ptr<Cluster> cluster) {
  auto s = std::make_shared<BoundSimulator>();
  s->graph = graph;
  s->cluster = cluster;
  StatusOr<Simulator> sim = [&] {
    py::gil_scoped_release release;
    return Simulator::Create(*graph, *cluster);
  }();
  s->sim.emplace(Value(std::move(sim)));
  return s;
}

Result Run(BoundSimulator& s, const BoundPlan& plan, const std::string& trace) {
  CheckPlanOf(plan, s.graph);
  SimOptions options;
  options.record_timeline = !trace.empty();
  StatusOr<SimResult> r = [&] {
    py::gil_scoped_release release;
    std::unique_lock<std::mutex> lock(s.scratch_mu, std::try_to_lock);
    if (!lock.owns_lock()) return s.sim->Simulate(plan.plan, options);
    return s.sim->Simulate(plan.plan, options, &s.scratch);
  }();
  Result out;
  out.r = Value(std::move(r));
  for (DeviceId d = 0; d < s.cluster->num_devices(); ++d) out.utilization.push_back(out.r.Utilization(d));
  out.memory = out.r.OomVerdict(*s.cluster);
  if (!trace.empty()) {
    Check(WriteChromeTrace(*s.graph, *s.cluster, out.r, trace));
    out.r.timeline.clear();
    out.r.memory_timeline.clear();
  }
  return out;
}

}  // namespace

void BindSimulate(py::module_& m) {
  py::class_<Result>(m, "SimResult", "One simulated training step.")
      .def_property_readonly("step_time_us", [](const Result& r) { return r.r.step_time_us; }, "The step's time in microseconds.")
      .def_property_readonly("step_time", [](const Result& r) { return r.r.step_time_us / 1e6; }, "The step's time in seconds.")
      .def_property_readonly("lower_bound_us", [](const Result& r) { return r.r.lower_bound_us; },
                             "No plan of this graph on this cluster can be faster.")
      .def_property_readonly("oom", [](const Result& r) { return r.r.oom; }, "A device runs out of memory.")
      .def_property_readonly("memory", [](const Result& r) { return r.memory; }, "What the step's memory says, in words.")
      .def_property_readonly("peak_memory", [](const Result& r) { return py::array_t<int64_t>(r.r.device_peak_memory.size(), r.r.device_peak_memory.data()); },
                             "int64 array: each device's peak bytes, resident parameters included.")
      .def_property_readonly("busy_us", [](const Result& r) { return py::array_t<double>(r.r.device_busy_us.size(), r.r.device_busy_us.data()); },
                             "float64 array: each device's time running kernels.")
      .def_property_readonly("utilization", [](const Result& r) { return py::array_t<double>(r.utilization.size(), r.utilization.data()); },
                             "float64 array: each device's busy fraction of the step.")
      .def_property_readonly("num_kernels", [](const Result& r) { return r.r.num_kernels; }, "Kernels run (a fused group is one).")
      .def_property_readonly("num_transfers", [](const Result& r) { return r.r.num_transfers; }, "Tensors sent between devices.")
      .def("__repr__", [](const Result& r) {
        return "<graphopt.SimResult " + std::to_string(r.r.step_time_us / 1e6) + " s, " + r.memory + ">";
      });

  py::class_<BoundSimulator, std::shared_ptr<BoundSimulator>>(
      m, "Simulator", "The simulator of one graph on one cluster, for simulating many plans.")
      .def(py::init(&NewSimulator), py::arg("graph"), py::arg("cluster"), "The simulator of `graph` on `cluster`.")
      .def("simulate", &Run, py::arg("plan"), py::arg("trace") = "",
           "Simulates `plan` (of this graph); `trace`: write the timeline to this file in Chrome's\n"
           "Trace Event format (open in Perfetto).")
      .def_property_readonly("lower_bound_us", [](const BoundSimulator& s) { return s.sim->lower_bound().value_us(); },
                             "No plan of this graph on this cluster can be faster.");

  m.def(
      "simulate",
      [](std::shared_ptr<Graph> graph, std::shared_ptr<Cluster> cluster, const BoundPlan& plan, const std::string& trace) {
        return Run(*NewSimulator(graph, cluster), plan, trace);
      },
      py::arg("graph"), py::arg("cluster"), py::arg("plan"), py::arg("trace") = "",
      "Simulates one training step of `graph` on `cluster` under `plan`: step time, per-device peak\n"
      "memory and utilisation, the lower bound. (graphopt.Simulator simulates many plans of one graph.)");
}

}  // namespace graphopt::python
