// The planner registry, pipelines and the stages (baselines/planner.h).
#include "baselines/planner.h"

#include <set>

#include "baselines/baseline.h"
#include "core/strings.h"

namespace graphopt {

const char* PlannerKindName(PlannerKind kind) {
  switch (kind) {
    case PlannerKind::kBaseline: return "baseline";
    case PlannerKind::kLearned: return "learned method";
    case PlannerKind::kPreset: return "preset";
    case PlannerKind::kTaskConfiguration: return "task configuration";
  }
  return "unknown";
}

PlannerInfo PlannerInfo::Of(std::string name, PlannerKind kind, std::string summary, PlannerFactory create) {
  PlannerInfo info;
  info.name = std::move(name);
  info.kind = kind;
  info.summary = std::move(summary);
  info.create = std::move(create);
  return info;
}

std::string PlannerUsageName(const PlannerInfo& info) {
  return info.argument.empty() ? info.name : info.name + ":" + info.argument;
}

PlannerRegistry& PlannerRegistry::Global() {
  static PlannerRegistry* registry = [] {
    auto* r = new PlannerRegistry();
    RegisterBaselines(r);
    RegisterStages(r);
    return r;
  }();
  return *registry;
}

namespace {

Status CheckName(const std::string& name, const char* what, bool plus_allowed = false) {
  if (name.empty()) return InvalidArgument(std::string(what) + " without a name");
  if (name.find_first_of(plus_allowed ? ",: " : "+,: ") != std::string::npos) {
    return InvalidArgument(std::string(what) + " \"" + name + "\": a name has no " +
                           (plus_allowed ? "" : "'+', ") + "',', ':' or space");
  }
  if (name.front() == '+' || name.back() == '+' || name.find("++") != std::string::npos) {
    return InvalidArgument(std::string(what) + " \"" + name + "\": an empty part between '+'");
  }
  return Status::Ok();
}

}  // namespace

Status PlannerRegistry::Register(PlannerInfo info) {
  GO_RETURN_IF_ERROR(CheckName(info.name, "planner", info.kind == PlannerKind::kTaskConfiguration));
  if (!info.create) return InvalidArgument("planner \"" + info.name + "\" has no factory");
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& p : planners_) {
    if (p->name == info.name) return InvalidArgument("planner \"" + info.name + "\" is registered twice");
  }
  for (const auto& s : stages_) {
    if (s->name == info.name) return InvalidArgument("planner \"" + info.name + "\" has the name of a stage");
  }
  planners_.push_back(std::make_unique<PlannerInfo>(std::move(info)));
  return Status::Ok();
}

Status PlannerRegistry::RegisterStage(PlanStage stage) {
  GO_RETURN_IF_ERROR(CheckName(stage.name, "stage"));
  if (!stage.apply) return InvalidArgument("stage \"" + stage.name + "\" does nothing");
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& s : stages_) {
    if (s->name == stage.name) return InvalidArgument("stage \"" + stage.name + "\" is registered twice");
  }
  for (const auto& p : planners_) {
    if (p->name == stage.name) return InvalidArgument("stage \"" + stage.name + "\" has the name of a planner");
  }
  stages_.push_back(std::make_unique<PlanStage>(std::move(stage)));
  return Status::Ok();
}

const PlannerInfo* PlannerRegistry::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& p : planners_) {
    if (p->name == name) return p.get();
  }
  // NAME:ARGUMENT: the entry made for it before, else a new one from NAME's.
  const size_t colon = name.find(':');
  if (colon == std::string::npos || colon + 1 == name.size()) return nullptr;
  for (const auto& b : bound_) {
    if (b->name == name) return b.get();
  }
  const std::string base = name.substr(0, colon);
  for (const auto& p : planners_) {
    if (p->name != base || p->argument.empty()) continue;
    auto bound = std::make_unique<PlannerInfo>(*p);
    bound->name = name;
    bound->argument.clear();
    bound->create = [create = p->create, argument = name.substr(colon + 1)](const PlannerSettings& settings) {
      PlannerSettings with = settings;
      with.argument = argument;
      return create(with);
    };
    bound_.push_back(std::move(bound));
    return bound_.back().get();
  }
  return nullptr;
}

StatusOr<const PlannerInfo*> PlannerRegistry::Get(const std::string& name) const {
  const PlannerInfo* info = Find(name);
  if (info != nullptr) return info;
  const PlannerInfo* base = Find(name.substr(0, name.find(':')));
  if (base != nullptr && !base->argument.empty()) {
    return NotFound("method \"" + name + "\": " + base->name + " takes its " + base->argument + " after ':' (" +
                    PlannerUsageName(*base) + ")");
  }
  return NotFound("unknown method \"" + name + "\" (known: " + KnownNames() + ")");
}

