// Building blocks of the unrolled recurrent benchmark graphs (RNNLM, GNMT): an LSTM
// cell made of primitive ops, one time step at a time, and a time-major embedding
// lookup cut into per-step inputs.
//
// The cell follows TensorFlow's BasicLSTMCell, whose op-level graphs the device
// placement papers optimized: gates = concat([x, h]) x kernel + bias, split into
// (i, j, f, o); c' = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j);
// h' = tanh(c') * sigmoid(o). The weights of a layer are created once and read by
// every step of that layer.
#pragma once

#include <vector>

#include "graph/builder.h"

namespace graphopt {

// The parameters of one LSTM layer (one direction), shared by all its steps.
struct LstmWeights {
  TensorId kernel = kNoId;       // [input_size + hidden, 4 * hidden], gates in the order i, j, f, o
  TensorId bias = kNoId;         // [4 * hidden]
  TensorId forget_bias = kNoId;  // scalar constant 1.0 added to the forget gate
  int64_t input_size = 0;
  int64_t hidden = 0;
};

struct LstmState {
  TensorId c = kNoId;
  TensorId h = kNoId;
};

// Adds the two Variables ("kernel", "bias") and the forget-bias Constant of a layer
// in the builder's current layer tag and scope.
LstmWeights AddLstmWeights(GraphBuilder& builder, int64_t input_size, int64_t hidden);

// One unrolled step on x [batch, input_size] from state `prev` ([batch, hidden]
// each); if dropout_rate > 0 the input first goes through a Dropout op (as
// TensorFlow's DropoutWrapper on the cell input). Returns the new state; its h is
// the step's output. Adds 14 ops (15 with the dropout).
LstmState LstmStep(GraphBuilder& builder, const LstmWeights& weights, TensorId x, const LstmState& prev,
                   double dropout_rate);

// Adds a Dropout op with attribute "rate".
TensorId AddDropout(GraphBuilder& builder, TensorId x, double rate);

// Looks up time-major ids [steps, batch] in table [vocab, dim] with one Gather,
// splits the result over time and reshapes each piece: returns `steps` tensors of
// shape [batch, dim]. Adds 2 + steps ops. One Gather (not one per step) keeps the
// table's gradient a single tensor.
std::vector<TensorId> EmbedTimeMajor(GraphBuilder& builder, TensorId table, TensorId ids);

}  // namespace graphopt
