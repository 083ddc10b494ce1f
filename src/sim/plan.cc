#include "sim/plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/files.h"
#include "core/json_fields.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxNamedOps = 8;

// "a, b, c and 4 more"
std::string NameList(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < kMaxNamedOps; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > kMaxNamedOps) out += " and " + std::to_string(items.size() - kMaxNamedOps) + " more";
  return out;
}

std::string OpName(const Graph& graph, OpId o) { return "'" + graph.op(o).name + "'"; }

template <typename... Parts>
std::string StrCat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

// The flagged ops whose fused groups lie on a cycle of the group graph (a path that
// leaves a group and comes back into it). Groups follow the flags wherever the op
// has a fusion producer; dependencies into free ops are not edges (free ops wait for
// nothing).
std::vector<OpId> FusedOpsOnCycles(const Graph& graph, const std::vector<uint8_t>& fuse) {
  const int n = graph.num_ops();
  std::vector<OpId> producer(static_cast<size_t>(n), kNoId);
  bool any = false;
  for (OpId o = 0; o < n; ++o) {
    if (fuse[static_cast<size_t>(o)]) {
      producer[static_cast<size_t>(o)] = FusionProducer(graph, o);
      any |= producer[static_cast<size_t>(o)] != kNoId;
    }
  }
  if (!any) return {};
  // Group root of every op, following fusion producers (iteratively: chains can be long).
  std::vector<OpId> root(static_cast<size_t>(n), kNoId);
  std::vector<OpId> path;
  for (OpId o = 0; o < n; ++o) {
    OpId x = o;
    while (root[static_cast<size_t>(x)] == kNoId && producer[static_cast<size_t>(x)] != kNoId) {
      path.push_back(x);
      x = producer[static_cast<size_t>(x)];
    }
    const OpId r = root[static_cast<size_t>(x)] == kNoId ? x : root[static_cast<size_t>(x)];
    root[static_cast<size_t>(x)] = r;
    for (OpId p : path) root[static_cast<size_t>(p)] = r;
    path.clear();
  }
  // Group graph edges (duplicates are harmless for Kahn's algorithm).
  std::vector<std::pair<OpId, OpId>> edges;
  for (OpId v = 0; v < n; ++v) {
    if (IsFree(graph.op(v).kind)) continue;
    for (TensorId t : graph.op(v).inputs) {
      const OpId u = graph.tensor(t).producer;
      if (u == kNoId) continue;
      const OpId a = root[static_cast<size_t>(u)], b = root[static_cast<size_t>(v)];
      if (a != b) edges.emplace_back(a, b);
    }
  }
  // Strongly connected components of the group graph (iterative Tarjan): a group is
  // on a cycle iff its component has more than one group.
  std::vector<int32_t> begin(static_cast<size_t>(n) + 1, 0);
  for (const auto& e : edges) ++begin[static_cast<size_t>(e.first) + 1];
  for (int i = 0; i < n; ++i) begin[static_cast<size_t>(i) + 1] += begin[static_cast<size_t>(i)];
  std::vector<OpId> adj(edges.size());
  {
    std::vector<int32_t> fill(begin.begin(), begin.end() - 1);
    for (const auto& e : edges) adj[static_cast<size_t>(fill[static_cast<size_t>(e.first)]++)] = e.second;
  }
  std::vector<int32_t> index(static_cast<size_t>(n), -1), low(static_cast<size_t>(n), 0),
      next_edge(static_cast<size_t>(n), 0);
  std::vector<bool> on_stack(static_cast<size_t>(n), false), on_cycle(static_cast<size_t>(n), false);
  std::vector<OpId> stack, call;
  int32_t counter = 0;
  for (OpId s = 0; s < n; ++s) {
    if (root[static_cast<size_t>(s)] != s || index[static_cast<size_t>(s)] >= 0) continue;
    call.push_back(s);
    index[static_cast<size_t>(s)] = low[static_cast<size_t>(s)] = counter++;
    next_edge[static_cast<size_t>(s)] = begin[static_cast<size_t>(s)];
    stack.push_back(s);
    on_stack[static_cast<size_t>(s)] = true;
    while (!call.empty()) {
      const OpId v = call.back();
      if (next_edge[static_cast<size_t>(v)] < begin[static_cast<size_t>(v) + 1]) {
        const OpId w = adj[static_cast<size_t>(next_edge[static_cast<size_t>(v)]++)];
        if (index[static_cast<size_t>(w)] < 0) {
          index[static_cast<size_t>(w)] = low[static_cast<size_t>(w)] = counter++;
          next_edge[static_cast<size_t>(w)] = begin[static_cast<size_t>(w)];
          stack.push_back(w);
          on_stack[static_cast<size_t>(w)] = true;
          call.push_back(w);
        } else if (on_stack[static_cast<size_t>(w)]) {
          low[static_cast<size_t>(v)] = std::min(low[static_cast<size_t>(v)], index[static_cast<size_t>(w)]);
        }
        continue;
      }
      call.pop_back();
      if (!call.empty())
        low[static_cast<size_t>(call.back())] =
            std::min(low[static_cast<size_t>(call.back())], low[static_cast<size_t>(v)]);
      if (low[static_cast<size_t>(v)] == index[static_cast<size_t>(v)]) {
        size_t size = 0;
        const size_t top = stack.size();
        while (true) {
          const OpId w = stack[stack.size() - 1 - size];
          ++size;
          if (w == v) break;
        }
        for (size_t i = top - size; i < top; ++i) {
          on_stack[static_cast<size_t>(stack[i])] = false;
          on_cycle[static_cast<size_t>(stack[i])] = size > 1;
        }
        stack.resize(top - size);
      }
    }
  }
  std::vector<OpId> cyclic;
  for (OpId o = 0; o < n; ++o) {
    if (producer[static_cast<size_t>(o)] != kNoId && on_cycle[static_cast<size_t>(root[static_cast<size_t>(o)])])
      cyclic.push_back(o);
  }
  return cyclic;
}

}  // namespace

