#include "eval/fidelity_report.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/median.h"
#include "core/strings.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;

std::string ErrorCell(double simulated, double measured) {
  if (simulated <= 0 || measured <= 0) return "-";
  return StrFormat("%s (%+.1f%%)", FidelityMs(simulated).c_str(), 100 * (simulated - measured) / measured);
}

std::string NanText(double v) { return std::isnan(v) ? "-" : StrFormat("%.3f", v); }

std::vector<FidelityStats> StatsPerModel(const std::vector<FidelityGraphRun>& runs) {
  std::vector<FidelityStats> stats;
  for (int m = 0; m < kNumFidelityModels; ++m) stats.push_back(ComputeFidelity(FidelityPoints(runs, m)));
  return stats;
}

std::string GraphTable(const FidelityGraphRun& g) {
  std::string md = StrFormat("## %s (%d ops; op times sum to %s ms in isolation, %s ms in the rounds' steps)\n\n",
                             g.model.c_str(), g.ops, FidelityMs(g.isolation_sum_us).c_str(),
                             FidelityMs(g.in_step_sum_us).c_str());
  if (!g.round_contention.empty()) md += "Contention: " + FidelityContentionText(g) + ".\n\n";
  md += "| plan | executed | spread | roofline | isolation | in-step |\n|---|---:|---:|---:|---:|---:|\n";
  for (const FidelityPlanRun& p : g.plans) {
    if (!p.error.empty()) {
      md += "| " + p.name + " | not run: " + p.error + " | | | | |\n";
      continue;
    }
    md += StrFormat("| %s | %s | %.1f%% | %s | %s | %s |\n", p.name.c_str(), FidelityMs(p.measured_us).c_str(),
                    100 * p.spread, ErrorCell(p.simulated_us[0], p.measured_us).c_str(),
                    ErrorCell(p.simulated_us[1], p.measured_us).c_str(),
                    ErrorCell(p.simulated_us[2], p.measured_us).c_str());
  }
  return md + "\n";
}

// The figures per cost model, then per graph and cost model.
std::string FiguresTables(const std::vector<FidelityStats>& stats) {
  std::string md = "## Figures per cost model\n\n";
  md += "| cost model | plans | mean abs error | worst error | Spearman (all) | lowest Spearman in a graph | mean regret | "
        "worst regret |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (int m = 0; m < kNumFidelityModels; ++m) {
    const FidelityStats& s = stats[static_cast<size_t>(m)];
    md += StrFormat("| %s | %d | %.1f%% | %+.1f%% (%s) | %s | %s | %.1f%% | %.1f%% |\n", kFidelityModels[m], s.points,
                    100 * s.mean_abs_error, 100 * s.worst_error, s.worst.c_str(), NanText(s.spearman).c_str(),
                    NanText(s.min_spearman).c_str(), 100 * s.mean_regret, 100 * s.max_regret);
  }
  md += "\nPer graph (Spearman; the simulator's pick, measured best, regret):\n\n| graph |";
  for (const char* m : kFidelityModels) md += std::string(" ") + m + " |";
  md += "\n|---|---|---|---|\n";
  for (size_t g = 0; g < stats[0].graphs.size(); ++g) {
    md += "| " + stats[0].graphs[g].graph + " |";
    for (int m = 0; m < kNumFidelityModels; ++m) {
      const GraphFidelity& f = stats[static_cast<size_t>(m)].graphs[g];
      md += StrFormat(" %s; %s / %s, %.1f%% |", NanText(f.spearman).c_str(), f.picked.c_str(), f.best.c_str(),
                      100 * f.regret);
    }
    md += "\n";
  }
  return md;
}

// The noise floor over the executed plans, and the reference GEMM's spread per graph.
std::string NoiseFloor(const std::vector<FidelityGraphRun>& runs) {
  std::vector<double> spreads, gaps;
  for (const FidelityGraphRun& g : runs) {
    for (const FidelityPlanRun& p : g.plans) {
      if (!p.error.empty()) continue;
      spreads.push_back(p.spread);
      gaps.push_back(p.half_gap);
    }
  }
  std::string md = StrFormat(
      "\nNoise floor: the medians of the odd and the even rounds of one plan differ by %.1f%% (median over the plans; "
      "at most %.1f%%); the steps of one plan spread over %.1f%% of their median (max - min, median over the plans).\n",
      100 * Median(gaps), gaps.empty() ? 0.0 : 100 * *std::max_element(gaps.begin(), gaps.end()), 100 * Median(spreads));
  md += "The machine apart from any plan: one 512^3 GEMM per device and round (median of 5), its spread over the "
        "rounds (max - min over the median) per graph:";
  for (const FidelityGraphRun& g : runs) {
    md += " " + g.model.substr(0, g.model.find(':')) + " ";
    for (size_t d = 0; d < g.reference_spread.size(); ++d) {
      md += StrFormat("%s%.1f%%", d == 0 ? "" : " / ", 100 * g.reference_spread[d]);
    }
    md += ";";
  }
  return md + "\n";
}

