#include "eval/suite.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <map>
#include <memory>
#include <set>

#include "baselines/baseline.h"
#include "core/files.h"
#include "core/progress.h"
#include "core/strings.h"
#include "core/timing.h"
#include "models/load.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {


SuiteRow Row(std::string name, std::string label, std::string model, int devices) {
  auto preset = PresetForDevices(devices);
  GO_CHECK_MSG(preset.ok(), preset.status().message());
  return SuiteRow{std::move(name), std::move(label), std::move(model), devices, *preset};
}

// Produces and simulates one method's plan, with the table's defaults; failures
// become the result's error.
MethodResult RunMethod(const MethodSpec& method, const Graph& graph, const Cluster& cluster, const Simulator& sim,
                       uint64_t seed, TableDecisions decisions) {
  MethodResult result;
  const auto start = std::chrono::steady_clock::now();
  try {
    StatusOr<Plan> plan = [&]() -> StatusOr<Plan> {
      if (method.plan) return method.plan(graph, cluster, sim);
      if (method.pipeline.planner == nullptr) return InternalError("method " + method.name + " has no planner");
      PlannerSettings settings = method.settings;
      settings.seed = seed;
      const std::string what = PlannerKindName(method.pipeline.planner->kind) + std::string(" ") + method.name;
      StatusOr<std::unique_ptr<Planner>> planner = method.pipeline.planner->create(settings);
      if (!planner.ok()) return planner.status().WithContext(what);
      StatusOr<Plan> made = RunPipeline(method.pipeline, **planner, PlanContext{graph, cluster, sim.cost_model(), &sim});
      if (method.on_report && (*planner)->report() != nullptr) method.on_report(*(*planner)->report());
      if (!made.ok()) return made.status().WithContext(what);
      return made;
    }();
    result.plan_seconds = SecondsSince(start);
    if (!plan.ok()) {
      result.error = plan.status().message();
      return result;
    }
    const bool baseline = !method.plan && method.pipeline.planner->kind == PlannerKind::kBaseline;
    ApplyTableDecisions(decisions, baseline, sim, &*plan);
    StatusOr<SimResult> simulated = sim.Simulate(*plan);
    if (!simulated.ok()) {
      result.error = "simulating the plan: " + simulated.status().message();
      return result;
    }
    result.step_time_us = simulated->step_time_us;
    result.oom = simulated->oom;
    result.peak_memory = simulated->device_peak_memory;
  } catch (const std::exception& e) {
    result.plan_seconds = SecondsSince(start);
    result.error = std::string("exception: ") + e.what();
  }
  return result;
}

}  // namespace

const std::vector<SuiteRow>& PlacementSuiteRows() {
  static const std::vector<SuiteRow> kRows = {
      Row("rnnlm-2", "RNNLM 2-layer", "rnnlm:layers=2", 2),
      Row("rnnlm-4", "RNNLM 4-layer", "rnnlm:layers=4", 4),
      Row("rnnlm-8", "RNNLM 8-layer", "rnnlm:layers=8", 8),
      Row("gnmt-2", "GNMT 2-layer", "gnmt:layers=2", 2),
      Row("gnmt-4", "GNMT 4-layer", "gnmt:layers=4", 4),
      Row("gnmt-8", "GNMT 8-layer", "gnmt:layers=8", 8),
      Row("transformer_xl-2", "Transformer-XL 2-layer", "transformer_xl:layers=2", 2),
      Row("transformer_xl-4", "Transformer-XL 4-layer", "transformer_xl:layers=4", 4),
      Row("transformer_xl-8", "Transformer-XL 8-layer", "transformer_xl:layers=8", 8),
      Row("inception_v3", "Inception-v3", "inception_v3", 2),
      Row("amoebanet", "AmoebaNet", "amoebanet", 4),
      Row("wavenet-2", "WaveNet 2-stack 18-layer", "wavenet", 2),
      Row("wavenet-4", "WaveNet 4-stack 36-layer", "wavenet:stacks=4,layers=36", 4),
  };
  return kRows;
}

StatusOr<std::string> PresetForDevices(int devices) {
  switch (devices) {
    case 2: return std::string("2xP100");
    case 4: return std::string("4xV100");
    case 8: return std::string("8xV100");
    default: return NotFound("no cluster preset for a suite row on " + std::to_string(devices) + " devices (2, 4 or 8)");
  }
}