FusionDecision CanFuseKind(OpKind kind) {
  switch (CategoryOf(kind)) {
    case OpCategory::kElementwise:
    case OpCategory::kView:
    case OpCategory::kReduction:
    case OpCategory::kPool:
    case OpCategory::kDataMovement:
    case OpCategory::kLoss:
    case OpCategory::kUpdate:
      return {};
    case OpCategory::kSource:
    case OpCategory::kMetadata:
      return {false, std::string(OpKindName(kind)) + " runs no kernel"};
    case OpCategory::kContraction:
    case OpCategory::kRecurrent:
      return {false, std::string(OpKindName(kind)) + " is a library kernel that cannot absorb its producer"};
    case OpCategory::kGeneric:
      return {false, "a Generic op has unknown semantics"};
  }
  return {false, "unknown kind"};
}

OpId FusionProducer(const Graph& graph, OpId op) {
  for (TensorId t : graph.op(op).inputs) {
    const OpId p = graph.tensor(t).producer;
    if (p != kNoId && !IsFree(graph.op(p).kind)) return p;
  }
  return kNoId;
}

FusionDecision CanFuseIntoProducer(const Graph& graph, OpId op) {
  FusionDecision kind = CanFuseKind(graph.op(op).kind);
  if (!kind) return kind;
  if (FusionProducer(graph, op) == kNoId) return {false, "it has no producer that runs a kernel"};
  return {};
}

Plan DefaultPlan(const Graph& graph, DeviceId device) {
  Plan plan;
  const size_t n = static_cast<size_t>(graph.num_ops());
  plan.device.assign(n, device);
  plan.priority.assign(n, 0.0);
  plan.fuse_with_producer.assign(n, 0);
  return plan;
}

