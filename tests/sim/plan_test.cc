#include "sim/plan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "core/files.h"
#include "sim_test_util.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;

// input -> a (MatMul) -> r (Relu) -> b (MatMul); w (Variable) read by a, with an
// update op u in w's colocation group.
struct Small {
  PaperGraph g;
  OpId input, w, a, r, b, u;
  Small() {
    const TensorId in = g.Input("input", 1000);
    input = g.Producer(in);
    const TensorId wt = g.Variable("w", 4000);
    w = g.Producer(wt);
    const TensorId at = g.Compute("a", {in, wt}, 1, 1000);
    a = g.Producer(at);
    r = g.Add("r", OpKind::kRelu, {at}, {1000}, 0, 1000, 1000);
    b = g.Producer(g.Compute("b", {g.Out(r)}, 1, 1000));
    Op update;
    update.name = "u";
    update.kind = OpKind::kApplyGradient;
    update.inputs = {wt, g.Out(b)};
    update.colocation_group = g.graph().op(w).colocation_group;
    u = g.graph().AddOp(std::move(update), false);
  }
};

TEST(PlanTest, DefaultPlanIsValid) {
  Small s;
  EXPECT_TRUE(ValidatePlan(s.g.graph(), PaperCluster(2), Plan()).ok());
  EXPECT_TRUE(ValidatePlan(s.g.graph(), PaperCluster(2), DefaultPlan(s.g.graph(), 1)).ok());
}

TEST(PlanTest, FusionProducerSkipsFreeOps) {
  Small s;
  EXPECT_EQ(FusionProducer(s.g.graph(), s.r), s.a);
  EXPECT_EQ(FusionProducer(s.g.graph(), s.a), kNoId);  // input and w are free
  EXPECT_EQ(FusionProducer(s.g.graph(), s.u), s.b);
}

