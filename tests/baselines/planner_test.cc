// The planner registry, pipelines and stages, and the random planner.
#include "baselines/planner.h"

#include <gtest/gtest.h>

#include <any>
#include <set>

#include "baselines/baseline.h"
#include "sim/random_graph.h"

namespace graphopt {
namespace {

Graph RandomGraph(uint64_t seed) {
  RandomGraphOptions options;
  options.num_ops = 400;
  return RandomLayeredGraph(options, seed);
}

// A planner whose plan is whatever it was given.
class FixedPlanner : public Planner {
 public:
  explicit FixedPlanner(Plan plan) : plan_(std::move(plan)) {}
  StatusOr<Plan> Run(const PlanContext&) override { return plan_; }

 private:
  Plan plan_;
};

PlannerInfo Fixed(const std::string& name, Plan plan) {
  PlannerInfo info;
  info.name = name;
  info.summary = "a fixed plan";
  info.create = [plan](const PlannerSettings&) -> StatusOr<std::unique_ptr<Planner>> {
    return std::unique_ptr<Planner>(new FixedPlanner(plan));
  };
  return info;
}

TEST(PlannerRegistryTest, TheGlobalRegistryHoldsTheBaselinesAndTheStages) {
  const PlannerRegistry& r = PlannerRegistry::Global();
  for (const std::string name : {"single", "tf-default", "expert", "metis", "scotch", "heft", "random"}) {
    const PlannerInfo* info = r.Find(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->kind, PlannerKind::kBaseline);
    EXPECT_FALSE(info->summary.empty());
  }
  EXPECT_TRUE(r.Find("tf-default")->decides_fusion);
  EXPECT_FALSE(r.Find("random")->standard);
  // The comparisons' baselines: the standard ones in order, not the random floor.
  EXPECT_EQ(BaselineNames(), (std::vector<std::string>{"single", "tf-default", "expert", "metis", "scotch", "heft"}));
  ASSERT_NE(r.FindStage("fusion"), nullptr);
  ASSERT_NE(r.FindStage("cp"), nullptr);
}

TEST(PlannerRegistryTest, RejectsRepeatedAndMalformedNames) {
  PlannerRegistry r;
  const Graph g = RandomGraph(1);
  ASSERT_TRUE(r.Register(Fixed("a", DefaultPlan(g))).ok());
  EXPECT_FALSE(r.Register(Fixed("a", DefaultPlan(g))).ok());
  EXPECT_FALSE(r.Register(Fixed("", DefaultPlan(g))).ok());
  EXPECT_FALSE(r.Register(Fixed("a+b", DefaultPlan(g))).ok());
  EXPECT_FALSE(r.Register(Fixed("a,b", DefaultPlan(g))).ok());
  // A task configuration's name may hold '+' (one planner: "pl+sch+fu"), no empty part.
  PlannerInfo joint = Fixed("a+b", DefaultPlan(g));
  joint.kind = PlannerKind::kTaskConfiguration;
  EXPECT_TRUE(r.Register(joint).ok());
  joint.name = "a++c";
  EXPECT_FALSE(r.Register(joint).ok());
  joint.name = "c+";
  EXPECT_FALSE(r.Register(joint).ok());
  PlannerInfo no_factory;
  no_factory.name = "b";
  EXPECT_FALSE(r.Register(no_factory).ok());
  RegisterStages(&r);
  EXPECT_FALSE(r.Register(Fixed("fusion", DefaultPlan(g))).ok());  // a stage's name
  auto unknown = r.Get("zzz");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("known: a, a+b"), std::string::npos) << unknown.status().message();
}

TEST(PlannerRegistryTest, OptionsGoToThePlannersOwnParser) {
  const Graph g = RandomGraph(1);
  PlannerInfo plain = Fixed("plain", DefaultPlan(g));
  PlannerSettings s;
  EXPECT_TRUE(ConfigurePlanner(plain, "", &s).ok());  // no options: nothing to parse
  const Status refused = ConfigurePlanner(plain, "k=1", &s);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("plain takes no options"), std::string::npos) << refused.message();
  PlannerInfo counted = Fixed("counted", DefaultPlan(g));
  counted.configure = [](const std::string& options, PlannerSettings* settings) -> Status {
    settings->config = static_cast<int>(options.size());
    return Status::Ok();
  };
  ASSERT_TRUE(ConfigurePlanner(counted, "k=1", &s).ok());
  EXPECT_EQ(std::any_cast<int>(s.config), 3);
}

