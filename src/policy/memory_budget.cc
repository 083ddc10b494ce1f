#include "policy/memory_budget.h"

#include <algorithm>
#include <cmath>

#include "core/status.h"

namespace graphopt {

UnitMemory EstimateUnitMemory(const Graph& graph, const CostModel& cost_model, const PolicyInput& input) {
  GO_CHECK_MSG(input.num_ops == graph.num_ops(), "EstimateUnitMemory: the input is of another graph");
  // kept[t]: tensor t lives until the backward pass: a backward op reads it, or a view
  // that aliases it (an instant op) has an output that is kept. Tensors in reverse
  // topological order of their producers, so a view's outputs are known first.
  std::vector<uint8_t> kept(static_cast<size_t>(graph.num_tensors()), 0);
  for (int i = input.num_ops - 1; i >= 0; --i) {
    const Op& op = graph.op(input.order[static_cast<size_t>(i)]);
    for (TensorId t : op.outputs) {
      for (OpId c : graph.tensor(t).consumers) {
        const Op& consumer = graph.op(c);
        bool k = consumer.phase == Phase::kBackward;
        if (!k && cost_model.IsInstant(consumer)) {
          for (TensorId out : consumer.outputs) k = k || kept[static_cast<size_t>(out)] != 0;
        }
        if (k) {
          kept[static_cast<size_t>(t)] = 1;
          break;
        }
      }
    }
  }
  UnitMemory m;
  m.num_tensors = graph.num_tensors();
  std::vector<int64_t>& bytes = m.own;
  bytes.assign(static_cast<size_t>(input.num_units), 0);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    const Op& op = graph.op(o);
    int64_t b = OpResidentBytes(graph, o);
    // A view that aliases its input holds no bytes of its own; a graph input does.
    const bool view = cost_model.IsInstant(op) && !IsFree(op.kind);
    if (op.phase == Phase::kForward && op.kind != OpKind::kVariable && !view) {
      for (TensorId t : op.outputs) b += kept[static_cast<size_t>(t)] ? graph.tensor(t).bytes() : 0;
    }
    bytes[static_cast<size_t>(input.unit_of_op(o))] += b;
  }
  // The forward tensors each unit's backward ops read, once per unit and tensor.
  m.read_offsets.assign(static_cast<size_t>(input.num_units) + 1, 0);
  std::vector<int32_t> seen(static_cast<size_t>(graph.num_tensors()), -1);  // last unit that listed it
  for (int u = 0; u < input.num_units; ++u) {
    for (int32_t e = input.unit_offsets[static_cast<size_t>(u)]; e < input.unit_offsets[static_cast<size_t>(u) + 1]; ++e) {
      const Op& op = graph.op(input.order[static_cast<size_t>(input.unit_nodes[static_cast<size_t>(e)])]);
      if (op.phase != Phase::kBackward) continue;
      for (TensorId t : op.inputs) {
        const OpId producer = graph.tensor(t).producer;
        if (producer == kNoId || graph.op(producer).phase != Phase::kForward) continue;
        if (seen[static_cast<size_t>(t)] == u || graph.tensor(t).bytes() == 0) continue;
        seen[static_cast<size_t>(t)] = u;
        m.read_tensor.push_back(t);
        m.read_bytes.push_back(graph.tensor(t).bytes());
        m.read_unit.push_back(input.unit_of_op(producer));
      }
    }
    m.read_offsets[static_cast<size_t>(u) + 1] = static_cast<int32_t>(m.read_tensor.size());
  }
  return m;
}

double BudgetRung(double first, int rung) { return first * std::pow(0.9, rung); }

std::vector<int32_t> BudgetedPlacement(const PolicyInput& input, const float* probs, const UnitMemory& memory,
                                       double fraction, Rng* rng) {
  const int u = input.num_units, d = input.num_devices;
  GO_CHECK_MSG(static_cast<int>(memory.own.size()) == u, "BudgetedPlacement: the estimate is of another input");
  GO_CHECK_MSG(fraction > 0 && fraction <= 1, "BudgetedPlacement: the budget fraction must be in (0, 1]");
  std::vector<double> room(static_cast<size_t>(d));
  for (int k = 0; k < d; ++k)
    room[static_cast<size_t>(k)] = fraction * static_cast<double>(input.device_memory_bytes[static_cast<size_t>(k)]);
  std::vector<int32_t> device(static_cast<size_t>(u), -1);
  // copied[t * d + k]: a copy of tensor t on device k is already counted.
  std::vector<uint8_t> copied(static_cast<size_t>(memory.num_tensors) * static_cast<size_t>(d), 0);
  std::vector<double> need(static_cast<size_t>(d));
  std::vector<float> weight(static_cast<size_t>(d));
  for (int i = 0; i < u; ++i) {
    const float* p = probs + static_cast<size_t>(i) * static_cast<size_t>(d);
    const int32_t r0 = memory.read_offsets[static_cast<size_t>(i)], r1 = memory.read_offsets[static_cast<size_t>(i) + 1];
    // Each device's cost of the unit, and the policy's weight of each allowed device
    // where it still fits.
    double total = 0;
    for (int k = 0; k < d; ++k) {
      double b = static_cast<double>(memory.own[static_cast<size_t>(i)]);
      for (int32_t r = r0; r < r1; ++r) {
        const int32_t from = device[static_cast<size_t>(memory.read_unit[static_cast<size_t>(r)])];
        const size_t key = static_cast<size_t>(memory.read_tensor[static_cast<size_t>(r)]) * d + k;
        if (from >= 0 && from != k && !copied[key]) b += static_cast<double>(memory.read_bytes[static_cast<size_t>(r)]);
      }
      need[static_cast<size_t>(k)] = b;
      const bool fits = input.device_allowed[static_cast<size_t>(k)] && b <= room[static_cast<size_t>(k)];
      weight[static_cast<size_t>(k)] = fits ? std::max(0.0f, p[k]) : 0.0f;
      total += weight[static_cast<size_t>(k)];
    }
    int32_t chosen = -1;
    if (total > 0) {
      if (rng != nullptr) {
        chosen = static_cast<int32_t>(rng->Categorical(weight.data(), d));
      } else {
        chosen = static_cast<int32_t>(std::max_element(weight.begin(), weight.end()) - weight.begin());
      }
    } else {
      // Fits nowhere (or the policy gives every fitting device no mass): the allowed
      // device with the most room left after it.
      for (int k = 0; k < d; ++k) {
        if (!input.device_allowed[static_cast<size_t>(k)]) continue;
        const auto left = [&](int j) { return room[static_cast<size_t>(j)] - need[static_cast<size_t>(j)]; };
        if (chosen < 0 || left(k) > left(chosen)) chosen = k;
      }
      if (chosen < 0) chosen = input.default_device;
    }
    device[static_cast<size_t>(i)] = chosen;
    room[static_cast<size_t>(chosen)] -= need[static_cast<size_t>(chosen)];
    for (int32_t r = r0; r < r1; ++r) {
      const int32_t from = device[static_cast<size_t>(memory.read_unit[static_cast<size_t>(r)])];
      if (from >= 0 && from != chosen)
        copied[static_cast<size_t>(memory.read_tensor[static_cast<size_t>(r)]) * d + chosen] = 1;
    }
  }
  return device;
}

}  // namespace graphopt
