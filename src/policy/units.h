// Decision units of the policy's placement head: which ops move together.
//
// GO decides once per colocation group (every op without a group is a unit of its
// own). On a training graph that is almost one decision per op (GNMT-8: 44,170
// units for 44,213 ops), and a sampled plan then differs from the policy's mode in
// ops scattered over the whole graph, each paying transfers both ways
// (docs/experiments/2026-11-22-policy-alone-decision-units.md, "Result"). Partition
// units make a sample differ from the mode in whole connected
// pieces of the model instead: the op graph cut by METIS into `max_units` parts of
// equal compute time that cut as few tensor bytes as possible (partition/partition_graph.h: colocation groups are never split, and a
// layer's backward ops, which read its activations, land with its forward ops).
//
// Cutting along the topological order instead (blocks of consecutive ops) is worse
// (docs/experiments/2026-11-22-policy-alone-decision-units.md, "Result"): on an
// unrolled recurrent network the topological order
// runs time step by time step across all layers, so a block is a time slice of
// every layer, and no assignment of time slices to devices pipelines.
//
// The result depends only on the graph, the weights and max_units (METIS with a
// fixed seed; see partition_graph.h on its use of the C library's rand()).
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace graphopt {

// op id -> part in [0, max_units) (not every part need be used), or an error from
// METIS. op_time_us: one non-negative weight per op. max_units >= 2, and fewer than
// the graph's colocation units (ops outside a group count one each).
StatusOr<std::vector<int32_t>> PartitionUnits(const Graph& graph, const std::vector<double>& op_time_us, int max_units);

// Units that never span two layers. The parts of PartitionUnits cut across the
// layers of a recurrent net, so the plan of a layer per device (the expert's plan of
// an RNNLM) is one the policy cannot express
// (docs/experiments/2026-11-26-rnnlm-units-cut-across-layers.md, "Diagnosis").
// Here every op takes its layer (UnitLayers); each layer gets one
// unit and the other max_units - layers are shared out by the layers' compute time
// (largest remainders), each layer cut by METIS into its share; with at least
// max_units layers, runs of consecutive layers of about equal time form the units.
// A graph with fewer than two layers gets PartitionUnits' parts.
StatusOr<std::vector<int32_t>> PartitionUnitsByLayer(const Graph& graph, const std::vector<double>& op_time_us,
                                                     int max_units);

// Which partition the policy's units come from (GoPolicyConfig::layer_units):
// PartitionUnits; PartitionUnitsByLayer; or PartitionUnitsByLayer only where the
// graph has fewer layers (LayerRanks::num_layers) than units, so that every layer is cut
// into parts of its own rather than merged with its neighbours into runs: on GO-one
// the layers help the recurrent nets and cost the branchy CNNs, whose many layers
// would become runs of consecutive layers (docs/experiments/2026-12-01-go-one-layer-units-judge2.md).
inline constexpr int kLayerUnitsOff = 0;
inline constexpr int kLayerUnitsAlways = 1;
inline constexpr int kLayerUnitsWhenFewer = 2;

// The layer of every op for PartitionUnitsByLayer: its tag (Op::layer); an untagged
// op takes that of its first tagged producer in topological order, else of its first
// tagged consumer, else stays kNoId; a colocation group takes its lowest op's.
std::vector<int32_t> UnitLayers(const Graph& graph);

// The layers of UnitLayers ranked from 0 in tag order (the model's order of layers),
// the one ranking every user of the layers reads: ops of a tagged layer take ranks
// [0, num_tagged); ops with none take num_tagged, one layer more, so that
// num_layers (the layers PartitionUnitsByLayer tells apart) is num_tagged, plus one
// if some op has no layer.
struct LayerRanks {
  std::vector<int32_t> op_rank;  // per op
  int32_t num_tagged = 0;
  int32_t num_layers = 0;
};
LayerRanks RankUnitLayers(const Graph& graph);

}  // namespace graphopt
