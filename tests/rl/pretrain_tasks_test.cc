#include "rl/pretrain_tasks.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "models/load.h"
#include "sim/cluster.h"

namespace graphopt {
namespace {

TEST(PretrainTasksTest, EveryFamilysDrawsAreValidGraphs) {
  Rng rng(3);
  for (const std::string& family : PretrainFamilies()) {
    for (int i = 0; i < 3; ++i) {
      const std::string spec = DrawFamilySpec(family, rng);
      EXPECT_EQ(spec.rfind(family + ":", 0), 0u) << spec;
      auto g = LoadModel(spec);
      EXPECT_TRUE(g.ok()) << spec << ": " << g.status().message();
    }
  }
}

// GNMT is drawn as wide as RNNLM (2048), and a stream's identity names the grids of
// its families, so a checkpoint of a stream drawn from other sizes is refused.
TEST(PretrainTasksTest, GnmtIsDrawnAsWideAsRnnlmAndTheIdentityNamesTheGrids) {
  EXPECT_NE(FamilyGrid("gnmt").find("hidden=512/1024/2048"), std::string::npos) << FamilyGrid("gnmt");
  EXPECT_NE(FamilyGrid("rnnlm").find("hidden=512/1024/2048"), std::string::npos) << FamilyGrid("rnnlm");
  EXPECT_EQ(FamilyGrid("nonesuch"), "");
  Rng rng(5);
  std::set<std::string> widths;
  for (int i = 0; i < 200; ++i) {
    const std::string spec = DrawFamilySpec("gnmt", rng);
    const size_t at = spec.find("hidden=");
    ASSERT_NE(at, std::string::npos) << spec;
    widths.insert(spec.substr(at + 7, spec.find(',', at) - at - 7));
  }
  EXPECT_EQ(widths, (std::set<std::string>{"512", "1024", "2048"}));
  PretrainStreamOptions o;
  o.families = {"gnmt", "wavenet"};
  auto stream = PretrainStream::Create(o);
  ASSERT_TRUE(stream.ok()) << stream.status().message();
  EXPECT_NE(stream->Identity().find("gnmt:" + FamilyGrid("gnmt")), std::string::npos) << stream->Identity();
  EXPECT_NE(stream->Identity().find("wavenet:" + FamilyGrid("wavenet")), std::string::npos) << stream->Identity();
}

TEST(PretrainTasksTest, DefaultClustersLoadAndSpanTwoToEightGpus) {
  std::set<size_t> sizes;
  for (const std::string& name : DefaultPretrainClusters()) {
    auto c = LoadCluster(name);
    ASSERT_TRUE(c.ok()) << name << ": " << c.status().message();
    sizes.insert(c->Accelerators().size());
  }
  // 3 GPUs (and 7) stay unseen machines.
  EXPECT_EQ(sizes, (std::set<size_t>{2, 4, 5, 6, 8}));
}

TEST(PretrainTasksTest, TasksAreAFunctionOfSeedAndIndexWithinTheOpLimit) {
  PretrainStreamOptions o;
  o.families = {"rnnlm", "wavenet"};
  o.max_ops = 6000;
  o.seed = 7;
  auto stream = PretrainStream::Create(o);
  ASSERT_TRUE(stream.ok()) << stream.status().message();
  std::set<std::string> families, models;
  for (int64_t i = 0; i < 8; ++i) {
    Graph graph;
    auto t = stream->Task(i, &graph);
    ASSERT_TRUE(t.ok()) << t.status().message();
    auto again = stream->Task(i);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(t->model, again->model);
    EXPECT_EQ(t->cluster, again->cluster);
    EXPECT_LE(t->num_ops, 6000);
    EXPECT_EQ(graph.num_ops(), t->num_ops);
    EXPECT_TRUE(t->family == "rnnlm" || t->family == "wavenet") << t->family;
    families.insert(t->family);
    models.insert(t->model);
  }
  EXPECT_EQ(families.size(), 2u);
  EXPECT_GE(models.size(), 6u);  // sizes vary
  o.seed = 8;
  auto other = PretrainStream::Create(o);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->Identity(), stream->Identity());
}

// Two families and three model files: the files together are drawn as often as one
// family (a third of the tasks, not three fifths), each of them in turn.
TEST(PretrainTasksTest, ModelFilesTogetherAreOneMoreFamily) {
  PretrainStreamOptions o;
  o.families = {"rnnlm", "wavenet"};
  o.models = {"rnnlm:layers=1,steps=2,hidden=64,batch=8,vocab=100", "rnnlm:layers=1,steps=3,hidden=64,batch=8,vocab=100",
              "rnnlm:layers=1,steps=4,hidden=64,batch=8,vocab=100"};
  o.clusters = {"2xV100"};
  o.max_ops = 1000000;
  auto stream = PretrainStream::Create(o);
  ASSERT_TRUE(stream.ok()) << stream.status().message();
  std::map<std::string, int> count;
  const int n = 300;
  for (int i = 0; i < n; ++i) {
    auto t = stream->Task(i);
    ASSERT_TRUE(t.ok()) << t.status().message();
    ++count[t->family];
  }
  int of_models = 0;
  for (const std::string& m : o.models) {
    EXPECT_GT(count[m], 0) << m;
    of_models += count[m];
  }
  EXPECT_NEAR(of_models, n / 3, 30);
  EXPECT_NEAR(count["rnnlm"], n / 3, 30);
}

TEST(PretrainTasksTest, AModelTaskIsNamedByItsFile) {
  PretrainStreamOptions o;
  o.families = {};
  o.models = {"rnnlm:layers=1,steps=2,hidden=64,batch=8,vocab=100"};
  o.clusters = {"2xV100+2xP100"};
  auto stream = PretrainStream::Create(o);
  ASSERT_TRUE(stream.ok()) << stream.status().message();
  auto t = stream->Task(5);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->model, o.models[0]);
  EXPECT_EQ(t->family, o.models[0]);
  EXPECT_EQ(t->cluster, "2xV100+2xP100");
}

TEST(PretrainTasksTest, BadOptionsAreClearErrors) {
  auto error = [](PretrainStreamOptions o) { return PretrainStream::Create(std::move(o)).status().message(); };
  PretrainStreamOptions o;
  o.families = {"rnnlm", "resnet"};
  EXPECT_NE(error(o).find("\"resnet\" is not one of rnnlm,gnmt"), std::string::npos) << error(o);
  o.families = {"rnnlm", "rnnlm"};
  EXPECT_NE(error(o).find("given twice"), std::string::npos);
  o.families = {};
  EXPECT_NE(error(o).find("at least one family or model"), std::string::npos);
  o.families = {"rnnlm"};
  o.clusters = {"4xV100", "3xA100"};
  EXPECT_NE(error(o).find("3xA100"), std::string::npos) << error(o);
  o.clusters = {"4xV100"};
  o.models = {"rnnlm:layers=2"};
  o.max_ops = 1000;
  EXPECT_NE(error(o).find("more than max_ops (1000)"), std::string::npos) << error(o);
  o.models = {"/nonexistent/model.onnx"};
  EXPECT_NE(error(o).find("/nonexistent/model.onnx"), std::string::npos) << error(o);
}

}  // namespace
}  // namespace graphopt
