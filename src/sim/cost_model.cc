#include "sim/cost_model.h"

#include <algorithm>

namespace graphopt {
namespace {

constexpr double kUsPerSecond = 1e6;

Efficiencies MakeEfficiencies(double contraction, double recurrent, double elementwise, double reduction, double pool,
                              double loss, double update, double generic) {
  Efficiencies e;
  e.fill(1.0);  // sources, metadata, views and data movement have no FLOPs
  e[static_cast<int>(OpCategory::kContraction)] = contraction;
  e[static_cast<int>(OpCategory::kRecurrent)] = recurrent;
  e[static_cast<int>(OpCategory::kElementwise)] = elementwise;
  e[static_cast<int>(OpCategory::kReduction)] = reduction;
  e[static_cast<int>(OpCategory::kPool)] = pool;
  e[static_cast<int>(OpCategory::kLoss)] = loss;
  e[static_cast<int>(OpCategory::kUpdate)] = update;
  e[static_cast<int>(OpCategory::kGeneric)] = generic;
  return e;
}

}  // namespace

// GPUs, FP32 without tensor cores:
// - contractions 0.70: vendor GEMM libraries reach 85-95% of the FP32 peak on large
//   square matrices and convolution libraries 60-80% on typical CNN layers; the
//   skinny and small products of real graphs pull the average down.
// - recurrent layers 0.50: a sequence of small GEMMs with a dependency per time
//   step; published measurements of fused LSTM kernels (the study "Optimizing
//   Performance of Recurrent Neural Networks on GPUs") reach about half of peak at
//   hidden sizes near 1024.
// - elementwise 0.50, updates 0.50: bandwidth-bound in practice; the FLOP side only
//   binds for transcendental-heavy kinds (Gelu, Tanh), whose special-function units
//   issue at a fraction of the FMA rate.
// - reductions 0.25, losses 0.25, pools 0.40: several passes and synchronisation
//   between thread blocks; tree reductions keep most lanes idle in the last steps.
// - generic 0.50: an unknown kind is costed like an elementwise op.
Efficiencies DefaultGpuEfficiencies() { return MakeEfficiencies(0.70, 0.50, 0.50, 0.25, 0.40, 0.25, 0.50, 0.50); }

// CPUs (AVX2 / AVX-512 with a BLAS library and a framework thread pool):
// - contractions 0.60: optimized SGEMM reaches 80-90% of peak on large matrices,
//   less once split over a framework's thread pool with small batches.
// - recurrent 0.35: the per-step GEMMs are small, threads synchronise every step.
// - elementwise, updates, pools, generic 0.25; reductions and losses 0.15: framework
//   CPU kernels vectorise only partly and are mostly bound by memory bandwidth.
Efficiencies DefaultCpuEfficiencies() { return MakeEfficiencies(0.60, 0.35, 0.25, 0.15, 0.25, 0.15, 0.25, 0.25); }

CostModel::CostModel(CostModelOptions options) : options_(options) {}

double CostModel::Efficiency(OpCategory category, DeviceKind kind) const {
  const Efficiencies& e = kind == DeviceKind::kCpu ? options_.cpu_efficiency : options_.gpu_efficiency;
  return e[static_cast<int>(category)];
}

bool CostModel::IsInstant(const Op& op) const {
  if (IsFree(op.kind)) return true;
  return CategoryOf(op.kind) == OpCategory::kView && !(options_.use_measured_times && op.measured_time_us >= 0);
}

double CostModel::MeasuredTimeUs(const Op& op, const Device& device) const {
  if (!options_.use_measured_times || op.measured_time_us < 0 || IsFree(op.kind)) return -1;
  if (device.kind == DeviceKind::kCpu && options_.measured_reference_flops > 0) {
    return op.measured_time_us * options_.measured_reference_flops / device.peak_flops;
  }
  return op.measured_time_us;
}

double CostModel::ComputeTimeUs(const Op& op, const Device& device) const {
  if (op.cost.flops <= 0) return 0;
  const double eff = Efficiency(CategoryOf(op.kind), device.kind);
  return op.cost.flops / (device.peak_flops * eff) * kUsPerSecond;
}

double CostModel::OpTimeUs(const Op& op, const Device& device) const {
  if (IsInstant(op)) return 0;
  const double measured = MeasuredTimeUs(op, device);
  if (measured >= 0) return measured;
  const double bytes = static_cast<double>(op.cost.bytes_read) + static_cast<double>(op.cost.bytes_written);
  const double memory_us = bytes / device.memory_bandwidth * kUsPerSecond;
  return device.launch_overhead_us + std::max(ComputeTimeUs(op, device), memory_us);
}

double CostModel::FusedKernelTimeUs(double compute_us, double boundary_bytes, double measured_body_us,
                                    const Device& device) {
  const double memory_us = std::max(0.0, boundary_bytes) / device.memory_bandwidth * kUsPerSecond;
  return device.launch_overhead_us + measured_body_us + std::max(compute_us, memory_us);
}

double CostModel::MeasuredBodyUs(double measured_us, const Device& device) {
  return std::max(0.0, measured_us - device.launch_overhead_us);
}

}  // namespace graphopt