// The learned optimizer's plan of a graph, measured, and the fastest baseline's; null
// where the graph has no executed one of either.
struct RealComparison {
  const FidelityPlanRun* learned = nullptr;
  const FidelityPlanRun* best = nullptr;
};

RealComparison CompareLearned(const FidelityGraphRun& g) {
  RealComparison c;
  for (const FidelityPlanRun& p : g.plans) {
    if (!p.error.empty()) continue;
    if (p.source == PlanSource::kLearned) {
      c.learned = &p;
    } else if (p.source == PlanSource::kBaseline && (c.best == nullptr || p.measured_us < c.best->measured_us)) {
      c.best = &p;
    }
  }
  return c;
}

std::string RealEvaluation(const std::vector<FidelityGraphRun>& runs) {
  std::string md = "\n## Real evaluation: GO's plan, measured, against every baseline's\n\n| graph | go | best other plan | go "
                   "vs it |\n|---|---:|---|---:|\n";
  int wins = 0, graphs = 0;
  for (const FidelityGraphRun& g : runs) {
    const RealComparison c = CompareLearned(g);
    if (c.learned == nullptr || c.best == nullptr) continue;
    ++graphs;
    if (c.learned->measured_us < c.best->measured_us) ++wins;
    const std::string kept = c.learned->verify_kept.empty() ? "" : " (verify kept " + c.learned->verify_kept + ")";
    md += StrFormat("| %s | %s%s | %s %s | %.3fx |\n", g.model.c_str(), FidelityMs(c.learned->measured_us).c_str(),
                    kept.c_str(), c.best->name.c_str(), FidelityMs(c.best->measured_us).c_str(),
                    c.best->measured_us / c.learned->measured_us);
  }
  return md + StrFormat("\nGO's plan measured fastest on %d of %d graphs.\n", wins, graphs);
}

Json StatsJson(const FidelityStats& s) {
  auto num = [](double v) { return std::isnan(v) ? Json(nullptr) : Json(v); };
  return {{"points", s.points},           {"mean_abs_error", s.mean_abs_error},
          {"worst_error", s.worst_error}, {"worst", s.worst},
          {"spearman", num(s.spearman)},  {"min_spearman", num(s.min_spearman)},
          {"mean_regret", s.mean_regret}, {"max_regret", s.max_regret}};
}

Json GraphJson(const FidelityGraphRun& g) {
  Json plans = Json::array();
  for (const FidelityPlanRun& p : g.plans) {
    Json e = {{"plan", p.name}};
    if (!p.error.empty()) {
      e["error"] = p.error;
    } else {
      e["steps_us"] = p.steps_us;
      e["measured_us"] = p.measured_us;
      for (int m = 0; m < kNumFidelityModels; ++m) {
        e[std::string("simulated_") + kFidelityModels[m] + "_us"] = p.simulated_us[m];
      }
      if (!g.round_contention.empty()) e["simulated_in-step_calibrated_us"] = p.calibrated_in_step_us;
      if (!g.kinds.empty()) e["simulated_in-step_probes_us"] = p.probes_in_step_us;
      if (FidelityRoundsContention(g).read != 1) e["simulated_in-step_no-read_us"] = p.no_read_in_step_us;
      if (!p.verify_kept.empty()) e["verify_kept"] = p.verify_kept;
    }
    plans.push_back(e);
  }
  Json j = {{"model", g.model}, {"ops", g.ops}, {"plans", plans}, {"reference_gemm_us", g.reference_us}};
  if (!g.round_contention.empty()) {
    const auto pair = [](const Contention& c) {
      return Json{{"compute", c.compute}, {"memory", c.memory}, {"read", c.read}};
    };
    Json samples = Json::array();
    for (const Contention& c : g.round_contention) samples.push_back(pair(c));
    j["contention"] = {
        {"calibrated", pair(g.calibrated)}, {"rounds", samples}, {"median", pair(FidelityRoundsContention(g))}};
    if (!g.kinds.empty()) {
      Json kinds = Json::object();
      for (const auto& [kind, slowdown] : g.kinds) kinds[OpKindName(kind)] = slowdown;
      j["contention"]["kinds"] = kinds;
    }
  }
  return j;
}

}  // namespace

std::string FidelityMs(double us) { return StrFormat("%.2f", us / 1e3); }