std::vector<const PlannerInfo*> PlannerRegistry::Planners() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const PlannerInfo*> out;
  for (const auto& p : planners_) out.push_back(p.get());
  return out;
}

std::vector<const PlanStage*> PlannerRegistry::Stages() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const PlanStage*> out;
  for (const auto& s : stages_) out.push_back(s.get());
  return out;
}

const PlanStage* PlannerRegistry::FindStage(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& s : stages_) {
    if (s->name == name) return s.get();
  }
  return nullptr;
}

std::string PlannerRegistry::KnownNames() const {
  std::vector<std::string> names;
  for (const PlannerInfo* p : Planners()) names.push_back(PlannerUsageName(*p));
  return Join(names, ", ");
}

void RegisterStages(PlannerRegistry* registry) {
  PlanStage fusion;
  fusion.name = "fusion";
  fusion.summary = "greedy producer-consumer fusion of every fusible kind under the kernel rules";
  fusion.fusion = true;
  fusion.apply = [](const PlanContext& c, Plan* plan) { ApplyGreedyFusion(c.graph, plan); };
  GO_CHECK(registry->RegisterStage(std::move(fusion)).ok());
  PlanStage cp;
  cp.name = "cp";
  cp.summary = "critical-path-first priorities (the longest path from each op to a sink)";
  cp.apply = [](const PlanContext& c, Plan* plan) {
    SetCriticalPathPriorities(c.graph, c.cluster, c.cost_model, plan);
  };
  GO_CHECK(registry->RegisterStage(std::move(cp)).ok());
}

StatusOr<Pipeline> ParsePipeline(const std::string& name, const PlannerRegistry& registry) {
  const std::vector<std::string> parts = Split(name, '+');
  Pipeline pipeline;
  pipeline.name = name;
  size_t used = 1;  // parts the planner's name takes
  for (size_t k = parts.size(); k > 1 && pipeline.planner == nullptr; --k) {
    std::string joined = Trim(parts[0]);
    for (size_t i = 1; i < k; ++i) joined += "+" + Trim(parts[i]);
    if (joined.find(':') != std::string::npos) continue;  // NAME:ARGUMENT ends at the first '+'
    pipeline.planner = registry.Find(joined);
    used = k;
  }
  if (pipeline.planner == nullptr) {
    used = 1;
    GO_ASSIGN_OR_RETURN(pipeline.planner, registry.Get(Trim(parts[0])));
  }
  std::set<std::string> seen;
  for (size_t i = used; i < parts.size(); ++i) {
    const std::string stage_name = Trim(parts[i]);
    const PlanStage* stage = registry.FindStage(stage_name);
    if (stage == nullptr) {
      std::vector<std::string> known;
      for (const PlanStage* s : registry.Stages()) known.push_back(s->name);
      return NotFound("method \"" + name + "\": unknown stage \"" + stage_name + "\" (stages: " + Join(known, ", ") +
                      ", each after a method and '+', e.g. expert+fusion)");
    }
    if (!seen.insert(stage_name).second) {
      return InvalidArgument("method \"" + name + "\": stage \"" + stage_name + "\" is given twice");
    }
    pipeline.stages.push_back(stage);
  }
  return pipeline;
}

StatusOr<Plan> RunPipeline(const Pipeline& pipeline, Planner& planner, const PlanContext& context) {
  GO_ASSIGN_OR_RETURN(Plan plan, planner.Run(context));
  const Status made = ValidatePlan(context.graph, context.cluster, plan);
  if (!made.ok()) return InternalError(pipeline.planner->name + " produced an invalid plan: " + made.message());
  for (const PlanStage* stage : pipeline.stages) {
    if (stage->fusion && pipeline.planner->decides_fusion) continue;
    stage->apply(context, &plan);
    const Status valid = ValidatePlan(context.graph, context.cluster, plan);
    if (!valid.ok()) return InternalError("stage " + stage->name + " made the plan invalid: " + valid.message());
  }
  return plan;
}

Status ConfigurePlanner(const PlannerInfo& info, const std::string& options, PlannerSettings* settings) {
  if (options.empty()) return Status::Ok();
  if (!info.configure) return InvalidArgument(info.name + " takes no options (given \"" + options + "\")");
  return info.configure(options, settings);
}

StatusOr<Plan> PlanWith(const Pipeline& pipeline, const PlannerSettings& settings, const PlanContext& context) {
  const std::string what = PlannerKindName(pipeline.planner->kind) + std::string(" ") + pipeline.planner->name;
  StatusOr<std::unique_ptr<Planner>> planner = pipeline.planner->create(settings);
  if (!planner.ok()) return planner.status().WithContext(what);
  StatusOr<Plan> plan = RunPipeline(pipeline, **planner, context);
  if (!plan.ok()) return plan.status().WithContext(what);
  return plan;
}

}  // namespace graphopt
