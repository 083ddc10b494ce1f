// The suite's rows and methods, picking them by name, and a tiny suite run end to
// end through the library.
#include <gtest/gtest.h>

#include "eval/report.h"
#include "eval/suite.h"
#include "models/load.h"
#include "sim/cluster.h"

namespace graphopt {
namespace {

// A small RNNLM that builds and simulates in well under a second.
SuiteRow TinyRow() { return SuiteRow{"tiny", "RNNLM tiny", "rnnlm:layers=2,steps=2,hidden=256,vocab=1000", 2, "2xP100"}; }

std::vector<std::string> Names(const std::vector<MethodSpec>& methods) {
  std::vector<std::string> names;
  for (const MethodSpec& m : methods) names.push_back(m.name);
  return names;
}

TEST(SuiteTest, HasTheThirteenRowsOfThePlacementTable) {
  const std::vector<SuiteRow>& rows = PlacementSuiteRows();
  ASSERT_EQ(rows.size(), 13u);
  EXPECT_EQ(rows[0].name, "rnnlm-2");
  EXPECT_EQ(rows[4].model, "gnmt:layers=4");
  EXPECT_EQ(rows[4].devices, 4);
  EXPECT_EQ(rows[8].model, "transformer_xl:layers=8");
  EXPECT_EQ(rows[8].cluster, "8xV100");
  EXPECT_EQ(rows[9].model, "inception_v3");
  EXPECT_EQ(rows[9].devices, 2);
  EXPECT_EQ(rows[10].model, "amoebanet");
  EXPECT_EQ(rows[10].devices, 4);
  EXPECT_EQ(rows[11].model, "wavenet");
  EXPECT_EQ(rows[12].model, "wavenet:stacks=4,layers=36");
  EXPECT_EQ(rows[12].cluster, "4xV100");
}

TEST(SuiteTest, EveryRowsPresetHasItsNumberOfAccelerators) {
  for (const SuiteRow& row : PlacementSuiteRows()) {
    auto cluster = ClusterPreset(row.cluster);
    ASSERT_TRUE(cluster.ok()) << row.name << ": " << cluster.status().message();
    EXPECT_EQ(static_cast<int>(cluster->Accelerators().size()), row.devices) << row.name;
  }
}

TEST(SuiteTest, SelectsRowsByNameInTheGivenOrder) {
  auto rows = SelectRows(PlacementSuiteRows(), "wavenet-2, gnmt-4");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].name, "wavenet-2");
  EXPECT_EQ((*rows)[1].name, "gnmt-4");
  EXPECT_EQ(SelectRows(PlacementSuiteRows(), "")->size(), 13u);
}

TEST(SuiteTest, UnknownRowIsAnErrorListingTheRows) {
  auto rows = SelectRows(PlacementSuiteRows(), "gnmt-4,gnmt-16");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("unknown suite row \"gnmt-16\""), std::string::npos) << rows.status().message();
  EXPECT_NE(rows.status().message().find("wavenet-4"), std::string::npos) << rows.status().message();
}

TEST(SuiteTest, RepeatedRowIsAnError) {
  auto rows = SelectRows(PlacementSuiteRows(), "gnmt-4,gnmt-4");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("twice"), std::string::npos) << rows.status().message();
}

TEST(SuiteTest, ModelRowsAreNamedByTheirFileOnTheGivenCluster) {
  auto rows = ModelRows({"../shared/data/onnx/resnet50.onnx", "gnmt:layers=2"}, "1xV100+2xP100");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].name, "resnet50.onnx");
  EXPECT_EQ((*rows)[0].model, "../shared/data/onnx/resnet50.onnx");
  EXPECT_EQ((*rows)[1].name, "gnmt:layers=2");
  for (const SuiteRow& row : *rows) {
    EXPECT_EQ(row.cluster, "1xV100+2xP100");
    EXPECT_EQ(row.devices, 3);
  }
  auto twice = ModelRows({"a/x.onnx", "b/x.onnx"}, "2xV100");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("two models are named x.onnx"), std::string::npos) << twice.status().message();
  auto bad = ModelRows({"x.onnx"}, "3xA100");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("A100"), std::string::npos) << bad.status().message();
}