void SortRowsInSuiteOrder(const std::vector<SuiteRow>& suite, SuiteResults* results) {
  auto rank = [&](const RowResult& row) {
    auto it = std::find_if(suite.begin(), suite.end(), [&](const SuiteRow& r) { return r.name == row.row; });
    return it - suite.begin();
  };
  std::stable_sort(results->rows.begin(), results->rows.end(),
                   [&](const RowResult& a, const RowResult& b) { return rank(a) < rank(b); });
}

StatusOr<std::vector<SuiteRow>> SelectRows(const std::vector<SuiteRow>& rows, const std::string& names) {
  if (Trim(names).empty()) return rows;
  std::vector<std::string> known;
  for (const SuiteRow& row : rows) known.push_back(row.name);
  std::vector<SuiteRow> picked;
  std::set<std::string> seen;
  for (const std::string& raw : Split(names, ',')) {
    const std::string name = Trim(raw);
    if (name.empty()) continue;
    auto it = std::find_if(rows.begin(), rows.end(), [&](const SuiteRow& r) { return r.name == name; });
    if (it == rows.end()) return NotFound("unknown suite row \"" + name + "\" (rows: " + Join(known, ", ") + ")");
    if (!seen.insert(name).second) return InvalidArgument("suite row \"" + name + "\" is given twice");
    picked.push_back(*it);
  }
  if (picked.empty()) return InvalidArgument("no suite rows in \"" + names + "\" (rows: " + Join(known, ", ") + ")");
  return picked;
}

StatusOr<MethodSpec> ParseMethod(const std::string& name) {
  MethodSpec spec;
  spec.name = name;
  StatusOr<Pipeline> pipeline = ParsePipeline(name);
  if (!pipeline.ok()) {
    return NotFound(pipeline.status().message() + "; a method may take stages after '+', e.g. expert+fusion");
  }
  spec.pipeline = std::move(*pipeline);
  return spec;
}

const char* TableDecisionsName(TableDecisions decisions) {
  switch (decisions) {
    case TableDecisions::kPlacement: return "placement";
    case TableDecisions::kAll: return "all";
    case TableDecisions::kAsProduced: return "as-produced";
  }
  return "unknown";
}

StatusOr<TableDecisions> TableDecisionsFromName(const std::string& name) {
  for (TableDecisions d : {TableDecisions::kPlacement, TableDecisions::kAll, TableDecisions::kAsProduced}) {
    if (name == TableDecisionsName(d)) return d;
  }
  return InvalidArgument("unknown table decisions \"" + name + "\" (placement, all or as-produced)");
}

void ApplyTableDecisions(TableDecisions decisions, bool baseline, const Simulator& simulator, Plan* plan) {
  const Graph& graph = simulator.graph();
  switch (decisions) {
    case TableDecisions::kPlacement:
      ApplyFrameworkDefaults(graph, plan);
      break;
    case TableDecisions::kAll:
      if (baseline) {
        ApplyGreedyFusion(graph, plan);
        SetCriticalPathPriorities(graph, simulator.cluster(), simulator.cost_model(), plan);
      }
      break;
    case TableDecisions::kAsProduced:
      break;
  }
}

StatusOr<std::vector<SuiteRow>> ModelRows(const std::vector<std::string>& models, const std::string& cluster) {
  StatusOr<Cluster> loaded = LoadCluster(cluster);
  if (!loaded.ok()) return loaded.status().WithContext("cluster of the model rows");
  const int devices = static_cast<int>(loaded->Accelerators().size());
  std::vector<SuiteRow> rows;
  std::set<std::string> names;
  for (const std::string& model : models) {
    const std::string name = FileName(model);
    if (!names.insert(name).second) return InvalidArgument("two models are named " + name + ": rows need distinct names");
    rows.push_back(SuiteRow{name, name, model, devices, cluster});
  }
  return rows;
}

StatusOr<std::vector<MethodSpec>> ParseMethods(const std::string& names, bool add_fusion) {
  std::vector<std::string> list;
  if (Trim(names).empty()) {
    list = BaselineNames();
  } else {
    list = SplitList(names, ',');
    if (list.empty()) return InvalidArgument("no methods in \"" + names + "\"");
  }
  std::vector<MethodSpec> methods;
  std::set<std::string> given, added;
  auto add = [&](MethodSpec spec) {
    if (added.insert(spec.name).second) methods.push_back(std::move(spec));
  };
  for (const std::string& name : list) {
    if (!given.insert(name).second) return InvalidArgument("method \"" + name + "\" is given twice");
    GO_ASSIGN_OR_RETURN(MethodSpec spec, ParseMethod(name));
    const Pipeline& p = spec.pipeline;
    const bool fused_variant = add_fusion && p.planner->kind == PlannerKind::kBaseline && !p.planner->decides_fusion &&
                               std::none_of(p.stages.begin(), p.stages.end(), [](const PlanStage* s) { return s->fusion; });
    add(spec);
    if (fused_variant) {
      GO_ASSIGN_OR_RETURN(MethodSpec fused, ParseMethod(spec.name + kFusionSuffix));
      add(std::move(fused));
    }
  }
  return methods;
}

