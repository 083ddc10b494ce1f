// A handful of the corpus models (data/onnx_corpus, exported by
// scripts/export_onnx_corpus.py): each imports with its parameters equal to the
// exported file's and its MACs within 1% of the count the export script made from
// the products PyTorch ran, without a warning.
#include "import/onnx_corpus.h"

#include <gtest/gtest.h>

#include <map>

#include "import/onnx_import.h"

namespace graphopt {
namespace {

const std::string kCorpus = std::string(GRAPHOPT_SOURCE_DIR) + "/data/onnx_corpus";

CorpusCheckRow Check(const std::string& name) {
  StatusOr<std::vector<CorpusCheckRow>> rows = CheckOnnxCorpus(kCorpus, {name});
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  if (!rows.ok() || rows->size() != 1) {
    ADD_FAILURE() << name << " is not in the corpus manifest";
    return {};
  }
  return (*rows)[0];
}

void ExpectExact(const std::string& name) {
  const CorpusCheckRow r = Check(name);
  ASSERT_TRUE(r.imported) << r.error;
  EXPECT_EQ(r.params, r.params_expected) << name;
  EXPECT_LE(r.macs_error(), 0.01) << name << ": " << r.macs << " MACs, counted " << r.macs_expected;
  EXPECT_TRUE(r.warnings.empty()) << name << ": " << r.warnings[0];
}

TEST(OnnxCorpusTest, VisionTransformerImportsExactly) { ExpectExact("vit_b_16"); }
TEST(OnnxCorpusTest, SwinTransformerImportsExactly) { ExpectExact("swin_t"); }
TEST(OnnxCorpusTest, MobileNetV3WithHardActivationsImportsExactly) { ExpectExact("mobilenet_v3_large"); }
TEST(OnnxCorpusTest, SegmentationWithResizeImportsExactly) { ExpectExact("deeplabv3_mobilenet_v3_large"); }
TEST(OnnxCorpusTest, LstmLanguageModelImportsExactly) { ExpectExact("lstm_lm"); }
TEST(OnnxCorpusTest, DynamicEncoderWithBoundDimsImportsExactly) { ExpectExact("bert_encoder_dynamic"); }
TEST(OnnxCorpusTest, DynamicGptWithBoundDimsImportsExactly) { ExpectExact("gpt_dynamic"); }

// Count of each costed op kind (shape computations and sources left out).
std::map<std::string, int> CostedKinds(const Graph& g) {
  std::map<std::string, int> kinds;
  for (const Op& op : g.ops()) {
    if (!IsFree(op.kind)) ++kinds[OpKindName(op.kind)];
  }
  return kinds;
}

double Macs(const Graph& g) {
  double macs = 0;
  for (const Op& op : g.ops()) macs += op.cost.macs;
  return macs;
}

TEST(OnnxCorpusTest, DynamicAxesBoundByDimMatchTheFixedSizeExport) {
  OnnxImportOptions options;
  options.dim_values = {{"batch", 2}, {"seq", 64}};
  StatusOr<Graph> dynamic = ImportOnnx(kCorpus + "/gpt_dynamic.onnx", options);
  StatusOr<Graph> fixed = ImportOnnx(kCorpus + "/gpt_fixed.onnx");
  ASSERT_TRUE(dynamic.ok()) << dynamic.status().ToString();
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
  EXPECT_EQ(CostedKinds(*dynamic), CostedKinds(*fixed));
  EXPECT_DOUBLE_EQ(Macs(*dynamic), Macs(*fixed));
  EXPECT_GT(Macs(*fixed), 15e9);  // 12 layers at batch 2, sequence 64
}

TEST(OnnxCorpusTest, DynamicExportWithoutDimsNamesTheUnboundDimensions) {
  StatusOr<Graph> g = ImportOnnx(kCorpus + "/gpt_dynamic.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("--dim batch=N,seq=N"), std::string::npos) << g.status().message();
}

}  // namespace
}  // namespace graphopt
