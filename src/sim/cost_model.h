// CostModel: how long an op (or a fused group of ops) runs on a device.
//
// An op with a measured time (graphs imported from profiles) takes that time: on
// GPUs as measured, on CPUs scaled by (reference GPU peak / CPU peak), since the
// profiles come from a GPU. Otherwise its time is a roofline:
//   launch_overhead + max(FLOPs / (peak x efficiency[category, device kind]), bytes / bandwidth)
// with bytes = bytes read + bytes written. Free ops (sources, metadata) cost nothing
// and launch nothing; views (Reshape, Identity) alias their input, so they also cost
// nothing and launch no kernel (they are instant, like metadata), unless measured.
//
// A fused group is one kernel: one launch, the members' compute times summed, and
// only the bytes that cross the group boundary (see FusedKernelTimeUs). Measured
// members keep their measured time minus the launch the group pays once.
//
// The efficiencies are fractions of the FP32 peak that each op category reaches on
// the hardware of the presets; they are justified next to kDefault*Efficiency in
// cost_model.cc and can be overridden per category.
#pragma once

#include <array>

#include "graph/graph.h"
#include "sim/cluster.h"

namespace graphopt {

inline constexpr int kNumOpCategories = static_cast<int>(OpCategory::kGeneric) + 1;
using Efficiencies = std::array<double, kNumOpCategories>;

// The defaults, per device kind.
Efficiencies DefaultGpuEfficiencies();
Efficiencies DefaultCpuEfficiencies();

struct CostModelOptions {
  Efficiencies gpu_efficiency = DefaultGpuEfficiencies();
  Efficiencies cpu_efficiency = DefaultCpuEfficiencies();
  // Use Op::measured_time_us where it is set (>= 0).
  bool use_measured_times = true;
  // Peak FP32 FLOP/s of the GPU the measured times come from: 14 TFLOP/s, a
  // V100-class GPU. On a CPU a measured time is scaled by this / the CPU's peak;
  // <= 0 uses measured times unchanged on every device.
  double measured_reference_flops = 14e12;
};

class CostModel {
 public:
  explicit CostModel(CostModelOptions options = {});
  const CostModelOptions& options() const { return options_; }

  double Efficiency(OpCategory category, DeviceKind kind) const;
  // True if the op runs no kernel: free ops, and views without a measured time.
  bool IsInstant(const Op& op) const;
  // The measured time of op on device in us (scaled for CPUs), or < 0 if none is used.
  double MeasuredTimeUs(const Op& op, const Device& device) const;
  // FLOPs / (peak x efficiency) in us: the compute side of the roofline, no launch.
  double ComputeTimeUs(const Op& op, const Device& device) const;
  // Time of the op as a kernel of its own on device, in us, launch included; 0 if instant.
  double OpTimeUs(const Op& op, const Device& device) const;
  // Time of a fused kernel (two or more ops) on device, from its members' parts:
  // launch + sum of measured bodies + max(sum of compute times, boundary bytes / bandwidth).
  static double FusedKernelTimeUs(double compute_us, double boundary_bytes, double measured_body_us,
                                  const Device& device);
  // What a measured op adds to a fused kernel: its measured time minus the launch.
  static double MeasuredBodyUs(double measured_us, const Device& device);

 private:
  CostModelOptions options_;
};

}  // namespace graphopt
