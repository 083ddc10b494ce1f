// PolicyInput: everything the GO policy network reads about one (graph, cluster,
// cost model), computed once, in plain arrays (no LibTorch here, so the rest of the
// project can build and inspect it cheaply).
//
// Nodes. The network works on the ops in topological order: node i is op order[i]
// (graph/verifier.h TopologicalOrder, ties to the lower op id), and every per-node
// array below is in node order. position[op] is the inverse. Public decisions
// (policy/actions.h Actions) are indexed by op id; the policy converts.
//
// Units. A decision unit is a colocation group (every op without a group is a unit
// of its own), or with PolicyInputOptions::max_units a part of the graph (policy/units.h):
// the placement head decides once per unit, so a group can never be split
// (colocation by construction). Units are numbered in the order of their first
// node, so the numbering depends only on the graph.
//
// Features (see kOpFeatureNames etc. in features.cc for the exact list):
//  - per op [num_ops x kNumOpFeatures]: log1p of FLOPs, bytes accessed, output bytes,
//    parameter bytes, the op's time on the reference device (CostModel::OpTimeUs,
//    measured where the graph has measured times), in/out degree, arithmetic
//    intensity and unit size, each standardized over the graph (zero mean, unit
//    variance, clipped to +-5) so that a 1k-op CNN and an 80k-op Transformer look
//    alike to the network; plus raw values already in [0, 1]: measured-time flag,
//    relative topological position, relative depth, output rank / 4, instant, can
//    fuse, relative layer tag, in a colocation group, phase one-hot and category one-hot.
//  - per op: kind index = kind * 3 + phase (an embedding row).
//  - per device [num_devices x kNumDeviceFeatures]: log peak FLOP/s, log memory
//    bandwidth, log memory, launch overhead, is-CPU, mean/min/max log bandwidth and
//    mean latency of its outgoing links, its speed on this graph relative to the
//    reference device, its memory relative to the graph's parameter bytes, its
//    share of the allowed devices' peak, and its index on a circle (cos and sin of
//    2 pi i / D). Identical devices (every preset's accelerators) would otherwise
//    have identical embeddings, and the policy could never prefer one GPU over
//    another; on a circle, a linear map of a unit's state can make any one device
//    its favourite (with a scalar index it can favour only the first or the last:
//    docs/experiments/2026-11-23-imitating-samples-far-from-plan.md, "Question and
//    diagnosis").
//  - per graph [kNumGraphFeatures]: the absolute scale that the per-op
//    standardization removes (ops, edges, FLOPs, parameter bytes against device
//    memory, total time, units, devices, depth): input to the graph embedding that
//    conditions the network (parameter superposition).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ids.h"
#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"
#include "policy/units.h"

namespace graphopt {

inline constexpr int kNumOpFeatures = 32;
inline constexpr int kNumDeviceFeatures = 14;
inline constexpr int kNumGraphFeatures = 9;
// The device's index on the circle (cos, sin) is the last pair of its features.
inline constexpr int kNumDeviceIndexFeatures = 2;
inline constexpr int kDeviceIndexFeature = kNumDeviceFeatures - kNumDeviceIndexFeatures;
// Per unit: mean and first relative topological position, share of the compute time
// and of the ops (times the number of units, / 4, clipped to 1), then sin and cos of
// pi * k * (mean position) for k = 1..kNumUnitFrequencies: a Fourier basis in which
// the placement head can tell the units of a partition apart; then, with
// PolicyInputOptions::split_by_device, the unit's device in that plan on the circle
// as the device features have it (cos and sin of 2 pi d / D; zeros without such a
// plan). The two halves of a part that the plan puts on two devices have nearly the
// same position, ops and time: without the plan's device nothing tells them apart, so
// a policy imitating the plan cannot give them their two devices
// (docs/experiments/2026-11-24-imitation-inputs-device-and-half.md, "Question and
// diagnosis").
inline constexpr int kNumUnitFrequencies = 16;
inline constexpr int kNumUnitPlanFeatures = 2;
inline constexpr int kUnitPlanFeature = 4 + 2 * kNumUnitFrequencies;
// Then the unit's stage: where it lies in the model's sequence of layers. Its
// position among the layers x in [0, 1] (the mean over its ops of their layer's rank
// in tag order over the number of layers minus one, policy/units.h RankUnitLayers;
// in a graph of fewer than two layers, the mean relative depth of its forward ops,
// or of all its ops if it has none), the share of its ops that carry a layer,
// then sin and cos of pi * k * x for k = 1..kNumUnitStageFrequencies. The topological
// position cannot say this on an unrolled recurrent net: its order runs time step by
// time step across every layer, so the units of all layers sit at the same mean
// position, and a layer per device (the expert's plan) is a different decision per
// unit to learn. With the stage, cos and sin of 2 pi x are one linear map away from
// the device's index on the circle (the device features' last pair), so a plan that
// gives consecutive layers consecutive devices is one direction of the placement
// head's weights (GoPolicyConfig::unit_stage; zeros are never read without it).
inline constexpr int kNumUnitStageFrequencies = 8;
inline constexpr int kUnitStageFeature = kUnitPlanFeature + kNumUnitPlanFeatures;
inline constexpr int kNumUnitStageFeatures = 2 + 2 * kNumUnitStageFrequencies;
inline constexpr int kNumUnitFeatures = kUnitStageFeature + kNumUnitStageFeatures;
// Rows of the op kind embedding: kind * kNumPhases + phase.
inline constexpr int kNumPhases = 3;
inline constexpr int kNumKindIndices = kNumOpKinds * kNumPhases;
// Bumped whenever the feature lists change: checkpoints record it.
inline constexpr int kFeatureVersion = 2;

// Names of the features, for debugging and documentation (sizes as above).
const std::vector<std::string>& OpFeatureNames();
const std::vector<std::string>& DeviceFeatureNames();
const std::vector<std::string>& GraphFeatureNames();

struct PolicyInputOptions {
  // Let the policy place ops on CPUs too. Off by default: the presets' host CPU is
  // one to two orders of magnitude slower, and every baseline places on
  // accelerators. A cluster without accelerators always allows every device.
  bool allow_cpu = false;
  // Device whose op times feed the per-op time feature; kNoId = first accelerator.
  DeviceId reference_device = kNoId;
  // At most this many decision units: if the colocation groups are more, the graph
  // is partitioned into this many parts (policy/units.h).
  // 0: one unit per colocation group (GO's own unit).
  int max_units = 0;
  // Which parts (policy/units.h LayerUnits): METIS parts (kLayerUnitsOff), parts that
  // never span two layers (kLayerUnitsAlways: PartitionUnitsByLayer), so that a plan
  // of a layer per device is one the policy can express, or those only on a graph
  // of fewer layers than units (kLayerUnitsWhenFewer).
  int layer_units = kLayerUnitsOff;
  // If not empty (a device per op id: a plan's placement), every unit is split by it:
  // the ops of a unit that the plan puts on different devices become different
  // units, so that the plan is one the policy can express exactly (and a sample
  // differs from it in whole units). Colocated ops share a device in a valid plan,
  // so groups stay whole.
  std::vector<DeviceId> split_by_device;
};

struct PolicyInput {
  std::string graph_name;
  int num_ops = 0;
  int num_edges = 0;  // distinct producer-consumer op pairs
  int num_units = 0;
  int num_devices = 0;