Status CompletePlan(const Graph& graph, Plan* plan) {
  const size_t n = static_cast<size_t>(graph.num_ops());
  auto check = [&](size_t size, const char* what) -> Status {
    if (size != 0 && size != n) {
      return InvalidArgument(
          StrCat("plan: \"", what, "\" has ", size, " entries but graph ", graph.name(), " has ", n, " ops"));
    }
    return Status::Ok();
  };
  GO_RETURN_IF_ERROR(check(plan->device.size(), "device"));
  GO_RETURN_IF_ERROR(check(plan->priority.size(), "priority"));
  GO_RETURN_IF_ERROR(check(plan->fuse_with_producer.size(), "fuse_with_producer"));
  if (plan->device.empty()) plan->device.assign(n, 0);
  if (plan->priority.empty()) plan->priority.assign(n, 0.0);
  if (plan->fuse_with_producer.empty()) plan->fuse_with_producer.assign(n, 0);
  return Status::Ok();
}

Status ValidatePlan(const Graph& graph, const Cluster& cluster, const Plan& original) {
  Plan plan = original;
  GO_RETURN_IF_ERROR(CompletePlan(graph, &plan));
  const int n = graph.num_ops();
  std::vector<std::string> problems;

  std::vector<std::string> bad_device;
  for (OpId o = 0; o < n; ++o) {
    const DeviceId d = plan.device[static_cast<size_t>(o)];
    if (d < 0 || d >= cluster.num_devices())
      bad_device.push_back(OpName(graph, o) + " (device " + std::to_string(d) + ")");
  }
  if (!bad_device.empty()) {
    problems.push_back(StrCat(bad_device.size(), " op(s) on a device out of range (cluster ", cluster.name(),
                              " has devices 0..", cluster.num_devices() - 1, "): ", NameList(bad_device)));
  }

  std::vector<std::string> bad_priority;
  for (OpId o = 0; o < n; ++o) {
    if (!std::isfinite(plan.priority[static_cast<size_t>(o)])) bad_priority.push_back(OpName(graph, o));
  }
  if (!bad_priority.empty()) {
    problems.push_back(StrCat(bad_priority.size(), " op(s) with a non-finite priority: ", NameList(bad_priority)));
  }

  // Colocation: every op of a group on the device of the group's first op.
  std::map<int32_t, OpId> group_first;
  std::vector<std::string> split;
  for (OpId o = 0; o < n; ++o) {
    const int32_t g = graph.op(o).colocation_group;
    if (g == kNoId) continue;
    auto [it, inserted] = group_first.emplace(g, o);
    if (inserted) continue;
    const DeviceId want = plan.device[static_cast<size_t>(it->second)];
    const DeviceId got = plan.device[static_cast<size_t>(o)];
    if (want != got) {
      split.push_back(OpName(graph, o) + " on device " + std::to_string(got) + " but " + OpName(graph, it->second) +
                      " of its group on device " + std::to_string(want));
    }
  }
  if (!split.empty())
    problems.push_back(StrCat(split.size(), " op(s) split from their colocation group: ", NameList(split)));

  // Fusion legality per op.
  std::vector<std::string> bad_kind, cross_device;
  bool any_fusion = false;
  for (OpId o = 0; o < n; ++o) {
    if (!plan.fuse_with_producer[static_cast<size_t>(o)]) continue;
    any_fusion = true;
    FusionDecision d = CanFuseIntoProducer(graph, o);
    if (!d) {
      bad_kind.push_back(OpName(graph, o) + " (" + d.reason + ")");
      continue;
    }
    const OpId p = FusionProducer(graph, o);
    if (plan.device[static_cast<size_t>(p)] != plan.device[static_cast<size_t>(o)]) {
      cross_device.push_back(OpName(graph, o) + " on device " + std::to_string(plan.device[static_cast<size_t>(o)]) +
                             ", producer " + OpName(graph, p) + " on device " +
                             std::to_string(plan.device[static_cast<size_t>(p)]));
    }
  }
  if (!bad_kind.empty()) problems.push_back(StrCat(bad_kind.size(), " op(s) that cannot fuse: ", NameList(bad_kind)));
  if (!cross_device.empty()) {
    problems.push_back(StrCat(cross_device.size(), " fusion(s) across devices: ", NameList(cross_device)));
  }
  if (any_fusion && bad_kind.empty()) {
    std::vector<std::string> cyclic;
    for (OpId o : FusedOpsOnCycles(graph, plan.fuse_with_producer)) cyclic.push_back(OpName(graph, o));
    if (!cyclic.empty()) {
      problems.push_back(
          StrCat(cyclic.size(),
                 " fused op(s) whose group has a path leaving and re-entering it (a cycle): ", NameList(cyclic)));
    }
  }
  if (problems.empty()) return Status::Ok();
  std::string message = "invalid plan for graph " + graph.name() + ": ";
  for (size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
  return InvalidArgument(message);
}

void RespectColocation(const Graph& graph, Plan* plan) {
  const Status complete = CompletePlan(graph, plan);  // a wrong length is the caller's bug
  GO_CHECK_MSG(complete.ok(), complete.message());
  // Group ids are 0..num_colocation_groups()-1 after Normalize; any other id (a graph
  // built by hand) goes to the map.
  std::vector<DeviceId> dense(static_cast<size_t>(std::max(0, graph.num_colocation_groups())), kNoId);
  std::map<int32_t, DeviceId> sparse;
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    const int32_t g = graph.op(o).colocation_group;
    if (g == kNoId) continue;
    DeviceId& d = plan->device[static_cast<size_t>(o)];
    if (g >= 0 && static_cast<size_t>(g) < dense.size()) {
      DeviceId& first = dense[static_cast<size_t>(g)];
      if (first == kNoId) first = d;
      else d = first;
    } else {
      auto [it, inserted] = sparse.emplace(g, d);
      if (!inserted) d = it->second;
    }
  }
}

