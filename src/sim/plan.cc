#include "sim/plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/files.h"
#include "core/json_fields.h"
#include "sim/plan_legalizer.h"

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

// Every fused op that breaks a kernel rule (sim/fusion_rules.h), with the rule in words.
std::vector<std::string> FusionRuleBreaks(const Graph& graph, const Plan& plan) {
  std::vector<std::string> broken;
  if (std::none_of(plan.fuse_with_producer.begin(), plan.fuse_with_producer.end(), [](uint8_t f) { return f; })) {
    return broken;
  }
  const FusionRules rules(graph);
  const std::vector<FusionRules::Break> breaks = rules.FindBreaks(plan.fuse_with_producer);
  if (breaks.empty()) return broken;
  const std::vector<OpId> root = rules.Roots(plan.fuse_with_producer);
  for (const FusionRules::Break& b : breaks) {
    // The verdict against the rest of the kernel, in words.
    FusionGroupSummary rest = rules.Start(b.root);
    for (OpId o = 0; o < graph.num_ops(); ++o) {
      if (o != b.op && o != b.root && root[static_cast<size_t>(o)] == b.root) rules.Join(&rest, o);
    }
    broken.push_back(rules.Explain(rest, b.root, b.op).reason);
    if (broken.size() > kMaxNamedOps) break;  // NameList shows no more
  }
  return broken;
}

}  // namespace

FusionDecision CanFuseKind(OpKind kind) {
  switch (FusionRoleOf(kind)) {
    case FusionRole::kFree:
      return {false, std::string(OpKindName(kind)) + " runs no kernel", FusionRule::kKind};
    case FusionRole::kContraction:
      return {false, std::string(OpKindName(kind)) + " is a library kernel that cannot absorb its producer",
              FusionRule::kKind};
    case FusionRole::kOpaque:
      return {false,
              kind == OpKind::kGeneric ? std::string("a Generic op has unknown semantics")
                                       : std::string(OpKindName(kind)) + " is a kernel of its own",
              FusionRule::kKind};
    default:
      return {};
  }
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
  if (FusionProducer(graph, op) == kNoId) {
    return {false, "it has no producer that runs a kernel", FusionRule::kProducer};
  }
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
  if (any_fusion && bad_kind.empty() && cross_device.empty()) {
    std::vector<std::string> broken = FusionRuleBreaks(graph, plan);
    if (!broken.empty()) {
      problems.push_back(StrCat(broken.size(), " fused op(s) in a kernel no compiler emits: ", NameList(broken)));
    }
  }
  if (any_fusion && bad_kind.empty()) {
    std::vector<std::string> cyclic;
    for (OpId o : PlanLegalizer(graph).FusedOpsOnCycles(plan.fuse_with_producer)) cyclic.push_back(OpName(graph, o));
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

void RespectColocation(const Graph& graph, Plan* plan) { PlanLegalizer(graph).RespectColocation(plan); }

int DropIllegalFusions(const Graph& graph, Plan* plan) { return PlanLegalizer(graph).DropIllegalFusions(plan); }

void MakePlanValid(const Graph& graph, const Cluster& cluster, Plan* plan) {
  PlanLegalizer(graph).MakeValid(cluster, plan);
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
  GO_ASSIGN_OR_RETURN(Json j, ParseJsonText(text, source));
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

Status CheckFusionRules(const Graph& graph, const Plan& plan) {
  if (plan.fuse_with_producer.empty()) return Status::Ok();
  if (plan.fuse_with_producer.size() != static_cast<size_t>(graph.num_ops())) {
    return InvalidArgument(StrCat("plan: \"fuse_with_producer\" has ", plan.fuse_with_producer.size(),
                                  " entries but graph ", graph.name(), " has ", graph.num_ops(), " ops"));
  }
  const std::vector<std::string> broken = FusionRuleBreaks(graph, plan);
  if (broken.empty()) return Status::Ok();
  return InvalidArgument(StrCat("plan for graph ", graph.name(), ": fused op(s) in a kernel no compiler emits: ",
                                NameList(broken)));
}

Status WritePlanJson(const Graph& graph, const Plan& plan, const std::string& path) {
  GO_RETURN_IF_ERROR(CheckFusionRules(graph, plan));
  return WriteFileAtomic(path, PlanToJson(graph, plan));
}

StatusOr<Plan> ReadPlanJson(const std::string& path, const Graph& graph) {
  GO_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return PlanFromJson(text, graph, path);
}

}  // namespace graphopt