  std::vector<OpId> order;        // node -> op
  std::vector<int32_t> position;  // op -> node

  std::vector<float> op_features;   // [num_ops x kNumOpFeatures], node order
  std::vector<int32_t> op_kind;     // [num_ops] node order: kind * kNumPhases + phase
  std::vector<float> node_time_us;  // [num_ops] node order: time on the reference device (unnormalized)

  // Compressed adjacency in node indices: the predecessors of node i are
  // pred_index[pred_offsets[i] .. pred_offsets[i + 1]), likewise successors.
  std::vector<int32_t> pred_offsets, pred_index;
  std::vector<int32_t> succ_offsets, succ_index;

  std::vector<int32_t> node_unit;     // node -> unit
  std::vector<int32_t> unit_offsets;  // unit u has nodes unit_nodes[unit_offsets[u] .. unit_offsets[u + 1])
  std::vector<int32_t> unit_nodes;
  std::vector<int64_t> unit_resident_bytes;  // parameter bytes of each unit's ops
  std::vector<int32_t> unit_layer;  // the layer rank (policy/units.h RankUnitLayers) of each unit's first op
  std::vector<float> unit_features;          // [num_units x kNumUnitFeatures]

  std::vector<uint8_t> fusable;          // node: CanFuseIntoProducer holds
  std::vector<int32_t> fusion_producer;  // node: node of its fusion producer, or -1

  std::vector<float> device_features;   // [num_devices x kNumDeviceFeatures]
  std::vector<uint8_t> device_allowed;  // [num_devices]: the policy may place here
  std::vector<int64_t> device_memory_bytes;
  DeviceId default_device = 0;  // first allowed device: inactive placement

  std::vector<float> graph_features;  // [kNumGraphFeatures]

  int unit_of_op(OpId op) const { return node_unit[static_cast<size_t>(position[static_cast<size_t>(op)])]; }
  // [num_units x num_devices], 1 where the unit may go: the device is allowed and the
  // unit's parameters alone fit in its memory. An optional mask (see go_policy.h on
  // why out-of-memory plans are otherwise left to the reward).
  std::vector<uint8_t> UnitMemoryMask() const;
};

// The options of the input GO's optimizer decides on: at most units_per_device units
// per device the policy may place on (the accelerators, or every device of a cluster
// without one); 0: one unit per colocation group.
PolicyInputOptions UnitsPerDeviceOptions(const Cluster& cluster, int units_per_device,
                                          int layer_units = kLayerUnitsOff);
// The units per device of the optimizer, pre-training and zero-shot planning unless
// set otherwise.
inline constexpr int kDefaultUnitsPerDevice = 4;

// Computes the input of a graph on a cluster. Fails if the graph has a cycle, the
// cluster has no device, or the options name a device out of range.
StatusOr<PolicyInput> BuildPolicyInput(const Graph& graph, const Cluster& cluster,
                                       const CostModel& cost_model = CostModel(),
                                       const PolicyInputOptions& options = {});

}  // namespace graphopt
