#include "graph/neighbour_fill.h"

#include "core/status.h"

namespace graphopt {

void FillFromNeighbours(const Graph& graph, const std::vector<OpId>& order, std::vector<int32_t>* values) {
  std::vector<int32_t>& v = *values;
  GO_CHECK(v.size() == static_cast<size_t>(graph.num_ops()));
  for (OpId o : order) {
    if (v[static_cast<size_t>(o)] != kNoId) continue;
    for (TensorId t : graph.op(o).inputs) {
      const OpId p = graph.tensor(t).producer;
      if (p != kNoId && v[static_cast<size_t>(p)] != kNoId) {
        v[static_cast<size_t>(o)] = v[static_cast<size_t>(p)];
        break;
      }
    }
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int32_t& value = v[static_cast<size_t>(*it)];
    for (TensorId t : graph.op(*it).outputs) {
      for (OpId c : graph.tensor(t).consumers) {
        if (value == kNoId) value = v[static_cast<size_t>(c)];
      }
    }
  }
}

}  // namespace graphopt
