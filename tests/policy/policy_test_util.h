// Small graphs and machines for the policy tests.
#pragma once

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "graph/builder.h"
#include "graph/training.h"
#include "sim/cluster.h"

namespace graphopt::testing {

// A two-layer MLP training step (about 40 ops): Variables and their ApplyGradient
// ops share colocation groups, elementwise ops can fuse. `scale` multiplies every
// dimension that sets the sizes (batch and widths).
inline Graph MlpTrainingGraph(int64_t scale = 1) {
  GraphBuilder b("mlp");
  const TensorId x = b.Input("x", {8 * scale, 16 * scale});
  const TensorId w1 = b.Variable("w1", {16 * scale, 32 * scale});
  const TensorId b1 = b.Variable("b1", {32 * scale});
  const TensorId h = b.Relu(b.Add(b.MatMul(x, w1), b1));
  const TensorId w2 = b.Variable("w2", {32 * scale, 4 * scale});
  const TensorId y = b.Sigmoid(b.MatMul(h, w2));
  b.Reduce(OpKind::kReduceSum, y, {0, 1}, false);
  auto g = BuildTrainingGraph(b.Finish());
  if (!g.ok()) std::abort();
  return std::move(*g);
}

// `n` identical V100-like GPUs, all links 10 GB/s.
inline Cluster GpuCluster(int n, int64_t memory_bytes = int64_t{16} << 30) {
  std::vector<Device> devices(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    Device& d = devices[static_cast<size_t>(i)];
    d.name = "gpu:" + std::to_string(i);
    d.peak_flops = 1.4e13;
    d.memory_bandwidth = 9e11;
    d.memory_bytes = memory_bytes;
    d.launch_overhead_us = 5;
  }
  Cluster c(std::to_string(n) + "gpu", devices);
  c.SetAllLinks(Link{1e10, 10});
  return c;
}

}  // namespace graphopt::testing
