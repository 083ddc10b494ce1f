// JSON round-trip is exact for every built-in and every imported model.
#include <gtest/gtest.h>

#include <dirent.h>

#include "graph/json_io.h"
#include "graph/verifier.h"
#include "models/load.h"
#include "models/registry.h"

namespace graphopt {
namespace {

void ExpectExactRoundTrip(const std::string& spec) {
  auto g = LoadModel(spec);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const std::string text = GraphToJson(*g);
  auto back = GraphFromJson(text, spec + ".json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(GraphToJson(*back), text) << spec;
  EXPECT_EQ(back->num_ops(), g->num_ops());
}

TEST(RoundTripTest, EveryBuiltinAtDefaults) {
  for (const auto& m : BuiltinModels()) ExpectExactRoundTrip(m.name);
}

std::vector<std::string> DataFiles(const std::string& sub) {
  std::vector<std::string> files;
  const std::string dir = std::string(GRAPHOPT_DATA_DIR) + "/" + sub;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return files;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 4 && (name.rfind(".onnx") == name.size() - 5 || name.rfind(".txt") == name.size() - 4)) {
      files.push_back(dir + "/" + name);
    }
  }
  closedir(d);
  return files;
}

TEST(RoundTripTest, EveryOnnxModel) {
  auto files = DataFiles("onnx");
  ASSERT_GE(files.size(), 6u) << "missing ONNX data in " << GRAPHOPT_DATA_DIR;
  for (const auto& f : files) ExpectExactRoundTrip(f);
}

TEST(RoundTripTest, EveryPipeDreamProfile) {
  auto files = DataFiles("pipedream");
  ASSERT_GE(files.size(), 7u) << "missing profile data in " << GRAPHOPT_DATA_DIR;
  for (const auto& f : files) ExpectExactRoundTrip(f);
}

TEST(LoadModelTest, UnknownNameIsExplained) {
  auto g = LoadModel("resnet9000");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("unknown model 'resnet9000'"), std::string::npos) << g.status().message();
}

TEST(LoadModelTest, MissingFileIsNamed) {
  auto g = LoadModel("/no/such/model.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("/no/such/model.onnx"), std::string::npos) << g.status().message();
}

TEST(LoadModelTest, NonsenseParametersAreRejected) {
  for (const char* spec : {"gnmt:layers=0", "rnnlm:batch=-3", "transformer_xl:layers=abc", "wavenet:bogus=1",
                           "inception_v3:batch=0", "amoebanet:batch=-1", "gnmt:layers"}) {
    auto g = LoadModel(spec);
    EXPECT_FALSE(g.ok()) << spec;
  }
}

TEST(LoadModelTest, ForwardOnlySkipsTheBackwardPass) {
  LoadOptions options;
  options.training = false;
  auto fwd = LoadModel("rnnlm", options);
  auto train = LoadModel("rnnlm");
  ASSERT_TRUE(fwd.ok() && train.ok());
  EXPECT_LT(fwd->num_ops() * 2, train->num_ops());
}

}  // namespace
}  // namespace graphopt
