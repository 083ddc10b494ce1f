// The plan-file planner, plan:FILE (baselines/plan_file.cc): a plan written by a
// baseline comes back the same, takes the stages as the baseline does, and a file that
// is missing, damaged or of another graph or cluster is refused naming the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "../testing/scratch_dir.h"
#include "baselines/baseline.h"
#include "baselines/planner.h"
#include "sim/random_graph.h"

namespace graphopt {
namespace {

Graph RandomGraph(uint64_t seed, int num_ops = 300) {
  RandomGraphOptions options;
  options.num_ops = num_ops;
  return RandomLayeredGraph(options, seed);
}

void ExpectSamePlan(const Plan& a, const Plan& b, const std::string& what) {
  EXPECT_EQ(a.device, b.device) << what;
  EXPECT_EQ(a.priority, b.priority) << what;
  EXPECT_EQ(a.fuse_with_producer, b.fuse_with_producer) << what;
}

// The error of running `method` on the graph and cluster (a failure if it succeeds).
std::string ErrorOf(const std::string& method, const Graph& g, const Cluster& cluster) {
  auto plan = RunBaseline(method, g, cluster, CostModel());
  EXPECT_FALSE(plan.ok()) << method << " was accepted";
  return plan.ok() ? std::string() : plan.status().message();
}

TEST(PlanFilePlannerTest, ABaselinesPlanComesBackTheSame) {
  const testing::ScratchDir scratch("plan_file_same");
  const Graph g = RandomGraph(1);
  const Cluster cluster = *ClusterPreset("4xV100");
  const CostModel cost;
  for (const std::string method : {"metis", "heft+fusion+cp", "tf-default", "random"}) {
    auto made = RunBaseline(method, g, cluster, cost);
    ASSERT_TRUE(made.ok()) << method << ": " << made.status().message();
    std::string file = method;
    std::replace(file.begin(), file.end(), '+', '-');
    const std::string path = scratch.Path(file + ".plan.json");  // '/' and '.' in the path
    ASSERT_TRUE(WritePlanJson(g, *made, path).ok());
    auto read = RunBaseline("plan:" + path, g, cluster, cost);
    ASSERT_TRUE(read.ok()) << read.status().message();
    ExpectSamePlan(*read, *made, method);
  }
}

TEST(PlanFilePlannerTest, StagesApplyAsToTheBaselineItself) {
  const testing::ScratchDir scratch("plan_file_stages");
  const Graph g = RandomGraph(2);
  const Cluster cluster = *ClusterPreset("4xV100");
  const CostModel cost;
  for (const std::string baseline : {"metis", "expert", "heft"}) {
    const std::string path = scratch.Path(baseline + ":plain.json");  // a ':' in the path is the file's
    ASSERT_TRUE(WritePlanJson(g, *RunBaseline(baseline, g, cluster, cost), path).ok());
    for (const std::string stages : {"+fusion", "+cp", "+fusion+cp", "+cp+fusion"}) {
      auto expected = RunBaseline(baseline + stages, g, cluster, cost);
      auto from_file = RunBaseline("plan:" + path + stages, g, cluster, cost);
      ASSERT_TRUE(expected.ok()) << expected.status().message();
      ASSERT_TRUE(from_file.ok()) << from_file.status().message();
      ExpectSamePlan(*from_file, *expected, baseline + stages);
    }
    // BaselineOptions::fusion too, and the pipeline as the suite runs it.
    BaselineOptions fused;
    fused.fusion = true;
    ExpectSamePlan(*RunBaseline("plan:" + path, g, cluster, cost, fused),
                   *RunBaseline(baseline, g, cluster, cost, fused), baseline + " with options.fusion");
    auto pipeline = ParsePipeline("plan:" + path + "+fusion");
    ASSERT_TRUE(pipeline.ok()) << pipeline.status().message();
    auto planned = PlanWith(*pipeline, PlannerSettings{}, PlanContext{g, cluster, cost});
    ASSERT_TRUE(planned.ok()) << planned.status().message();
    ExpectSamePlan(*planned, *RunBaseline(baseline + "+fusion", g, cluster, cost), baseline + " by PlanWith");
  }
}

TEST(PlanFilePlannerTest, RefusesMissingDamagedAndForeignFilesNamingThem) {
  const testing::ScratchDir scratch("plan_file_refused");
  const Graph g = RandomGraph(3);
  const Cluster cluster = *ClusterPreset("4xV100");
  const std::string missing = scratch.Path("missing.json");
  std::string e = ErrorOf("plan:" + missing + "+fusion", g, cluster);
  EXPECT_NE(e.find(missing + ": cannot open"), std::string::npos) << e;

  const std::string damaged = scratch.Path("damaged.json");
  std::ofstream(damaged) << "{\"format\": \"graphopt-plan\", \"version\": 1, \"device\": [0, 1";
  e = ErrorOf("plan:" + damaged, g, cluster);
  EXPECT_NE(e.find(damaged + ": not valid JSON"), std::string::npos) << e;
  const std::string not_a_plan = scratch.Path("not_a_plan.json");
  std::ofstream(not_a_plan) << "[1, 2, 3]";
  e = ErrorOf("plan:" + not_a_plan, g, cluster);
  EXPECT_NE(e.find(not_a_plan + ": a plan must be a JSON object"), std::string::npos) << e;

  // A plan of another graph: another name, or the same name and another op count.
  const Graph other = RandomGraph(4);
  const std::string foreign = scratch.Path("foreign.json");
  ASSERT_TRUE(WritePlanJson(other, *RunBaseline("metis", other, cluster, CostModel()), foreign).ok());
  e = ErrorOf("plan:" + foreign, g, cluster);
  EXPECT_NE(e.find(foreign + ": the plan is for graph \"" + other.name() + "\", not \"" + g.name() + "\""),
            std::string::npos)
      << e;
  Graph renamed = RandomGraph(5, 200);
  renamed.set_name(g.name());
  const std::string shorter = scratch.Path("shorter.json");
  ASSERT_TRUE(WritePlanJson(renamed, DefaultPlan(renamed), shorter).ok());
  e = ErrorOf("plan:" + shorter, g, cluster);
  ASSERT_NE(renamed.num_ops(), g.num_ops());
  EXPECT_NE(e.find(shorter + ": plan is for " + std::to_string(renamed.num_ops()) + " ops"), std::string::npos) << e;

  // A plan of a larger cluster: devices this one does not have.
  const std::string four = scratch.Path("four.json");
  Plan spread = DefaultPlan(g);
  for (size_t i = 0; i < spread.device.size(); ++i) spread.device[i] = static_cast<DeviceId>(i % 4);
  RespectColocation(g, &spread);
  ASSERT_TRUE(ValidatePlan(g, cluster, spread).ok());
  ASSERT_TRUE(WritePlanJson(g, spread, four).ok());
  e = ErrorOf("plan:" + four, g, *ClusterPreset("2xP100"));
  EXPECT_NE(e.find(four + ": not a valid plan of " + g.name() + " on cluster 2xP100"), std::string::npos) << e;
}

TEST(PlanFilePlannerTest, TheRegistryNamesItPlanFile) {
  PlannerRegistry& r = PlannerRegistry::Global();
  const PlannerInfo* bare = r.Find("plan");
  ASSERT_NE(bare, nullptr);
  EXPECT_EQ(PlannerUsageName(*bare), "plan:FILE");
  EXPECT_EQ(bare->kind, PlannerKind::kBaseline);
  EXPECT_FALSE(bare->standard);
  EXPECT_FALSE(bare->decides_fusion);
  EXPECT_NE(r.KnownNames().find("plan:FILE"), std::string::npos) << r.KnownNames();
  // One entry per name, kept: the same address on every lookup, not among Planners().
  const PlannerInfo* a = r.Find("plan:runs/a.json");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, r.Find("plan:runs/a.json"));
  EXPECT_NE(a, r.Find("plan:runs/b.json"));
  EXPECT_EQ(a->name, "plan:runs/a.json");
  EXPECT_EQ(PlannerUsageName(*a), "plan:runs/a.json");
  const std::vector<const PlannerInfo*> planners = r.Planners();
  for (const PlannerInfo* p : planners) EXPECT_EQ(p->name.find(':'), std::string::npos) << p->name;
  EXPECT_EQ(std::count_if(planners.begin(), planners.end(), [](const PlannerInfo* p) { return p->name == "plan"; }), 1);
  // The argument ends at the first '+': a stage.
  auto pipeline = ParsePipeline("plan:runs/a.json+fusion+cp");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().message();
  EXPECT_EQ(pipeline->planner, a);
  EXPECT_EQ(pipeline->stages.size(), 2u);
  auto plus_in_path = ParsePipeline("plan:runs/a+b.json");
  ASSERT_FALSE(plus_in_path.ok());
  EXPECT_NE(plus_in_path.status().message().find("unknown stage \"b.json\""), std::string::npos)
      << plus_in_path.status().message();
  // Without a file: what is missing.
  const Graph g = RandomGraph(6, 50);
  const Cluster cluster = *ClusterPreset("2xP100");
  for (const std::string method : {"plan", "plan+fusion"}) {
    const std::string e = ErrorOf(method, g, cluster);
    EXPECT_NE(e.find("plan:FILE"), std::string::npos) << method << ": " << e;
  }
  for (const std::string method : {"plan:", "plan:+fusion"}) {
    const std::string e = ErrorOf(method, g, cluster);
    EXPECT_NE(e.find("plan takes its FILE after ':' (plan:FILE)"), std::string::npos) << method << ": " << e;
    auto parsed = ParsePipeline(method);
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.status().message().find("plan takes its FILE"), std::string::npos) << parsed.status().message();
  }
  // Other planners take no argument, and no registered name has a ':'.
  EXPECT_EQ(r.Find("metis:x.json"), nullptr);
  PlannerRegistry empty;
  PlannerInfo colon = *bare;
  colon.name = "a:b";
  EXPECT_FALSE(empty.Register(colon).ok());
}

}  // namespace
}  // namespace graphopt