Contention FidelityRoundsContention(const FidelityGraphRun& run) {
  Contention c = run.round_contention.empty() ? run.calibrated : MedianContention(run.round_contention);
  c.kinds = run.kinds;
  return c;
}

std::string FidelityContentionText(const FidelityGraphRun& run) {
  if (run.round_contention.empty()) return "";
  const Contention rounds = FidelityRoundsContention(run);
  return StrFormat(
             "compute %.2fx, memory %.2fx, received reads %.2fx in the rounds (median of %zu samples); "
             "calibrated before: compute %.2fx, memory %.2fx, received reads %.2fx",
             rounds.compute, rounds.memory, rounds.read, run.round_contention.size(), run.calibrated.compute,
             run.calibrated.memory, run.calibrated.read) +
         (run.kinds.empty()
              ? ""
              : StrFormat("; %zu op kind%s measured busy: ", run.kinds.size(), run.kinds.size() == 1 ? "" : "s") +
                    KindSlowdownsText(run.kinds));
}

std::vector<FidelityPoint> FidelityPoints(const std::vector<FidelityGraphRun>& runs, int model) {
  std::vector<FidelityPoint> points;
  for (const FidelityGraphRun& g : runs) {
    for (const FidelityPlanRun& p : g.plans) {
      if (!p.error.empty()) continue;
      points.push_back({g.model, p.name, p.measured_us, p.spread, p.simulated_us[model]});
    }
  }
  return points;
}

std::vector<FidelityPanel> FidelityPanels(const std::vector<FidelityGraphRun>& runs) {
  std::vector<FidelityPanel> panels;
  for (int m = 0; m < kNumFidelityModels; ++m) panels.push_back({kFidelityModels[m], FidelityPoints(runs, m)});
  return panels;
}

std::string FidelityPlanTable(const FidelityGraphRun& run) {
  std::string out =
      StrFormat("%-16s %10s %7s %18s %18s %18s\n", "plan", "executed", "spread", "roofline", "isolation", "in-step");
  for (const FidelityPlanRun& p : run.plans) {
    if (!p.error.empty()) {
      out += StrFormat("%-16s not run: %s\n", p.name.c_str(), p.error.c_str());
      continue;
    }
    out += StrFormat("%-16s %10s %6.1f%% %18s %18s %18s\n", p.name.c_str(), FidelityMs(p.measured_us).c_str(),
                     100 * p.spread, ErrorCell(p.simulated_us[0], p.measured_us).c_str(),
                     ErrorCell(p.simulated_us[1], p.measured_us).c_str(),
                     ErrorCell(p.simulated_us[2], p.measured_us).c_str());
  }
  return out;
}

std::string FidelityFiguresMarkdown(const std::vector<FidelityGraphRun>& runs) {
  return FiguresTables(StatsPerModel(runs)) + NoiseFloor(runs) + RealEvaluation(runs);
}

std::string FidelityMarkdown(const std::vector<FidelityGraphRun>& runs, const FidelitySetup& setup) {
  std::string md = "# Fidelity of the simulator on " + setup.cluster + "\n\n";
  md += StrFormat(
      "Executed: the median of %d rounds after %d warm-up rounds (ms), every plan once per round. Simulated with the "
      "roofline, with op times measured in isolation (`graphopt profile`) and inside executed one-device steps "
      "(in-step: every op on the first device, unfused, a run of its own in the same rounds; `graphopt profile "
      "--in-step` measures the same at another time). Baselines and GO planned with the %s op times (in-step: "
      "`graphopt profile --in-step` before the rounds); GO: `optimize` for %.0f s.\n\n",
      setup.steps, setup.warmup, setup.plan_profile.c_str(), setup.go_seconds);
  for (const FidelityGraphRun& g : runs) md += GraphTable(g);
  return md + FidelityFiguresMarkdown(runs);
}

std::string FidelityResultsJson(const std::vector<FidelityGraphRun>& runs, const FidelitySetup& setup) {
  Json j;
  j["format"] = "graphopt-fidelity";
  j["version"] = 1;
  j["cluster"] = setup.cluster;
  j["steps"] = setup.steps;
  j["warmup"] = setup.warmup;
  Json graphs = Json::array();
  for (const FidelityGraphRun& g : runs) graphs.push_back(GraphJson(g));
  j["graphs"] = graphs;
  Json stats = Json::object();
  for (int m = 0; m < kNumFidelityModels; ++m) stats[kFidelityModels[m]] = StatsJson(ComputeFidelity(FidelityPoints(runs, m)));
  j["stats"] = stats;
  return j.dump(1) + "\n";
}

}  // namespace graphopt
