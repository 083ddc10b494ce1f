#include "policy/units.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "graph/neighbour_fill.h"
#include "graph/verifier.h"
#include "partition/partition_graph.h"

namespace graphopt {
namespace {

// Vertex weights of the unit partition: op times, instant ops weighing 1% of the
// mean op time, so that a part of only free ops is not free.
std::vector<double> UnitWeights(const Graph& graph, const std::vector<double>& op_time_us) {
  double total = 0;
  for (double t : op_time_us) total += std::max(0.0, t);
  const double floor_weight = graph.num_ops() > 0 ? 0.01 * std::max(total, 1.0) / graph.num_ops() : 0.0;
  std::vector<double> weight(op_time_us.size());
  for (size_t o = 0; o < weight.size(); ++o) weight[o] = 1000.0 * (std::max(0.0, op_time_us[o]) + floor_weight);
  return weight;
}

// The subgraph of pg induced by `vertices` (ascending), renumbered 0.. in that order.
PartitionGraph InducedSubgraph(const PartitionGraph& pg, const std::vector<int32_t>& vertices) {
  std::unordered_map<int32_t, int32_t> local;
  for (size_t i = 0; i < vertices.size(); ++i) local.emplace(vertices[i], static_cast<int32_t>(i));
  PartitionGraph sub;
  sub.offsets.push_back(0);
  for (int32_t v : vertices) {
    sub.vertex_weight.push_back(pg.vertex_weight[static_cast<size_t>(v)]);
    for (int64_t e = pg.offsets[static_cast<size_t>(v)]; e < pg.offsets[static_cast<size_t>(v) + 1]; ++e) {
      auto it = local.find(pg.neighbours[static_cast<size_t>(e)]);
      if (it == local.end()) continue;
      sub.neighbours.push_back(it->second);
      sub.edge_weight.push_back(pg.edge_weight[static_cast<size_t>(e)]);
    }
    sub.offsets.push_back(static_cast<int64_t>(sub.neighbours.size()));
  }
  return sub;
}

}  // namespace

StatusOr<std::vector<int32_t>> PartitionUnits(const Graph& graph, const std::vector<double>& op_time_us, int max_units) {
  GO_CHECK(max_units >= 2 && op_time_us.size() == static_cast<size_t>(graph.num_ops()));
  const PartitionGraph pg = BuildPartitionGraph(graph, UnitWeights(graph, op_time_us));
  GO_CHECK(pg.num_vertices() > max_units);
  auto parts = MetisPartition(pg, max_units, /*seed=*/0);
  if (!parts.ok()) return parts.status().WithContext("decision units of '" + graph.name() + "'");
  std::vector<int32_t> unit(op_time_us.size());
  for (size_t o = 0; o < unit.size(); ++o) unit[o] = (*parts)[static_cast<size_t>(pg.vertex_of_op[o])];
  return unit;
}

std::vector<int32_t> UnitLayers(const Graph& graph) {
  const int n = graph.num_ops();
  std::vector<int32_t> layer(static_cast<size_t>(n));
  for (OpId o = 0; o < n; ++o) layer[static_cast<size_t>(o)] = graph.op(o).layer;
  StatusOr<std::vector<OpId>> order = TopologicalOrder(graph);
  GO_CHECK_MSG(order.ok(), order.status().message());
  FillFromNeighbours(graph, *order, &layer);
  std::unordered_map<int32_t, int32_t> group_layer;
  for (OpId o = 0; o < n; ++o) {
    const int32_t g = graph.op(o).colocation_group;
    if (g == kNoId) continue;
    layer[static_cast<size_t>(o)] = group_layer.emplace(g, layer[static_cast<size_t>(o)]).first->second;
  }
  return layer;
}

LayerRanks RankUnitLayers(const Graph& graph) {
  LayerRanks ranks;
  ranks.op_rank = UnitLayers(graph);
  std::map<int32_t, int32_t> rank;  // tag -> rank
  for (int32_t l : ranks.op_rank) {
    if (l != kNoId) rank.emplace(l, 0);
  }
  for (auto& [tag, r] : rank) r = ranks.num_tagged++;
  bool untagged = false;
  for (int32_t& l : ranks.op_rank) {
    untagged |= l == kNoId;
    l = l == kNoId ? ranks.num_tagged : rank.at(l);
  }
  ranks.num_layers = ranks.num_tagged + (untagged ? 1 : 0);
  return ranks;
}

StatusOr<std::vector<int32_t>> PartitionUnitsByLayer(const Graph& graph, const std::vector<double>& op_time_us,
                                                     int max_units) {
  GO_CHECK(max_units >= 2 && op_time_us.size() == static_cast<size_t>(graph.num_ops()));
  const LayerRanks layers = RankUnitLayers(graph);
  if (layers.num_layers < 2) return PartitionUnits(graph, op_time_us, max_units);
  const int32_t num_layers = layers.num_layers;
  const PartitionGraph pg = BuildPartitionGraph(graph, UnitWeights(graph, op_time_us));
  // A vertex is a colocation group or a free op, so all its ops share a layer.
  std::vector<int32_t> vertex_layer(static_cast<size_t>(pg.num_vertices()));
  for (size_t o = 0; o < layers.op_rank.size(); ++o) {
    vertex_layer[static_cast<size_t>(pg.vertex_of_op[o])] = layers.op_rank[o];
  }
  std::vector<std::vector<int32_t>> members(static_cast<size_t>(num_layers));
  std::vector<double> time(static_cast<size_t>(num_layers), 0);
  double total = 0;
  for (int32_t v = 0; v < pg.num_vertices(); ++v) {
    const size_t l = static_cast<size_t>(vertex_layer[static_cast<size_t>(v)]);
    members[l].push_back(v);
    time[l] += static_cast<double>(pg.vertex_weight[static_cast<size_t>(v)]);
    total += static_cast<double>(pg.vertex_weight[static_cast<size_t>(v)]);
  }
  std::vector<int32_t> vertex_unit(static_cast<size_t>(pg.num_vertices()), 0);
  if (num_layers >= max_units) {
    // Consecutive layers share a unit, cut where the time so far passes k / max_units
    // of the total (at a layer's middle).
    double before = 0;
    for (size_t l = 0; l < members.size(); ++l) {
      const int unit = std::min(max_units - 1, static_cast<int>((before + time[l] / 2) / total * max_units));
      for (int32_t v : members[l]) vertex_unit[static_cast<size_t>(v)] = unit;
      before += time[l];
    }
  } else {
    // One unit per layer, the rest shared out by time (largest remainders first).
    std::vector<int> count(static_cast<size_t>(num_layers), 1);
    const int spare = max_units - num_layers;
    std::vector<std::pair<double, int>> remainder;
    int given = 0;
    for (int l = 0; l < num_layers; ++l) {
      const double share = time[static_cast<size_t>(l)] / total * spare;
      count[static_cast<size_t>(l)] += static_cast<int>(share);
      given += static_cast<int>(share);
      remainder.emplace_back(-(share - static_cast<int>(share)), l);
    }
    std::sort(remainder.begin(), remainder.end());
    for (int i = 0; i < spare - given; ++i) ++count[static_cast<size_t>(remainder[static_cast<size_t>(i)].second)];
    int base = 0;
    for (size_t l = 0; l < members.size(); ++l) {
      const std::vector<int32_t>& vs = members[l];
      const int k = count[l];
      if (k < 2 || static_cast<int>(vs.size()) <= k) {
        for (size_t i = 0; i < vs.size(); ++i) vertex_unit[static_cast<size_t>(vs[i])] = base + (k < 2 ? 0 : static_cast<int>(i));
      } else {
        auto parts = MetisPartition(InducedSubgraph(pg, vs), k, /*seed=*/0);
        if (!parts.ok()) return parts.status().WithContext("decision units of '" + graph.name() + "'");
        for (size_t i = 0; i < vs.size(); ++i) vertex_unit[static_cast<size_t>(vs[i])] = base + (*parts)[i];
      }
      base += k;
    }
  }
  std::vector<int32_t> unit(op_time_us.size());
  for (size_t o = 0; o < unit.size(); ++o) unit[o] = vertex_unit[static_cast<size_t>(pg.vertex_of_op[o])];
  return unit;
}

}  // namespace graphopt
