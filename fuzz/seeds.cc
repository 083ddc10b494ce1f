// fuzz_seeds DIR: writes the seeds that no graphopt command writes into
// DIR/cluster/ (every cluster preset as JSON) and DIR/onnx/ (tiny ONNX models, one
// per family of operators: dense layers, convolutions, shape subgraphs,
// shape-valued operators, attention pieces, recurrent layers), so that the fuzzer
// starts from small inputs that import all the way. scripts/fuzz.sh adds the rest.
#ifndef ONNX_NAMESPACE
#define ONNX_NAMESPACE onnx
#endif
#ifndef ONNX_ML
#define ONNX_ML 1
#endif
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/files.h"
#include "sim/cluster.h"

namespace graphopt {
namespace {

class TinyModel {
 public:
  explicit TinyModel(int opset = 13) {
    model_.set_ir_version(8);
    model_.set_producer_name("fuzz_seeds");
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("tiny");
  }

  // dims[i] < 0: the symbolic dimension symbols[i].
  void Input(const std::string& name, const std::vector<int64_t>& dims, const std::vector<std::string>& symbols = {},
             int type = onnx::TensorProto::FLOAT) {
    Declare(model_.mutable_graph()->add_input(), name, dims, symbols, type);
  }
  void Output(const std::string& name) { model_.mutable_graph()->add_output()->set_name(name); }
  void Weight(const std::string& name, const std::vector<int64_t>& dims) {
    onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    t->set_data_location(onnx::TensorProto::EXTERNAL);  // weights not written, as in data/onnx_corpus
    auto* e = t->add_external_data();
    e->set_key("location");
    e->set_value("weights.bin");
  }
  void Ints(const std::string& name, const std::vector<int64_t>& values, bool scalar = false) {
    onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  onnx::NodeProto* Node(const std::string& type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs) {
    onnx::NodeProto* n = model_.mutable_graph()->add_node();
    n->set_op_type(type);
    n->set_name(outputs.empty() ? type : outputs[0]);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return n;
  }
  static void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void IntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void FloatAttr(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void StringAttr(onnx::NodeProto* n, const std::string& name, const std::string& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }

  std::string Bytes() const {
    std::string bytes;
    GO_CHECK(model_.SerializeToString(&bytes));
    return bytes;
  }

 private:
  static void Declare(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims,
                      const std::vector<std::string>& symbols, int type) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto* shape = tt->mutable_shape();
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 0) {
        shape->add_dim()->set_dim_param(symbols.at(i));
      } else {
        shape->add_dim()->set_dim_value(dims[i]);
      }
    }
  }

