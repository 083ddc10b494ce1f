// Small graphs and machines with round numbers, so that makespans can be computed on
// paper: 1 TFLOP/s devices at 100% efficiency (1e6 FLOPs = 1 us), 1 GB/s memory
// (1000 bytes = 1 us), 1 us launch overhead, links of 1 GB/s and 2 us latency.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"

namespace graphopt::testing {

inline Cluster PaperCluster(int num_devices, int64_t memory_bytes = int64_t{1} << 40) {
  std::vector<Device> devices;
  for (int i = 0; i < num_devices; ++i) {
    Device d;
    d.name = "dev" + std::to_string(i);
    d.model = "paper";
    d.kind = DeviceKind::kGpu;
    d.peak_flops = 1e12;
    d.memory_bandwidth = 1e9;
    d.memory_bytes = memory_bytes;
    d.launch_overhead_us = 1;
    devices.push_back(d);
  }
  Cluster c("paper", devices);
  c.SetAllLinks(Link{1e9, 2});
  return c;
}

inline CostModel PerfectCostModel() {
  CostModelOptions o;
  o.gpu_efficiency.fill(1.0);
  o.cpu_efficiency.fill(1.0);
  return CostModel(o);
}

// Builds graphs op by op with explicit costs.
class PaperGraph {
 public:
  explicit PaperGraph(std::string name = "paper") : g_(std::move(name)) {}

  // An Input op with one output of `bytes`.
  TensorId Input(const std::string& name, int64_t bytes) {
    return Out(Add(name, OpKind::kInput, {}, {bytes}, 0, 0, 0));
  }
  TensorId Variable(const std::string& name, int64_t bytes) {
    Op op;
    op.name = name;
    op.kind = OpKind::kVariable;
    op.param_bytes = bytes;
    op.colocation_group = g_.NewColocationGroup();
    op.outputs = {g_.AddTensor(name, {bytes / 4})};
    return Out(g_.AddOp(std::move(op), false));
  }
  // An op of `kind` reading `inputs`, with one output per entry of `out_bytes`, `mflops`
  // million FLOPs, and bytes read / written as given.
  OpId Add(const std::string& name, OpKind kind, const std::vector<TensorId>& inputs,
           const std::vector<int64_t>& out_bytes, double mflops, int64_t bytes_read, int64_t bytes_written) {
    Op op;
    op.name = name;
    op.kind = kind;
    op.inputs = inputs;
    for (size_t i = 0; i < out_bytes.size(); ++i) {
      op.outputs.push_back(g_.AddTensor(name + (i ? ":" + std::to_string(i) : ""), {out_bytes[i] / 4}));
    }
    op.cost.flops = mflops * 1e6;
    op.cost.bytes_read = bytes_read;
    op.cost.bytes_written = bytes_written;
    return g_.AddOp(std::move(op), false);
  }
  // A MatMul taking `mflops` (compute-bound, no bytes) with an output of `bytes`.
  TensorId Compute(const std::string& name, const std::vector<TensorId>& inputs, double mflops, int64_t bytes) {
    return Out(Add(name, OpKind::kMatMul, inputs, {bytes}, mflops, 0, 0));
  }
  TensorId Out(OpId op, size_t i = 0) const { return g_.op(op).outputs[i]; }
  OpId Producer(TensorId t) const { return g_.tensor(t).producer; }
  Graph& graph() { return g_; }

 private:
  Graph g_;
};

}  // namespace graphopt::testing
