// The reports of a hand-made results set whose numbers can be checked on paper: the
// Markdown table (speedups, bold best, OOM and error cells, geometric means), the CSV
// and the SVG chart.
#include <gtest/gtest.h>

#include <vector>

#include "eval/report.h"
#include "eval/svg_chart.h"

namespace graphopt {
namespace {

MethodResult Fits(double step_time_us) {
  MethodResult m;
  m.step_time_us = step_time_us;
  m.peak_memory = {1000, 2000, 0};
  return m;
}

MethodResult Oom(double step_time_us) {
  MethodResult m = Fits(step_time_us);
  m.oom = true;
  m.peak_memory = {int64_t{20} << 30, 0, 0};
  return m;
}

MethodResult Failed(const std::string& error) {
  MethodResult m;
  m.error = error;
  return m;
}

// Row a (bound 50 ms): single 400 ms (0.50x), expert 200, metis 100 (2.00x), heft OOM,
//   go 80 ms (2.50x, best; 1.60x the bound).
// Row b (bound 100 ms): single 150 ms (2.00x, best; 1.50x the bound), expert 300,
//   metis fails, heft 600 ms (0.50x), go not run.
// Geometric means: single sqrt(0.5 x 2) = 1, expert 1, metis 2, heft 0.5, go 2.5.
SuiteResults HandMade() {
  SuiteResults results;
  RowResult a;
  a.row = "a";
  a.label = "Model A";
  a.model = "m-a";
  a.cluster = "2xP100";
  a.devices = 2;
  a.ops = 10;
  a.lower_bound_us = 50000;
  a.methods = {{"single", Fits(400000)}, {"expert", Fits(200000)}, {"metis", Fits(100000)}, {"heft", Oom(900000)},
               {"go", Fits(80000)}};
  RowResult b = a;
  b.row = "b";
  b.label = "Model B";
  b.model = "m-b";
  b.lower_bound_us = 100000;
  b.methods = {{"single", Fits(150000)},
               {"expert", Fits(300000)},
               {"metis", Failed("metis failed: bad, \"really\" | bad")},
               {"heft", Fits(600000)}};
  results.rows = {a, b};
  return results;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

bool HasLine(const std::string& text, const std::string& line) {
  for (const std::string& l : Lines(text)) {
    if (l == line) return true;
  }
  return false;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

TEST(ReportTest, SpeedupIsExpertTimeOverMethodTime) {
  const SuiteResults r = HandMade();
  EXPECT_DOUBLE_EQ(*SpeedupOverExpert(r.rows[0], "metis"), 2.0);
  EXPECT_DOUBLE_EQ(*SpeedupOverExpert(r.rows[0], "single"), 0.5);
  EXPECT_FALSE(SpeedupOverExpert(r.rows[0], "heft").has_value());   // OOM
  EXPECT_FALSE(SpeedupOverExpert(r.rows[1], "metis").has_value());  // failed
  EXPECT_FALSE(SpeedupOverExpert(r.rows[1], "go").has_value());     // not run
}

TEST(ReportTest, BestMethodIsTheFastestThatFits) {
  const SuiteResults r = HandMade();
  EXPECT_EQ(BestMethods(r.rows[0]), std::vector<std::string>{"go"});
  EXPECT_EQ(BestMethods(r.rows[1]), std::vector<std::string>{"single"});
}

TEST(ReportTest, GeometricMeanRunsOverRowsWhereBothFit) {
  const std::vector<MethodSummary> s = SummarizeMethods(HandMade());
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].method, "single");
  EXPECT_NEAR(s[0].geomean_speedup, 1.0, 1e-12);
  EXPECT_EQ(s[0].rows_compared, 2);
  EXPECT_EQ(s[2].method, "metis");
  EXPECT_NEAR(s[2].geomean_speedup, 2.0, 1e-12);
  EXPECT_EQ(s[2].rows_run, 2);
  EXPECT_EQ(s[2].rows_fit, 1);
  EXPECT_EQ(s[3].method, "heft");
  EXPECT_NEAR(s[3].geomean_speedup, 0.5, 1e-12);
}

TEST(ReportTest, MarkdownHeaderListsMethodsInColumnOrder) {
  const std::string md = ResultsMarkdown(HandMade());
  EXPECT_TRUE(HasLine(md, "| graph (devices) | cluster | single | expert | metis | heft | go | lower bound | best / bound |")) << md;
  EXPECT_TRUE(HasLine(md, "|---|---|---:|---:|---:|---:|---:|---:|---:|")) << md;
}

TEST(ReportTest, MarkdownRowShowsSpeedupsOomAndBoldBest) {
  const std::string md = ResultsMarkdown(HandMade());
  EXPECT_TRUE(HasLine(md, "| Model A (2) | 2xP100 | 400.0 (0.50x) | 200.0 (1.00x) | 100.0 (2.00x) | OOM | **80.0** (2.50x) | 50.0 | 1.60x |"))
      << md;
}

TEST(ReportTest, TheTighterBoundForPlansThatFitGetsItsColumnsWhereRowsHaveIt) {
  SuiteResults r = HandMade();
  r.rows[0].fitting_bound_us = 64000;  // best 80 ms: 1.25x the tighter bound
  const std::string md = ResultsMarkdown(r);
  EXPECT_TRUE(HasLine(md, "| graph (devices) | cluster | single | expert | metis | heft | go | lower bound | best / bound "
                          "| tighter bound | best / tighter |"))
      << md;
  EXPECT_TRUE(HasLine(md, "| Model A (2) | 2xP100 | 400.0 (0.50x) | 200.0 (1.00x) | 100.0 (2.00x) | OOM | **80.0** (2.50x) "
                          "| 50.0 | 1.60x | 64.0 | 1.25x |"))
      << md;
  EXPECT_NE(md.find("| 100.0 | 1.50x | – | – |"), std::string::npos) << md;  // row b has none
  EXPECT_EQ(Lines(ResultsCsv(r))[1], "a,Model A,m-a,2xP100,2,10,single,ok,400000,0.5,50000,8,0.000000,2000,,64000");
}

TEST(ReportTest, MarkdownRowShowsErrorsWithFootnoteAndMissingRuns) {
  const std::string md = ResultsMarkdown(HandMade());
  EXPECT_TRUE(HasLine(md, "| Model B (2) | 2xP100 | **150.0** (2.00x) | 300.0 (1.00x) | error [1] | 600.0 (0.50x) | – | 100.0 | 1.50x |"))
      << md;
  EXPECT_TRUE(HasLine(md, "[1] metis on b: metis failed: bad, \"really\" \\| bad")) << md;
}

TEST(ReportTest, MarkdownEndsWithGeometricMeansAndFitCounts) {
  const std::string md = ResultsMarkdown(HandMade());
  EXPECT_TRUE(HasLine(md, "| geometric mean of speedups | | 1.00x | 1.00x | 2.00x | 0.50x | 2.50x | | |")) << md;
  EXPECT_TRUE(HasLine(md, "| plans that fit in memory | | 2/2 | 2/2 | 1/2 | 1/2 | 1/1 | | |")) << md;
}

TEST(ReportTest, MarkdownGivesEachMethodsLongestTimeToPlan) {
  SuiteResults r = HandMade();
  r.rows[0].methods["single"].plan_seconds = 0.004;
  r.rows[1].methods["single"].plan_seconds = 0.0123;
  r.rows[0].methods["metis"].plan_seconds = 1.5;
  r.rows[1].methods["metis"].plan_seconds = 2.25;  // failed, but it took that long
  r.rows[0].methods["heft"].plan_seconds = 148.7;
  r.rows[0].methods["go"].plan_seconds = 60.2;
  const std::string md = ResultsMarkdown(r);
  EXPECT_TRUE(HasLine(md, "| time to plan, longest row | | 0.012 s | 0 s | 2.2 s | 149 s | 60 s | | |")) << md;
}

TEST(ReportTest, NoExpertMeansNoSpeedups) {
  SuiteResults r = HandMade();
  r.rows[0].methods["expert"] = Oom(1e6);
  const std::string md = ResultsMarkdown(r);
  EXPECT_TRUE(HasLine(md, "| Model A (2) | 2xP100 | 400.0 | OOM | 100.0 | OOM | **80.0** | 50.0 | 1.60x |")) << md;
}

TEST(ReportTest, CsvHasOneLinePerRowAndMethod) {
  const std::string csv = ResultsCsv(HandMade());
  const std::vector<std::string> lines = Lines(csv);
  ASSERT_EQ(lines.size(), 10u) << csv;  // header + 5 + 4
  EXPECT_EQ(lines[0],
            "row,label,model,cluster,devices,ops,method,status,step_time_us,speedup_vs_expert,lower_bound_us,"
            "step_over_bound,plan_seconds,max_peak_memory_bytes,error,fitting_bound_us");
  EXPECT_EQ(lines[1], "a,Model A,m-a,2xP100,2,10,single,ok,400000,0.5,50000,8,0.000000,2000,,");
  EXPECT_EQ(lines[4], "a,Model A,m-a,2xP100,2,10,heft,oom,900000,,50000,18,0.000000,21474836480,,");
  EXPECT_EQ(lines[8], "b,Model B,m-b,2xP100,2,10,metis,error,,,100000,,0.000000,,\"metis failed: bad, \"\"really\"\" | bad\",");
}

TEST(ReportTest, ReportPathsSitNextToTheJson) {
  const ReportPaths p = ReportPathsFor("results/placement.json");
  EXPECT_EQ(p.json, "results/placement.json");
  EXPECT_EQ(p.markdown, "results/placement.md");
  EXPECT_EQ(p.csv, "results/placement.csv");
  EXPECT_EQ(p.svg, "results/placement.svg");
  EXPECT_EQ(ReportPathsFor("out").svg, "out.svg");
}

// Checks that every tag is closed in order (a small XML well-formedness check).
::testing::AssertionResult WellFormed(const std::string& xml) {
  std::vector<std::string> open;
  size_t at = 0;
  while ((at = xml.find('<', at)) != std::string::npos) {
    const size_t end = xml.find('>', at);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unterminated tag at " << at;
    const std::string tag = xml.substr(at + 1, end - at - 1);
    at = end + 1;
    if (tag.empty()) return ::testing::AssertionFailure() << "empty tag";
    if (tag[0] == '?' || tag[0] == '!') continue;
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) {
        return ::testing::AssertionFailure() << "</" << name << "> closes " << (open.empty() ? "nothing" : open.back());
      }
      open.pop_back();
      continue;
    }
    if (tag.back() == '/') continue;
    open.push_back(tag.substr(0, tag.find_first_of(" \t\n")));
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> is never closed";
  return ::testing::AssertionSuccess();
}

TEST(SvgChartTest, IsWellFormedSvg) {
  const std::string svg = SpeedupChartSvg(HandMade());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << svg.substr(0, 100);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_TRUE(WellFormed(svg));
}

TEST(SvgChartTest, HasOneBarPerResultAndMarksOomAndErrors) {
  const std::string svg = SpeedupChartSvg(HandMade());
  EXPECT_EQ(Count(svg, "<rect class=\"bar\""), 9u);  // 5 in row a, 4 in row b (go did not run there)
  EXPECT_EQ(Count(svg, ">OOM</text>"), 1u);
  EXPECT_EQ(Count(svg, ">error</text>"), 1u);
  EXPECT_EQ(Count(svg, "class=\"bound\""), 2u);  // a lower-bound marker per row
}

TEST(SvgChartTest, HasLegendAndRowLabels) {
  const std::string svg = SpeedupChartSvg(HandMade());
  for (const char* text : {">single</text>", ">expert</text>", ">metis</text>", ">heft</text>", ">go</text>", ">Model</text>",
                           ">A</text>", ">B</text>", ">2xP100</text>", ">1x</text>"}) {
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  }
}

TEST(SvgChartTest, EscapesText) {
  SuiteResults r = HandMade();
  r.rows[0].label = "A<&>\"B";
  const std::string svg = SpeedupChartSvg(r);
  EXPECT_NE(svg.find("A&lt;&amp;&gt;&quot;B"), std::string::npos);
  EXPECT_TRUE(WellFormed(svg));
}

TEST(SvgChartTest, RowWithoutExpertSaysSo) {
  SuiteResults r = HandMade();
  r.rows[1].methods["expert"] = Oom(1e6);
  const std::string svg = SpeedupChartSvg(r);
  EXPECT_NE(svg.find(">no expert</text>"), std::string::npos);
  EXPECT_EQ(Count(svg, "class=\"bound\""), 1u);
  EXPECT_TRUE(WellFormed(svg));
}

TEST(SvgChartTest, EmptyResultsStillGiveAChart) {
  const std::string svg = SpeedupChartSvg(SuiteResults());
  EXPECT_TRUE(WellFormed(svg));
  EXPECT_EQ(Count(svg, "class=\"bar\""), 0u);
}

}  // namespace
}  // namespace graphopt
