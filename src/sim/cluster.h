// Cluster: the machine a plan runs on. Devices (accelerators and the host CPU), a
// link for every ordered pair of devices, and the ports those links share.
//
// A Device is a compute stream with a peak FLOP rate, a memory bandwidth, a memory
// capacity and a fixed launch overhead per kernel. A Link is one direction of the
// connection between two devices: a bandwidth and a latency. A Port is one direction
// of a piece of hardware that several links go through: a GPU's PCIe x16 slot, a
// PCIe switch's uplink, a GPU's NVLink connection to an NVSwitch; each ordered link
// lists the ports it crosses (possibly none). The Cluster owns its devices, the dense
// matrix of links and the ports; everything else refers to devices by DeviceId (index
// into devices()) and to ports by their index. The presets list accelerators first
// (ids 0..k-1) and the host CPU last, so device 0 is the first accelerator and a plan
// of all zeros is "everything on one GPU"; the `cpu` preset is the host alone.
//
// Transfers (the simulator's semantics, sim/simulator.h): a transfer occupies its link
// direction and every port that link crosses for its whole duration, and takes
// latency + bytes / PathBandwidth(from, to), the smallest bandwidth of the link and
// its ports. A link and a port each carry one transfer at a time; when a port frees,
// the waiting transfer of highest destination priority among the links crossing it
// (whose other ports are free) goes next. Why one at a time rather than a fair share of the
// port: a GPU's copies are run by its DMA copy engines, one per direction (CUDA
// Programming Guide, "Concurrent Data Transfers": asyncEngineCount), which run the
// copies queued on them one after another. For k equal transfers through one port,
// serialising ends the last one at the same time as fair sharing would (k x bytes /
// bandwidth after the start); it only ends the first ones earlier (their consumers
// may start sooner, as on the machine) instead of all at the end. And it keeps the
// event loop exact and cheap: a transfer's end is known when it starts, and no other
// transfer has to be re-timed when one starts or ends.
//
// Ports of the presets (sources next to each in cluster_presets.cc):
// - PCIe machines (1xV100, 2xP100, 4xV100, 4xK40+cpu, specs such as 2xV100+1xP100):
//   each GPU sits in its own x16 root-port slot of the host and has one port each way,
//   "gpu:i pcie out" and "gpu:i pcie in" (15.75 GB/s). GPU -> GPU crosses the sender's
//   out and the receiver's in port; GPU <-> host only the GPU's. The host CPU has no
//   port of its own: its root complex has a lane set per slot and is modelled as
//   non-blocking, peer traffic through it included.
// - 8xV100 (PCIe, DGX-1 layout): as above, and GPUs (0,1), (2,3), (4,5), (6,7) sit in
//   pairs behind four PCIe switches with one x16 uplink each way to the host ("pcie
//   switch k up" / "down"). Traffic that leaves a pair (to another pair or the host)
//   also crosses the sender's switch up and the receiver's switch down port; the two
//   GPUs of a pair talk through their switch without the uplink.
// - 8xV100-nvlink (DGX-1, hybrid cube mesh): each NVLink pair has its own wires (no
//   port); the pairs without NVLink and the host go over PCIe exactly as in 8xV100.
// - 8xH100-nvlink (DGX H100, NVSwitch): each GPU has an NVLink port each way ("gpu:i
//   nvlink out" / "in", 450 GB/s) that every GPU -> GPU link crosses at both ends, and
//   PCIe 5.0 x16 ports ("gpu:i pcie out" / "in", 63 GB/s) to the host.
// - cpu: one device, no links and no ports.
//
// JSON format ("graphopt-cluster", version 2), units in the field names:
//   {"format": "graphopt-cluster", "version": 2, "name": "my-box",
//    "devices": [{"name": "gpu:0", "kind": "gpu", "model": "V100-SXM2-16GB",
//                 "peak_tflops": 15.7, "memory_bandwidth_gb_s": 900, "memory_gib": 16,
//                 "launch_overhead_us": 5}, ...],
//    (a device may add "copies_on_stream": true, Device::copies_on_stream)
//    "ports": [{"name": "gpu:0 pcie out", "bandwidth_gb_s": 15.75}, ...],
//    "default_link": {"bandwidth_gb_s": 15.75, "latency_us": 10},
//    "links": [{"from": "gpu:0", "to": "gpu:1", "bandwidth_gb_s": 50, "latency_us": 5,
//               "bidirectional": true, "ports": ["gpu:0 pcie out", "gpu:1 pcie in"]}, ...],
//    (optional) "contention": {"compute_slowdown": 1.0, "memory_slowdown": 1.3,
//                              (optional) "kinds": {"Conv": 1.2, "Add": 1.1}}}
// GB/s are 1e9 bytes per second, GiB 2^30 bytes. Every ordered pair of distinct
// devices needs a link: listed in "links" or taken from "default_link". Devices may
// be referred to by name or index in "links", ports by name or index in a link's
// "ports" (optional, like "ports" itself: a link without crosses no port; with
// "bidirectional", both directions cross the ports listed). Version 1 files (no
// "ports"; a file without "version" is read as version 1) load too, taking the
// per-device port from their links: each device gets a port each way, "NAME out" /
// "NAME in", as fast as its fastest outgoing (incoming) link, and every link crosses
// its sender's out port and its receiver's in port. ClusterToJson writes version 2.
//
// Physical ranges (checked when a cluster is read and by Cluster::Validate, so that a
// 1e308 latency or a 1e-300 bandwidth is an error at load, not an "inf s" result):
//   peak FLOP/s        1e3 .. 1e18   (1 kFLOP/s .. 1 EFLOP/s per device)
//   memory bandwidth   1e3 .. 1e15 B/s  (1 KB/s .. 1 PB/s)
//   memory capacity    1 B .. 2^60 B (1 EiB)
//   launch overhead    0 .. 1e6 us   (1 s per kernel)
//   link bandwidth     1e3 .. 1e15 B/s (port bandwidth too)
//   link latency       0 .. 1e6 us   (1 s per transfer)
//   slowdowns          1 .. 10      (Contention)
// and at most kMaxDevices (1024) devices and kMaxPorts ports.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/ids.h"
#include "core/status.h"
#include "graph/op_kind.h"

