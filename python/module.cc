// The Python module `graphopt`: load a model, pick a cluster, plan it with a baseline
// or the learned optimizer, simulate the plan (docs/python.md).
#include <pybind11/pybind11.h>

#include "bindings.h"

PYBIND11_MODULE(graphopt, m) {
  using namespace graphopt::python;
  m.doc() =
      "graphopt: placement, scheduling and fusion of a model's training step on several devices.\n\n"
      "  g = graphopt.load('gnmt:layers=4')            # or an ONNX file, dims={'batch': 32}\n"
      "  c = graphopt.cluster('4xV100')                # a preset, a spec or a cluster .json file\n"
      "  p = graphopt.baseline(g, c, 'expert')\n"
      "  r = graphopt.simulate(g, c, p)                # r.step_time_us, r.peak_memory, ...\n"
      "  best = graphopt.optimize(g, c, time_limit=30)  # best.plan, best.step_time_us\n";
  BindErrors(m);
  BindGraph(m);
  BindCluster(m);
  BindPlan(m);
  BindSimulate(m);
  BindOptimize(m);
}
