// Cluster: the machine a plan runs on. Devices (accelerators and the host CPU) and a
// link for every ordered pair of devices.
//
// A Device is a compute stream with a peak FLOP rate, a memory bandwidth, a memory
// capacity and a fixed launch overhead per kernel. A Link is one direction of the
// connection between two devices: a bandwidth and a latency; it carries one transfer
// at a time (the simulator's semantics). The Cluster owns its devices and the dense
// matrix of links; everything else refers to devices by DeviceId (index into
// devices()). The presets list accelerators first (ids 0..k-1) and the host CPU last,
// so device 0 is the first accelerator and a plan of all zeros is "everything on one
// GPU"; the `cpu` preset is the host alone.
//
// JSON format ("graphopt-cluster", version 1), units in the field names:
//   {"format": "graphopt-cluster", "version": 1, "name": "my-box",
//    "devices": [{"name": "gpu:0", "kind": "gpu", "model": "V100-SXM2-16GB",
//                 "peak_tflops": 15.7, "memory_bandwidth_gb_s": 900, "memory_gib": 16,
//                 "launch_overhead_us": 5}, ...],
//    "default_link": {"bandwidth_gb_s": 15.75, "latency_us": 10},
//    "links": [{"from": "gpu:0", "to": "gpu:1", "bandwidth_gb_s": 50, "latency_us": 5,
//               "bidirectional": true}, ...]}
// GB/s are 1e9 bytes per second, GiB 2^30 bytes. Every ordered pair of distinct
// devices needs a link: listed in "links" or taken from "default_link". Devices may
// be referred to by name or index in "links".
//
// Physical ranges (checked when a cluster is read and by Cluster::Validate, so that a
// 1e308 latency or a 1e-300 bandwidth is an error at load, not an "inf s" result):
//   peak FLOP/s        1e3 .. 1e18   (1 kFLOP/s .. 1 EFLOP/s per device)
//   memory bandwidth   1e3 .. 1e15 B/s  (1 KB/s .. 1 PB/s)
//   memory capacity    1 B .. 2^60 B (1 EiB)
//   launch overhead    0 .. 1e6 us   (1 s per kernel)
//   link bandwidth     1e3 .. 1e15 B/s
//   link latency       0 .. 1e6 us   (1 s per transfer)
// and at most kMaxDevices (1024) devices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ids.h"
#include "core/status.h"

namespace graphopt {

inline constexpr double kMinFlops = 1e3, kMaxFlops = 1e18;
inline constexpr double kMinBandwidth = 1e3, kMaxBandwidth = 1e15;  // bytes per second, memory and links
inline constexpr int64_t kMaxMemoryBytes = int64_t{1} << 60;
inline constexpr double kMaxLatencyUs = 1e6;  // launch overheads and link latencies
// Devices a cluster file may list: the links form a dense matrix (n^2), so a file of
// a million devices must be an error, not a terabyte allocation.
inline constexpr int kMaxDevices = 1024;

enum class DeviceKind : uint8_t { kCpu = 0, kGpu = 1 };
inline constexpr int kNumDeviceKinds = 2;
const char* DeviceKindName(DeviceKind kind);

struct Device {
  std::string name;  // unique within the cluster: "gpu:0", "cpu:0"
  DeviceKind kind = DeviceKind::kGpu;
  std::string model;              // "V100-SXM2-16GB": informative only
  double peak_flops = 0;          // FLOP/s, dense FP32
  double memory_bandwidth = 0;    // bytes/s
  int64_t memory_bytes = 0;       // capacity
  double launch_overhead_us = 0;  // fixed cost of every kernel
};

struct Link {
  double bandwidth = 0;   // bytes/s
  double latency_us = 0;  // fixed cost of every transfer
};

class Cluster {
 public:
  Cluster() = default;
  Cluster(std::string name, std::vector<Device> devices);

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  int num_devices() const { return static_cast<int>(devices_.size()); }
  const Device& device(DeviceId d) const { return devices_[static_cast<size_t>(d)]; }
  const std::vector<Device>& devices() const { return devices_; }
  // The link carrying data from `from` to `to` (from != to).
  const Link& link(DeviceId from, DeviceId to) const { return links_[static_cast<size_t>(from * num_devices() + to)]; }
  void SetLink(DeviceId from, DeviceId to, const Link& link);
  void SetLinkBothWays(DeviceId a, DeviceId b, const Link& link);
  // Sets every link between distinct devices.
  void SetAllLinks(const Link& link);

  // Ids of the devices that are not CPUs, in id order.
  std::vector<DeviceId> Accelerators() const;
  // The first accelerator, or 0 if the cluster has none.
  DeviceId FirstAccelerator() const;
  // The device with this name, or kNoId.
  DeviceId FindDevice(const std::string& name) const;
  // The cluster of the given devices only (distinct ids in range), in that order, with
  // the links between them; named NAME[d0,d1,...] by the kept ids.
  Cluster Part(const std::vector<DeviceId>& devices) const;
  // One line: "8xV100: 8 x V100-PCIe-16GB + Xeon ... (9 devices)".
  std::string Summary() const;

  // Checks positive rates and capacities, non-negative latencies and overheads,
  // unique non-empty device names.
  Status Validate() const;

 private:
  std::string name_;
  std::vector<Device> devices_;
  std::vector<Link> links_;  // num_devices^2, row = from
};

// Names of the built-in presets, in display order.
std::vector<std::string> ClusterPresetNames();
// A preset by name ("8xV100-nvlink"); NotFound listing the presets otherwise.
StatusOr<Cluster> ClusterPreset(const std::string& name);
// A cluster of GPUs of the presets' kinds from a spec "NxKIND[+NxKIND...]", e.g.
// "2xV100+1xP100" (mixed kinds; KIND one of V100, P100, K40, H100): the GPUs in the
// order written, then the DGX-1-class host CPU; every pair over PCIe 3.0 x16. The
// cluster is named by the spec.
StatusOr<Cluster> ClusterFromSpec(const std::string& spec);
// A preset name, a path to a cluster JSON file, or a spec (ClusterFromSpec).
StatusOr<Cluster> LoadCluster(const std::string& name_or_path);

std::string ClusterToJson(const Cluster& cluster);
// Parses and validates a cluster; `source` names the file in error messages.
StatusOr<Cluster> ClusterFromJson(const std::string& text, const std::string& source);
Status WriteClusterJson(const Cluster& cluster, const std::string& path);
StatusOr<Cluster> ReadClusterJson(const std::string& path);

}  // namespace graphopt
