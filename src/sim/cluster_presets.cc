// The built-in clusters (cluster.h): published figures of real machines, with the
// vendor document each comes from.
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "core/files.h"
#include "core/strings.h"
#include "sim/cluster.h"

namespace graphopt {
namespace {

constexpr double kGB = 1e9;                        // GB/s in link and memory bandwidths
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;  // memory capacities
constexpr double kTera = 1e12;

// ---------------------------------------------------------------------------
// Published figures. Peak FLOP/s are dense FP32 without tensor cores (the graphs
// are FP32); memory bandwidths and capacities are the datasheet values; PCIe and
// NVLink bandwidths are per direction.
//
// Launch overheads and link latencies are not vendor figures (no vendor publishes
// them): 5 us per GPU kernel is the usual measured cost of a CUDA launch plus a
// framework's per-op dispatch, 2 us per CPU op the dispatch of an op to a thread
// pool; 10 us per PCIe transfer and 5 us per NVLink transfer are typical measured
// small-copy latencies of cudaMemcpy-style copies.
// ---------------------------------------------------------------------------
constexpr double kGpuLaunchUs = 5.0;
constexpr double kCpuLaunchUs = 2.0;
constexpr double kPcieLatencyUs = 10.0;
constexpr double kNvlinkLatencyUs = 5.0;

// PCI Express 3.0 x16: 8 GT/s per lane x 16 lanes x 128b/130b encoding / 8 bits
// = 15.75 GB/s per direction (PCI-SIG PCIe 3.0 specification).
constexpr double kPcie3x16 = 15.75 * kGB;
// PCI Express 5.0 x16: 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s per direction (PCI-SIG
// PCIe 5.0; the H100 datasheet lists 128 GB/s for both directions together).
constexpr double kPcie5x16 = 63.0 * kGB;
// NVLink 2.0 (V100): 25 GB/s per direction per link (NVIDIA Tesla V100 datasheet:
// 6 links, 300 GB/s total bidirectional).
constexpr double kNvlink2PerLink = 25.0 * kGB;
// NVLink 4.0 through NVSwitch (H100 SXM5): 900 GB/s total bidirectional per GPU
// (NVIDIA H100 datasheet) = 450 GB/s per direction to the switch fabric.
constexpr double kNvlink4PerGpu = 450.0 * kGB;

Device MakeDevice(std::string name, DeviceKind kind, const char* model, double tflops, double bandwidth_gb_s,
                  double memory_gib, double launch_us) {
  Device d;
  d.name = std::move(name);
  d.kind = kind;
  d.model = model;
  d.peak_flops = tflops * kTera;
  d.memory_bandwidth = bandwidth_gb_s * kGB;
  d.memory_bytes = static_cast<int64_t>(memory_gib * kGiB);
  d.launch_overhead_us = launch_us;
  return d;
}

Device Gpu(int index, const char* model, double tflops, double bandwidth_gb_s, double memory_gib) {
  return MakeDevice("gpu:" + std::to_string(index), DeviceKind::kGpu, model, tflops, bandwidth_gb_s, memory_gib,
                    kGpuLaunchUs);
}

// NVIDIA Tesla V100 PCIe datasheet: 14 TFLOP/s FP32, 900 GB/s HBM2, 16 GB.
Device V100Pcie(int i) { return Gpu(i, "V100-PCIe-16GB", 14.0, 900, 16); }
// NVIDIA Tesla V100 SXM2 datasheet: 15.7 TFLOP/s FP32, 900 GB/s HBM2, 16 GB.
Device V100Sxm2(int i) { return Gpu(i, "V100-SXM2-16GB", 15.7, 900, 16); }
// NVIDIA Tesla P100 PCIe datasheet: 9.3 TFLOP/s FP32, 732 GB/s HBM2, 16 GB.
Device P100Pcie(int i) { return Gpu(i, "P100-PCIe-16GB", 9.3, 732, 16); }
// NVIDIA Tesla K40 datasheet: 4.29 TFLOP/s FP32 (base clock), 288 GB/s GDDR5, 12 GB.
Device K40(int i) { return Gpu(i, "K40", 4.29, 288, 12); }
// NVIDIA H100 SXM5 datasheet: 67 TFLOP/s FP32, 3.35 TB/s HBM3, 80 GB.
Device H100Sxm5(int i) { return Gpu(i, "H100-SXM5-80GB", 67.0, 3350, 80); }

Device Cpu(const char* model, double tflops, double bandwidth_gb_s, double memory_gib) {
  return MakeDevice("cpu:0", DeviceKind::kCpu, model, tflops, bandwidth_gb_s, memory_gib, kCpuLaunchUs);
}

// The host of the V100 and P100 presets, a DGX-1-class server: 2 x Intel Xeon
// E5-2698 v4 (Intel ARK: 20 cores at 2.2 GHz; AVX2 with two FMA units = 32 FP32 FLOP
// per cycle per core: 2 x 20 x 2.2e9 x 32 = 2.82 TFLOP/s), 4 DDR4-2133 channels per
// socket (2 x 4 x 17.07 GB/s = 136.5 GB/s) and 512 GB (NVIDIA DGX-1 datasheet).
Device Dgx1Host() { return Cpu("2x Xeon E5-2698 v4", 2.816, 136.5, 512); }
// The host of the K40 preset, as in the first learned-placement experiments: one
// Intel Xeon E5-2699 v3 (Intel ARK: 18 Haswell cores at 2.3 GHz, 32 FP32 FLOP per
// cycle: 1.32 TFLOP/s; 4 DDR4-2133 channels: 68.3 GB/s). Memory size is not
// published for that machine: 128 GB is our assumption.
Device HaswellHost() { return Cpu("Xeon E5-2699 v3", 1.325, 68.3, 128); }
// The host of the H100 preset (NVIDIA DGX H100 datasheet): 2 x Intel Xeon Platinum
// 8480C (56 cores at 2.0 GHz, AVX-512 with two FMA units = 64 FP32 FLOP per cycle:
// 2 x 56 x 2.0e9 x 64 = 14.3 TFLOP/s), 8 DDR5-4800 channels per socket (2 x 307.2
// GB/s) and 2 TB.
Device DgxH100Host() { return Cpu("2x Xeon Platinum 8480C", 14.336, 614.4, 2048); }

std::vector<Device> Gpus(int n, Device (*make)(int), const Device& host) {
  std::vector<Device> devices;
  for (int i = 0; i < n; ++i) devices.push_back(make(i));
  devices.push_back(host);
  return devices;
}

// PCIe ports of GPUs 0..num_gpus-1 of a cluster whose host is device num_gpus, and the
// ports each link crosses (cluster.h): every GPU has one x16 port each way, "gpu:i
// pcie out" / "gpu:i pcie in". With gpus_per_switch > 0, GPUs 0..k-1, k..2k-1, ... sit
// behind PCIe switches with one x16 uplink each way to the host ("pcie switch s up" /
// "down"), which a link crosses when it leaves (enters) the switch. The host has no
// port: its root complex has a lane set per slot (or per switch uplink) and is taken
// as non-blocking, peer-to-peer traffic through it included.
void AddPciePorts(Cluster* c, int num_gpus, double bandwidth, int gpus_per_switch) {
  const DeviceId host = num_gpus;
  std::vector<int32_t> out, in, up, down;
  for (DeviceId g = 0; g < num_gpus; ++g) {
    out.push_back(c->AddPort(c->device(g).name + " pcie out", bandwidth));
    in.push_back(c->AddPort(c->device(g).name + " pcie in", bandwidth));
  }
  for (int s = 0; gpus_per_switch > 0 && s * gpus_per_switch < num_gpus; ++s) {
    up.push_back(c->AddPort("pcie switch " + std::to_string(s) + " up", bandwidth));
    down.push_back(c->AddPort("pcie switch " + std::to_string(s) + " down", bandwidth));
  }
  // The switch of device d, or -1 (the host, or no switches).
  auto switch_of = [&](DeviceId d) { return d == host || gpus_per_switch <= 0 ? -1 : d / gpus_per_switch; };
  for (DeviceId a = 0; a <= host; ++a) {
    for (DeviceId b = 0; b <= host; ++b) {
      if (a == b) continue;
      const int sa = switch_of(a), sb = switch_of(b);
      std::vector<int32_t> ports;
      if (a != host) ports.push_back(out[static_cast<size_t>(a)]);
      if (sa >= 0 && sa != sb) ports.push_back(up[static_cast<size_t>(sa)]);
      if (sb >= 0 && sb != sa) ports.push_back(down[static_cast<size_t>(sb)]);
      if (b != host) ports.push_back(in[static_cast<size_t>(b)]);
      c->SetLinkPorts(a, b, std::move(ports));
    }
  }
}

// Every pair over PCIe 3.0 x16 through the host. The presets with up to four GPUs
// (1xV100, 2xP100, 4xV100, 4xK40+cpu) and the specs model every GPU in its own x16
// root-port slot of the host, so no switch uplink is shared and peer traffic crosses
// the host's root complex, taken as non-blocking. Two Xeon E5-2698 v4 have 2 x 40
// PCIe 3.0 lanes (Intel ARK), room for four x16 slots; the K40 host's one socket
// would need a switch for four, which is not modelled.
Cluster PcieCluster(const std::string& name, std::vector<Device> devices, int gpus_per_switch = 0) {
  const int num_gpus = static_cast<int>(devices.size()) - 1;
  Cluster c(name, std::move(devices));
  c.SetAllLinks(Link{kPcie3x16, kPcieLatencyUs});
  AddPciePorts(&c, num_gpus, kPcie3x16, gpus_per_switch);
  return c;
}
Cluster PcieCluster(const std::string& name, int n, Device (*make)(int), const Device& host) {
  return PcieCluster(name, Gpus(n, make, host));
}

// Eight V100 PCIe in the DGX-1 PCIe layout (NVIDIA DGX-1 System Architecture
// whitepaper: four PCIe switches, each joining two GPUs to a CPU socket with one x16
// link): GPUs (0,1), (2,3), (4,5), (6,7) share a switch uplink.
Cluster Pcie8xV100() { return PcieCluster("8xV100", Gpus(8, V100Pcie, Dgx1Host()), /*gpus_per_switch=*/2); }

// NVIDIA DGX-1 with V100 (hybrid cube-mesh, DGX-1 system architecture whitepaper):
// GPUs 0-3 and 4-7 form two fully connected quads and GPU i is joined to GPU i+4;
// each GPU's six NVLink 2.0 links are spread so that some pairs have two links.
// Pairs without NVLink go over PCIe through the host CPUs, with the PCIe switches of
// the same whitepaper (as 8xV100). Each NVLink pair has wires of its own: its links
// cross no port.
Cluster Dgx1V100() {
  Cluster c = PcieCluster("8xV100-nvlink", Gpus(8, V100Sxm2, Dgx1Host()), /*gpus_per_switch=*/2);
  // {a, b, number of NVLinks}
  const int kNvlinks[][3] = {{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
                             {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2}};
  for (const auto& l : kNvlinks) {
    c.SetLinkBothWays(l[0], l[1], Link{l[2] * kNvlink2PerLink, kNvlinkLatencyUs});
    c.SetLinkPorts(l[0], l[1], {});
    c.SetLinkPorts(l[1], l[0], {});
  }
  return c;
}

// NVIDIA DGX H100 (DGX H100 datasheet and user guide: eight H100 SXM5 joined by
// NVSwitch chips, 900 GB/s bidirectional GPU-to-GPU per GPU; each GPU on PCIe Gen5 x16
// to the host): every GPU pair at the full per-GPU NVLink bandwidth, but all of a
// GPU's peer traffic shares its NVLink port each way ("gpu:i nvlink out" / "in",
// 450 GB/s); the host over each GPU's PCIe 5.0 x16 ports, separate from NVLink.
Cluster DgxH100() {
  Cluster c("8xH100-nvlink", Gpus(8, H100Sxm5, DgxH100Host()));
  c.SetAllLinks(Link{kNvlink4PerGpu, kNvlinkLatencyUs});
  const DeviceId host = 8;
  for (DeviceId g = 0; g < 8; ++g) c.SetLinkBothWays(g, host, Link{kPcie5x16, kPcieLatencyUs});
  AddPciePorts(&c, 8, kPcie5x16, /*gpus_per_switch=*/0);
  std::vector<int32_t> out, in;
  for (DeviceId g = 0; g < 8; ++g) {
    out.push_back(c.AddPort(c.device(g).name + " nvlink out", kNvlink4PerGpu));
    in.push_back(c.AddPort(c.device(g).name + " nvlink in", kNvlink4PerGpu));
  }
  for (DeviceId a = 0; a < 8; ++a) {
    for (DeviceId b = 0; b < 8; ++b) {
      if (a != b) c.SetLinkPorts(a, b, {out[static_cast<size_t>(a)], in[static_cast<size_t>(b)]});
    }
  }
  return c;
}

struct Preset {
  const char* name;
  Cluster (*make)();
};

const Preset kPresets[] = {
    {"1xV100", [] { return PcieCluster("1xV100", 1, V100Pcie, Dgx1Host()); }},
    {"2xP100", [] { return PcieCluster("2xP100", 2, P100Pcie, Dgx1Host()); }},
    {"4xV100", [] { return PcieCluster("4xV100", 4, V100Pcie, Dgx1Host()); }},
    {"8xV100", Pcie8xV100},
    {"8xV100-nvlink", Dgx1V100},
    {"4xK40+cpu", [] { return PcieCluster("4xK40+cpu", 4, K40, HaswellHost()); }},
    {"8xH100-nvlink", DgxH100},
    {"cpu", [] { return Cluster("cpu", {Dgx1Host()}); }},
};

// A cluster spec "NxKIND[+NxKIND...]" (e.g. "2xV100+1xP100"): the GPUs in the
// order written, every pair over PCIe 3.0 x16 through the DGX-1-class host, which is
// the last device. KIND is a PCIe GPU of the presets: V100, P100, K40, H100 (the
// H100's PCIe form is not modeled; the SXM5 figures are used).
struct GpuKind {
  const char* name;
  Device (*make)(int);
};
const GpuKind kGpuKinds[] = {{"V100", V100Pcie}, {"P100", P100Pcie}, {"K40", K40}, {"H100", H100Sxm5}};

std::string GpuKindNames() {
  std::string known;
  for (const GpuKind& k : kGpuKinds) known += (known.empty() ? "" : ", ") + std::string(k.name);
  return known;
}

// Whether `text` looks like a spec rather than a preset or a file name.
bool LooksLikeSpec(const std::string& text) {
  return !text.empty() && text.find('x') != std::string::npos && text.find('/') == std::string::npos &&
         FileExtension(text) != "json" && std::isdigit(static_cast<unsigned char>(text[0]));
}

}  // namespace

std::vector<std::string> ClusterPresetNames() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.push_back(p.name);
  return names;
}

StatusOr<Cluster> ClusterPreset(const std::string& name) {
  for (const Preset& p : kPresets) {
    if (name == p.name) return p.make();
  }
  std::string known;
  for (const Preset& p : kPresets) known += (known.empty() ? "" : ", ") + std::string(p.name);
  return NotFound("unknown cluster \"" + name + "\" (presets: " + known + "; or give a cluster .json file)");
}

StatusOr<Cluster> ClusterFromSpec(const std::string& spec) {
  const std::string where = "cluster spec \"" + spec + "\"";
  std::vector<Device> gpus;
  for (const std::string& part : Split(spec, '+')) {
    const size_t x = part.find('x');
    const std::string count_text = x == std::string::npos ? "" : part.substr(0, x);
    const std::string kind = x == std::string::npos ? part : part.substr(x + 1);
    const StatusOr<int64_t> parsed = ParseInt(count_text, where);
    const int64_t count = parsed.ok() ? *parsed : 0;
    if (count < 1 || count > kMaxDevices - 1) {
      return InvalidArgument(where + ": \"" + part + "\" is not COUNTxKIND with COUNT in [1, " +
                             std::to_string(kMaxDevices - 1) + "] (e.g. 2xV100+1xP100)");
    }
    const GpuKind* found = nullptr;
    for (const GpuKind& k : kGpuKinds) {
      if (kind == k.name) found = &k;
    }
    if (found == nullptr) return InvalidArgument(where + ": unknown GPU kind \"" + kind + "\" (known: " + GpuKindNames() + ")");
    if (static_cast<int64_t>(gpus.size()) + count > kMaxDevices - 1) {
      return InvalidArgument(where + ": more than " + std::to_string(kMaxDevices - 1) + " GPUs");
    }
    for (int64_t i = 0; i < count; ++i) gpus.push_back(found->make(static_cast<int>(gpus.size())));
  }
  if (gpus.empty()) return InvalidArgument(where + ": no GPUs");
  gpus.push_back(Dgx1Host());
  return PcieCluster(spec, std::move(gpus));
}

StatusOr<Cluster> LoadCluster(const std::string& name_or_path) {
  for (const Preset& p : kPresets) {
    if (name_or_path == p.name) return p.make();
  }
  if (FileExists(name_or_path) || FileExtension(name_or_path) == "json") return ReadClusterJson(name_or_path);
  if (LooksLikeSpec(name_or_path)) return ClusterFromSpec(name_or_path);
  return ClusterPreset(name_or_path);
}

}  // namespace graphopt
