// The report of bench --fidelity (eval/fidelity_report.h) from figures given by hand.
#include "eval/fidelity_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace graphopt {
namespace {

FidelityPlanRun Executed(const std::string& name, PlanSource source, double measured_us, double simulated_us) {
  FidelityPlanRun p;
  p.name = name;
  p.source = source;
  p.steps_us = {measured_us, measured_us};
  p.measured_us = measured_us;
  p.spread = 0.02;
  p.half_gap = 0.01;
  for (double& s : p.simulated_us) s = simulated_us;
  return p;
}

// One graph: two baselines, a random plan faster than all, GO's plan between the
// baselines and a plan that did not run.
FidelityGraphRun OneGraph() {
  FidelityGraphRun g;
  g.model = "rnnlm:layers=1";
  g.ops = 42;
  g.isolation_sum_us = 1500;
  g.in_step_sum_us = 2500;
  g.plans.push_back(Executed("expert", PlanSource::kBaseline, 2000, 2200));
  g.plans.push_back(Executed("heft", PlanSource::kBaseline, 1000, 900));
  g.plans.push_back(Executed("random", PlanSource::kRandom, 100, 100));
  g.plans.push_back(Executed("go", PlanSource::kLearned, 800, 800));
  FidelityPlanRun broken;
  broken.name = "metis";
  broken.error = "stalled";
  g.plans.push_back(broken);
  g.reference_us = {{5000, 5100}, {5000, 5500}};
  g.reference_spread = {0.02, 0.1};
  return g;
}

const FidelitySetup kSetup{"local:2", 2, 0, "in-step", 2};

TEST(FidelityReportTest, PointsLeaveOutPlansThatDidNotRun) {
  const std::vector<FidelityPoint> points = FidelityPoints({OneGraph()}, 0);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[1].plan, "heft");
  EXPECT_EQ(points[1].measured_us, 1000);
  EXPECT_EQ(points[1].simulated_us, 900);
  EXPECT_EQ(FidelityPanels({OneGraph()}).size(), 3u);
}

TEST(FidelityReportTest, TheLearnedPlanIsSetAgainstTheFastestBaselineNotTheRandomPlan) {
  const std::string md = FidelityFiguresMarkdown({OneGraph()});
  EXPECT_NE(md.find("| rnnlm:layers=1 | 0.80 | heft 1.00 | 1.250x |"), std::string::npos) << md;
  EXPECT_NE(md.find("GO's plan measured fastest on 1 of 1 graphs."), std::string::npos) << md;
}

TEST(FidelityReportTest, TheCandidateVerifyKeptIsNamedBesideTheLearnedPlan) {
  FidelityGraphRun g = OneGraph();
  g.plans[3].verify_kept = "heft (baseline)";
  const std::string md = FidelityFiguresMarkdown({g});
  EXPECT_NE(md.find("| rnnlm:layers=1 | 0.80 (verify kept heft (baseline)) | heft 1.00 | 1.250x |"), std::string::npos)
      << md;
  const nlohmann::json j = nlohmann::json::parse(FidelityResultsJson({g}, kSetup));
  EXPECT_EQ(j["graphs"][0]["plans"][3]["verify_kept"], "heft (baseline)");
  EXPECT_FALSE(j["graphs"][0]["plans"][1].contains("verify_kept"));
}

TEST(FidelityReportTest, AGraphWithoutALearnedPlanIsInNoComparison) {
  FidelityGraphRun g = OneGraph();
  g.plans[3].source = PlanSource::kBaseline;
  EXPECT_NE(FidelityFiguresMarkdown({g}).find("GO's plan measured fastest on 0 of 0 graphs."), std::string::npos);
}

TEST(FidelityReportTest, TheMarkdownEndsWithTheFiguresTheBenchPrints) {
  const std::string figures = FidelityFiguresMarkdown({OneGraph()});
  EXPECT_EQ(figures.rfind("## Figures per cost model\n\n", 0), 0u);
  const std::string md = FidelityMarkdown({OneGraph()}, kSetup);
  EXPECT_EQ(md.rfind("# Fidelity of the simulator on local:2\n\n", 0), 0u);
  ASSERT_GE(md.size(), figures.size());
  EXPECT_EQ(md.substr(md.size() - figures.size()), figures);
  EXPECT_EQ(md.find("## Figures per cost model"), md.size() - figures.size());
  EXPECT_NE(md.find("## rnnlm:layers=1 (42 ops; op times sum to 1.50 ms in isolation, 2.50 ms in the rounds' steps)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| heft | 1.00 | 2.0% | 0.90 (-10.0%) | 0.90 (-10.0%) | 0.90 (-10.0%) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| metis | not run: stalled | | | | |"), std::string::npos) << md;
}

TEST(FidelityReportTest, NoiseFloorAndReferenceSpreadPerDevice) {
  const std::string md = FidelityFiguresMarkdown({OneGraph()});
  EXPECT_NE(md.find("differ by 1.0% (median over the plans; at most 1.0%)"), std::string::npos) << md;
  EXPECT_NE(md.find("per graph: rnnlm 2.0% / 10.0%;"), std::string::npos) << md;
}

TEST(FidelityReportTest, PlanTableHasALinePerPlan) {
  const std::string table = FidelityPlanTable(OneGraph());
  EXPECT_EQ(table.rfind("plan ", 0), 0u);
  EXPECT_NE(table.find("metis            not run: stalled\n"), std::string::npos) << table;
  EXPECT_NE(table.find("heft                   1.00    2.0%"), std::string::npos) << table;
}

