#include "sim/random_graph.h"

#include <algorithm>
#include <string>
#include <vector>

namespace graphopt {
namespace {

TensorId NewTensor(Graph& g, const std::string& name, int64_t bytes) {
  return g.AddTensor(name, {std::max<int64_t>(1, bytes / 4)}, DType::kF32);
}

}  // namespace

Graph RandomLayeredGraph(const RandomGraphOptions& options, uint64_t seed) {
  Rng rng(seed);
  Graph g("random_" + std::to_string(options.num_ops) + "_" + std::to_string(seed));
  auto tensor_bytes = [&] {
    return static_cast<int64_t>(4096 + rng.Uniform(static_cast<uint64_t>(options.max_tensor_bytes)));
  };

  Op input;
  input.name = "input";
  input.kind = OpKind::kInput;
  input.outputs = {NewTensor(g, "input", tensor_bytes())};
  g.AddOp(std::move(input), false);
  std::vector<std::vector<TensorId>> layers = {{0}};

  const OpKind kinds[] = {OpKind::kMatMul,    OpKind::kMatMul, OpKind::kLSTMCell, OpKind::kAdd,
                          OpKind::kMul,       OpKind::kTanh,   OpKind::kSigmoid,  OpKind::kRelu,
                          OpKind::kReduceSum, OpKind::kConcat, OpKind::kReshape,  OpKind::kShape};
  const int num_kinds = static_cast<int>(sizeof(kinds) / sizeof(kinds[0]));
  int made = 0;
  while (made < options.num_ops) {
    std::vector<TensorId> layer;
    const int first_layer = std::max(0, static_cast<int>(layers.size()) - options.lookback);
    for (int w = 0; w < options.width && made < options.num_ops; ++w, ++made) {
      Op op;
      op.name = "op" + std::to_string(made);
      op.kind = kinds[rng.Uniform(static_cast<uint64_t>(num_kinds))];
      op.phase = made < options.num_ops / 3 ? Phase::kForward : Phase::kBackward;
      const int num_inputs = CategoryOf(op.kind) == OpCategory::kView || IsFree(op.kind)
                                 ? 1
                                 : static_cast<int>(rng.UniformInt(1, options.max_inputs));
      for (int i = 0; i < num_inputs; ++i) {
        const auto& from =
            layers[static_cast<size_t>(rng.UniformInt(first_layer, static_cast<int64_t>(layers.size()) - 1))];
        const TensorId t = from[rng.Uniform(from.size())];
        if (std::find(op.inputs.begin(), op.inputs.end(), t) == op.inputs.end()) op.inputs.push_back(t);
      }
      const OpCategory category = CategoryOf(op.kind);
      if ((category == OpCategory::kContraction || category == OpCategory::kRecurrent) &&
          rng.Bernoulli(options.param_fraction)) {
        Op var;
        var.name = op.name + "/w";
        var.kind = OpKind::kVariable;
        var.colocation_group = g.NewColocationGroup();
        const int64_t pb = tensor_bytes();
        var.param_bytes = pb;
        var.outputs = {NewTensor(g, var.name, pb)};
        const TensorId w_tensor = var.outputs[0];
        const int32_t group = var.colocation_group;
        g.AddOp(std::move(var), false);
        op.inputs.push_back(w_tensor);
        Op update;
        update.name = op.name + "/update";
        update.kind = OpKind::kApplyGradient;
        update.phase = Phase::kUpdate;
        update.colocation_group = group;
        update.param_bytes = pb;  // momentum
        update.cost.flops = static_cast<double>(pb);
        update.cost.bytes_read = 3 * pb;
        update.cost.bytes_written = 2 * pb;
        update.inputs = {w_tensor};
        // Reads a gradient-like tensor: pushed after the op below exists.
        const int64_t out_bytes = IsFree(op.kind) ? 64 : tensor_bytes();
        op.outputs = {NewTensor(g, op.name, out_bytes)};
        for (TensorId t : op.inputs) op.cost.bytes_read += g.tensor(t).bytes();
        op.cost.bytes_written = out_bytes;
        op.cost.flops = options.max_flops * rng.UniformDouble();
        op.cost.macs = op.cost.flops / 2;
        layer.push_back(op.outputs[0]);
        update.inputs.push_back(op.outputs[0]);
        g.AddOp(std::move(op), false);
        g.AddOp(std::move(update), false);
        continue;
      }
      int64_t out_bytes = tensor_bytes();
      // Views and elementwise maps keep their first input's size, as in real graphs
      // (what fusion's one iteration space asks of a kernel).
      if (category == OpCategory::kView || category == OpCategory::kElementwise) {
        out_bytes = g.tensor(op.inputs[0]).bytes();
      }
      if (IsFree(op.kind)) out_bytes = 16;
      op.outputs = {NewTensor(g, op.name, out_bytes)};
      if (category != OpCategory::kView && !IsFree(op.kind)) {
        for (TensorId t : op.inputs) op.cost.bytes_read += g.tensor(t).bytes();
        op.cost.bytes_written = out_bytes;
      }
      if (category == OpCategory::kContraction || category == OpCategory::kRecurrent) {
        op.cost.flops = options.max_flops * rng.UniformDouble();
        op.cost.macs = op.cost.flops / 2;
      } else if (category == OpCategory::kElementwise || category == OpCategory::kReduction) {
        op.cost.flops = static_cast<double>(out_bytes / 4) * (1 + static_cast<double>(rng.Uniform(4)));
      }
      layer.push_back(op.outputs[0]);
      g.AddOp(std::move(op), false);
    }
    layers.push_back(std::move(layer));
  }
  return g;
}

Plan RandomPlan(const Graph& graph, const Cluster& cluster, const RandomPlanOptions& options, Rng& rng) {
  std::vector<DeviceId> choices = options.accelerators_only ? cluster.Accelerators() : std::vector<DeviceId>{};
  if (choices.empty()) {
    for (DeviceId d = 0; d < cluster.num_devices(); ++d) choices.push_back(d);
  }
  const size_t n = static_cast<size_t>(graph.num_ops());
  Plan plan;
  plan.device.resize(n);
  plan.priority.assign(n, 0.0);
  plan.fuse_with_producer.assign(n, 0);
  for (size_t o = 0; o < n; ++o) {
    plan.device[o] = choices[rng.Uniform(choices.size())];
    if (options.random_priorities) plan.priority[o] = rng.UniformDouble();
    if (options.fuse_probability > 0 && CanFuseKind(graph.op(static_cast<OpId>(o)).kind)) {
      plan.fuse_with_producer[o] = rng.Bernoulli(options.fuse_probability) ? 1 : 0;
    }
  }
  RespectColocation(graph, &plan);
  // Give a fused op its producer's device, so that most fusions survive.
  for (size_t o = 0; o < n; ++o) {
    if (!plan.fuse_with_producer[o]) continue;
    const OpId p = FusionProducer(graph, static_cast<OpId>(o));
    if (p != kNoId && graph.op(static_cast<OpId>(o)).colocation_group == kNoId)
      plan.device[o] = plan.device[static_cast<size_t>(p)];
  }
  DropIllegalFusions(graph, &plan);
  return plan;
}

}  // namespace graphopt
