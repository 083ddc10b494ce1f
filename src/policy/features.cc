#include "policy/features.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/strings.h"
#include "graph/verifier.h"
#include "policy/units.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

// Op feature columns.
enum OpFeature : int {
  // Standardized over the graph (log1p first).
  kFlops = 0,
  kBytesAccessed,
  kOutputBytes,
  kParamBytes,
  kOpTime,
  kInDegree,
  kOutDegree,
  kIntensity,
  kUnitSize,
  kNumStandardized,
  // Raw, in [0, 1].
  kMeasured = kNumStandardized,
  kTopoPosition,
  kDepth,
  kOutputRank,
  kInstant,
  kFusable,
  kLayer,
  kGrouped,
  kPhaseBegin,                                // 3 columns
  kCategoryBegin = kPhaseBegin + kNumPhases,  // kNumOpCategories columns
  kOpFeatureEnd = kCategoryBegin + kNumOpCategories,
};
static_assert(kOpFeatureEnd == kNumOpFeatures, "kNumOpFeatures is out of date");

constexpr float kClip = 5.0f;

float Log1p(double x) { return static_cast<float>(std::log1p(std::max(0.0, x))); }

// Natural log of x / unit, 0 for non-positive x.
float LogRatio(double x, double unit) { return x > 0 && unit > 0 ? static_cast<float>(std::log(x / unit)) : 0.0f; }

// Standardizes column c of a row-major [n x cols] array in place: zero mean, unit
// variance, clipped; a constant column becomes 0.
void Standardize(std::vector<float>* data, int n, int cols, int c) {
  if (n == 0) return;
  double sum = 0, sq = 0;
  for (int i = 0; i < n; ++i) {
    const double v = (*data)[static_cast<size_t>(i) * cols + c];
    sum += v;
    sq += v * v;
  }
  const double mean = sum / n;
  const double var = std::max(0.0, sq / n - mean * mean);
  const double sd = std::sqrt(var);
  for (int i = 0; i < n; ++i) {
    float& v = (*data)[static_cast<size_t>(i) * cols + c];
    v = sd < 1e-6 ? 0.0f : std::clamp(static_cast<float>((v - mean) / sd), -kClip, kClip);
  }
}

}  // namespace

const std::vector<std::string>& OpFeatureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = {"log_flops",        "log_bytes_accessed",
                                  "log_output_bytes", "log_param_bytes",
                                  "log_op_time",      "log_in_degree",
                                  "log_out_degree",   "log_intensity",
                                  "log_unit_size",    "measured",
                                  "topo_position",    "depth",
                                  "output_rank",      "instant",
                                  "fusable",          "layer",
                                  "grouped"};
    for (int p = 0; p < kNumPhases; ++p) v.push_back(std::string("phase_") + PhaseName(static_cast<Phase>(p)));
    for (int c = 0; c < kNumOpCategories; ++c)
      v.push_back(std::string("category_") + CategoryName(static_cast<OpCategory>(c)));
    return v;
  }();
  return names;
}

const std::vector<std::string>& DeviceFeatureNames() {
  static const std::vector<std::string> names = {"log_peak_flops",
                                                 "log_memory_bandwidth",
                                                 "log_memory",
                                                 "log_launch_overhead",
                                                 "is_cpu",
                                                 "link_log_bw_mean",
                                                 "link_log_bw_min",
                                                 "link_log_bw_max",
                                                 "link_log_latency_mean",
                                                 "log_relative_graph_time",
                                                 "log_memory_over_params",
                                                 "peak_share",
                                                 "index_cos",
                                                 "index_sin"};
  return names;
}

const std::vector<std::string>& GraphFeatureNames() {
  static const std::vector<std::string> names = {"log_ops",         "log_edges_per_op", "log_flops",
                                                 "log_param_bytes", "log_time",         "log_units_per_op",
                                                 "log_devices",     "depth_per_op",     "log_params_over_memory"};
  return names;
}

std::vector<uint8_t> PolicyInput::UnitMemoryMask() const {
  std::vector<uint8_t> mask(static_cast<size_t>(num_units) * static_cast<size_t>(num_devices), 0);
  for (int u = 0; u < num_units; ++u) {
    for (int d = 0; d < num_devices; ++d) {
      mask[static_cast<size_t>(u) * num_devices + d] =
          device_allowed[static_cast<size_t>(d)] &&
          unit_resident_bytes[static_cast<size_t>(u)] <= device_memory_bytes[static_cast<size_t>(d)];
    }
  }
  return mask;
}

