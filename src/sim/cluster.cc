#include "sim/cluster.h"

#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "core/files.h"
#include "core/json_fields.h"
#include "core/strings.h"

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

Device Gpu(int index, const char* model, double tflops, double bandwidth_gb_s, double memory_gib) {
  Device d;
  d.name = "gpu:" + std::to_string(index);
  d.kind = DeviceKind::kGpu;
  d.model = model;
  d.peak_flops = tflops * kTera;
  d.memory_bandwidth = bandwidth_gb_s * kGB;
  d.memory_bytes = static_cast<int64_t>(memory_gib * kGiB);
  d.launch_overhead_us = kGpuLaunchUs;
  return d;
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
  Device d;
  d.name = "cpu:0";
  d.kind = DeviceKind::kCpu;
  d.model = model;
  d.peak_flops = tflops * kTera;
  d.memory_bandwidth = bandwidth_gb_s * kGB;
  d.memory_bytes = static_cast<int64_t>(memory_gib * kGiB);
  d.launch_overhead_us = kCpuLaunchUs;
  return d;
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

// Every pair over PCIe 3.0 x16 through the host.
Cluster PcieCluster(const std::string& name, int n, Device (*make)(int), const Device& host) {
  Cluster c(name, Gpus(n, make, host));
  c.SetAllLinks(Link{kPcie3x16, kPcieLatencyUs});
  return c;
}

// NVIDIA DGX-1 with V100 (hybrid cube-mesh, DGX-1 system architecture whitepaper):
// GPUs 0-3 and 4-7 form two fully connected quads and GPU i is joined to GPU i+4;
// each GPU's six NVLink 2.0 links are spread so that some pairs have two links.
// Pairs without NVLink go over PCIe through the host CPUs.
Cluster Dgx1V100() {
  Cluster c("8xV100-nvlink", Gpus(8, V100Sxm2, Dgx1Host()));
  c.SetAllLinks(Link{kPcie3x16, kPcieLatencyUs});
  // {a, b, number of NVLinks}
  const int kNvlinks[][3] = {{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
                             {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2}};
  for (const auto& l : kNvlinks) c.SetLinkBothWays(l[0], l[1], Link{l[2] * kNvlink2PerLink, kNvlinkLatencyUs});
  return c;
}

// NVIDIA DGX H100: eight H100 SXM5 on NVSwitch, every pair at the full per-GPU
// NVLink bandwidth; the host over PCIe 5.0 x16.
Cluster DgxH100() {
  Cluster c("8xH100-nvlink", Gpus(8, H100Sxm5, DgxH100Host()));
  c.SetAllLinks(Link{kNvlink4PerGpu, kNvlinkLatencyUs});
  const DeviceId host = 8;
  for (DeviceId g = 0; g < 8; ++g) c.SetLinkBothWays(g, host, Link{kPcie5x16, kPcieLatencyUs});
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
    {"8xV100", [] { return PcieCluster("8xV100", 8, V100Pcie, Dgx1Host()); }},
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

using Json = nlohmann::json;

// Reads a number field in the field's own units (GB/s, TFLOP/s, ...) and checks that
// value * scale lies in the physical range [lo, hi] (SI units, see cluster.h).
Status ReadNumber(const Json& obj, const char* key, const std::string& where, double scale, double lo, double hi,
                  double* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return ParseError(where + ": missing \"" + key + "\"");
  const std::string field = where + ": \"" + key + "\"";
  GO_ASSIGN_OR_RETURN(const double v, JsonNumber(*it, field));
  if (v < 0 || (lo > 0 && v == 0)) {
    return ParseError(field + (lo > 0 ? " must be positive" : " must be non-negative") + ", got " + it->dump());
  }
  if (v < lo / scale || v > hi / scale) {
    return ParseError(StrFormat("%s is %s, outside the physical range [%g, %g]", field.c_str(), it->dump().c_str(),
                                lo / scale, hi / scale));
  }
  *out = v;
  return Status::Ok();
}

StatusOr<Link> ReadLink(const Json& obj, const std::string& where) {
  if (!obj.is_object()) return ParseError(where + ": must be an object");
  Link link;
  double gb_s = 0;
  GO_RETURN_IF_ERROR(ReadNumber(obj, "bandwidth_gb_s", where, kGB, kMinBandwidth, kMaxBandwidth, &gb_s));
  GO_RETURN_IF_ERROR(ReadNumber(obj, "latency_us", where, 1.0, 0.0, kMaxLatencyUs, &link.latency_us));
  link.bandwidth = gb_s * kGB;
  return link;
}

StatusOr<DeviceId> ReadDeviceRef(const Json& obj, const char* key, const Cluster& cluster, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) return ParseError(where + ": missing \"" + key + "\"");
  if (it->is_number_integer()) {
    const int64_t d = it->get<int64_t>();
    if (d < 0 || d >= cluster.num_devices()) {
      return ParseError(where + ": \"" + key + "\" device " + std::to_string(d) + " out of range (" +
                        std::to_string(cluster.num_devices()) + " devices)");
    }
    return static_cast<DeviceId>(d);
  }
  if (it->is_string()) {
    const DeviceId d = cluster.FindDevice(it->get<std::string>());
    if (d == kNoId)
      return ParseError(where + ": \"" + key + "\" names unknown device \"" + it->get<std::string>() + "\"");
    return d;
  }
  return ParseError(where + ": \"" + key + "\" must be a device name or index");
}

}  // namespace

const char* DeviceKindName(DeviceKind kind) { return kind == DeviceKind::kCpu ? "cpu" : "gpu"; }

Cluster::Cluster(std::string name, std::vector<Device> devices)
    : name_(std::move(name)), devices_(std::move(devices)), links_(devices_.size() * devices_.size()) {}

void Cluster::SetLink(DeviceId from, DeviceId to, const Link& link) {
  GO_CHECK(from >= 0 && from < num_devices() && to >= 0 && to < num_devices() && from != to);
  links_[static_cast<size_t>(from * num_devices() + to)] = link;
}

void Cluster::SetLinkBothWays(DeviceId a, DeviceId b, const Link& link) {
  SetLink(a, b, link);
  SetLink(b, a, link);
}

void Cluster::SetAllLinks(const Link& link) {
  for (DeviceId a = 0; a < num_devices(); ++a) {
    for (DeviceId b = 0; b < num_devices(); ++b) {
      if (a != b) SetLink(a, b, link);
    }
  }
}

Cluster Cluster::Part(const std::vector<DeviceId>& devices) const {
  std::vector<Device> kept;
  std::string ids;
  for (DeviceId d : devices) {
    GO_CHECK(d >= 0 && d < num_devices());
    kept.push_back(device(d));
    ids += (ids.empty() ? "" : ",") + std::to_string(d);
  }
  Cluster part(name_ + "[" + ids + "]", std::move(kept));
  for (size_t i = 0; i < devices.size(); ++i) {
    for (size_t j = 0; j < devices.size(); ++j) {
      GO_CHECK(i == j || devices[i] != devices[j]);
      if (i != j) part.SetLink(static_cast<DeviceId>(i), static_cast<DeviceId>(j), link(devices[i], devices[j]));
    }
  }
  return part;
}

std::vector<DeviceId> Cluster::Accelerators() const {
  std::vector<DeviceId> out;
  for (DeviceId d = 0; d < num_devices(); ++d) {
    if (device(d).kind != DeviceKind::kCpu) out.push_back(d);
  }
  return out;
}

DeviceId Cluster::FirstAccelerator() const {
  for (DeviceId d = 0; d < num_devices(); ++d) {
    if (device(d).kind != DeviceKind::kCpu) return d;
  }
  return 0;
}

DeviceId Cluster::FindDevice(const std::string& name) const {
  for (DeviceId d = 0; d < num_devices(); ++d) {
    if (device(d).name == name) return d;
  }
  return kNoId;
}

std::string Cluster::Summary() const {
  // Runs of identical models: "8 x V100-PCIe-16GB + 2x Xeon E5-2698 v4".
  std::string parts;
  for (size_t i = 0; i < devices_.size();) {
    size_t j = i;
    while (j < devices_.size() && devices_[j].model == devices_[i].model && devices_[j].kind == devices_[i].kind) ++j;
    if (!parts.empty()) parts += " + ";
    parts += (j - i > 1 ? std::to_string(j - i) + " x " : "") + devices_[i].model;
    i = j;
  }
  return name_ + ": " + parts + " (" + std::to_string(num_devices()) + " device" + (num_devices() == 1 ? "" : "s") +
         ")";
}

Status Cluster::Validate() const {
  if (devices_.empty()) return InvalidArgument("cluster " + name_ + " has no devices");
  std::set<std::string> names;
  for (const Device& d : devices_) {
    const std::string where = "cluster " + name_ + ": device " + (d.name.empty() ? "<unnamed>" : d.name);
    if (d.name.empty()) return InvalidArgument(where + ": empty name");
    if (!names.insert(d.name).second) return InvalidArgument(where + ": duplicate name");
    if (!(d.peak_flops >= kMinFlops && d.peak_flops <= kMaxFlops)) {
      return InvalidArgument(StrFormat("%s: peak FLOP/s %g outside [%g, %g]", where.c_str(), d.peak_flops, kMinFlops, kMaxFlops));
    }
    if (!(d.memory_bandwidth >= kMinBandwidth && d.memory_bandwidth <= kMaxBandwidth)) {
      return InvalidArgument(StrFormat("%s: memory bandwidth %g B/s outside [%g, %g]", where.c_str(), d.memory_bandwidth,
                                       kMinBandwidth, kMaxBandwidth));
    }
    if (d.memory_bytes <= 0 || d.memory_bytes > kMaxMemoryBytes) {
      return InvalidArgument(where + ": memory capacity must be positive and at most 2^60 bytes");
    }
    if (!(d.launch_overhead_us >= 0 && d.launch_overhead_us <= kMaxLatencyUs)) {
      return InvalidArgument(StrFormat("%s: launch overhead %g us outside [0, %g]", where.c_str(), d.launch_overhead_us, kMaxLatencyUs));
    }
  }
  for (DeviceId a = 0; a < num_devices(); ++a) {
    for (DeviceId b = 0; b < num_devices(); ++b) {
      if (a == b) continue;
      const Link& l = link(a, b);
      if (!(l.bandwidth >= kMinBandwidth && l.bandwidth <= kMaxBandwidth) || !(l.latency_us >= 0 && l.latency_us <= kMaxLatencyUs)) {
        return InvalidArgument(StrFormat("cluster %s: link %s -> %s needs a bandwidth in [%g, %g] B/s and a latency in [0, %g] us",
                                         name_.c_str(), device(a).name.c_str(), device(b).name.c_str(), kMinBandwidth,
                                         kMaxBandwidth, kMaxLatencyUs));
      }
    }
  }
  return Status::Ok();
}

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
  Cluster c(spec, std::move(gpus));
  c.SetAllLinks(Link{kPcie3x16, kPcieLatencyUs});
  return c;
}