int DropIllegalFusions(const Graph& graph, Plan* plan) {
  const Status complete = CompletePlan(graph, plan);
  GO_CHECK_MSG(complete.ok(), complete.message());
  int cleared = 0;
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    uint8_t& flag = plan->fuse_with_producer[static_cast<size_t>(o)];
    if (!flag) continue;
    const OpId p = FusionProducer(graph, o);
    if (!CanFuseKind(graph.op(o).kind) || p == kNoId ||
        plan->device[static_cast<size_t>(p)] != plan->device[static_cast<size_t>(o)]) {
      flag = 0;
      ++cleared;
    }
  }
  // Breaking a cycle: clear the flags of the groups on it, then look again (clearing
  // can only split groups, so this ends).
  while (true) {
    const std::vector<OpId> cyclic = FusedOpsOnCycles(graph, plan->fuse_with_producer);
    if (cyclic.empty()) break;
    for (OpId o : cyclic) plan->fuse_with_producer[static_cast<size_t>(o)] = 0;
    cleared += static_cast<int>(cyclic.size());
  }
  return cleared;
}

void MakePlanValid(const Graph& graph, const Cluster& cluster, Plan* plan) {
  const Status complete = CompletePlan(graph, plan);
  GO_CHECK_MSG(complete.ok(), complete.message());
  for (DeviceId& d : plan->device) {
    if (d < 0 || d >= cluster.num_devices()) d = cluster.FirstAccelerator();
  }
  for (double& p : plan->priority) {
    if (!std::isfinite(p)) p = 0;
  }
  RespectColocation(graph, plan);
  DropIllegalFusions(graph, plan);
}