std::vector<double> EstimateRowSeconds(const std::vector<SuiteRow>& rows, const std::vector<MethodSpec>& methods) {
  constexpr double kSecondsPerOp = 0.5e-3;
  double fixed = 0;
  int growing = 0;
  for (const MethodSpec& m : methods) {
    if (m.fixed_seconds > 0) {
      fixed += m.fixed_seconds;
    } else {
      ++growing;
    }
  }
  if (methods.empty()) growing = 1;
  std::vector<double> seconds;
  for (const SuiteRow& row : rows) {
    StatusOr<Graph> graph = LoadModel(row.model);
    const double ops = graph.ok() ? static_cast<double>(graph->num_ops()) : 0.0;
    seconds.push_back(fixed + growing * kSecondsPerOp * ops);
  }
  return seconds;
}

StatusOr<SuiteResults> RunSuite(const SuiteOptions& options, const RowDoneCallback& on_row_done) {
  std::vector<MethodSpec> methods = options.methods;
  if (methods.empty()) {
    GO_ASSIGN_OR_RETURN(methods, ParseMethods("", false));
  }
  // Load every cluster first, so a bad name fails before any work.
  std::map<std::string, Cluster> clusters;
  for (const SuiteRow& row : options.rows) {
    const std::string spec = options.cluster_override.empty() ? row.cluster : options.cluster_override;
    if (clusters.count(spec) > 0) continue;
    StatusOr<Cluster> cluster = LoadCluster(spec);
    if (!cluster.ok()) return cluster.status().WithContext("suite row " + row.name);
    clusters.emplace(spec, std::move(*cluster));
  }

  const int64_t total = static_cast<int64_t>(options.rows.size() * methods.size());
  std::unique_ptr<ProgressBar> progress;
  if (options.show_progress) progress = std::make_unique<ProgressBar>("bench", total);
  SuiteResults results;
  results.decisions = TableDecisionsName(options.decisions);
  results.judge = kJudgeVersion;
  int64_t done = 0;
  for (size_t r = 0; r < options.rows.size(); ++r) {
    const SuiteRow& row = options.rows[r];
    const auto row_start = std::chrono::steady_clock::now();
    const std::string cluster_spec = options.cluster_override.empty() ? row.cluster : options.cluster_override;
    const Cluster& cluster = clusters.at(cluster_spec);
    const std::string where = StrFormat("row %s (%zu/%zu)", row.name.c_str(), r + 1, options.rows.size());
    if (progress) progress->Update(done, where + ": building " + row.model);

    StatusOr<Graph> graph = LoadModel(row.model);
    if (!graph.ok()) return graph.status().WithContext("suite row " + row.name);
    StatusOr<Simulator> sim = Simulator::Create(*graph, cluster);
    if (!sim.ok()) return sim.status().WithContext("suite row " + row.name + " (" + row.model + " on " + cluster_spec + ")");

    RowResult result;
    result.row = row.name;
    result.label = row.label;
    result.model = row.model;
    result.cluster = cluster_spec;
    result.devices = static_cast<int>(cluster.Accelerators().size());
    result.ops = graph->num_ops();
    const LowerBound& bound = sim->lower_bound();
    result.lower_bound_us = std::max(bound.critical_path_us, bound.work_us);
    if (std::isfinite(bound.fitting_value_us())) result.fitting_bound_us = bound.fitting_value_us();
    result.setup_seconds = SecondsSince(row_start);
    for (const MethodSpec& method : methods) {
      if (progress) progress->Update(done, where + ": " + method.name);
      result.methods[method.name] = RunMethod(method, *graph, cluster, *sim, options.seed, options.decisions);
      ++done;
    }
    result.seconds = SecondsSince(row_start);
    if (progress) progress->Update(done, where + StrFormat(": done in %.1f s", result.seconds));
    if (on_row_done) GO_RETURN_IF_ERROR(on_row_done(result));
    results.rows.push_back(std::move(result));
  }
  if (progress) progress->Finish(StrFormat("%zu rows x %zu methods", options.rows.size(), methods.size()));
  return results;
}

}  // namespace graphopt