  onnx::ModelProto model_;
};

// x[batch, 8] -> Gemm -> Relu -> MatMul -> Add -> Softmax.
std::string DenseModel() {
  TinyModel m;
  m.Input("x", {-1, 8}, {"batch"});
  m.Weight("w1", {16, 8});
  m.Weight("b1", {16});
  m.Weight("w2", {16, 4});
  m.Weight("b2", {4});
  TinyModel::IntAttr(m.Node("Gemm", {"x", "w1", "b1"}, {"h"}), "transB", 1);
  m.Node("Relu", {"h"}, {"r"});
  m.Node("MatMul", {"r", "w2"}, {"m"});
  m.Node("Add", {"m", "b2"}, {"y"});
  TinyModel::IntAttr(m.Node("Softmax", {"y"}, {"p"}), "axis", -1);
  m.Output("p");
  return m.Bytes();
}

// x[1, 3, 8, 8] -> Conv -> BatchNormalization -> Relu -> MaxPool -> Conv, residual
// Add -> GlobalAveragePool -> Flatten -> Gemm.
std::string ConvModel() {
  TinyModel m;
  m.Input("x", {1, 3, 8, 8});
  m.Weight("k1", {4, 3, 3, 3});
  m.Weight("scale", {4});
  m.Weight("bias", {4});
  m.Weight("mean", {4});
  m.Weight("var", {4});
  m.Weight("k2", {4, 4, 3, 3});
  m.Weight("fc", {10, 4});
  onnx::NodeProto* c1 = m.Node("Conv", {"x", "k1"}, {"c1"});
  TinyModel::IntsAttr(c1, "pads", {1, 1, 1, 1});
  TinyModel::IntsAttr(c1, "kernel_shape", {3, 3});
  TinyModel::FloatAttr(m.Node("BatchNormalization", {"c1", "scale", "bias", "mean", "var"}, {"bn"}), "epsilon", 1e-5f);
  m.Node("Relu", {"bn"}, {"r1"});
  onnx::NodeProto* pool = m.Node("MaxPool", {"r1"}, {"p1"});
  TinyModel::IntsAttr(pool, "kernel_shape", {2, 2});
  TinyModel::IntsAttr(pool, "strides", {2, 2});
  onnx::NodeProto* c2 = m.Node("Conv", {"p1", "k2"}, {"c2"});
  TinyModel::IntsAttr(c2, "pads", {1, 1, 1, 1});
  TinyModel::IntAttr(c2, "group", 2);
  m.Node("Add", {"c2", "p1"}, {"sum"});
  m.Node("GlobalAveragePool", {"sum"}, {"g"});
  TinyModel::IntAttr(m.Node("Flatten", {"g"}, {"f"}), "axis", 1);
  TinyModel::IntAttr(m.Node("Gemm", {"f", "fc"}, {"y"}), "transB", 1);
  m.Output("y");
  return m.Bytes();
}

// The exporters' shape subgraph: x[batch, seq, 8] reshaped to [batch, seq, 2, 4]
// from Shape -> Gather -> Unsqueeze -> Concat, then transposed and reshaped back.
std::string ShapeSubgraphModel() {
  TinyModel m;
  m.Input("x", {-1, -1, 8}, {"batch", "seq"});
  m.Ints("i0", {0}, true);
  m.Ints("i1", {1}, true);
  m.Ints("axes", {0});
  m.Ints("heads", {2, 4});
  m.Ints("back", {0, 0, -1});
  m.Node("Shape", {"x"}, {"s"});
  m.Node("Gather", {"s", "i0"}, {"b"});
  m.Node("Gather", {"s", "i1"}, {"t"});
  m.Node("Unsqueeze", {"b", "axes"}, {"bu"});
  m.Node("Unsqueeze", {"t", "axes"}, {"tu"});
  TinyModel::IntAttr(m.Node("Concat", {"bu", "tu", "heads"}, {"shape"}), "axis", 0);
  m.Node("Reshape", {"x", "shape"}, {"r"});
  TinyModel::IntsAttr(m.Node("Transpose", {"r"}, {"tr"}), "perm", {0, 2, 1, 3});
  TinyModel::IntsAttr(m.Node("Transpose", {"tr"}, {"un"}), "perm", {0, 2, 1, 3});
  m.Node("Reshape", {"un", "back"}, {"y"});
  m.Output("y");
  return m.Bytes();
}

// Operators whose outputs are shapes or computed values: Size, Range, Cast,
// ConstantOfShape, Expand, Tile, Slice, Squeeze, Where, Equal, Mul on shapes.
std::string ShapeValuesModel() {
  TinyModel m;
  m.Input("x", {-1, 6}, {"n"});
  m.Ints("zero", {0}, true);
  m.Ints("one", {1}, true);
  m.Ints("two", {2}, true);
  m.Ints("starts", {1});
  m.Ints("ends", {2});
  m.Ints("axes", {0});
  m.Ints("reps", {1, 2});
  m.Node("Shape", {"x"}, {"s"});
  m.Node("Size", {"x"}, {"size"});
  m.Node("Slice", {"s", "starts", "ends", "axes"}, {"cols"});
  m.Node("Squeeze", {"cols", "axes"}, {"c"});
  m.Node("Range", {"zero", "c", "one"}, {"range"});
  TinyModel::IntAttr(m.Node("Cast", {"range"}, {"rf"}), "to", onnx::TensorProto::FLOAT);
  m.Node("Mul", {"s", "two"}, {"s2"});
  m.Node("Equal", {"s", "s2"}, {"eq"});
  m.Node("Where", {"eq", "s", "s2"}, {"target"});
  m.Node("ConstantOfShape", {"target"}, {"zeros"});
  m.Node("Expand", {"rf", "s"}, {"e"});
  m.Node("Tile", {"e", "reps"}, {"tiled"});
  m.Node("Add", {"x", "e"}, {"y"});
  m.Output("y");
  m.Output("tiled");
  m.Output("zeros");
  m.Output("size");
  return m.Bytes();
}

// One attention head at opset 17: LayerNormalization, Split, MatMul of the queries
// and the transposed keys, Div, Softmax, MatMul, Einsum, Erf-based GELU pieces.
std::string AttentionModel() {
  TinyModel m(17);
  m.Input("x", {2, 5, 12});
  m.Weight("gamma", {12});
  m.Weight("beta", {12});
  m.Weight("wqkv", {12, 36});
  m.Ints("split", {12, 12, 12});
  TinyModel::IntAttr(m.Node("LayerNormalization", {"x", "gamma", "beta"}, {"ln"}), "axis", -1);
  m.Node("MatMul", {"ln", "wqkv"}, {"qkv"});
  TinyModel::IntAttr(m.Node("Split", {"qkv", "split"}, {"q", "k", "v"}), "axis", 2);
  TinyModel::IntsAttr(m.Node("Transpose", {"k"}, {"kt"}), "perm", {0, 2, 1});
  m.Node("MatMul", {"q", "kt"}, {"scores"});
  m.Node("Sqrt", {"scores"}, {"scale"});
  m.Node("Div", {"scores", "scale"}, {"scaled"});
  TinyModel::IntAttr(m.Node("Softmax", {"scaled"}, {"probs"}), "axis", -1);
  m.Node("MatMul", {"probs", "v"}, {"ctx"});
  TinyModel::StringAttr(m.Node("Einsum", {"ctx", "v"}, {"mix"}), "equation", "bij,bkj->bik");
  m.Node("Erf", {"mix"}, {"erf"});
  TinyModel::IntsAttr(m.Node("ReduceMean", {"erf"}, {"y"}), "axes", {-1});
  m.Output("y");
  return m.Bytes();
}

// x[seq, batch, 4] -> LSTM (hidden 3) -> Squeeze -> Gather of the last step.
std::string LstmModel() {
  TinyModel m;
  m.Input("x", {-1, 2, 4}, {"seq"});
  m.Weight("w", {1, 12, 4});
  m.Weight("r", {1, 12, 3});
  m.Weight("b", {1, 24});
  m.Ints("axis1", {1});
  m.Ints("last", {-1}, true);
  TinyModel::IntAttr(m.Node("LSTM", {"x", "w", "r", "b"}, {"all", "h", "c"}), "hidden_size", 3);
  m.Node("Squeeze", {"all", "axis1"}, {"s"});
  m.Node("Gather", {"s", "last"}, {"y"});
  m.Output("y");
  m.Output("c");
  return m.Bytes();
}

int Write(const std::filesystem::path& path, const std::string& bytes) {
  const Status written = WriteFileAtomic(path.string(), bytes);
  if (!written.ok()) {
    std::fprintf(stderr, "fuzz_seeds: %s\n", written.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace graphopt

int main(int argc, char** argv) {
  using namespace graphopt;
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir / "cluster");
  std::filesystem::create_directories(dir / "onnx");
  int failed = 0;
  for (const std::string& name : ClusterPresetNames()) {
    failed |= Write(dir / "cluster" / ("preset-" + name + ".json"), ClusterToJson(*ClusterPreset(name)));
  }
  const std::pair<const char*, std::string (*)()> models[] = {
      {"dense", DenseModel},         {"conv", ConvModel},           {"shape_subgraph", ShapeSubgraphModel},
      {"shape_values", ShapeValuesModel}, {"attention", AttentionModel}, {"lstm", LstmModel},
  };
  for (const auto& [name, make] : models) failed |= Write(dir / "onnx" / (std::string("tiny_") + name + ".onnx"), make());
  return failed;
}