TEST(SuiteTest, DefaultMethodsAreEveryBaseline) {
  auto methods = ParseMethods("", false);
  ASSERT_TRUE(methods.ok());
  EXPECT_EQ(Names(*methods), (std::vector<std::string>{"single", "tf-default", "expert", "metis", "scotch", "heft"}));
}

TEST(SuiteTest, UnknownMethodIsAnErrorListingTheMethods) {
  auto methods = ParseMethods("expert,hdp", false);
  ASSERT_FALSE(methods.ok());
  EXPECT_NE(methods.status().message().find("unknown method \"hdp\""), std::string::npos) << methods.status().message();
  EXPECT_NE(methods.status().message().find("scotch"), std::string::npos) << methods.status().message();
  EXPECT_FALSE(ParseMethods("expert+fusion+fusion", false).ok());
  EXPECT_FALSE(ParseMethods("expert,expert", false).ok());
}

TEST(SuiteTest, FusionAddsAFusedVariantOfEachPlacement) {
  auto methods = ParseMethods("expert,tf-default,metis+fusion", true);
  ASSERT_TRUE(methods.ok()) << methods.status().message();
  EXPECT_EQ(Names(*methods), (std::vector<std::string>{"expert", "expert+fusion", "tf-default", "metis+fusion"}));
  EXPECT_EQ((*methods)[1].pipeline.planner->name, "expert");
  ASSERT_EQ((*methods)[1].pipeline.stages.size(), 1u);
  EXPECT_EQ((*methods)[1].pipeline.stages[0]->name, "fusion");
  EXPECT_TRUE((*methods)[0].pipeline.stages.empty());
}

TEST(SuiteTest, TinySuiteRunsEndToEnd) {
  SuiteOptions options;
  options.rows = {TinyRow()};
  options.methods = *ParseMethods("single,expert,heft+fusion", false);
  int calls = 0;
  auto results = RunSuite(options, [&](const RowResult& row) {
    ++calls;
    EXPECT_EQ(row.row, "tiny");
    return Status::Ok();
  });
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(results->rows.size(), 1u);
  const RowResult& row = results->rows[0];
  EXPECT_EQ(row.model, TinyRow().model);
  EXPECT_EQ(row.cluster, "2xP100");
  EXPECT_EQ(row.devices, 2);
  EXPECT_GT(row.ops, 0);
  EXPECT_GT(row.lower_bound_us, 0);
  ASSERT_EQ(row.methods.size(), 3u);
  for (const auto& [name, m] : row.methods) {
    EXPECT_FALSE(m.failed()) << name << ": " << m.error;
    EXPECT_FALSE(m.oom) << name;
    EXPECT_GE(m.step_time_us, row.lower_bound_us * (1 - 1e-9)) << name;
    EXPECT_EQ(m.peak_memory.size(), 3u) << name;  // 2 GPUs and the host
    EXPECT_GE(m.plan_seconds, 0) << name;
  }
  EXPECT_TRUE(SpeedupOverExpert(row, "single").has_value());
  EXPECT_NE(ResultsMarkdown(*results).find("| RNNLM tiny (2) | 2xP100 |"), std::string::npos);
}

TEST(SuiteTest, OtherPlannersJoinThroughAPlanFunction) {
  SuiteOptions options;
  options.rows = {TinyRow()};
  MethodSpec constant;
  constant.name = "all-on-gpu1";
  constant.plan = [](const Graph& graph, const Cluster&, const Simulator&) -> StatusOr<Plan> { return DefaultPlan(graph, 1); };
  MethodSpec failing;
  failing.name = "broken";
  failing.plan = [](const Graph&, const Cluster&, const Simulator&) -> StatusOr<Plan> { return InternalError("no policy"); };
  options.methods = {*ParseMethod("single"), constant, failing};
  auto results = RunSuite(options);
  ASSERT_TRUE(results.ok()) << results.status().message();
  const RowResult& row = results->rows[0];
  // The same graph on another identical GPU takes the same time.
  EXPECT_DOUBLE_EQ(row.methods.at("all-on-gpu1").step_time_us, row.methods.at("single").step_time_us);
  EXPECT_EQ(row.methods.at("all-on-gpu1").peak_memory[0], 0);
  EXPECT_EQ(row.methods.at("broken").error, "no policy");
}