TEST(PipelineTest, ParsesAPlannerAndItsStages) {
  auto p = ParsePipeline("heft+fusion+cp");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->planner->name, "heft");
  ASSERT_EQ(p->stages.size(), 2u);
  EXPECT_EQ(p->stages[0]->name, "fusion");
  EXPECT_EQ(p->stages[1]->name, "cp");
  auto unknown_stage = ParsePipeline("heft+magic");
  ASSERT_FALSE(unknown_stage.ok());
  EXPECT_NE(unknown_stage.status().message().find("unknown stage \"magic\""), std::string::npos);
  EXPECT_NE(unknown_stage.status().message().find("fusion, cp"), std::string::npos);
  EXPECT_FALSE(ParsePipeline("heft+fusion+fusion").ok());
  EXPECT_FALSE(ParsePipeline("nothing").ok());
}

TEST(PipelineTest, StagesApplyInOrderAndTheSameAsTheirFunctions) {
  const Graph g = RandomGraph(2);
  const Cluster cluster = *ClusterPreset("4xV100");
  const CostModel cost;
  const PlanContext context{g, cluster, cost};
  auto plan = PlanWith(*ParsePipeline("metis+fusion+cp"), PlannerSettings{}, context);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  Plan expected = *MetisPlan(g, cluster, cost);
  ApplyGreedyFusion(g, &expected);
  SetCriticalPathPriorities(g, cluster, cost, &expected);
  EXPECT_EQ(plan->device, expected.device);
  EXPECT_EQ(plan->fuse_with_producer, expected.fuse_with_producer);
  EXPECT_EQ(plan->priority, expected.priority);
  // tf-default decides its own fusion: the fusion stage leaves it as it is.
  auto tf = PlanWith(*ParsePipeline("tf-default+fusion"), PlannerSettings{}, context);
  ASSERT_TRUE(tf.ok());
  EXPECT_EQ(tf->fuse_with_producer, TfDefaultPlan(g, cluster).fuse_with_producer);
}

TEST(PipelineTest, AnInvalidPlanIsCaughtAfterTheStepThatMadeIt) {
  const Graph g = RandomGraph(3);
  const Cluster cluster = *ClusterPreset("2xP100");
  const CostModel cost;
  PlannerRegistry r;
  Plan bad = DefaultPlan(g);
  bad.device[0] = 7;  // no such device
  ASSERT_TRUE(r.Register(Fixed("bad", bad)).ok());
  ASSERT_TRUE(r.Register(Fixed("good", DefaultPlan(g))).ok());
  PlanStage breaks;
  breaks.name = "breaks";
  breaks.summary = "moves op 0 off the cluster";
  breaks.apply = [](const PlanContext&, Plan* plan) { plan->device[0] = 9; };
  ASSERT_TRUE(r.RegisterStage(breaks).ok());
  auto from_planner = PlanWith(*ParsePipeline("bad", r), PlannerSettings{}, PlanContext{g, cluster, cost});
  ASSERT_FALSE(from_planner.ok());
  EXPECT_NE(from_planner.status().message().find("bad produced an invalid plan"), std::string::npos)
      << from_planner.status().message();
  auto from_stage = PlanWith(*ParsePipeline("good+breaks", r), PlannerSettings{}, PlanContext{g, cluster, cost});
  ASSERT_FALSE(from_stage.ok());
  EXPECT_NE(from_stage.status().message().find("stage breaks made the plan invalid"), std::string::npos)
      << from_stage.status().message();
}

