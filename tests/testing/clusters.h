// Clusters of the tests: presets by name and small hand-built machines whose numbers
// the tests compute on paper. Header-only; needs graphopt_sim.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster.h"

namespace graphopt::testing {

// A cluster preset by name ("2xV100", ...); a test failure (and an empty cluster)
// when there is none.
inline Cluster Preset(const std::string& name) {
  auto c = ClusterPreset(name);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : Cluster();
}

// Two GPUs of 10 TFLOP/s, 900 GB/s and 16 GiB, 5 us launch overhead, joined by links
// of 1 GB/s (1000 bytes per us) and 10 us latency.
inline Cluster TwoGpusOnSlowLinks() {
  Device d;
  d.kind = DeviceKind::kGpu;
  d.peak_flops = 10e12;
  d.memory_bandwidth = 900e9;
  d.memory_bytes = int64_t{16} << 30;
  d.launch_overhead_us = 5;
  d.name = "gpu:0";
  Device e = d;
  e.name = "gpu:1";
  Cluster c("two", {d, e});
  c.SetAllLinks(Link{1e9, 10});
  return c;
}

// Two devices "gpu:0" and "gpu:1" of 14 TFLOP/s, 900 GB/s and 16 GiB (the other
// Device fields at their defaults), joined by links of 10 GB/s and 10 us latency.
inline Cluster TwoGpusOnFastLinks() {
  std::vector<Device> devices(2);
  for (int i = 0; i < 2; ++i) {
    devices[static_cast<size_t>(i)].name = "gpu:" + std::to_string(i);
    devices[static_cast<size_t>(i)].peak_flops = 1.4e13;
    devices[static_cast<size_t>(i)].memory_bandwidth = 9e11;
    devices[static_cast<size_t>(i)].memory_bytes = int64_t{16} << 30;
  }
  Cluster c("2gpu", devices);
  c.SetAllLinks(Link{1e10, 10});
  return c;
}

// Two CPU devices "cpu:0" and "cpu:1" named like the executor's local machine
// ("local:2"): 50 GFLOP/s, 10 GB/s, 2 us launch overhead, links of 5 GB/s and 1 us
// latency. The figures hardly matter to the executor's tests (the executor measures);
// `memory_bytes` decides the memory check.
inline Cluster TwoLocalCores(int64_t memory_bytes = int64_t{8} << 30) {
  std::vector<Device> devices;
  for (int i = 0; i < 2; ++i) {
    Device d;
    d.name = "cpu:" + std::to_string(i);
    d.kind = DeviceKind::kCpu;
    d.peak_flops = 50e9;
    d.memory_bandwidth = 10e9;
    d.memory_bytes = memory_bytes;
    d.launch_overhead_us = 2;
    devices.push_back(d);
  }
  Cluster c("local:2", devices);
  c.SetAllLinks(Link{5e9, 1});
  return c;
}

// TwoLocalCores' names, but devices and links of 1e15 FLOP/s and bytes/s, no latency
// and no launch overhead: a simulated step far faster than any measured one.
inline Cluster TwoInstantCores(int64_t memory_bytes) {
  std::vector<Device> devices;
  for (int i = 0; i < 2; ++i) {
    Device d;
    d.name = "cpu:" + std::to_string(i);
    d.kind = DeviceKind::kCpu;
    d.peak_flops = 1e15;
    d.memory_bandwidth = 1e15;
    d.memory_bytes = memory_bytes;
    devices.push_back(d);
  }
  Cluster c("local:2", devices);
  c.SetAllLinks(Link{1e15, 0});
  return c;
}

}  // namespace graphopt::testing