TEST(PlanTest, DeviceOutOfRangeNamesTheOp) {
  Small s;
  Plan plan = DefaultPlan(s.g.graph());
  plan.device[static_cast<size_t>(s.b)] = 5;
  const Status st = ValidatePlan(s.g.graph(), PaperCluster(2), plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'b' (device 5)"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("devices 0..1"), std::string::npos) << st.message();
}

TEST(PlanTest, SplitColocationGroupNamesBothOps) {
  Small s;
  Plan plan = DefaultPlan(s.g.graph());
  plan.device[static_cast<size_t>(s.u)] = 1;
  const Status st = ValidatePlan(s.g.graph(), PaperCluster(2), plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("colocation"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'u' on device 1 but 'w'"), std::string::npos) << st.message();
}

TEST(PlanTest, RespectColocationMovesTheGroupToItsFirstOp) {
  Small s;
  Plan plan = DefaultPlan(s.g.graph());
  plan.device[static_cast<size_t>(s.w)] = 1;
  RespectColocation(s.g.graph(), &plan);
  EXPECT_EQ(plan.device[static_cast<size_t>(s.u)], 1);
  EXPECT_TRUE(ValidatePlan(s.g.graph(), PaperCluster(2), plan).ok());
}

TEST(PlanTest, ContractionCannotFuseIntoItsProducer) {
  Small s;
  Plan plan = DefaultPlan(s.g.graph());
  plan.fuse_with_producer[static_cast<size_t>(s.b)] = 1;
  const Status st = ValidatePlan(s.g.graph(), PaperCluster(2), plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot fuse: 'b' (MatMul is a library kernel"), std::string::npos) << st.message();
}

TEST(PlanTest, OpWithoutKernelProducerCannotFuse) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  g.Add("relu", OpKind::kRelu, {in}, {1000}, 0, 1000, 1000);
  Plan plan;
  plan.fuse_with_producer = {0, 1};
  const Status st = ValidatePlan(g.graph(), PaperCluster(1), plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'relu' (it has no producer that runs a kernel)"), std::string::npos) << st.message();
}

TEST(PlanTest, FusionAcrossDevicesNamesBothOps) {
  Small s;
  Plan plan = DefaultPlan(s.g.graph());
  plan.fuse_with_producer[static_cast<size_t>(s.r)] = 1;
  plan.device[static_cast<size_t>(s.r)] = 1;
  const Status st = ValidatePlan(s.g.graph(), PaperCluster(2), plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("across devices: 'r' on device 1, producer 'a' on device 0"), std::string::npos)
      << st.message();
}

TEST(PlanTest, FusionCycleNamesTheFusedOp) {
  // a -> b -> c, a -> c; c (an Add) fuses into a, its first input's producer.
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 1, 1000);
  const TensorId b = g.Compute("b", {a}, 1, 1000);
  g.Add("c", OpKind::kAdd, {a, b}, {1000}, 0, 2000, 1000);
  Plan plan;
  plan.fuse_with_producer = {0, 0, 0, 1};
  const Status st = ValidatePlan(g.graph(), PaperCluster(1), plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cycle): 'c'"), std::string::npos) << st.message();
  EXPECT_EQ(DropIllegalFusions(g.graph(), &plan), 1);
  EXPECT_TRUE(ValidatePlan(g.graph(), PaperCluster(1), plan).ok());
}

TEST(PlanTest, LegalFusionChainIsValid) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 1, 1000);
  const TensorId r = g.Out(g.Add("r", OpKind::kRelu, {a}, {1000}, 0, 1000, 1000));
  g.Add("t", OpKind::kTanh, {r}, {1000}, 0, 1000, 1000);
  Plan plan;
  plan.fuse_with_producer = {0, 0, 1, 1};
  EXPECT_TRUE(ValidatePlan(g.graph(), PaperCluster(1), plan).ok());
  EXPECT_EQ(DropIllegalFusions(g.graph(), &plan), 0);
}

TEST(PlanTest, WrongLengthIsAnError) {
  Small s;
  Plan plan;
  plan.priority = {1, 2};
  const Status st = ValidatePlan(s.g.graph(), PaperCluster(1), plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("\"priority\" has 2 entries"), std::string::npos) << st.message();
}

TEST(PlanTest, MakePlanValidRepairsEverything) {
  Small s;
  Plan plan = DefaultPlan(s.g.graph());
  plan.device[static_cast<size_t>(s.a)] = 9;
  plan.device[static_cast<size_t>(s.u)] = 1;
  plan.fuse_with_producer[static_cast<size_t>(s.b)] = 1;
  plan.priority[0] = std::numeric_limits<double>::quiet_NaN();
  MakePlanValid(s.g.graph(), PaperCluster(2), &plan);
  EXPECT_TRUE(ValidatePlan(s.g.graph(), PaperCluster(2), plan).ok());
}

TEST(PlanTest, JsonRoundTrips) {
  Small s;
  Plan plan = DefaultPlan(s.g.graph());
  plan.device = {1, 0, 1, 1, 0, 0};
  plan.priority = {0, 1.5, -2, 0, 3, 0.25};
  plan.fuse_with_producer = {0, 0, 0, 1, 0, 0};
  auto back = PlanFromJson(PlanToJson(s.g.graph(), plan), s.g.graph(), "p.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->device, plan.device);
  EXPECT_EQ(back->priority, plan.priority);
  EXPECT_EQ(back->fuse_with_producer, plan.fuse_with_producer);
}

TEST(PlanTest, FileRoundTripsAndPartialPlansTakeDefaults) {
  Small s;
  const std::string path = ::testing::TempDir() + "/plan_" + std::to_string(getpid()) + ".json";
  ASSERT_TRUE(WriteFileAtomic(path, R"({"format": "graphopt-plan", "version": 1, "graph": "paper", "device": [0, 0, 1, 1, 1, 0]})").ok());
  auto plan = ReadPlanJson(path, s.g.graph());
  std::remove(path.c_str());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->device[2], 1);
  EXPECT_TRUE(plan->priority.empty());
  EXPECT_TRUE(ValidatePlan(s.g.graph(), PaperCluster(2), *plan).ok());
}

TEST(PlanTest, BadJsonErrorsNameTheFile) {
  Small s;
  EXPECT_NE(PlanFromJson("[1", s.g.graph(), "bad.json").status().message().find("bad.json: not valid JSON"),
            std::string::npos);
  auto short_plan = PlanFromJson(R"({"format": "graphopt-plan", "version": 1, "graph": "paper", "device": [0, 1]})", s.g.graph(), "short.json");
  ASSERT_FALSE(short_plan.ok());
  EXPECT_NE(short_plan.status().message().find("short.json: \"device\" has 2 entries but graph paper has 6 ops"),
            std::string::npos)
      << short_plan.status().message();
  auto bad_value = PlanFromJson(R"({"format": "graphopt-plan", "version": 1, "graph": "paper", "priority": [0, 0, "x", 0, 0, 0]})", s.g.graph(), "v.json");
  ASSERT_FALSE(bad_value.ok());
  EXPECT_NE(bad_value.status().message().find("v.json: priority[2] (op 'a'): must be a number"), std::string::npos)
      << bad_value.status().message();
  EXPECT_FALSE(ReadPlanJson("/nonexistent/plan.json", s.g.graph()).ok());
}

}  // namespace
}  // namespace graphopt

