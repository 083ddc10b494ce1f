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

// A file with one run of row "a", method "go", whose fields are `fields`.
std::string OneRun(const std::string& fields) {
  return R"({"format":"graphopt-convergence-suite","version":1,"runs":[{"row":"a","method":"go",)" + fields + "}]}";
}

void ExpectError(const std::string& text, const std::string& fragment) {
  auto r = ConvergenceFromJson(text, "c.json");
  ASSERT_FALSE(r.ok()) << "accepted: " << text;
  EXPECT_NE(r.status().message().find("c.json"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
}

TEST(ConvergenceTest, FieldsAreTypedAndRangeChecked) {
  const std::string ends = R"("reference_us":1,"end_seconds":1,"end_plans":1,)";
  EXPECT_TRUE(ConvergenceFromJson(OneRun(ends + R"("points":[[0.5,2,1.5]])"), "c.json").ok());
  // A plan count of 1e300 used to be converted to int64 (undefined behaviour).
  ExpectError(OneRun(ends + R"("points":[[0.5,1e300,1.5]])"), "runs[0] (a/go): points[0][1] (plans)");
  ExpectError(OneRun(R"("reference_us":1,"end_seconds":1,"end_plans":2.5,"points":[])"), "\"end_plans\"");
  ExpectError(OneRun(R"("reference_us":"x","end_seconds":1,"end_plans":1,"points":[])"), "\"reference_us\"");
  ExpectError(OneRun(R"("reference_us":1,"end_seconds":1,"points":[])"), "missing \"end_plans\"");
  ExpectError(OneRun(ends + R"("points":[[1e999,1,1]])"), "not valid JSON");
  ExpectError(OneRun(ends + R"("points":[[-1,1,1]])"), "points[0][0] (seconds): -1 is out of range");
  ExpectError(OneRun(ends + R"("points":[[1,1,-2.5]])"), "points[0][2] (step_time_us)");
  ExpectError(R"({"format":"graphopt-convergence-suite","version":1,"runs":{}})", "\"runs\" must be an array");
}

TEST(ConvergenceTest, ChartOfHugeValuesEnds) {
  // A run ending at 1.7e308 s used to make the decade ticks loop forever.
  ConvergenceSeries s = Series("a", "go", 500);
  s.end_seconds = 1.7e308;
  s.end_plans = int64_t{1} << 62;
  s.reference_us = 1e-300;
  for (ConvergenceAxis axis : {ConvergenceAxis::kSeconds, ConvergenceAxis::kPlans}) {
    const std::string svg = ConvergenceChartSvg({s}, axis);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    EXPECT_LT(svg.size(), 100000u);
  }
}

TEST(ConvergenceTest, TheCommittedConvergenceFilesLoad) {
  for (const char* file : {"docs/results/placement.convergence.json",
                           "docs/results/policy-alone/placement-60s.convergence.json"}) {
    auto r = ReadConvergenceFile(std::string(GRAPHOPT_SOURCE_DIR) + "/" + file);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_FALSE(r->empty()) << file;
  }
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