namespace graphopt {

inline constexpr double kMinFlops = 1e3, kMaxFlops = 1e18;
inline constexpr double kMinBandwidth = 1e3, kMaxBandwidth = 1e15;  // bytes per second, memory and links
inline constexpr int64_t kMaxMemoryBytes = int64_t{1} << 60;
inline constexpr double kMaxLatencyUs = 1e6;  // launch overheads and link latencies
// Devices a cluster file may list: the links form a dense matrix (n^2), so a file of
// a million devices must be an error, not a terabyte allocation.
inline constexpr int kMaxDevices = 1024;
// Ports a cluster file may list (two per device each way and some switches is plenty).
inline constexpr int kMaxPorts = 16 * kMaxDevices;

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
  // Its transfers out are made by its own stream (a CPU core copying, as the executor
  // does on the local cluster, exec/executor.h), which runs no kernel meanwhile.
  bool copies_on_stream = false;
};

struct Link {
  double bandwidth = 0;   // bytes/s
  double latency_us = 0;  // fixed cost of every transfer
};

// What the devices of a cluster share besides ports: the local cluster's cores are one
// memory system and one host (exec/local_cluster.h measures these). A kernel runs
// `compute` times slower for its compute part and `memory` times slower for its memory
// part while every other device runs a kernel, proportionally less while fewer do
// (sim/simulator.h says how the simulator applies it). A kernel of an op kind listed
// in `kinds` runs that many times slower instead, as measured in executed steps with
// every other device running the same step (exec/busy_profile.h): what two probes
// cannot say of kernels that live in the caches or are bound by neither. A kernel
// reads each input received from another device `read` times slower than its own
// device's data (the copy lives in the other core's caches; exec/concurrency.h's read
// probe), busy or not. 1 and 1 and no kinds and 1, the default and every GPU preset's:
// the devices slow each other down only through links and ports.
struct Contention {
  Contention() = default;
  Contention(double compute_slowdown, double memory_slowdown, double read_slowdown = 1)
      : compute(compute_slowdown), memory(memory_slowdown), read(read_slowdown) {}
  double compute = 1;
  double memory = 1;
  std::map<OpKind, double> kinds;
  double read = 1;
  bool any() const { return compute != 1 || memory != 1 || !kinds.empty() || read != 1; }
};
inline constexpr double kMaxSlowdown = 10;
// "Conv 1.22x, Add 1.05x": the kinds' slowdowns, slowest first ("" for none).
std::string KindSlowdownsText(const std::map<OpKind, double>& kinds);
// The median of compute, of memory and of read over `samples` (1, 1 and 1 for none):
// one contention from several measurements of it (their kinds are not kept).
Contention MedianContention(const std::vector<Contention>& samples);

