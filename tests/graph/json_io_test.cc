#include "graph/json_io.h"

#include <gtest/gtest.h>

#include "core/rng.h"
#include "graph/builder.h"
#include "graph/training.h"

namespace graphopt {
namespace {

Graph SmallModel() {
  GraphBuilder b("small", "test");
  b.BeginLayer("l0");
  TensorId x = b.Input("x", {2, 3});
  TensorId w = b.Variable("w", {3, 4});
  TensorId h = b.Sigmoid(b.MatMul(x, w));
  b.BeginLayer("l1");
  TensorId labels = b.Input("labels", {2}, DType::kI64);
  b.SoftmaxCrossEntropy(h, labels);
  Graph g = b.Finish();
  g.set_metadata("note", "quote \" and backslash \\ survive");
  g.mutable_op(1).measured_time_us = 12.5;
  g.mutable_op(1).measured_backward_us = 0.1 + 0.2;  // a double that needs 17 digits
  g.mutable_op(2).attrs["ratio"] = 1.0 / 3.0;
  g.mutable_op(2).attrs["mode"] = std::string("fast");
  return g;
}

TEST(JsonIoTest, RoundTripIsExact) {
  Graph g = SmallModel();
  const std::string text = GraphToJson(g);
  auto back = GraphFromJson(text, "mem.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(GraphToJson(*back), text);
  EXPECT_EQ(back->op(1).measured_backward_us, 0.1 + 0.2);
  EXPECT_EQ(GetFloatAttr(back->op(2).attrs, "ratio", 0), 1.0 / 3.0);
  EXPECT_EQ(back->metadata().at("note"), g.metadata().at("note"));
}

TEST(JsonIoTest, TrainingGraphRoundTripIsExact) {
  auto train = BuildTrainingGraph(SmallModel());
  ASSERT_TRUE(train.ok());
  const std::string text = GraphToJson(*train);
  auto back = GraphFromJson(text, "mem.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(GraphToJson(*back), text);
  EXPECT_EQ(back->num_colocation_groups(), train->num_colocation_groups());
}

void ExpectError(const std::string& text, const std::string& fragment) {
  auto g = GraphFromJson(text, "bad.json");
  ASSERT_FALSE(g.ok()) << "accepted: " << text.substr(0, 200);
  EXPECT_NE(g.status().message().find("bad.json"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find(fragment), std::string::npos) << g.status().message();
}

TEST(JsonIoTest, TruncatedFilesAreRejected) {
  const std::string text = GraphToJson(SmallModel());
  for (size_t len : {size_t{0}, size_t{1}, text.size() / 3, text.size() / 2, text.size() - 1}) {
    ExpectError(text.substr(0, len), "");
  }
}

TEST(JsonIoTest, RandomBytesAreRejected) {
  Rng rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::string junk(static_cast<size_t>(rng.UniformInt(1, 400)), '\0');
    for (char& c : junk) c = static_cast<char>(rng.Uniform(256));
    ExpectError(junk, "");
  }
}

TEST(JsonIoTest, MissingFieldIsNamed) {
  ExpectError(R"({"format":"graphopt-graph","version":1,"name":"x","tensors":[{"name":"a","dtype":"f32"}],"ops":[]})",
              "missing field 'shape'");
}

TEST(JsonIoTest, WrongTypeIsNamed) {
  ExpectError(R"({"format":"graphopt-graph","version":1,"name":"x","tensors":[{"name":"a","shape":"big","dtype":"f32"}],"ops":[]})",
              "tensors[0].shape");
}

TEST(JsonIoTest, UnsupportedVersionIsNamed) {
  ExpectError(R"({"format":"graphopt-graph","version":99,"name":"x","tensors":[],"ops":[]})", "version 99");
}

TEST(JsonIoTest, UnknownKindIsNamed) {
  ExpectError(R"({"format":"graphopt-graph","version":1,"name":"x","tensors":[{"name":"a","shape":[1],"dtype":"f32"}],
                  "ops":[{"name":"o","kind":"Frobnicate","inputs":[],"outputs":[0]}]})",
              "unknown op kind 'Frobnicate'");
}

TEST(JsonIoTest, OutOfRangeTensorIsNamed) {
  ExpectError(R"({"format":"graphopt-graph","version":1,"name":"x","tensors":[{"name":"a","shape":[1],"dtype":"f32"}],
                  "ops":[{"name":"o","kind":"Relu","inputs":[5],"outputs":[0]}]})",
              "input tensor 5 does not exist");
}

TEST(JsonIoTest, DoubleProducerIsNamed) {
  ExpectError(R"({"format":"graphopt-graph","version":1,"name":"x","tensors":[{"name":"a","shape":[1],"dtype":"f32"}],
                  "ops":[{"name":"o1","kind":"Input","inputs":[],"outputs":[0]},
                         {"name":"o2","kind":"Input","inputs":[],"outputs":[0]}]})",
              "already produced by op 'o1'");
}

TEST(JsonIoTest, CycleIsRejectedByTheVerifier) {
  ExpectError(R"({"format":"graphopt-graph","version":1,"name":"x",
                  "tensors":[{"name":"a","shape":[1],"dtype":"f32"},{"name":"b","shape":[1],"dtype":"f32"}],
                  "ops":[{"name":"o1","kind":"Relu","inputs":[1],"outputs":[0]},
                         {"name":"o2","kind":"Relu","inputs":[0],"outputs":[1]}]})",
              "cycle");
}

TEST(JsonIoTest, DanglingTensorIsRejected) {
  ExpectError(R"({"format":"graphopt-graph","version":1,"name":"x",
                  "tensors":[{"name":"a","shape":[1],"dtype":"f32"},{"name":"b","shape":[1],"dtype":"f32"}],
                  "ops":[{"name":"o1","kind":"Relu","inputs":[1],"outputs":[0]}]})",
              "dangling");
}

TEST(JsonIoTest, ReadingAMissingFileNamesIt) {
  auto g = ReadGraphJson("/nonexistent/graph.json");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("/nonexistent/graph.json"), std::string::npos);
}

}  // namespace
}  // namespace graphopt