TEST(RandomPlannerTest, ValidSeededAndOverEveryAccelerator) {
  const Graph g = RandomGraph(4);
  const Cluster cluster = *ClusterPreset("4xV100");
  const CostModel cost;
  BaselineOptions options;
  auto a = RunBaseline("random", g, cluster, cost, options);
  auto b = RunBaseline("random", g, cluster, cost, options);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->device, b->device);  // same seed, same plan
  options.seed = 1;
  auto c = RunBaseline("random", g, cluster, cost, options);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a->device, c->device);
  const std::vector<DeviceId> accelerators = cluster.Accelerators();
  const std::set<DeviceId> used(a->device.begin(), a->device.end());
  EXPECT_EQ(used, std::set<DeviceId>(accelerators.begin(), accelerators.end()));
  EXPECT_TRUE(ValidatePlan(g, cluster, *a).ok());
}

}  // namespace
}  // namespace graphopt

namespace graphopt {
namespace {

void AddOpNamed(Graph& g, const std::string& name) {
  Op op;
  op.name = name;
  op.outputs = {g.AddTensor(name, {64})};
  g.AddOp(std::move(op), false);
}

// Four modules /m0 .. /m3 in a chain, each with a parameter m<i>.w of `bytes[i]`.
Graph FourModules(const std::vector<int64_t>& bytes) {
  Graph g("four_modules");
  TensorId prev = g.AddTensor("x", {64});
  Op input;
  input.name = "onnx::Input_0";
  input.kind = OpKind::kInput;
  input.outputs = {prev};
  g.AddOp(std::move(input), false);
  for (int i = 0; i < 4; ++i) {
    const std::string m = "m" + std::to_string(i);
    Op w;
    w.name = m + ".w";
    w.kind = OpKind::kVariable;
    w.param_bytes = bytes[static_cast<size_t>(i)];
    w.outputs = {g.AddTensor(w.name, {64})};
    const TensorId wt = w.outputs[0];
    g.AddOp(std::move(w), false);
    Op mm;
    mm.name = "/" + m + "/MatMul";
    mm.inputs = {prev, wt};
    mm.outputs = {g.AddTensor(mm.name, {64})};
    prev = mm.outputs[0];
    g.AddOp(std::move(mm), false);
  }
  return g;
}

TEST(ModuleBalancedPlannerTest, SplitsTheModulesInOrderByParameterBytes) {
  const Cluster cluster = *LoadCluster("2xV100");
  for (const auto& [bytes, expected] : std::vector<std::pair<std::vector<int64_t>, std::vector<DeviceId>>>{
           {{100, 100, 100, 100}, {0, 0, 1, 1}},  // halves of equal bytes
           {{300, 10, 10, 10}, {0, 1, 1, 1}}}) {  // the first module alone is half
    const Graph g = FourModules(bytes);
    auto plan = PlanWith(*ParsePipeline("module-balanced"), PlannerSettings{}, PlanContext{g, cluster, CostModel()});
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(plan->device[static_cast<size_t>(1 + 2 * i)], expected[static_cast<size_t>(i)]) << "m" << i;  // the parameter
      EXPECT_EQ(plan->device[static_cast<size_t>(2 + 2 * i)], expected[static_cast<size_t>(i)]) << "m" << i;  // its MatMul
    }
  }
  Graph flat_graph("flat");  // op names that are not paths
  AddOpNamed(flat_graph, "a");
  AddOpNamed(flat_graph, "b");
  auto flat = PlanWith(*ParsePipeline("module-balanced"), PlannerSettings{}, PlanContext{flat_graph, cluster, CostModel()});
  ASSERT_FALSE(flat.ok());
  EXPECT_NE(flat.status().message().find("module path"), std::string::npos) << flat.status().message();
}

// RunBaseline takes stages joined to the baseline's name.
TEST(ModuleBalancedPlannerTest, RunBaselineTakesStages) {
  const Cluster cluster = *LoadCluster("2xV100");
  const Graph g = RandomGraph(3);
  auto staged = RunBaseline("heft+fusion+cp", g, cluster, CostModel());
  ASSERT_TRUE(staged.ok()) << staged.status().message();
  EXPECT_TRUE(ValidatePlan(g, cluster, *staged).ok());
  auto unknown = RunBaseline("nope+cp", g, cluster, CostModel());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown baseline \"nope\""), std::string::npos) << unknown.status().message();
}

}  // namespace
}  // namespace graphopt
