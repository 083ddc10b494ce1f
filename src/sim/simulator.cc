#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "core/strings.h"
#include "sim/simulator_scratch.h"
#include "sim/simulator_slowdowns.h"

namespace graphopt {

using namespace sim_internal;  // NOLINT: the simulator's own helpers

SimScratch::SimScratch() : state_(std::make_unique<SimScratchState>()) {}
SimScratch::~SimScratch() = default;
SimScratch::SimScratch(SimScratch&&) noexcept = default;
SimScratch& SimScratch::operator=(SimScratch&&) noexcept = default;

Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;
Simulator::~Simulator() = default;

double SimResult::Utilization(DeviceId d) const {
  if (step_time_us <= 0 || d < 0 || static_cast<size_t>(d) >= device_busy_us.size()) return 0;
  return device_busy_us[static_cast<size_t>(d)] / step_time_us;
}

std::string SimResult::OomVerdict(const Cluster& cluster) const {
  if (!oom) return "fits in memory";
  const Device& d = cluster.device(oom_device);
  const int64_t peak = device_peak_memory[static_cast<size_t>(oom_device)];
  std::string extra;
  int others = 0;
  for (DeviceId i = 0; i < cluster.num_devices() && static_cast<size_t>(i) < device_peak_memory.size(); ++i) {
    if (i != oom_device && device_peak_memory[static_cast<size_t>(i)] > cluster.device(i).memory_bytes) ++others;
  }
  if (others > 0) extra = StrFormat(" (and %d more device%s over capacity)", others, others == 1 ? "" : "s");
  return "OOM on " + d.name + " (" + d.model + "): peak " + HumanBytes(static_cast<double>(peak)) +
         " exceeds capacity " + HumanBytes(static_cast<double>(d.memory_bytes)) + " by " +
         HumanBytes(static_cast<double>(oom_overflow_bytes)) + extra;
}

StatusOr<Simulator> Simulator::Create(const Graph& graph, const Cluster& cluster, const CostModel& cost_model) {
  GO_RETURN_IF_ERROR(cluster.Validate());
  GO_ASSIGN_OR_RETURN(LowerBound bound, ComputeLowerBound(graph, cluster, cost_model));
  Simulator s;
  s.graph_ = &graph;
  s.cluster_ = cluster;
  s.cost_model_ = cost_model;
  s.lower_bound_ = bound;
  s.fusion_rules_ = std::make_shared<const FusionRules>(graph);
  const int n = graph.num_ops(), nt = graph.num_tensors(), num_devices = cluster.num_devices();
  s.num_ops_ = n;
  s.num_tensors_ = nt;
  s.num_devices_ = num_devices;
  const size_t un = static_cast<size_t>(n), ud = static_cast<size_t>(num_devices);

  s.ops_.assign(un, OpInfo{});
  s.op_time_.assign(un * ud, 0);
  s.op_part_.assign(un * ud, 0);
  s.has_contention_ = cluster.contention().any() && num_devices > 1;
  const Contention& contention = cluster.contention();
  s.op_excess_.assign(s.has_contention_ ? un * ud : 0, 0);
  s.op_kind_excess_.assign(s.has_contention_ && !contention.kinds.empty() ? un : 0, -1);
  s.op_bytes_read_.assign(un, 0);
  s.op_bytes_written_.assign(un, 0);
  s.resident_bytes_.assign(un, 0);
  std::map<int32_t, OpId> leaders;
  std::vector<TensorId> scratch;
  for (OpId o = 0; o < n; ++o) {
    const Op& op = graph.op(o);
    const size_t uo = static_cast<size_t>(o);
    OpInfo& info = s.ops_[uo];
    info.instant = cost_model.IsInstant(op) ? 1 : 0;
    info.measured = !IsFree(op.kind) && cost_model.options().use_measured_times && op.measured_time_us >= 0 ? 1 : 0;
    if (CanFuseIntoProducer(graph, o)) info.fusion_producer = FusionProducer(graph, o);
    if (op.colocation_group != kNoId) info.colocation_leader = leaders.emplace(op.colocation_group, o).first->second;
    for (DeviceId d = 0; d < num_devices; ++d) {
      const Device& device = cluster.device(d);
      const size_t i = uo * ud + static_cast<size_t>(d);
      s.op_time_[i] = cost_model.OpTimeUs(op, device);
      const double measured = cost_model.MeasuredTimeUs(op, device);
      s.op_part_[i] =
          measured >= 0 ? CostModel::MeasuredBodyUs(measured, device) : cost_model.ComputeTimeUs(op, device);
    }
    const auto kind = contention.kinds.find(op.kind);
    if (!s.op_kind_excess_.empty() && kind != contention.kinds.end()) {
      s.op_kind_excess_[uo] = static_cast<float>(kind->second - 1);
    }
    for (DeviceId d = 0; d < num_devices && s.has_contention_; ++d) {
      const Device& device = cluster.device(d);
      const double memory = static_cast<double>(op.cost.bytes_read + op.cost.bytes_written) / device.memory_bandwidth * 1e6;
      const double compute = cost_model.ComputeTimeUs(op, device);
      s.op_excess_[uo * ud + static_cast<size_t>(d)] =
          !s.op_kind_excess_.empty() && s.op_kind_excess_[uo] >= 0
              ? s.op_kind_excess_[uo]
              : static_cast<float>(RooflineExcess(contention, memory, compute));
    }
    s.op_bytes_read_[uo] = static_cast<double>(op.cost.bytes_read);
    s.op_bytes_written_[uo] = static_cast<double>(op.cost.bytes_written);
    s.resident_bytes_[uo] = OpResidentBytes(graph, o);

    // Data inputs and outputs, deduplicated; free ops wait for nothing.
    scratch.clear();
    if (!IsFree(op.kind)) {
      for (TensorId t : op.inputs) {
        if (graph.tensor(t).producer != kNoId && std::find(scratch.begin(), scratch.end(), t) == scratch.end())
          scratch.push_back(t);
      }
    }
    info.in_begin = static_cast<int32_t>(s.in_.size());
    s.in_.insert(s.in_.end(), scratch.begin(), scratch.end());
    info.in_end = static_cast<int32_t>(s.in_.size());
    scratch.clear();
    for (TensorId t : op.outputs) {
      if (std::find(scratch.begin(), scratch.end(), t) == scratch.end()) scratch.push_back(t);
    }
    info.out_begin = static_cast<int32_t>(s.out_.size());
    s.out_.insert(s.out_.end(), scratch.begin(), scratch.end());
    info.out_end = static_cast<int32_t>(s.out_.size());
    // A view aliases its first input when it is instant and no larger.
    if (info.instant && CategoryOf(op.kind) == OpCategory::kView && op.outputs.size() == 1 && !op.inputs.empty() &&
        graph.tensor(op.inputs[0]).producer != kNoId &&
        graph.tensor(op.outputs[0]).bytes() <= graph.tensor(op.inputs[0]).bytes()) {
      info.alias_input = op.inputs[0];
    }
  }

  s.tensors_.assign(static_cast<size_t>(nt), TensorInfo{});
  std::vector<ConsumerRef> consumers;
  for (TensorId t = 0; t < nt; ++t) {
    const Tensor& tensor = graph.tensor(t);
    TensorInfo& info = s.tensors_[static_cast<size_t>(t)];
    info.producer = tensor.producer;
    info.bytes = tensor.bytes();
    info.resident = tensor.producer != kNoId && graph.op(tensor.producer).kind == OpKind::kVariable ? 1 : 0;
    consumers.clear();
    if (tensor.producer != kNoId) {
      for (OpId c : tensor.consumers) {
        if (IsFree(graph.op(c).kind)) continue;
        const OpInfo& ci = s.ops_[static_cast<size_t>(c)];
        int32_t slot = ci.in_begin;
        while (slot < ci.in_end && s.in_[static_cast<size_t>(slot)] != t) ++slot;
        GO_CHECK(slot < ci.in_end);
        consumers.push_back({c, slot});
      }
    }
    std::sort(consumers.begin(), consumers.end(),
              [](const ConsumerRef& a, const ConsumerRef& b) { return a.op < b.op; });
    consumers.erase(std::unique(consumers.begin(), consumers.end(),
                                [](const ConsumerRef& a, const ConsumerRef& b) { return a.op == b.op; }),
                    consumers.end());
    info.cons_begin = static_cast<int32_t>(s.cons_.size());
    s.cons_.insert(s.cons_.end(), consumers.begin(), consumers.end());
    info.cons_end = static_cast<int32_t>(s.cons_.size());
  }
  // Received copies: at most one per consumer.
  s.num_reads_ = static_cast<int64_t>(s.cons_.size());

  s.link_latency_us_.assign(ud * ud, 0);
  s.link_us_per_byte_.assign(ud * ud, 0);
  for (DeviceId a = 0; a < num_devices; ++a) {
    for (DeviceId b = 0; b < num_devices; ++b) {
      if (a == b) continue;
      const Link& l = cluster.link(a, b);
      s.link_latency_us_[static_cast<size_t>(a) * ud + static_cast<size_t>(b)] = l.latency_us;
      s.link_us_per_byte_[static_cast<size_t>(a) * ud + static_cast<size_t>(b)] =
          kUsPerSecond / cluster.PathBandwidth(a, b);
    }
  }
  s.copies_on_stream_.assign(ud, 0);
  for (DeviceId a = 0; a < num_devices; ++a) s.copies_on_stream_[static_cast<size_t>(a)] = cluster.device(a).copies_on_stream;
  // Ports, as the links each link shares one with, if any link crosses one.
  for (DeviceId a = 0; a < num_devices; ++a) {
    for (DeviceId b = 0; b < num_devices; ++b) s.has_ports_ |= a != b && !cluster.link_ports(a, b).empty();
  }
  if (s.has_ports_) {
    const size_t lw = (ud * ud + 63) / 64;
    s.link_words_ = static_cast<int>(lw);
    std::vector<std::vector<size_t>> port_links(static_cast<size_t>(cluster.num_ports()));
    for (size_t l = 0; l < ud * ud; ++l) {
      if (l / ud == l % ud) continue;
      for (int32_t p : cluster.link_ports(static_cast<DeviceId>(l / ud), static_cast<DeviceId>(l % ud))) {
        port_links[static_cast<size_t>(p)].push_back(l);
      }
    }
    s.link_conflict_bits_.assign(ud * ud * lw, 0);
    for (size_t l = 0; l < ud * ud; ++l) s.link_conflict_bits_[l * lw + l / 64] |= uint64_t{1} << (l % 64);
    for (const auto& links : port_links) {
      for (size_t a : links) {
        for (size_t b : links) s.link_conflict_bits_[a * lw + b / 64] |= uint64_t{1} << (b % 64);
      }
    }
  }
  return s;
}

}  // namespace graphopt