StatusOr<Cluster> LoadCluster(const std::string& name_or_path) {
  for (const Preset& p : kPresets) {
    if (name_or_path == p.name) return p.make();
  }
  if (FileExists(name_or_path) || FileExtension(name_or_path) == "json") return ReadClusterJson(name_or_path);
  if (LooksLikeSpec(name_or_path)) return ClusterFromSpec(name_or_path);
  return ClusterPreset(name_or_path);
}

std::string ClusterToJson(const Cluster& cluster) {
  Json j;
  j["format"] = "graphopt-cluster";
  j["version"] = 1;
  j["name"] = cluster.name();
  Json devices = Json::array();
  for (const Device& d : cluster.devices()) {
    devices.push_back({{"name", d.name},
                       {"kind", DeviceKindName(d.kind)},
                       {"model", d.model},
                       {"peak_tflops", d.peak_flops / kTera},
                       {"memory_bandwidth_gb_s", d.memory_bandwidth / kGB},
                       {"memory_gib", static_cast<double>(d.memory_bytes) / kGiB},
                       {"launch_overhead_us", d.launch_overhead_us}});
  }
  j["devices"] = devices;
  Json links = Json::array();
  for (DeviceId a = 0; a < cluster.num_devices(); ++a) {
    for (DeviceId b = 0; b < cluster.num_devices(); ++b) {
      if (a == b) continue;
      const Link& l = cluster.link(a, b);
      links.push_back({{"from", cluster.device(a).name},
                       {"to", cluster.device(b).name},
                       {"bandwidth_gb_s", l.bandwidth / kGB},
                       {"latency_us", l.latency_us}});
    }
  }
  j["links"] = links;
  return j.dump(2) + "\n";
}