StatusOr<PolicyInput> BuildPolicyInput(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                       const PolicyInputOptions& options) {
  if (cluster.num_devices() == 0) return InvalidArgument("policy input: cluster " + cluster.name() + " has no device");
  if (graph.num_ops() == 0) return InvalidArgument("policy input: graph " + graph.name() + " has no op");
  const DeviceId ref = options.reference_device == kNoId ? cluster.FirstAccelerator() : options.reference_device;
  if (ref < 0 || ref >= cluster.num_devices()) {
    return InvalidArgument(StrFormat("policy input: reference device %d is out of range (cluster %s has %d devices)",
                                     ref, cluster.name().c_str(), cluster.num_devices()));
  }
  auto topo = TopologicalOrder(graph);
  if (!topo.ok()) return topo.status().WithContext("policy input for graph " + graph.name());

  PolicyInput in;
  const int n = graph.num_ops();
  const int num_devices = cluster.num_devices();
  in.graph_name = graph.name();
  in.num_ops = n;
  in.num_devices = num_devices;
  in.order = std::move(*topo);
  in.position.assign(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) in.position[static_cast<size_t>(in.order[static_cast<size_t>(i)])] = i;

  // Adjacency in node indices, neighbours sorted.
  const Adjacency adj = graph.BuildAdjacency();
  in.num_edges = adj.num_edges();
  auto to_nodes = [&](const std::vector<int32_t>& begin, const std::vector<int32_t>& ids, std::vector<int32_t>* offsets,
                      std::vector<int32_t>* index) {
    offsets->assign(static_cast<size_t>(n) + 1, 0);
    index->clear();
    index->reserve(ids.size());
    for (int i = 0; i < n; ++i) {
      const OpId op = in.order[static_cast<size_t>(i)];
      const size_t first = index->size();
      for (int32_t k = begin[static_cast<size_t>(op)]; k < begin[static_cast<size_t>(op) + 1]; ++k) {
        index->push_back(in.position[static_cast<size_t>(ids[static_cast<size_t>(k)])]);
      }
      std::sort(index->begin() + static_cast<std::ptrdiff_t>(first), index->end());
      (*offsets)[static_cast<size_t>(i) + 1] = static_cast<int32_t>(index->size());
    }
  };
  to_nodes(adj.pred_begin, adj.preds, &in.pred_offsets, &in.pred_index);
  to_nodes(adj.succ_begin, adj.succs, &in.succ_offsets, &in.succ_index);

  // Units: colocation groups, numbered by first node; blocks of them if there are
  // more than options.max_units (policy/units.h).
  in.node_unit.assign(static_cast<size_t>(n), 0);
  std::unordered_map<int32_t, int32_t> group_unit;
  int num_units = 0;
  for (int i = 0; i < n; ++i) {
    const int32_t group = graph.op(in.order[static_cast<size_t>(i)]).colocation_group;
    if (group == kNoId) {
      in.node_unit[static_cast<size_t>(i)] = num_units++;
      continue;
    }
    auto [it, inserted] = group_unit.emplace(group, num_units);
    if (inserted) ++num_units;
    in.node_unit[static_cast<size_t>(i)] = it->second;
  }
  const LayerRanks layers = RankUnitLayers(graph);
  if (options.max_units > 0 && num_units > options.max_units) {
    std::vector<double> time(static_cast<size_t>(n));
    for (OpId o = 0; o < n; ++o) time[static_cast<size_t>(o)] = cost_model.OpTimeUs(graph.op(o), cluster.device(ref));
    const int max_units = std::max(2, options.max_units);
    const bool by_layer = options.layer_units == kLayerUnitsAlways ||
                          (options.layer_units == kLayerUnitsWhenFewer && layers.num_layers < max_units);
    auto parts = by_layer ? PartitionUnitsByLayer(graph, time, max_units) : PartitionUnits(graph, time, max_units);
    if (!parts.ok()) return parts.status();
    // Numbered by first node.
    std::vector<int32_t> renumber(static_cast<size_t>(options.max_units), -1);
    num_units = 0;
    for (int i = 0; i < n; ++i) {
      int32_t& r = renumber[static_cast<size_t>((*parts)[static_cast<size_t>(in.order[static_cast<size_t>(i)])])];
      if (r < 0) r = num_units++;
      in.node_unit[static_cast<size_t>(i)] = r;
    }
  }
  if (!options.split_by_device.empty()) {
    if (options.split_by_device.size() != static_cast<size_t>(n)) {
      return InvalidArgument(StrFormat("policy input: split_by_device has %zu entries for %d ops",
                                       options.split_by_device.size(), n));
    }
    // (unit, device) pairs, numbered by first node.
    std::unordered_map<int64_t, int32_t> split;
    int32_t next = 0;
    for (int i = 0; i < n; ++i) {
      const int64_t key = static_cast<int64_t>(in.node_unit[static_cast<size_t>(i)]) * (int64_t{1} << 32) +
                          options.split_by_device[static_cast<size_t>(in.order[static_cast<size_t>(i)])];
      auto [it, inserted] = split.emplace(key, next);
      if (inserted) ++next;
      in.node_unit[static_cast<size_t>(i)] = it->second;
    }
    num_units = next;
  }
  in.num_units = num_units;
  in.unit_offsets.assign(static_cast<size_t>(num_units) + 1, 0);
  for (int i = 0; i < n; ++i) ++in.unit_offsets[static_cast<size_t>(in.node_unit[static_cast<size_t>(i)]) + 1];
  for (int u = 0; u < num_units; ++u)
    in.unit_offsets[static_cast<size_t>(u) + 1] += in.unit_offsets[static_cast<size_t>(u)];
  in.unit_nodes.assign(static_cast<size_t>(n), 0);
  in.unit_resident_bytes.assign(static_cast<size_t>(num_units), 0);
  {
    std::vector<int32_t> fill(in.unit_offsets.begin(), in.unit_offsets.end() - 1);
    for (int i = 0; i < n; ++i) {
      const int32_t u = in.node_unit[static_cast<size_t>(i)];
      in.unit_nodes[static_cast<size_t>(fill[static_cast<size_t>(u)]++)] = i;
      in.unit_resident_bytes[static_cast<size_t>(u)] += graph.op(in.order[static_cast<size_t>(i)]).param_bytes;
    }
  }

  // Fusion legality (plan-independent part).
  in.fusable.assign(static_cast<size_t>(n), 0);
  in.fusion_producer.assign(static_cast<size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    const OpId op = in.order[static_cast<size_t>(i)];
    const OpId producer = FusionProducer(graph, op);
    if (producer != kNoId) in.fusion_producer[static_cast<size_t>(i)] = in.position[static_cast<size_t>(producer)];
    in.fusable[static_cast<size_t>(i)] = CanFuseIntoProducer(graph, op).ok ? 1 : 0;
  }

  // Depth: longest path (in ops) from a source.
  std::vector<int32_t> depth(static_cast<size_t>(n), 0);
  int32_t max_depth = 0;
  for (int i = 0; i < n; ++i) {
    int32_t d = 0;
    for (int32_t k = in.pred_offsets[static_cast<size_t>(i)]; k < in.pred_offsets[static_cast<size_t>(i) + 1]; ++k) {
      d = std::max(d, depth[static_cast<size_t>(in.pred_index[static_cast<size_t>(k)])] + 1);
    }
    depth[static_cast<size_t>(i)] = d;
    max_depth = std::max(max_depth, d);
  }

  // Per-op features.
  const Device& ref_device = cluster.device(ref);
  const int num_layers = static_cast<int>(graph.layer_names().size());
  in.op_features.assign(static_cast<size_t>(n) * kNumOpFeatures, 0.0f);
  in.op_kind.assign(static_cast<size_t>(n), 0);
  in.node_time_us.assign(static_cast<size_t>(n), 0.0f);
  double total_ref_time = 0;
  for (int i = 0; i < n; ++i) {
    const Op& op = graph.op(in.order[static_cast<size_t>(i)]);
    float* f = &in.op_features[static_cast<size_t>(i) * kNumOpFeatures];
    int64_t out_bytes = 0;
    size_t rank = 0;
    for (TensorId t : op.outputs) {
      out_bytes += graph.tensor(t).bytes();
      rank = std::max(rank, graph.tensor(t).shape.size());
    }
    const double accessed = static_cast<double>(op.cost.bytes_read + op.cost.bytes_written);
    const double time = cost_model.OpTimeUs(op, ref_device);
    total_ref_time += time;
    in.node_time_us[static_cast<size_t>(i)] = static_cast<float>(time);
    const int unit = in.node_unit[static_cast<size_t>(i)];
    f[kFlops] = Log1p(op.cost.flops);
    f[kBytesAccessed] = Log1p(accessed);
    f[kOutputBytes] = Log1p(static_cast<double>(out_bytes));
    f[kParamBytes] = Log1p(static_cast<double>(op.param_bytes));
    f[kOpTime] = Log1p(time);
    f[kInDegree] = Log1p(in.pred_offsets[static_cast<size_t>(i) + 1] - in.pred_offsets[static_cast<size_t>(i)]);
    f[kOutDegree] = Log1p(in.succ_offsets[static_cast<size_t>(i) + 1] - in.succ_offsets[static_cast<size_t>(i)]);
    f[kIntensity] = Log1p(op.cost.flops / (accessed + 1.0));
    const int unit_size = in.unit_offsets[static_cast<size_t>(unit) + 1] - in.unit_offsets[static_cast<size_t>(unit)];
    f[kUnitSize] = Log1p(unit_size);
    f[kGrouped] = unit_size > 1 ? 1.0f : 0.0f;
    f[kMeasured] = op.measured_time_us >= 0 ? 1.0f : 0.0f;
    f[kTopoPosition] = n > 1 ? static_cast<float>(i) / static_cast<float>(n - 1) : 0.0f;
    f[kDepth] =
        max_depth > 0 ? static_cast<float>(depth[static_cast<size_t>(i)]) / static_cast<float>(max_depth) : 0.0f;
    f[kOutputRank] = std::min(1.0f, static_cast<float>(rank) / 4.0f);
    f[kInstant] = cost_model.IsInstant(op) ? 1.0f : 0.0f;
    f[kFusable] = in.fusable[static_cast<size_t>(i)] ? 1.0f : 0.0f;
    f[kLayer] =
        op.layer >= 0 && num_layers > 0 ? static_cast<float>(op.layer + 1) / static_cast<float>(num_layers) : 0.0f;
    const int phase = std::min(static_cast<int>(op.phase), kNumPhases - 1);
    f[kPhaseBegin + phase] = 1.0f;
    f[kCategoryBegin + static_cast<int>(CategoryOf(op.kind))] = 1.0f;
    in.op_kind[static_cast<size_t>(i)] = static_cast<int32_t>(op.kind) * kNumPhases + phase;
  }
  for (int c = 0; c < kNumStandardized; ++c) Standardize(&in.op_features, n, kNumOpFeatures, c);

  // Devices.
  in.device_allowed.assign(static_cast<size_t>(num_devices), 0);
  in.device_memory_bytes.assign(static_cast<size_t>(num_devices), 0);
  // A machine of CPUs only (cpu, local:N) computes on its CPUs.
  bool has_accelerator = false;
  for (const Device& dev : cluster.devices()) has_accelerator |= dev.kind != DeviceKind::kCpu;
  double allowed_peak = 0, allowed_memory = 0;
  int num_allowed = 0;
  for (int d = 0; d < num_devices; ++d) {
    const Device& dev = cluster.device(d);
    in.device_memory_bytes[static_cast<size_t>(d)] = dev.memory_bytes;
    const bool allowed = options.allow_cpu || !has_accelerator || dev.kind != DeviceKind::kCpu;
    in.device_allowed[static_cast<size_t>(d)] = allowed ? 1 : 0;
    if (allowed) {
      allowed_peak += dev.peak_flops;
      allowed_memory += static_cast<double>(dev.memory_bytes);
      ++num_allowed;
    }
  }
  in.default_device = 0;
  for (int d = 0; d < num_devices; ++d) {
    if (in.device_allowed[static_cast<size_t>(d)]) {
      in.default_device = d;
      break;
    }
  }
  const double total_params = static_cast<double>(graph.TotalParamBytes());
  in.device_features.assign(static_cast<size_t>(num_devices) * kNumDeviceFeatures, 0.0f);
  for (int d = 0; d < num_devices; ++d) {
    const Device& dev = cluster.device(d);
    float* f = &in.device_features[static_cast<size_t>(d) * kNumDeviceFeatures];
    f[0] = LogRatio(dev.peak_flops, 1e13);
    f[1] = LogRatio(dev.memory_bandwidth, 1e12);
    f[2] = LogRatio(static_cast<double>(dev.memory_bytes), 16.0 * (1 << 30));
    f[3] = Log1p(dev.launch_overhead_us);
    f[4] = dev.kind == DeviceKind::kCpu ? 1.0f : 0.0f;
    double bw_sum = 0, bw_min = 0, bw_max = 0, lat_sum = 0;
    int links = 0;
    for (int e = 0; e < num_devices; ++e) {
      if (e == d) continue;
      const Link& link = cluster.link(d, e);
      const double lbw = LogRatio(link.bandwidth, 1e10);
      bw_sum += lbw;
      bw_min = links == 0 ? lbw : std::min(bw_min, lbw);
      bw_max = links == 0 ? lbw : std::max(bw_max, lbw);
      lat_sum += Log1p(link.latency_us);
      ++links;
    }
    if (links > 0) {
      f[5] = static_cast<float>(bw_sum / links);
      f[6] = static_cast<float>(bw_min);
      f[7] = static_cast<float>(bw_max);
      f[8] = static_cast<float>(lat_sum / links);
    }
    double time = 0;
    for (int i = 0; i < n; ++i) time += cost_model.OpTimeUs(graph.op(i), dev);
    f[9] = total_ref_time > 0 && time > 0 ? static_cast<float>(std::log(time / total_ref_time)) : 0.0f;
    f[10] = std::clamp(LogRatio(static_cast<double>(dev.memory_bytes), std::max(total_params, 1.0)), -10.0f, 10.0f);
    f[11] = allowed_peak > 0 && in.device_allowed[static_cast<size_t>(d)]
                ? static_cast<float>(dev.peak_flops / allowed_peak)
                : 0.0f;
    const double angle = 2 * M_PI * d / num_devices;
    f[kDeviceIndexFeature] = static_cast<float>(std::cos(angle));
    f[kDeviceIndexFeature + 1] = static_cast<float>(std::sin(angle));
  }

  // Graph scale.
  const OpCost total = graph.TotalCost();
  in.graph_features.assign(kNumGraphFeatures, 0.0f);
  float* g = in.graph_features.data();
  g[0] = Log1p(n) / 10.0f;
  g[1] = n > 0 ? Log1p(static_cast<double>(in.num_edges) / n) : 0.0f;
  g[2] = LogRatio(total.flops, 1e12) / 5.0f;
  g[3] = LogRatio(total_params, 1 << 30) / 5.0f;
  g[4] = LogRatio(total_ref_time, 1e5) / 5.0f;
  g[5] = n > 0 ? LogRatio(num_units, n) : 0.0f;
  g[6] = Log1p(num_allowed) / 3.0f;
  g[7] = n > 0 ? static_cast<float>(max_depth) / static_cast<float>(n) : 0.0f;
  g[8] =
      num_allowed > 0 ? std::clamp(LogRatio(total_params, allowed_memory / num_allowed), -10.0f, 10.0f) / 5.0f : 0.0f;

  // The units' stage (features.h): their ops' layer ranks, or without layers, the
  // relative depth of their forward ops.
  std::vector<double> stage_sum(static_cast<size_t>(num_units), 0), stage_count(static_cast<size_t>(num_units), 0);
  std::vector<int> tagged(static_cast<size_t>(num_units), 0);
  {
    const int32_t num_ranks = layers.num_tagged;
    in.unit_layer.resize(static_cast<size_t>(num_units));  // (ops without a layer: num_ranks)
    for (int u = 0; u < num_units; ++u) {
      in.unit_layer[static_cast<size_t>(u)] = layers.op_rank[static_cast<size_t>(in.order[static_cast<size_t>(
          in.unit_nodes[static_cast<size_t>(in.unit_offsets[static_cast<size_t>(u)])])])];
    }
    std::vector<double> forward_sum(static_cast<size_t>(num_units), 0), all_sum(static_cast<size_t>(num_units), 0);
    std::vector<int> forward_count(static_cast<size_t>(num_units), 0);
    for (int i = 0; i < n; ++i) {
      const size_t u = static_cast<size_t>(in.node_unit[static_cast<size_t>(i)]);
      const OpId op = in.order[static_cast<size_t>(i)];
      const int32_t rank = layers.op_rank[static_cast<size_t>(op)];
      if (rank < num_ranks) ++tagged[u];
      if (num_ranks >= 2) {
        if (rank == num_ranks) continue;
        stage_sum[u] += static_cast<double>(rank) / (num_ranks - 1);
        stage_count[u] += 1;
        continue;
      }
      const double relative = max_depth > 0 ? static_cast<double>(depth[static_cast<size_t>(i)]) / max_depth : 0.0;
      all_sum[u] += relative;
      if (graph.op(op).phase == Phase::kForward) {
        forward_sum[u] += relative;
        ++forward_count[u];
      }
    }
    if (num_ranks < 2) {
      for (int u = 0; u < num_units; ++u) {
        const size_t k = static_cast<size_t>(u);
        const int size = in.unit_offsets[k + 1] - in.unit_offsets[k];
        stage_sum[k] = forward_count[k] > 0 ? forward_sum[k] : all_sum[k];
        stage_count[k] = forward_count[k] > 0 ? forward_count[k] : size;
      }
    }
  }
  // Per unit: where it lies in the topological order and how heavy it is.
  in.unit_features.assign(static_cast<size_t>(num_units) * kNumUnitFeatures, 0.0f);
  for (int u = 0; u < num_units; ++u) {
    float* f = &in.unit_features[static_cast<size_t>(u) * kNumUnitFeatures];
    const int32_t begin = in.unit_offsets[static_cast<size_t>(u)], end = in.unit_offsets[static_cast<size_t>(u) + 1];
    double position = 0, time = 0;
    for (int32_t k = begin; k < end; ++k) {
      const int32_t node = in.unit_nodes[static_cast<size_t>(k)];
      position += n > 1 ? static_cast<double>(node) / (n - 1) : 0.0;
      time += in.node_time_us[static_cast<size_t>(node)];
    }
    position /= std::max(1, end - begin);
    f[0] = static_cast<float>(position);
    f[1] = n > 1 ? static_cast<float>(in.unit_nodes[static_cast<size_t>(begin)]) / static_cast<float>(n - 1) : 0.0f;
    f[2] = total_ref_time > 0 ? static_cast<float>(std::min(1.0, time / total_ref_time * num_units) / 4.0) : 0.0f;
    f[3] = static_cast<float>(std::min(1.0, static_cast<double>(end - begin) / n * num_units / 4.0));
    for (int k = 0; k < kNumUnitFrequencies; ++k) {
      const double angle = M_PI * (k + 1) * position;
      f[4 + 2 * k] = static_cast<float>(std::sin(angle));
      f[5 + 2 * k] = static_cast<float>(std::cos(angle));
    }
    const double stage = stage_sum[static_cast<size_t>(u)] / std::max(1.0, stage_count[static_cast<size_t>(u)]);
    float* stage_f = f + kUnitStageFeature;
    stage_f[0] = static_cast<float>(stage);
    stage_f[1] = static_cast<float>(tagged[static_cast<size_t>(u)] / std::max(1, end - begin));
    for (int k = 0; k < kNumUnitStageFrequencies; ++k) {
      const double angle = M_PI * (k + 1) * stage;
      stage_f[2 + 2 * k] = static_cast<float>(std::sin(angle));
      stage_f[3 + 2 * k] = static_cast<float>(std::cos(angle));
    }
    if (!options.split_by_device.empty()) {  // (every op of a split unit has the same device)
      const OpId first = in.order[static_cast<size_t>(in.unit_nodes[static_cast<size_t>(begin)])];
      const double angle = 2 * M_PI * options.split_by_device[static_cast<size_t>(first)] / cluster.num_devices();
      f[kUnitPlanFeature] = static_cast<float>(std::cos(angle));
      f[kUnitPlanFeature + 1] = static_cast<float>(std::sin(angle));
    }
  }
  return in;
}

PolicyInputOptions UnitsPerDeviceOptions(const Cluster& cluster, int units_per_device, int layer_units) {
  PolicyInputOptions options;
  options.layer_units = layer_units;
  const size_t accelerators = cluster.Accelerators().size();
  const int allowed = accelerators > 0 ? static_cast<int>(accelerators) : cluster.num_devices();
  options.max_units = units_per_device * std::max(1, allowed);
  return options;
}

}  // namespace graphopt