std::string PlanToJson(const Graph& graph, const Plan& plan) {
  Json j;
  j["format"] = "graphopt-plan";
  j["version"] = 1;
  j["graph"] = graph.name();
  j["num_ops"] = graph.num_ops();
  j["device"] = plan.device;
  j["priority"] = plan.priority;
  Json fuse = Json::array();
  for (uint8_t f : plan.fuse_with_producer) fuse.push_back(f ? 1 : 0);
  j["fuse_with_producer"] = fuse;
  return j.dump() + "\n";
}

StatusOr<Plan> PlanFromJson(const std::string& text, const Graph& graph, const std::string& source) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception& e) {
    return ParseError(source + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) return ParseError(source + ": a plan must be a JSON object");
  GO_RETURN_IF_ERROR(CheckJsonHeader(j, source, "graphopt-plan", 1));
  if (!j.contains("graph")) return ParseError(source + ": \"graph\" is missing (the name of the graph the plan is for)");
  GO_ASSIGN_OR_RETURN(const std::string graph_name, JsonString(j["graph"], source + ": \"graph\""));
  if (graph_name != graph.name()) {
    return ParseError(source + ": the plan is for graph \"" + graph_name + "\", not \"" + graph.name() + "\"");
  }
  const size_t n = static_cast<size_t>(graph.num_ops());
  if (j.contains("num_ops") && (!j["num_ops"].is_number_integer() || j["num_ops"].get<int64_t>() != graph.num_ops())) {
    return ParseError(
        StrCat(source, ": plan is for ", j["num_ops"].dump(), " ops but graph ", graph.name(), " has ", n, " ops"));
  }
  auto array = [&](const char* key) -> StatusOr<const Json*> {
    if (!j.contains(key)) return static_cast<const Json*>(nullptr);
    const Json& a = j[key];
    if (!a.is_array()) return ParseError(source + ": \"" + key + "\" must be an array");
    if (a.size() != n)
      return ParseError(
          StrCat(source, ": \"", key, "\" has ", a.size(), " entries but graph ", graph.name(), " has ", n, " ops"));
    return &a;
  };
  Plan plan;
  GO_ASSIGN_OR_RETURN(const Json* device, array("device"));
  if (device != nullptr) {
    plan.device.resize(n);
    for (size_t i = 0; i < n; ++i) {
      // A device index in [0, 2^31): 2^32 + 1 is an error here, not device 1.
      GO_RETURN_IF_ERROR(JsonIntTo((*device)[i],
                                   StrCat(source, ": device[", i, "] (op '", graph.op(static_cast<OpId>(i)).name, "')"),
                                   &plan.device[i], 0));
    }
  }
  GO_ASSIGN_OR_RETURN(const Json* priority, array("priority"));
  if (priority != nullptr) {
    plan.priority.resize(n);
    for (size_t i = 0; i < n; ++i) {
      GO_ASSIGN_OR_RETURN(plan.priority[i], JsonNumber((*priority)[i], StrCat(source, ": priority[", i, "] (op '",
                                                                             graph.op(static_cast<OpId>(i)).name, "')")));
    }
  }
  GO_ASSIGN_OR_RETURN(const Json* fuse, array("fuse_with_producer"));
  if (fuse != nullptr) {
    plan.fuse_with_producer.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Json& v = (*fuse)[i];
      if (v.is_boolean()) {
        plan.fuse_with_producer[i] = v.get<bool>() ? 1 : 0;
      } else if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1)) {
        plan.fuse_with_producer[i] = static_cast<uint8_t>(v.get<int64_t>());
      } else {
        return ParseError(StrCat(source, ": fuse_with_producer[", i, "] (op '", graph.op(static_cast<OpId>(i)).name,
                                 "') must be 0, 1 or a boolean"));
      }
    }
  }
  return plan;
}

Status WritePlanJson(const Graph& graph, const Plan& plan, const std::string& path) {
  return WriteFileAtomic(path, PlanToJson(graph, plan));
}

StatusOr<Plan> ReadPlanJson(const std::string& path, const Graph& graph) {
  GO_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return PlanFromJson(text, graph, path);
}

}  // namespace graphopt
