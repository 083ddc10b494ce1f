#include "eval/fidelity.h"

#include <gtest/gtest.h>

#include <cmath>

namespace graphopt {
namespace {

TEST(SpearmanCorrelation, SameOrderIsOneReversedIsMinusOne) {
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, 2, 3, 4}, {10, 20, 30, 400}), 1.0);
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
}

TEST(SpearmanCorrelation, TiesTakeTheirMeanRank) {
  // Ranks x: 1, 2.5, 2.5, 4; y: 1, 2, 3, 4. rho = cov / sqrt(var x * var y).
  const double rho = SpearmanCorrelation({1, 2, 2, 3}, {1, 2, 3, 4});
  EXPECT_NEAR(rho, 4.5 / std::sqrt(4.5 * 5.0), 1e-12);
}

TEST(SpearmanCorrelation, UndefinedForOneValueOrAConstantSide) {
  EXPECT_TRUE(std::isnan(SpearmanCorrelation({1}, {2})));
  EXPECT_TRUE(std::isnan(SpearmanCorrelation({1, 1, 1}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(SpearmanCorrelation({1, 2}, {1, 2, 3})));
}

std::vector<FidelityPoint> TwoGraphs() {
  return {
      {"a", "single", 100, 0.01, 90},   // -10%
      {"a", "metis", 80, 0.01, 88},     // +10%
      {"a", "heft", 60, 0.01, 66},      // +10%
      {"b", "single", 1000, 0.01, 1000},
      {"b", "metis", 900, 0.01, 800},   // the simulator picks metis; heft is measured best
      {"b", "heft", 850, 0.01, 850},
  };
}

TEST(ComputeFidelity, ErrorsRanksAndRegret) {
  const FidelityStats s = ComputeFidelity(TwoGraphs());
  ASSERT_EQ(s.points, 6);
  // |errors|: 0.1, 0.1, 0.1, 0, 0.1111, 0.
  EXPECT_NEAR(s.mean_abs_error, (0.3 + 100.0 / 900) / 6, 1e-12);
  EXPECT_NEAR(s.worst_error, -100.0 / 900, 1e-12);
  EXPECT_EQ(s.worst, "b / metis");
  ASSERT_EQ(s.graphs.size(), 2u);
  EXPECT_EQ(s.graphs[0].graph, "a");
  EXPECT_DOUBLE_EQ(s.graphs[0].spearman, 1.0);
  EXPECT_EQ(s.graphs[0].picked, "heft");
  EXPECT_EQ(s.graphs[0].best, "heft");
  EXPECT_DOUBLE_EQ(s.graphs[0].regret, 0.0);
  EXPECT_EQ(s.graphs[1].picked, "metis");
  EXPECT_EQ(s.graphs[1].best, "heft");
  EXPECT_NEAR(s.graphs[1].regret, 900.0 / 850 - 1, 1e-12);
  EXPECT_NEAR(s.graphs[1].spearman, 0.5, 1e-12);  // ranks (3,2,1) against (3,1,2)
  EXPECT_NEAR(s.min_spearman, 0.5, 1e-12);
  EXPECT_NEAR(s.max_regret, 900.0 / 850 - 1, 1e-12);
  EXPECT_NEAR(s.mean_regret, (900.0 / 850 - 1) / 2, 1e-12);
  EXPECT_GT(s.spearman, 0.8);  // the two graphs' scales apart make the overall order easy
}

TEST(ComputeFidelity, PlansThatDidNotRunAreLeftOut) {
  std::vector<FidelityPoint> points = TwoGraphs();
  points.push_back({"b", "oom", 0, 0, 500});
  points.push_back({"b", "unsimulated", 700, 0, 0});
  const FidelityStats s = ComputeFidelity(points);
  EXPECT_EQ(s.points, 6);
  EXPECT_EQ(s.graphs[1].picked, "metis");
  EXPECT_EQ(ComputeFidelity({}).points, 0);
}

TEST(FidelityScatterSvg, OnePanelPerModelEveryPointWithItsTooltip) {
  std::vector<FidelityPoint> points = TwoGraphs();
  points[0].plan = "a<b>&\"c\"";
  const std::string svg = FidelityScatterSvg({{"roofline", points}, {"profile", points}}, "fidelity");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  size_t circles = 0;
  for (size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++circles;
  EXPECT_EQ(circles, 2 * points.size() + 2);  // the points of both panels and a legend dot per graph
  EXPECT_NE(svg.find("roofline"), std::string::npos);
  EXPECT_NE(svg.find("a&lt;b&gt;&amp;&quot;c&quot;"), std::string::npos);
  EXPECT_EQ(svg.find("a<b>"), std::string::npos);
  EXPECT_NE(svg.find("(-10.0%)"), std::string::npos);

  // The legend names a model without its parameters, unless two share the name.
  std::vector<FidelityPoint> named = TwoGraphs();
  for (FidelityPoint& p : named) p.graph = p.graph == "a" ? "gnmt:layers=2" : "rnnlm:layers=2";
  EXPECT_NE(FidelityScatterSvg({{"profile", named}}, "t").find(">gnmt</text>"), std::string::npos);
  for (FidelityPoint& p : named) p.graph = p.graph == "gnmt:layers=2" ? "gnmt:layers=2" : "gnmt:layers=4";
  EXPECT_NE(FidelityScatterSvg({{"profile", named}}, "t").find(">gnmt:layers=4</text>"), std::string::npos);
}

}  // namespace
}  // namespace graphopt
