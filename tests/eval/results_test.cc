// The results file: JSON round trip, parse errors, column order, and merging a run
// into earlier results (the columns it ran replace theirs, the others stay).
#include <gtest/gtest.h>

#include <cstdio>

#include "../testing/scratch_dir.h"
#include "core/files.h"
#include "eval/results.h"

namespace graphopt {
namespace {

MethodResult Fits(double step_time_us) {
  MethodResult m;
  m.step_time_us = step_time_us;
  m.peak_memory = {int64_t{9} << 30, 17179869184, 0};
  m.plan_seconds = 0.25;
  return m;
}

RowResult Row(const std::string& name, const std::string& cluster, std::map<std::string, MethodResult> methods) {
  RowResult row;
  row.row = name;
  row.label = "Label of " + name;
  row.model = "model:" + name;
  row.cluster = cluster;
  row.devices = 2;
  row.ops = 1234;
  row.lower_bound_us = 1000.5;
  row.setup_seconds = 0.125;
  row.seconds = 1.5;
  row.methods = std::move(methods);
  return row;
}

std::vector<std::string> RowNames(const SuiteResults& results) {
  std::vector<std::string> names;
  for (const RowResult& r : results.rows) names.push_back(r.row);
  return names;
}

std::vector<std::string> MethodNames(const RowResult& row) {
  std::vector<std::string> names;
  for (const auto& entry : row.methods) names.push_back(entry.first);
  return names;
}

TEST(ResultsTest, JsonRoundTripKeepsEveryField) {
  MethodResult oom = Fits(3e6);
  oom.oom = true;
  MethodResult failed;
  failed.error = "baseline metis: \"quoted\" failure";
  failed.plan_seconds = 0.5;
  SuiteResults results;
  results.rows = {Row("gnmt-4", "4xV100", {{"expert", Fits(123456.789)}, {"single", oom}, {"metis", failed}}),
                  Row("wavenet-2", "2xP100", {{"go", Fits(1.0 / 3.0)}})};
  results.rows[0].fitting_bound_us = 2000.25;  // the second row has none (an older file's)

  auto parsed = ResultsFromJson(ResultsToJson(results), "test.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->rows.size(), 2u);
  const RowResult& a = parsed->rows[0];
  EXPECT_EQ(a.row, "gnmt-4");
  EXPECT_EQ(a.label, "Label of gnmt-4");
  EXPECT_EQ(a.model, "model:gnmt-4");
  EXPECT_EQ(a.cluster, "4xV100");
  EXPECT_EQ(a.devices, 2);
  EXPECT_EQ(a.ops, 1234);
  EXPECT_DOUBLE_EQ(a.lower_bound_us, 1000.5);
  EXPECT_DOUBLE_EQ(a.fitting_bound_us, 2000.25);
  EXPECT_DOUBLE_EQ(parsed->rows[1].fitting_bound_us, 0);
  EXPECT_DOUBLE_EQ(a.setup_seconds, 0.125);
  EXPECT_DOUBLE_EQ(a.seconds, 1.5);
  EXPECT_DOUBLE_EQ(a.methods.at("expert").step_time_us, 123456.789);
  EXPECT_EQ(a.methods.at("expert").peak_memory, (std::vector<int64_t>{int64_t{9} << 30, 17179869184, 0}));
  EXPECT_DOUBLE_EQ(a.methods.at("expert").plan_seconds, 0.25);
  EXPECT_FALSE(a.methods.at("expert").oom);
  EXPECT_TRUE(a.methods.at("single").oom);
  EXPECT_EQ(a.methods.at("metis").error, "baseline metis: \"quoted\" failure");
  EXPECT_TRUE(a.methods.at("metis").failed());
  EXPECT_DOUBLE_EQ(parsed->rows[1].methods.at("go").step_time_us, 1.0 / 3.0);
  EXPECT_EQ(ResultsToJson(*parsed), ResultsToJson(results));
}

TEST(ResultsTest, JsonHasTheDocumentedFormat) {
  SuiteResults results;
  results.rows = {Row("gnmt-4", "4xV100", {{"expert", Fits(100)}})};
  const std::string json = ResultsToJson(results);
  EXPECT_NE(json.find("\"format\": \"graphopt-results\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"version\": 2"), std::string::npos);
  for (const char* key : {"\"decisions\"", "\"judge\"", "\"row\"", "\"model\"", "\"cluster\"", "\"lower_bound_us\"", "\"methods\"", "\"step_time_us\"",
                          "\"oom\"", "\"peak_memory\"", "\"plan_seconds\"", "\"error\""}) {
    EXPECT_NE(json.find(key), std::string::npos) << key;
  }
}

TEST(ResultsTest, TableAndJudgeRoundTripAndVersionOneReadsAsTheOldJudge) {
  SuiteResults results;
  results.decisions = "placement";
  results.judge = 2;
  results.rows = {Row("gnmt-4", "4xV100", {{"expert", Fits(100)}})};
  auto parsed = ResultsFromJson(ResultsToJson(results), "t.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->decisions, "placement");
  EXPECT_EQ(parsed->judge, 2);
  auto old = ResultsFromJson("{\"format\": \"graphopt-results\", \"version\": 1, \"rows\": []}", "old.json");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->decisions, "as-produced");
  EXPECT_EQ(old->judge, 1);
  auto bad = ResultsFromJson(
      "{\"format\": \"graphopt-results\", \"version\": 2, \"decisions\": \"some\", \"judge\": 2, \"rows\": []}",
      "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.json: \"decisions\""), std::string::npos) << bad.status().message();
}

TEST(ResultsTest, RunsOfAnotherTableOrJudgeDoNotMerge) {
  SuiteResults base;
  base.decisions = "placement";
  base.judge = 2;
  base.rows = {Row("gnmt-4", "4xV100", {{"expert", Fits(100)}})};
  SuiteResults update = base;
  EXPECT_TRUE(CheckMergeable(update, base, "r.json").ok());
  update.decisions = "all";
  const Status other_table = CheckMergeable(update, base, "r.json");
  ASSERT_FALSE(other_table.ok());
  EXPECT_NE(other_table.message().find("r.json"), std::string::npos);
  update.decisions = "placement";
  update.judge = 1;
  EXPECT_FALSE(CheckMergeable(update, base, "r.json").ok());
  EXPECT_TRUE(CheckMergeable(update, SuiteResults(), "r.json").ok());  // an empty file takes any
}

TEST(ResultsTest, WrongFormatIsAnErrorNamingTheFile) {
  auto r = ResultsFromJson("{\"format\": \"graphopt-plan\", \"version\": 1, \"rows\": []}", "old.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("old.json"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("graphopt-results"), std::string::npos) << r.status().message();
}

TEST(ResultsTest, BadJsonIsAnError) {
  auto r = ResultsFromJson("{\"format\": ", "broken.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("broken.json: not valid JSON"), std::string::npos) << r.status().message();
}

TEST(ResultsTest, WrongFieldTypeNamesTheRowAndMethod) {
  auto r = ResultsFromJson(
      "{\"format\": \"graphopt-results\", \"version\": 1, \"rows\": [{\"row\": \"gnmt-4\", \"model\": \"gnmt\", "
      "\"cluster\": \"4xV100\", \"methods\": {\"heft\": {\"step_time_us\": \"fast\"}}}]}",
      "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("gnmt-4"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("heft"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("step_time_us"), std::string::npos) << r.status().message();
}

// One row "r" whose method "m" has `method_fields`, with `row_fields` on the row.
std::string OneRow(const std::string& method_fields, const std::string& row_fields = "") {
  return R"({"format": "graphopt-results", "version": 1, "rows": [{"row": "r", "model": "gnmt", "cluster": "4xV100")" +
         row_fields + R"(, "methods": {"m": {)" + method_fields + "}}}]}";
}

void ExpectError(const std::string& text, const std::string& fragment) {
  auto r = ResultsFromJson(text, "r.json");
  ASSERT_FALSE(r.ok()) << "accepted: " << text;
  EXPECT_NE(r.status().message().find("r.json"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
}

TEST(ResultsTest, PeakMemoryBeyondInt64IsAnErrorNotUndefinedBehaviour) {
  // Found by fuzz/results_fuzz: 1.8e19 was converted to int64 (undefined behaviour).
  ExpectError(OneRow(R"("peak_memory": [0, 1.8446744073709552e19])"), "\"peak_memory\"[1]");
  ExpectError(OneRow(R"("peak_memory": [18446744073709551615])"), "out of range");
  ExpectError(OneRow(R"("peak_memory": [-1])"), "out of range");
  ExpectError(OneRow(R"("peak_memory": ["big"])"), "must be an integer");
}

TEST(ResultsTest, PeakMemoryWrittenAsADoubleIsRounded) {
  auto r = ResultsFromJson(OneRow(R"("peak_memory": [4.5e9, 7])"), "r.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->rows[0].methods.at("m").peak_memory, (std::vector<int64_t>{4500000000, 7}));
}

TEST(ResultsTest, CountsAreRangeCheckedBeforeNarrowing) {
  // 2^32 + 2 devices used to read as 2.
  ExpectError(OneRow("", R"(, "devices": 4294967298)"), "rows[0] (\"r\"): \"devices\": 4294967298 is out of range");
  ExpectError(OneRow("", R"(, "devices": -1)"), "\"devices\"");
  ExpectError(OneRow("", R"(, "ops": 1.5)"), "\"ops\": must be an integer");
}

TEST(ResultsTest, NumbersBeyondADoubleAreAnError) {
  ExpectError(OneRow(R"("step_time_us": 1e999)"), "not valid JSON");
}

TEST(ResultsTest, TheCommittedResultsFilesLoad) {
  for (const char* file : {"docs/results/placement.json", "docs/results/policy-alone/placement-60s.json",
                           "docs/results/ablation/ppo-only.json"}) {
    auto r = ReadResultsFile(std::string(GRAPHOPT_SOURCE_DIR) + "/" + file);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_FALSE(r->rows.empty()) << file;
  }
}

TEST(ResultsTest, RepeatedRowIsAnError) {
  SuiteResults results;
  results.rows = {Row("a", "2xP100", {}), Row("a", "2xP100", {})};
  auto r = ResultsFromJson(ResultsToJson(results), "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("appears twice"), std::string::npos) << r.status().message();
}

TEST(ResultsTest, MissingFileReadsAsEmptyResults) {
  auto r = ReadResultsFile(::testing::TempDir() + "graphopt_eval_no_such_results.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->rows.empty());
}

TEST(ResultsTest, WriteCreatesTheFolderAndReadsBack) {
  const testing::ScratchDir scratch("eval_results_dir");
  const std::string dir = scratch.path();
  const std::string path = dir + "/sub/placement.json";
  std::remove(path.c_str());
  SuiteResults results;
  results.rows = {Row("gnmt-4", "4xV100", {{"expert", Fits(100)}})};
  ASSERT_TRUE(WriteResultsFile(results, path).ok());
  auto read = ReadResultsFile(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(RowNames(*read), std::vector<std::string>{"gnmt-4"});
}

TEST(ResultsTest, ColumnsPutBaselinesFirstThenFusedThenTaskConfigurationsThenOthersAlphabetically) {
  SuiteResults results;
  results.rows = {Row("a", "2xP100", {{"hdp", {}}, {"heft", {}}, {"expert+fusion", {}}, {"go", {}}, {"single", {}}}),
                  Row("b", "2xP100", {{"metis", {}}, {"colocrl", {}}, {"single+fusion", {}}, {"expert", {}}}),
                  Row("c", "2xP100", {{"pl+sch+fu", {}}, {"pl|sch", {}}, {"hp-only", {}}, {"sch+fu", {}}})};
  EXPECT_EQ(MethodColumns(results),
            (std::vector<std::string>{"single", "expert", "metis", "heft", "single+fusion", "expert+fusion", "hp-only",
                                      "pl|sch", "sch+fu", "pl+sch+fu", "colocrl", "go", "hdp"}));
}

TEST(ResultsTest, MergingKeepsOtherMethodsColumns) {
  SuiteResults base;
  base.rows = {Row("gnmt-4", "4xV100", {{"expert", Fits(100)}, {"metis", Fits(200)}})};
  SuiteResults update;
  update.rows = {Row("gnmt-4", "4xV100", {{"go", Fits(80)}})};
  const std::vector<std::string> notes = MergeResults(update, &base);
  EXPECT_TRUE(notes.empty());
  ASSERT_EQ(base.rows.size(), 1u);
  EXPECT_EQ(MethodNames(base.rows[0]), (std::vector<std::string>{"expert", "go", "metis"}));
  EXPECT_DOUBLE_EQ(base.rows[0].methods.at("expert").step_time_us, 100);
  EXPECT_DOUBLE_EQ(base.rows[0].methods.at("go").step_time_us, 80);
}

TEST(ResultsTest, MergingReplacesTheColumnsItRan) {
  SuiteResults base;
  base.rows = {Row("gnmt-4", "4xV100", {{"expert", Fits(100)}, {"metis", Fits(200)}})};
  SuiteResults update;
  update.rows = {Row("gnmt-4", "4xV100", {{"expert", Fits(90)}})};
  update.rows[0].lower_bound_us = 42;
  MergeResults(update, &base);
  EXPECT_DOUBLE_EQ(base.rows[0].methods.at("expert").step_time_us, 90);
  EXPECT_DOUBLE_EQ(base.rows[0].methods.at("metis").step_time_us, 200);
  EXPECT_DOUBLE_EQ(base.rows[0].lower_bound_us, 42);
}

TEST(ResultsTest, MergingARowOnAnotherClusterDropsItsOldColumns) {
  SuiteResults base;
  base.rows = {Row("gnmt-4", "4xV100", {{"expert", Fits(100)}, {"metis", Fits(200)}})};
  SuiteResults update;
  update.rows = {Row("gnmt-4", "8xV100", {{"expert", Fits(90)}})};
  const std::vector<std::string> notes = MergeResults(update, &base);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("metis"), std::string::npos) << notes[0];
  EXPECT_EQ(base.rows[0].cluster, "8xV100");
  EXPECT_EQ(MethodNames(base.rows[0]), std::vector<std::string>{"expert"});
}

TEST(ResultsTest, MergingNewRowsFollowsTheUpdatesOrder) {
  SuiteResults base;
  base.rows = {Row("c", "2xP100", {{"expert", Fits(1)}})};
  SuiteResults update;
  update.rows = {Row("a", "2xP100", {}), Row("b", "2xP100", {}), Row("c", "2xP100", {}), Row("d", "2xP100", {})};
  MergeResults(update, &base);
  EXPECT_EQ(RowNames(base), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(base.rows[2].methods.count("expert"), 1u);
}

}  // namespace
}  // namespace graphopt
