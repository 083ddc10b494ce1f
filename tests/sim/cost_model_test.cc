#include "sim/cost_model.h"

#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace graphopt {
namespace {

Device PaperDevice(DeviceKind kind = DeviceKind::kGpu) {
  Device d = testing::PaperCluster(1).device(0);
  d.kind = kind;
  return d;
}

Op MakeOp(OpKind kind, double flops, int64_t read, int64_t written) {
  Op op;
  op.kind = kind;
  op.cost.flops = flops;
  op.cost.bytes_read = read;
  op.cost.bytes_written = written;
  return op;
}

TEST(CostModelTest, ComputeBoundOpIsFlopsOverPeakTimesEfficiencyPlusLaunch) {
  const CostModel model;
  const double eff = model.Efficiency(OpCategory::kContraction, DeviceKind::kGpu);
  // 7e6 FLOPs on 1 TFLOP/s at efficiency eff, plus 1 us launch.
  EXPECT_NEAR(model.OpTimeUs(MakeOp(OpKind::kMatMul, 7e6, 100, 100), PaperDevice()), 1 + 7 / eff, 1e-9);
}

TEST(CostModelTest, MemoryBoundOpIsBytesOverBandwidthPlusLaunch) {
  const CostModel model;
  EXPECT_NEAR(model.OpTimeUs(MakeOp(OpKind::kAdd, 100, 3000, 1000), PaperDevice()), 1 + 4, 1e-9);
}

TEST(CostModelTest, MeasuredTimeWinsOnGpus) {
  const CostModel model;
  Op op = MakeOp(OpKind::kMatMul, 1e12, 0, 0);
  op.measured_time_us = 42;
  EXPECT_DOUBLE_EQ(model.OpTimeUs(op, PaperDevice()), 42);
}

TEST(CostModelTest, MeasuredTimeIsScaledByPeakOnCpus) {
  CostModelOptions o;
  o.measured_reference_flops = 4e12;  // the paper device has 1e12
  Op op = MakeOp(OpKind::kMatMul, 0, 0, 0);
  op.measured_time_us = 10;
  EXPECT_DOUBLE_EQ(CostModel(o).OpTimeUs(op, PaperDevice(DeviceKind::kCpu)), 40);
  o.measured_reference_flops = 0;
  EXPECT_DOUBLE_EQ(CostModel(o).OpTimeUs(op, PaperDevice(DeviceKind::kCpu)), 10);
}

TEST(CostModelTest, FreeOpsAndViewsCostNothing) {
  const CostModel model;
  EXPECT_DOUBLE_EQ(model.OpTimeUs(MakeOp(OpKind::kVariable, 0, 0, 0), PaperDevice()), 0);
  EXPECT_DOUBLE_EQ(model.OpTimeUs(MakeOp(OpKind::kShape, 0, 0, 0), PaperDevice()), 0);
  EXPECT_DOUBLE_EQ(model.OpTimeUs(MakeOp(OpKind::kReshape, 0, 0, 0), PaperDevice()), 0);
  EXPECT_TRUE(model.IsInstant(MakeOp(OpKind::kIdentity, 0, 0, 0)));
  Op measured_view = MakeOp(OpKind::kReshape, 0, 0, 0);
  measured_view.measured_time_us = 3;
  EXPECT_FALSE(model.IsInstant(measured_view));
  EXPECT_DOUBLE_EQ(model.OpTimeUs(measured_view, PaperDevice()), 3);
}

TEST(CostModelTest, CpuEfficienciesAreBelowGpuOnes) {
  const Efficiencies gpu = DefaultGpuEfficiencies(), cpu = DefaultCpuEfficiencies();
  for (int c = 0; c < kNumOpCategories; ++c) {
    EXPECT_GT(gpu[static_cast<size_t>(c)], 0);
    EXPECT_LE(gpu[static_cast<size_t>(c)], 1);
    EXPECT_LE(cpu[static_cast<size_t>(c)], gpu[static_cast<size_t>(c)]);
  }
}

TEST(CostModelTest, FusedKernelPaysOneLaunchAndBoundaryBytes) {
  // 3 us compute, 5000 boundary bytes (5 us), 2 us of measured bodies.
  EXPECT_NEAR(CostModel::FusedKernelTimeUs(3, 5000, 2, PaperDevice()), 1 + 2 + 5, 1e-9);
  EXPECT_DOUBLE_EQ(CostModel::MeasuredBodyUs(0.5, PaperDevice()), 0);
}

}  // namespace
}  // namespace graphopt