// A placement table gives every column the framework's defaults (ready order, greedy
// elementwise fusion): a planner's own priorities and fusion flags are replaced, so
// its column equals the baseline with the same devices; a full-optimizer table keeps
// a planner's plan and gives the baselines greedy legal fusion and critical-path
// priorities.
TEST(SuiteTest, TablesGiveEveryColumnTheSameDefaults) {
  MethodSpec own;
  own.name = "single-own";
  own.plan = [](const Graph& graph, const Cluster&, const Simulator&) -> StatusOr<Plan> {
    Plan plan = DefaultPlan(graph, 0);
    for (size_t i = 0; i < plan.priority.size(); ++i) plan.priority[i] = static_cast<double>(i % 7);
    return plan;
  };
  SuiteOptions options;
  options.rows = {TinyRow()};
  options.methods = {*ParseMethod("single"), *ParseMethod("tf-default"), own};
  options.decisions = TableDecisions::kPlacement;
  auto placement = RunSuite(options);
  ASSERT_TRUE(placement.ok()) << placement.status().message();
  EXPECT_EQ(placement->decisions, "placement");
  EXPECT_EQ(placement->judge, kJudgeVersion);
  const RowResult& p = placement->rows[0];
  EXPECT_DOUBLE_EQ(p.methods.at("single").step_time_us, p.methods.at("tf-default").step_time_us);
  EXPECT_DOUBLE_EQ(p.methods.at("single-own").step_time_us, p.methods.at("tf-default").step_time_us);

  options.decisions = TableDecisions::kAsProduced;
  auto produced = RunSuite(options);
  ASSERT_TRUE(produced.ok());
  const RowResult& a = produced->rows[0];
  EXPECT_GT(a.methods.at("single").step_time_us, a.methods.at("tf-default").step_time_us);  // no fusion

  options.decisions = TableDecisions::kAll;
  auto all = RunSuite(options);
  ASSERT_TRUE(all.ok());
  const RowResult& f = all->rows[0];
  EXPECT_DOUBLE_EQ(f.methods.at("single-own").step_time_us, a.methods.at("single-own").step_time_us);
  EXPECT_LE(f.methods.at("single").step_time_us, a.methods.at("single").step_time_us);
  EXPECT_NE(ResultsMarkdown(*all).find("Full-optimizer table"), std::string::npos);
  EXPECT_NE(ResultsMarkdown(*placement).find("Placement table"), std::string::npos);
}

TEST(SuiteTest, TableDecisionsHaveNames) {
  for (TableDecisions d : {TableDecisions::kPlacement, TableDecisions::kAll, TableDecisions::kAsProduced}) {
    EXPECT_EQ(*TableDecisionsFromName(TableDecisionsName(d)), d);
  }
  EXPECT_FALSE(TableDecisionsFromName("fair").ok());
}

TEST(SuiteTest, RunsAreDeterministic) {
  SuiteOptions options;
  options.rows = {TinyRow()};
  options.methods = *ParseMethods("expert,metis", false);
  auto first = RunSuite(options);
  auto second = RunSuite(options);
  ASSERT_TRUE(first.ok() && second.ok());
  for (const char* m : {"expert", "metis"}) {
    EXPECT_EQ(first->rows[0].methods.at(m).step_time_us, second->rows[0].methods.at(m).step_time_us) << m;
  }
}

