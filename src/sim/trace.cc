#include "sim/trace.h"

#include <nlohmann/json.hpp>
#include <set>

#include "core/files.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;

constexpr int kDevicesPid = 1;
constexpr int kLinksPid = 2;

Json Metadata(const char* what, int pid, int tid, const std::string& name) {
  Json m = {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
  if (tid >= 0) m["tid"] = tid;
  return m;
}

}  // namespace

StatusOr<std::string> ChromeTraceJson(const Graph& graph, const Cluster& cluster, const SimResult& result) {
  if (!result.has_timeline)
    return FailedPrecondition("trace: the result has no timeline (simulate with record_timeline)");
  const int num_devices = cluster.num_devices();
  Json events = Json::array();
  events.push_back(Metadata("process_name", kDevicesPid, -1, "devices"));
  events.push_back(Metadata("process_name", kLinksPid, -1, "links"));
  for (DeviceId d = 0; d < num_devices; ++d) {
    const Device& device = cluster.device(d);
    events.push_back(Metadata("thread_name", kDevicesPid, d, device.name + " (" + device.model + ")"));
    events.push_back(
        {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", kDevicesPid}, {"tid", d}, {"args", {{"sort_index", d}}}});
  }
  std::set<int> links;
  for (const TimelineEvent& e : result.timeline) {
    if (e.kind == TimelineEvent::Kind::kTransfer) links.insert(e.device * num_devices + e.to);
  }
  for (int link : links) {
    const Device& from = cluster.device(link / num_devices);
    const Device& to = cluster.device(link % num_devices);
    events.push_back(Metadata("thread_name", kLinksPid, link, from.name + " -> " + to.name));
  }
  for (const TimelineEvent& e : result.timeline) {
    Json ev = {{"ph", "X"}, {"ts", e.start_us}, {"dur", e.end_us - e.start_us}};
    if (e.kind == TimelineEvent::Kind::kKernel) {
      const Op& op = graph.op(e.op);
      std::string name = op.name;
      if (e.num_ops > 1) name += " +" + std::to_string(e.num_ops - 1) + " fused";
      ev["name"] = name;
      ev["cat"] = "kernel";
      ev["pid"] = kDevicesPid;
      ev["tid"] = e.device;
      ev["args"] = {{"op", op.name}, {"kind", OpKindName(op.kind)}, {"phase", PhaseName(op.phase)}, {"ops", e.num_ops}};
    } else {
      ev["name"] = graph.tensor(e.tensor).name;
      ev["cat"] = "transfer";
      ev["pid"] = kLinksPid;
      ev["tid"] = e.device * num_devices + e.to;
      ev["args"] = {{"tensor", graph.tensor(e.tensor).name}, {"bytes", e.bytes}};
    }
    events.push_back(std::move(ev));
  }
  for (const MemorySample& m : result.memory_timeline) {
    events.push_back({{"name", "memory " + cluster.device(m.device).name},
                      {"ph", "C"},
                      {"ts", m.time_us},
                      {"pid", kDevicesPid},
                      {"args", {{"bytes", m.bytes}}}});
  }
  Json trace = {{"traceEvents", std::move(events)},
                {"displayTimeUnit", "ms"},
                {"otherData",
                 {{"graph", graph.name()},
                  {"cluster", cluster.name()},
                  {"step_time_us", result.step_time_us},
                  {"lower_bound_us", result.lower_bound_us}}}};
  return trace.dump() + "\n";
}

Status WriteChromeTrace(const Graph& graph, const Cluster& cluster, const SimResult& result, const std::string& path) {
  GO_ASSIGN_OR_RETURN(std::string text, ChromeTraceJson(graph, cluster, result));
  return WriteFileAtomic(path, text);
}

}  // namespace graphopt
