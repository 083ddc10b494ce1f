// The convergence store of the learned methods and its charts.
#include "eval/convergence_svg.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace graphopt {
namespace {

ConvergenceSeries Series(const std::string& row, const std::string& method, double last_us) {
  ConvergenceSeries s;
  s.row = row;
  s.label = "Label " + row;
  s.method = method;
  s.reference_us = 1000;
  s.seconds = {0.5, 3.0};
  s.plans = {10, 400};
  s.best_us = {1000, last_us};
  s.end_seconds = 60;
  s.end_plans = 2000;
  return s;
}

TEST(ConvergenceTest, FileRoundTripsAndMergeReplacesOnlyTheSameRowAndMethod) {
  const std::string path = ::testing::TempDir() + "graphopt_convergence_test.json";
  std::remove(path.c_str());
  auto empty = ReadConvergenceFile(path);
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_TRUE(empty->empty());

  std::vector<ConvergenceSeries> all;
  MergeConvergence(Series("gnmt-2", "go", 800), &all);
  MergeConvergence(Series("gnmt-2", "hdp", 950), &all);
  MergeConvergence(Series("gnmt-2", "go", 700), &all);  // replaces the first
  MergeConvergence(Series("rnnlm-2", "go", 900), &all);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].best_us.back(), 700);
  ASSERT_TRUE(WriteConvergenceFile(all, path).ok());
  auto read = ReadConvergenceFile(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[1].method, "hdp");
  EXPECT_EQ((*read)[1].plans, (std::vector<int64_t>{10, 400}));
  EXPECT_EQ((*read)[2].label, "Label rnnlm-2");
  EXPECT_DOUBLE_EQ((*read)[0].end_seconds, 60);
  std::remove(path.c_str());
}

TEST(ConvergenceTest, BadFilesNameThemselves) {
  const std::string path = ::testing::TempDir() + "graphopt_convergence_bad.json";
  std::ofstream(path) << R"({"format":"graphopt-results","version":1})";
  auto r = ReadConvergenceFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path), std::string::npos);
  std::ofstream(path) << R"({"format":"graphopt-convergence-suite","version":1,"runs":[{"row":"a","method":"go",)"
                         R"("reference_us":1,"end_seconds":1,"end_plans":1,"points":[[1,2]]}]})";
  r = ReadConvergenceFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("a/go"), std::string::npos) << r.status().message();
  std::remove(path.c_str());
}

TEST(ConvergenceTest, ChartHasOnePanelPerRowAndOneLinePerRun) {
  std::vector<ConvergenceSeries> all = {Series("gnmt-2", "go", 800), Series("gnmt-2", "hdp", 950),
                                        Series("rnnlm-2", "colocrl", 1200)};
  for (ConvergenceAxis axis : {ConvergenceAxis::kSeconds, ConvergenceAxis::kPlans}) {
    const std::string svg = ConvergenceChartSvg(all, axis);
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("Label gnmt-2"), std::string::npos);
    EXPECT_NE(svg.find("Label rnnlm-2"), std::string::npos);
    size_t lines = 0;
    for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) ++lines;
    EXPECT_EQ(lines, 3u);
    EXPECT_NE(svg.find(axis == ConvergenceAxis::kPlans ? "plans simulated" : "wall-clock seconds"), std::string::npos);
  }
}

}  // namespace
}  // namespace graphopt
