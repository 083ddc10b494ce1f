// GraphBuilder: builds forward graphs op by op with shape inference, unique names
// and layer tags. Used by the built-in model builders and tests.
//
// Every method adds one op (and its output tensors) and returns the output tensor
// id. Shapes follow NumPy broadcasting for binary ops and NCHW layouts for conv and
// pooling. Ops are named "<scope>/<base>" with a numeric suffix when the name is
// taken. Programming errors (incompatible shapes) abort with a message: builder
// inputs come from code, not from users.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/graph.h"

namespace graphopt {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name, std::string family = "");

  // Starts a new layer tag; subsequent ops carry it. Returns the layer id.
  int32_t BeginLayer(const std::string& layer_name);
  // Sets the current layer to an existing one (e.g. to go back to layer 0).
  void SetLayer(int32_t layer) { layer_ = layer; }
  int32_t layer() const { return layer_; }
  // Name prefix of subsequent ops ("enc/l0/t3").
  void SetScope(std::string scope) { scope_ = std::move(scope); }
  const std::string& scope() const { return scope_; }

  const Graph& graph() const { return graph_; }
  Graph& mutable_graph() { return graph_; }
  const Shape& shape(TensorId t) const { return graph_.tensor(t).shape; }
  // Returns the built graph; the builder must not be used afterwards.
  Graph Finish();

  // Sources.
  TensorId Input(const std::string& name, Shape shape, DType dtype = DType::kF32);
  // A trainable parameter: a Variable op in a new colocation group.
  TensorId Variable(const std::string& name, Shape shape, DType dtype = DType::kF32);
  TensorId Constant(const std::string& name, Shape shape, DType dtype = DType::kF32);

  // Contractions.
  TensorId MatMul(TensorId a, TensorId b, bool transpose_a = false, bool transpose_b = false);
  TensorId BatchMatMul(TensorId a, TensorId b, bool transpose_a = false, bool transpose_b = false);
  // x [N, C, H, W], w [Cout, C/groups, kh, kw]; pads symmetric (ph, pw).
  TensorId Conv2D(TensorId x, TensorId w, std::vector<int64_t> strides = {1, 1}, std::vector<int64_t> pads = {0, 0},
                  std::vector<int64_t> dilations = {1, 1}, int64_t groups = 1);
  // x [N, C, L], w [Cout, C/groups, k]; pad on each side (as Conv2D). For a causal
  // convolution, Pad the left side explicitly and pass pad = 0.
  TensorId Conv1D(TensorId x, TensorId w, int64_t stride = 1, int64_t pad = 0, int64_t dilation = 1, int64_t groups = 1);

  // Elementwise.
  TensorId Unary(OpKind kind, TensorId x);
  TensorId Binary(OpKind kind, TensorId a, TensorId b);
  TensorId Add(TensorId a, TensorId b) { return Binary(OpKind::kAdd, a, b); }
  TensorId Mul(TensorId a, TensorId b) { return Binary(OpKind::kMul, a, b); }
  TensorId Sub(TensorId a, TensorId b) { return Binary(OpKind::kSub, a, b); }
  TensorId Sigmoid(TensorId x) { return Unary(OpKind::kSigmoid, x); }
  TensorId Tanh(TensorId x) { return Unary(OpKind::kTanh, x); }
  TensorId Relu(TensorId x) { return Unary(OpKind::kRelu, x); }
  TensorId AddN(const std::vector<TensorId>& xs);

  // Reductions and normalizations.
  TensorId Reduce(OpKind kind, TensorId x, std::vector<int64_t> axes, bool keep_dims);
  TensorId Softmax(TensorId x, int64_t axis = -1);
  TensorId LayerNorm(TensorId x, TensorId gamma, TensorId beta);
  // x [N, C, ...]; scale, bias [C].
  TensorId BatchNorm(TensorId x, TensorId scale, TensorId bias);

  // Pooling (NCHW).
  TensorId Pool2D(OpKind kind, TensorId x, std::vector<int64_t> kernel, std::vector<int64_t> strides,
                  std::vector<int64_t> pads = {0, 0});
  TensorId GlobalAvgPool(TensorId x);

  // Data movement.
  TensorId Concat(const std::vector<TensorId>& xs, int64_t axis);
  std::vector<TensorId> Split(TensorId x, int64_t axis, const std::vector<int64_t>& sizes);
  TensorId Slice(TensorId x, int64_t axis, int64_t begin, int64_t end);
  TensorId Reshape(TensorId x, Shape shape);
  TensorId Transpose(TensorId x, std::vector<int64_t> perm);
  TensorId Pad(TensorId x, int64_t axis, int64_t before, int64_t after);
  // table [V, D], indices (integer) -> indices.shape + [D].
  TensorId Gather(TensorId table, TensorId indices);

  // Loss: logits [..., C], labels [...] (integer) -> scalar.
  TensorId SoftmaxCrossEntropy(TensorId logits, TensorId labels);

  // Any op: given inputs, output shapes and dtypes, attributes. Returns the op id.
  OpId AddOp(OpKind kind, const std::string& base_name, const std::vector<TensorId>& inputs,
             const std::vector<Shape>& output_shapes, Attrs attrs = {}, DType dtype = DType::kF32);
  // Output tensor i of op.
  TensorId Output(OpId op, size_t i = 0) const { return graph_.op(op).outputs[i]; }

  std::string UniqueName(const std::string& base);

 private:
  TensorId Single(OpKind kind, const std::string& base, const std::vector<TensorId>& inputs, Shape out,
                  Attrs attrs = {}, DType dtype = DType::kF32);
  Graph graph_;
  std::string scope_;
  int32_t layer_ = kNoId;
  std::unordered_map<std::string, int> name_counts_;
  std::unordered_set<std::string> used_names_;
};

// NumPy broadcast of two shapes; aborts if incompatible.
Shape BroadcastShapes(const Shape& a, const Shape& b);

}  // namespace graphopt
