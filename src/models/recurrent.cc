#include "models/recurrent.h"

namespace graphopt {

LstmWeights AddLstmWeights(GraphBuilder& builder, int64_t input_size, int64_t hidden) {
  LstmWeights w;
  w.input_size = input_size;
  w.hidden = hidden;
  w.kernel = builder.Variable("kernel", {input_size + hidden, 4 * hidden});
  w.bias = builder.Variable("bias", {4 * hidden});
  w.forget_bias = builder.Constant("forget_bias", {});
  builder.mutable_graph().mutable_op(builder.graph().tensor(w.forget_bias).producer).attrs["value"] = 1.0;
  return w;
}

TensorId AddDropout(GraphBuilder& builder, TensorId x, double rate) {
  const TensorId y = builder.Unary(OpKind::kDropout, x);
  builder.mutable_graph().mutable_op(builder.graph().tensor(y).producer).attrs["rate"] = rate;
  return y;
}

LstmState LstmStep(GraphBuilder& builder, const LstmWeights& weights, TensorId x, const LstmState& prev,
                   double dropout_rate) {
  GO_CHECK_MSG(builder.shape(x).size() == 2 && builder.shape(x)[1] == weights.input_size,
               "LSTM input " + ShapeToString(builder.shape(x)) + " does not match input size " +
                   std::to_string(weights.input_size));
  const int64_t h = weights.hidden;
  if (dropout_rate > 0) x = AddDropout(builder, x, dropout_rate);
  const TensorId xh = builder.Concat({x, prev.h}, 1);
  const TensorId gates = builder.Add(builder.MatMul(xh, weights.kernel), weights.bias);
  const std::vector<TensorId> ijfo = builder.Split(gates, 1, {h, h, h, h});
  const TensorId i = builder.Sigmoid(ijfo[0]);
  const TensorId j = builder.Tanh(ijfo[1]);
  const TensorId f = builder.Sigmoid(builder.Add(ijfo[2], weights.forget_bias));
  const TensorId o = builder.Sigmoid(ijfo[3]);
  LstmState next;
  next.c = builder.Add(builder.Mul(prev.c, f), builder.Mul(i, j));
  next.h = builder.Mul(builder.Tanh(next.c), o);
  return next;
}

std::vector<TensorId> EmbedTimeMajor(GraphBuilder& builder, TensorId table, TensorId ids) {
  const Shape ids_shape = builder.shape(ids);
  GO_CHECK_MSG(ids_shape.size() == 2, "time-major ids must be [steps, batch]");
  const int64_t steps = ids_shape[0];
  const int64_t batch = ids_shape[1];
  const int64_t dim = builder.shape(table)[1];
  const TensorId embedded = builder.Gather(table, ids);
  const std::vector<TensorId> pieces = builder.Split(embedded, 0, std::vector<int64_t>(static_cast<size_t>(steps), 1));
  std::vector<TensorId> out;
  out.reserve(pieces.size());
  for (TensorId piece : pieces) out.push_back(builder.Reshape(piece, {batch, dim}));
  return out;
}

}  // namespace graphopt