// One direction of hardware that links share (see the header comment).
struct Port {
  std::string name;      // unique within the cluster: "gpu:0 pcie out"
  double bandwidth = 0;  // bytes/s
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
  // Sets every link between distinct devices (their ports are kept).
  void SetAllLinks(const Link& link);

  int num_ports() const { return static_cast<int>(ports_.size()); }
  const Port& port(int32_t i) const { return ports_[static_cast<size_t>(i)]; }
  const std::vector<Port>& ports() const { return ports_; }
  // Adds a port; returns its index.
  int32_t AddPort(std::string name, double bandwidth);
  // The port with this name, or -1.
  int32_t FindPort(const std::string& name) const;
  // The ports link (from, to) crosses (from != to), replacing those it crossed before.
  void SetLinkPorts(DeviceId from, DeviceId to, std::vector<int32_t> ports);
  // The ports link (from, to) crosses, in the order set; empty for a link without.
  const std::vector<int32_t>& link_ports(DeviceId from, DeviceId to) const;
  // The bandwidth of a transfer from `from` to `to`: the link's, or the smallest
  // port's on the way if lower (bytes/s).
  double PathBandwidth(DeviceId from, DeviceId to) const;

  const Contention& contention() const { return contention_; }
  void set_contention(const Contention& c) { contention_ = c; }

  // Ids of the devices that are not CPUs, in id order; every device of a cluster of
  // CPUs only (cpu, local:N), whose CPUs are its compute devices.
  std::vector<DeviceId> Accelerators() const;
  // The first accelerator, or 0 if the cluster has none.
  DeviceId FirstAccelerator() const;
  // The device with this name, or kNoId.
  DeviceId FindDevice(const std::string& name) const;
  // The cluster of the given devices only (distinct ids in range), in that order, with
  // the links between them and the ports those links cross (in their order here,
  // renumbered); named NAME[d0,d1,...] by the kept ids.
  Cluster Part(const std::vector<DeviceId>& devices) const;
  // One line: "8xV100: 8 x V100-PCIe-16GB + Xeon ... (9 devices, 24 ports)".
  std::string Summary() const;

  // Checks positive rates and capacities, non-negative latencies and overheads,
  // unique non-empty device and port names, port bandwidths in range, and that every
  // link's ports exist and appear once in its list.
  Status Validate() const;

 private:
  std::string name_;
  std::vector<Device> devices_;
  std::vector<Link> links_;  // num_devices^2, row = from
  std::vector<Port> ports_;
  // num_devices^2 (row = from) once a link has ports, else empty (no link has any).
  std::vector<std::vector<int32_t>> link_ports_;
  Contention contention_;
};

// Names of the built-in presets, in display order.
std::vector<std::string> ClusterPresetNames();
// A preset by name ("8xV100-nvlink"); NotFound listing the presets otherwise.
StatusOr<Cluster> ClusterPreset(const std::string& name);
// A cluster of GPUs of the presets' kinds from a spec "NxKIND[+NxKIND...]", e.g.
// "2xV100+1xP100" (mixed kinds; KIND one of V100, P100, K40, H100): the GPUs in the
// order written, then the DGX-1-class host CPU; every pair over PCIe 3.0 x16, each GPU
// in its own x16 slot with the PCIe presets' ports. The cluster is named by the spec.
StatusOr<Cluster> ClusterFromSpec(const std::string& spec);
// A preset name, a path to a cluster JSON file, or a spec (ClusterFromSpec).
StatusOr<Cluster> LoadCluster(const std::string& name_or_path);

std::string ClusterToJson(const Cluster& cluster);
// Parses and validates a cluster; `source` names the file in error messages.
StatusOr<Cluster> ClusterFromJson(const std::string& text, const std::string& source);
Status WriteClusterJson(const Cluster& cluster, const std::string& path);
StatusOr<Cluster> ReadClusterJson(const std::string& path);

}  // namespace graphopt