TEST(FidelityReportTest, ResultsJsonHoldsEveryPlanAndTheFigures) {
  const nlohmann::json j = nlohmann::json::parse(FidelityResultsJson({OneGraph()}, kSetup));
  EXPECT_EQ(j["format"], "graphopt-fidelity");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["cluster"], "local:2");
  const nlohmann::json& plans = j["graphs"][0]["plans"];
  ASSERT_EQ(plans.size(), 5u);
  EXPECT_EQ(plans[1]["plan"], "heft");
  EXPECT_EQ(plans[1]["measured_us"], 1000.0);
  EXPECT_EQ(plans[1]["simulated_in-step_us"], 900.0);
  EXPECT_EQ(plans[4]["error"], "stalled");
  EXPECT_FALSE(plans[4].contains("measured_us"));
  EXPECT_EQ(j["graphs"][0]["reference_gemm_us"].size(), 2u);
  EXPECT_EQ(j["stats"]["roofline"]["points"], 4);
}

TEST(FidelityReportTest, AnUndefinedCorrelationIsNullInTheJson) {
  FidelityGraphRun g;
  g.model = "tiny";
  g.plans.push_back(Executed("single", PlanSource::kBaseline, 10, 10));
  const nlohmann::json j = nlohmann::json::parse(FidelityResultsJson({g}, kSetup));
  EXPECT_TRUE(j["stats"]["roofline"]["spearman"].is_null());
}

TEST(FidelityReportTest, TheRoundsContentionIsReportedBesideTheCalibration) {
  FidelityGraphRun g = OneGraph();
  const nlohmann::json without = nlohmann::json::parse(FidelityResultsJson({g}, kSetup));
  EXPECT_FALSE(without["graphs"][0].contains("contention"));
  EXPECT_FALSE(without["graphs"][0]["plans"][1].contains("simulated_in-step_calibrated_us"));
  EXPECT_EQ(FidelityContentionText(g), "");
  g.calibrated = {1.9, 1.5};
  EXPECT_EQ(FidelityRoundsContention(g).compute, 1.9);
  g.round_contention = {{1.0, 1.2}, {1.1, 1.3}, {1.0, 1.4}};
  g.plans[1].calibrated_in_step_us = 1100;
  EXPECT_EQ(FidelityContentionText(g),
            "compute 1.00x, memory 1.30x, received reads 1.00x in the rounds (median of 3 samples); calibrated "
            "before: compute 1.90x, memory 1.50x, received reads 1.00x");
  const nlohmann::json j = nlohmann::json::parse(FidelityResultsJson({g}, kSetup));
  const nlohmann::json& c = j["graphs"][0]["contention"];
  EXPECT_EQ(c["calibrated"]["compute"], 1.9);
  ASSERT_EQ(c["rounds"].size(), 3u);
  EXPECT_EQ(c["rounds"][2]["memory"], 1.4);
  EXPECT_EQ(c["median"]["memory"], 1.3);
  EXPECT_FALSE(c.contains("kinds"));
  EXPECT_FALSE(j["graphs"][0]["plans"][1].contains("simulated_in-step_probes_us"));
  EXPECT_FALSE(j["graphs"][0]["plans"][1].contains("simulated_in-step_no-read_us"));
  // Op kinds measured busy: in the text slowest first, in the JSON by name, and in the
  // contention the in-step model runs with.
  g.kinds = {{OpKind::kAdd, 1.05}, {OpKind::kConv, 1.22}};
  g.plans[1].probes_in_step_us = 1050;
  EXPECT_EQ(FidelityRoundsContention(g).kinds, g.kinds);
  EXPECT_NE(FidelityContentionText(g).find("; 2 op kinds measured busy: Conv 1.22x, Add 1.05x"), std::string::npos)
      << FidelityContentionText(g);
  const nlohmann::json k = nlohmann::json::parse(FidelityResultsJson({g}, kSetup));
  EXPECT_EQ(k["graphs"][0]["contention"]["kinds"]["Conv"], 1.22);
  EXPECT_EQ(k["graphs"][0]["plans"][1]["simulated_in-step_probes_us"], 1050);
  EXPECT_EQ(j["graphs"][0]["plans"][1]["simulated_in-step_calibrated_us"], 1100.0);
  EXPECT_NE(FidelityMarkdown({g}, kSetup).find("Contention: compute 1.00x, memory 1.30x, received reads"),
            std::string::npos);
  // A read slowdown in the rounds: its median in the text and the JSON, and the model
  // without it beside.
  g.round_contention = {{1.0, 1.2, 1.5}, {1.1, 1.3, 1.3}, {1.0, 1.4, 1.2}};
  g.plans[1].no_read_in_step_us = 990;
  EXPECT_EQ(FidelityRoundsContention(g).read, 1.3);
  EXPECT_NE(FidelityContentionText(g).find("received reads 1.30x in the rounds"), std::string::npos)
      << FidelityContentionText(g);
  const nlohmann::json r = nlohmann::json::parse(FidelityResultsJson({g}, kSetup));
  EXPECT_EQ(r["graphs"][0]["contention"]["rounds"][0]["read"], 1.5);
  EXPECT_EQ(r["graphs"][0]["contention"]["median"]["read"], 1.3);
  EXPECT_EQ(r["graphs"][0]["plans"][1]["simulated_in-step_no-read_us"], 990);
}

}  // namespace
}  // namespace graphopt