TEST(SuiteTest, ClusterOverrideAppliesToEveryRow) {
  SuiteOptions options;
  options.rows = {TinyRow()};
  options.methods = *ParseMethods("expert", false);
  options.cluster_override = "4xV100";
  auto results = RunSuite(options);
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_EQ(results->rows[0].cluster, "4xV100");
  EXPECT_EQ(results->rows[0].devices, 4);
}

TEST(SuiteTest, UnknownClusterFailsBeforeRunning) {
  SuiteOptions options;
  options.rows = {TinyRow()};
  options.cluster_override = "3xAbacus";
  int calls = 0;
  auto results = RunSuite(options, [&](const RowResult&) {
    ++calls;
    return Status::Ok();
  });
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(calls, 0);
  EXPECT_NE(results.status().message().find("3xAbacus"), std::string::npos) << results.status().message();
}

// The estimate that deals rows to ranks: a time-limited method costs its limit on
// every row, any other grows with the ops (0.5 ms each); a row that cannot be built
// costs nothing here (running it reports the error).
TEST(SuiteTest, EstimatedRowSecondsGrowWithOpsAndAddTimeLimits) {
  const SuiteRow small = TinyRow();
  SuiteRow large = TinyRow();
  large.model = "rnnlm:layers=4,steps=2,hidden=256,vocab=1000";
  const SuiteRow broken{"broken", "Broken", "rnnlm:layers=0", 2, "2xP100"};
  MethodSpec learned;
  learned.name = "go";
  learned.fixed_seconds = 60;
  const std::vector<SuiteRow> rows{small, large, broken};
  const std::vector<double> heuristic = EstimateRowSeconds(rows, *ParseMethods("single,expert", false));
  const double small_ops = static_cast<double>(LoadModel(small.model)->num_ops());
  const double large_ops = static_cast<double>(LoadModel(large.model)->num_ops());
  ASSERT_GT(large_ops, small_ops);
  ASSERT_EQ(heuristic.size(), 3u);
  EXPECT_DOUBLE_EQ(heuristic[0], 2 * 0.5e-3 * small_ops);
  EXPECT_DOUBLE_EQ(heuristic[1], 2 * 0.5e-3 * large_ops);
  EXPECT_EQ(heuristic[2], 0);
  const std::vector<double> with_learned = EstimateRowSeconds(rows, {*ParseMethod("single"), learned});
  EXPECT_DOUBLE_EQ(with_learned[0], 60 + 0.5e-3 * small_ops);
  EXPECT_DOUBLE_EQ(with_learned[2], 60);
}

TEST(SuiteTest, BadModelNamesTheRow) {
  SuiteOptions options;
  options.rows = {SuiteRow{"broken", "Broken", "rnnlm:layers=0", 2, "2xP100"}};
  auto results = RunSuite(options);
  ASSERT_FALSE(results.ok());
  EXPECT_NE(results.status().message().find("suite row broken"), std::string::npos) << results.status().message();
}

TEST(SuiteTest, CallbackErrorStopsTheSuite) {
  SuiteOptions options;
  options.rows = {TinyRow(), TinyRow()};
  options.rows[1].name = "tiny-again";
  options.methods = *ParseMethods("single", false);
  int calls = 0;
  auto results = RunSuite(options, [&](const RowResult&) {
    ++calls;
    return IoError("disk full");
  });
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(results.status().message(), "disk full");
}

TEST(SuiteTest, SortsRowsInSuiteOrder) {
  SuiteResults results;
  for (const char* name : {"custom", "gnmt-8", "rnnlm-2", "gnmt-2"}) {
    RowResult row;
    row.row = name;
    results.rows.push_back(row);
  }
  SortRowsInSuiteOrder(PlacementSuiteRows(), &results);
  std::vector<std::string> names;
  for (const RowResult& r : results.rows) names.push_back(r.row);
  EXPECT_EQ(names, (std::vector<std::string>{"rnnlm-2", "gnmt-2", "gnmt-8", "custom"}));
}

}  // namespace
}  // namespace graphopt
