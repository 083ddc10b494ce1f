#include "sim/cluster.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/files.h"
#include "core/json_fields.h"
#include "core/median.h"
#include "core/strings.h"

namespace graphopt {
namespace {

constexpr double kGB = 1e9;                        // GB/s in link and memory bandwidths
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;  // memory capacities
constexpr double kTera = 1e12;

using Json = nlohmann::json;

constexpr int64_t kClusterVersion = 2;  // what ClusterToJson writes

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

// The "ports" array of a version-2 file.
Status ReadPorts(const Json& jp, const std::string& source, Cluster* cluster) {
  if (!jp.is_array()) return ParseError(source + ": \"ports\" must be an array");
  if (jp.size() > static_cast<size_t>(kMaxPorts)) {
    return ParseError(source + ": \"ports\" lists " + std::to_string(jp.size()) + " ports, more than the " +
                      std::to_string(kMaxPorts) + " a cluster may have");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < jp.size(); ++i) {
    std::string where = source + ": ports[" + std::to_string(i) + "]";
    if (!jp[i].is_object()) return ParseError(where + ": must be an object");
    if (!jp[i].contains("name") || !jp[i]["name"].is_string() || jp[i]["name"].get<std::string>().empty()) {
      return ParseError(where + ": needs a non-empty string \"name\"");
    }
    const std::string name = jp[i]["name"].get<std::string>();
    where += " (" + name + ")";
    if (!names.insert(name).second) return ParseError(where + ": duplicate port name");
    double gb_s = 0;
    GO_RETURN_IF_ERROR(ReadNumber(jp[i], "bandwidth_gb_s", where, kGB, kMinBandwidth, kMaxBandwidth, &gb_s));
    cluster->AddPort(name, gb_s * kGB);
  }
  return Status::Ok();
}

// A link's "ports": port names or indices into "ports", each once.
StatusOr<std::vector<int32_t>> ReadLinkPorts(const Json& jp, const Cluster& cluster, const std::string& where) {
  if (!jp.is_array()) return ParseError(where + ": \"ports\" must be an array of port names or indices");
  std::vector<int32_t> ports;
  for (size_t i = 0; i < jp.size(); ++i) {
    const std::string field = where + ": \"ports\"[" + std::to_string(i) + "]";
    int32_t p = -1;
    if (jp[i].is_number_integer()) {
      GO_RETURN_IF_ERROR(JsonIntTo<int32_t>(jp[i], field + " (" + std::to_string(cluster.num_ports()) + " ports)", &p, 0,
                                            cluster.num_ports() - 1));
    } else if (jp[i].is_string()) {
      p = cluster.FindPort(jp[i].get<std::string>());
      if (p < 0) return ParseError(field + " names unknown port " + jp[i].dump() + " (not in \"ports\")");
    } else {
      return ParseError(field + " must be a port name or index, got " + jp[i].dump());
    }
    if (std::find(ports.begin(), ports.end(), p) != ports.end()) {
      return ParseError(field + ": port \"" + cluster.port(p).name + "\" listed twice");
    }
    ports.push_back(p);
  }
  return ports;
}

// Version 1 files have no ports: each device gets one each way ("NAME out" / "NAME in"), as
// fast as its fastest outgoing (incoming) link, which all its links cross.
void AddPerDevicePorts(Cluster* cluster) {
  const int n = cluster->num_devices();
  if (n < 2) return;
  std::vector<int32_t> out(static_cast<size_t>(n)), in(static_cast<size_t>(n));
  for (DeviceId d = 0; d < n; ++d) {
    double out_bw = 0, in_bw = 0;
    for (DeviceId e = 0; e < n; ++e) {
      if (e == d) continue;
      out_bw = std::max(out_bw, cluster->link(d, e).bandwidth);
      in_bw = std::max(in_bw, cluster->link(e, d).bandwidth);
    }
    out[static_cast<size_t>(d)] = cluster->AddPort(cluster->device(d).name + " out", out_bw);
    in[static_cast<size_t>(d)] = cluster->AddPort(cluster->device(d).name + " in", in_bw);
  }
  for (DeviceId a = 0; a < n; ++a) {
    for (DeviceId b = 0; b < n; ++b) {
      if (a != b) cluster->SetLinkPorts(a, b, {out[static_cast<size_t>(a)], in[static_cast<size_t>(b)]});
    }
  }
}

}  // namespace

std::string KindSlowdownsText(const std::map<OpKind, double>& kinds) {
  std::vector<std::pair<double, OpKind>> sorted;
  for (const auto& [kind, slowdown] : kinds) sorted.push_back({-slowdown, kind});
  std::sort(sorted.begin(), sorted.end());
  std::string text;
  for (const auto& [slowdown, kind] : sorted) {
    text += StrFormat("%s%s %.2fx", text.empty() ? "" : ", ", OpKindName(kind), -slowdown);
  }
  return text;
}

Contention MedianContention(const std::vector<Contention>& samples) {
  if (samples.empty()) return {};
  std::vector<double> compute, memory, read;
  for (const Contention& c : samples) {
    compute.push_back(c.compute);
    memory.push_back(c.memory);
    read.push_back(c.read);
  }
  return {Median(std::move(compute)), Median(std::move(memory)), Median(std::move(read))};
}

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

int32_t Cluster::AddPort(std::string name, double bandwidth) {
  ports_.push_back(Port{std::move(name), bandwidth});
  return static_cast<int32_t>(ports_.size()) - 1;
}

int32_t Cluster::FindPort(const std::string& name) const {
  for (size_t i = 0; i < ports_.size(); ++i) {
    if (ports_[i].name == name) return static_cast<int32_t>(i);
  }
  return -1;
}

void Cluster::SetLinkPorts(DeviceId from, DeviceId to, std::vector<int32_t> ports) {
  GO_CHECK(from >= 0 && from < num_devices() && to >= 0 && to < num_devices() && from != to);
  if (link_ports_.empty()) {
    if (ports.empty()) return;
    link_ports_.resize(links_.size());
  }
  link_ports_[static_cast<size_t>(from * num_devices() + to)] = std::move(ports);
}

const std::vector<int32_t>& Cluster::link_ports(DeviceId from, DeviceId to) const {
  static const std::vector<int32_t> kNone;
  return link_ports_.empty() ? kNone : link_ports_[static_cast<size_t>(from * num_devices() + to)];
}

double Cluster::PathBandwidth(DeviceId from, DeviceId to) const {
  double bandwidth = link(from, to).bandwidth;
  for (int32_t p : link_ports(from, to)) bandwidth = std::min(bandwidth, port(p).bandwidth);
  return bandwidth;
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
  // The ports the kept links cross, renumbered in their order here.
  std::vector<int32_t> renumber(ports_.size(), -1);
  for (size_t i = 0; i < devices.size(); ++i) {
    for (size_t j = 0; j < devices.size(); ++j) {
      if (i == j) continue;
      for (int32_t p : link_ports(devices[i], devices[j])) renumber[static_cast<size_t>(p)] = 0;
    }
  }
  for (size_t p = 0; p < ports_.size(); ++p) {
    if (renumber[p] == 0) renumber[p] = part.AddPort(ports_[p].name, ports_[p].bandwidth);
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    for (size_t j = 0; j < devices.size(); ++j) {
      GO_CHECK(i == j || devices[i] != devices[j]);
      if (i == j) continue;
      const DeviceId a = static_cast<DeviceId>(i), b = static_cast<DeviceId>(j);
      part.SetLink(a, b, link(devices[i], devices[j]));
      std::vector<int32_t> ports = link_ports(devices[i], devices[j]);
      for (int32_t& p : ports) p = renumber[static_cast<size_t>(p)];
      part.SetLinkPorts(a, b, std::move(ports));
    }
  }
  part.set_contention(contention_);
  return part;
}

std::vector<DeviceId> Cluster::Accelerators() const {
  std::vector<DeviceId> out;
  for (DeviceId d = 0; d < num_devices(); ++d) {
    if (device(d).kind != DeviceKind::kCpu) out.push_back(d);
  }
  if (out.empty()) {  // a machine of CPUs only (cpu, local:N): they do the work
    for (DeviceId d = 0; d < num_devices(); ++d) out.push_back(d);
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
  std::string ports;
  if (num_ports() > 0) ports = ", " + std::to_string(num_ports()) + " port" + (num_ports() == 1 ? "" : "s");
  std::string shared;
  if (contention_.any()) {
    shared = StrFormat(", sharing: compute %.2fx, memory %.2fx while all run", contention_.compute, contention_.memory);
    if (!contention_.kinds.empty()) shared += StrFormat(", %zu op kinds measured", contention_.kinds.size());
    if (contention_.read != 1) shared += StrFormat(", received tensors read %.2fx", contention_.read);
  }
  return name_ + ": " + parts + " (" + std::to_string(num_devices()) + " device" + (num_devices() == 1 ? "" : "s") +
         ports + shared + ")";
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
  if (num_ports() > kMaxPorts) {
    return InvalidArgument(StrFormat("cluster %s: %d ports, more than %d", name_.c_str(), num_ports(), kMaxPorts));
  }
  std::set<std::string> port_names;
  for (const Port& p : ports_) {
    const std::string where = "cluster " + name_ + ": port " + (p.name.empty() ? "<unnamed>" : "\"" + p.name + "\"");
    if (p.name.empty()) return InvalidArgument(where + ": empty name");
    if (!port_names.insert(p.name).second) return InvalidArgument(where + ": duplicate name");
    if (!(p.bandwidth >= kMinBandwidth && p.bandwidth <= kMaxBandwidth)) {
      return InvalidArgument(StrFormat("%s: bandwidth %g B/s outside [%g, %g]", where.c_str(), p.bandwidth,
                                       kMinBandwidth, kMaxBandwidth));
    }
  }
  if (!link_ports_.empty() && link_ports_.size() != links_.size()) {
    return InvalidArgument("cluster " + name_ + ": link ports do not match the devices");
  }
  std::vector<double> slowdowns = {contention_.compute, contention_.memory, contention_.read};
  for (const auto& [kind, slowdown] : contention_.kinds) slowdowns.push_back(slowdown);
  for (const double slowdown : slowdowns) {
    if (!(slowdown >= 1 && slowdown <= kMaxSlowdown)) {
      return InvalidArgument(StrFormat("cluster %s: contention slowdown %g outside [1, %g]", name_.c_str(), slowdown,
                                       kMaxSlowdown));
    }
  }
  for (DeviceId a = 0; a < num_devices(); ++a) {
    for (DeviceId b = 0; b < num_devices(); ++b) {
      const std::vector<int32_t>& ports = link_ports(a, b);
      const std::string where = "cluster " + name_ + ": link " + device(a).name + " -> " + device(b).name;
      if (a == b && !ports.empty()) return InvalidArgument(where + ": a device has no link to itself");
      for (size_t i = 0; i < ports.size(); ++i) {
        if (ports[i] < 0 || ports[i] >= num_ports()) {
          return InvalidArgument(where + ": port " + std::to_string(ports[i]) + " out of range (" +
                                 std::to_string(num_ports()) + " ports)");
        }
        if (std::find(ports.begin(), ports.begin() + static_cast<std::ptrdiff_t>(i), ports[i]) !=
            ports.begin() + static_cast<std::ptrdiff_t>(i)) {
          return InvalidArgument(where + ": crosses port \"" + port(ports[i]).name + "\" twice");
        }
      }
    }
  }
  return Status::Ok();
}

std::string ClusterToJson(const Cluster& cluster) {
  Json j;
  j["format"] = "graphopt-cluster";
  j["version"] = kClusterVersion;
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
    if (d.copies_on_stream) devices.back()["copies_on_stream"] = true;
  }
  j["devices"] = devices;
  Json ports = Json::array();
  for (const Port& p : cluster.ports()) ports.push_back({{"name", p.name}, {"bandwidth_gb_s", p.bandwidth / kGB}});
  j["ports"] = ports;
  Json links = Json::array();
  for (DeviceId a = 0; a < cluster.num_devices(); ++a) {
    for (DeviceId b = 0; b < cluster.num_devices(); ++b) {
      if (a == b) continue;
      const Link& l = cluster.link(a, b);
      Json jl = {{"from", cluster.device(a).name},
                 {"to", cluster.device(b).name},
                 {"bandwidth_gb_s", l.bandwidth / kGB},
                 {"latency_us", l.latency_us}};
      if (!cluster.link_ports(a, b).empty()) {
        Json names = Json::array();
        for (int32_t p : cluster.link_ports(a, b)) names.push_back(cluster.port(p).name);
        jl["ports"] = names;
      }
      links.push_back(jl);
    }
  }
  j["links"] = links;
  if (cluster.contention().any()) {
    j["contention"] = {{"compute_slowdown", cluster.contention().compute},
                       {"memory_slowdown", cluster.contention().memory}};
    if (cluster.contention().read != 1) j["contention"]["read_slowdown"] = cluster.contention().read;
    if (!cluster.contention().kinds.empty()) {
      Json kinds = Json::object();
      for (const auto& [kind, slowdown] : cluster.contention().kinds) kinds[OpKindName(kind)] = slowdown;
      j["contention"]["kinds"] = kinds;
    }
  }
  return j.dump(2) + "\n";
}

StatusOr<Cluster> ClusterFromJson(const std::string& text, const std::string& source) {
  GO_ASSIGN_OR_RETURN(Json j, ParseJsonText(text, source));
  if (!j.is_object()) return ParseError(source + ": a cluster must be a JSON object");
  if (j.contains("format") && j["format"] != "graphopt-cluster") {
    return ParseError(source + ": \"format\" is " + j["format"].dump() + ", expected \"graphopt-cluster\"");
  }
  int64_t version = 1;  // files from before "version" existed are version 1
  if (j.contains("version")) {
    const Json& v = j["version"];
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > kClusterVersion) {
      return ParseError(source + ": unsupported cluster version " + v.dump() + " (this build reads versions 1 to " +
                        std::to_string(kClusterVersion) + ")");
    }
    version = v.get<int64_t>();
  }
  if (version < 2 && j.contains("ports")) {
    return ParseError(source + ": \"ports\" needs version 2 (the file says version " + std::to_string(version) + ")");
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
    if (jd.contains("copies_on_stream")) {
      GO_ASSIGN_OR_RETURN(d.copies_on_stream, JsonBool(jd["copies_on_stream"], where + ": \"copies_on_stream\""));
    }
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
  if (j.contains("ports")) GO_RETURN_IF_ERROR(ReadPorts(j["ports"], source, &cluster));
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
      std::vector<int32_t> ports;
      if (jl.contains("ports")) {
        if (version < 2) return ParseError(where + ": \"ports\" needs version 2");
        GO_ASSIGN_OR_RETURN(ports, ReadLinkPorts(jl["ports"], cluster, where));
      }
      cluster.SetLink(from, to, l);
      cluster.SetLinkPorts(from, to, ports);
      set[static_cast<size_t>(from * n + to)] = true;
      if (both) {
        cluster.SetLink(to, from, l);
        cluster.SetLinkPorts(to, from, ports);
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
  if (version < 2) AddPerDevicePorts(&cluster);
  if (j.contains("contention")) {
    const Json& jc = j["contention"];
    const std::string where = source + ": contention";
    if (!jc.is_object()) return ParseError(where + ": must be an object");
    Contention c;
    GO_RETURN_IF_ERROR(ReadNumber(jc, "compute_slowdown", where, 1, 1, kMaxSlowdown, &c.compute));
    GO_RETURN_IF_ERROR(ReadNumber(jc, "memory_slowdown", where, 1, 1, kMaxSlowdown, &c.memory));
    if (jc.contains("read_slowdown")) {
      GO_RETURN_IF_ERROR(ReadNumber(jc, "read_slowdown", where, 1, 1, kMaxSlowdown, &c.read));
    }
    if (jc.contains("kinds")) {
      const Json& jk = jc["kinds"];
      if (!jk.is_object()) return ParseError(where + ": \"kinds\" must be an object of op kind -> slowdown");
      for (auto it = jk.begin(); it != jk.end(); ++it) {
        const std::optional<OpKind> kind = OpKindFromName(it.key());
        if (!kind) return ParseError(where + ": kinds: unknown op kind '" + it.key() + "'");
        double slowdown = 1;
        GO_RETURN_IF_ERROR(ReadNumber(jk, it.key().c_str(), where + ": kinds", 1, 1, kMaxSlowdown, &slowdown));
        c.kinds[*kind] = slowdown;
      }
    }
    cluster.set_contention(c);
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