namespace graphopt {
namespace {

// Issue 14: a plan without its header or for another graph is refused, naming the file.
TEST(PlanTest, PlanWithoutHeaderOrForAnotherGraphIsRefused) {
  Small s;
  auto no_format = PlanFromJson(R"({"version": 1, "graph": "paper", "device": [0, 0, 0, 0, 0, 0]})", s.g.graph(), "nf.json");
  ASSERT_FALSE(no_format.ok());
  EXPECT_NE(no_format.status().message().find("nf.json: \"format\" is missing"), std::string::npos)
      << no_format.status().message();
  auto no_version = PlanFromJson(R"({"format": "graphopt-plan", "graph": "paper"})", s.g.graph(), "nv.json");
  ASSERT_FALSE(no_version.ok());
  EXPECT_NE(no_version.status().message().find("nv.json: \"version\" is missing"), std::string::npos);
  auto wrong_format = PlanFromJson(R"({"format": "graphopt-graph", "version": 1, "graph": "paper"})", s.g.graph(), "wf.json");
  ASSERT_FALSE(wrong_format.ok());
  EXPECT_NE(wrong_format.status().message().find("expected \"graphopt-plan\""), std::string::npos);
  auto other = PlanFromJson(R"({"format": "graphopt-plan", "version": 1, "graph": "gnmt"})", s.g.graph(), "o.json");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("o.json: the plan is for graph \"gnmt\", not \"paper\""), std::string::npos)
      << other.status().message();
  auto no_graph = PlanFromJson(R"({"format": "graphopt-plan", "version": 1})", s.g.graph(), "ng.json");
  ASSERT_FALSE(no_graph.ok());
  EXPECT_NE(no_graph.status().message().find("ng.json: \"graph\" is missing"), std::string::npos);
}

// Issue 14: device ids are range-checked before narrowing (2^32 + 1 used to run as device 1).
TEST(PlanTest, DeviceIdsAreRangeCheckedBeforeNarrowing) {
  Small s;
  const std::string head = R"({"format": "graphopt-plan", "version": 1, "graph": "paper", "device": [0, 0, )";
  for (const char* bad : {"4294967297", "2147483648", "-1", "18446744073709551615", "1.5", "1.0", "null", "\"1\""}) {
    auto plan = PlanFromJson(head + bad + ", 0, 0, 0]}", s.g.graph(), "d.json");
    ASSERT_FALSE(plan.ok()) << bad;
    EXPECT_NE(plan.status().message().find("d.json: device[2] (op 'a')"), std::string::npos)
        << bad << ": " << plan.status().message();
  }
  auto ok = PlanFromJson(head + "2147483647, 0, 0, 0]}", s.g.graph(), "d.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_FALSE(ValidatePlan(s.g.graph(), PaperCluster(2), *ok).ok());  // in int32, out of the cluster
}

}  // namespace
}  // namespace graphopt