StatusOr<Cluster> ClusterFromJson(const std::string& text, const std::string& source) {
  GO_ASSIGN_OR_RETURN(Json j, ParseJsonText(text, source));
  if (!j.is_object()) return ParseError(source + ": a cluster must be a JSON object");
  if (j.contains("format") && j["format"] != "graphopt-cluster") {
    return ParseError(source + ": \"format\" is " + j["format"].dump() + ", expected \"graphopt-cluster\"");
  }
  if (j.contains("version") && (!j["version"].is_number_integer() || j["version"].get<int64_t>() != 1)) {
    return ParseError(source + ": unsupported cluster version " + j["version"].dump() +
                      " (this build reads version 1)");
  }
  std::string name = source;
  if (j.contains("name")) {
    if (!j["name"].is_string()) return ParseError(source + ": \"name\" must be a string");
    name = j["name"].get<std::string>();
  }
  if (!j.contains("devices") || !j["devices"].is_array() || j["devices"].empty()) {
    return ParseError(source + ": needs a non-empty \"devices\" array");
  }
  if (j["devices"].size() > static_cast<size_t>(kMaxDevices)) {
    return ParseError(source + ": \"devices\" lists " + std::to_string(j["devices"].size()) + " devices, more than the " +
                      std::to_string(kMaxDevices) + " a cluster may have");
  }
  std::vector<Device> devices;
  std::set<std::string> names;
  for (size_t i = 0; i < j["devices"].size(); ++i) {
    const Json& jd = j["devices"][i];
    std::string where = source + ": devices[" + std::to_string(i) + "]";
    if (!jd.is_object()) return ParseError(where + ": must be an object");
    Device d;
    if (!jd.contains("name") || !jd["name"].is_string() || jd["name"].get<std::string>().empty()) {
      return ParseError(where + ": needs a non-empty string \"name\"");
    }
    d.name = jd["name"].get<std::string>();
    where += " (" + d.name + ")";
    if (!names.insert(d.name).second) return ParseError(where + ": duplicate device name");
    std::string kind = "gpu";
    if (jd.contains("kind")) {
      GO_ASSIGN_OR_RETURN(kind, JsonString(jd["kind"], where + ": \"kind\""));
    }
    if (kind == "gpu") {
      d.kind = DeviceKind::kGpu;
    } else if (kind == "cpu") {
      d.kind = DeviceKind::kCpu;
    } else {
      return ParseError(where + ": \"kind\" must be \"gpu\" or \"cpu\", got \"" + kind + "\"");
    }
    if (jd.contains("model")) {
      GO_ASSIGN_OR_RETURN(d.model, JsonString(jd["model"], where + ": \"model\""));
    }
    if (d.model.empty()) d.model = d.name;
    double tflops = 0, gb_s = 0, gib = 0;
    GO_RETURN_IF_ERROR(ReadNumber(jd, "peak_tflops", where, kTera, kMinFlops, kMaxFlops, &tflops));
    GO_RETURN_IF_ERROR(ReadNumber(jd, "memory_bandwidth_gb_s", where, kGB, kMinBandwidth, kMaxBandwidth, &gb_s));
    GO_RETURN_IF_ERROR(ReadNumber(jd, "memory_gib", where, kGiB, 1.0, static_cast<double>(kMaxMemoryBytes), &gib));
    GO_RETURN_IF_ERROR(ReadNumber(jd, "launch_overhead_us", where, 1.0, 0.0, kMaxLatencyUs, &d.launch_overhead_us));
    d.peak_flops = tflops * kTera;
    d.memory_bandwidth = gb_s * kGB;
    d.memory_bytes = static_cast<int64_t>(std::llround(gib * kGiB));
    devices.push_back(std::move(d));
  }
  Cluster cluster(name, std::move(devices));
  const int n = cluster.num_devices();
  std::vector<bool> set(static_cast<size_t>(n * n), false);
  if (j.contains("default_link")) {
    GO_ASSIGN_OR_RETURN(Link l, ReadLink(j["default_link"], source + ": default_link"));
    cluster.SetAllLinks(l);
    set.assign(set.size(), true);
  }
  if (j.contains("links")) {
    if (!j["links"].is_array()) return ParseError(source + ": \"links\" must be an array");
    for (size_t i = 0; i < j["links"].size(); ++i) {
      const Json& jl = j["links"][i];
      const std::string where = source + ": links[" + std::to_string(i) + "]";
      GO_ASSIGN_OR_RETURN(Link l, ReadLink(jl, where));
      GO_ASSIGN_OR_RETURN(DeviceId from, ReadDeviceRef(jl, "from", cluster, where));
      GO_ASSIGN_OR_RETURN(DeviceId to, ReadDeviceRef(jl, "to", cluster, where));
      if (from == to) return ParseError(where + ": a link needs two different devices");
      bool both = false;
      if (jl.contains("bidirectional")) {
        GO_ASSIGN_OR_RETURN(both, JsonBool(jl["bidirectional"], where + ": \"bidirectional\""));
      }
      cluster.SetLink(from, to, l);
      set[static_cast<size_t>(from * n + to)] = true;
      if (both) {
        cluster.SetLink(to, from, l);
        set[static_cast<size_t>(to * n + from)] = true;
      }
    }
  }
  for (DeviceId a = 0; a < n; ++a) {
    for (DeviceId b = 0; b < n; ++b) {
      if (a != b && !set[static_cast<size_t>(a * n + b)]) {
        return ParseError(source + ": no link from " + cluster.device(a).name + " to " + cluster.device(b).name +
                          " (list it in \"links\" or give a \"default_link\")");
      }
    }
  }
  Status valid = cluster.Validate();
  if (!valid.ok()) return valid.WithContext(source);
  return cluster;
}

Status WriteClusterJson(const Cluster& cluster, const std::string& path) {
  return WriteFileAtomic(path, ClusterToJson(cluster));
}

StatusOr<Cluster> ReadClusterJson(const std::string& path) {
  GO_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ClusterFromJson(text, path);
}

}  // namespace graphopt
