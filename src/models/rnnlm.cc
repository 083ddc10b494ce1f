// RNNLM: the forward graph of one training step of a stacked-LSTM word language model,
// unrolled over time op by op, as in the static TensorFlow graphs the device placement
// papers optimized (ICML 2017, ICLR 2018, NeurIPS 2020).
//
// The time-major token ids [steps, batch] are looked up in the embedding table with
// one Gather and cut into one [batch, hidden] input per step. `layers` LSTM layers
// (models/recurrent.h: 14 primitive ops per cell, after a Dropout of the cell input
// as in "Recurrent Neural Network Regularization", 2014) run step-major like
// TensorFlow's static_rnn over a MultiRNNCell: step t of layer l reads the output of
// layer l-1 at step t and its own state from step t-1. Each layer starts from a
// state carried over from the previous batch (truncated back-propagation through
// time: two Inputs per layer). The top layer's outputs go through Dropout, are
// concatenated over time into [steps * batch, hidden] and projected to the
// vocabulary (MatMul + bias Add) for one SoftmaxCrossEntropy, the only loss; the
// final states are not returned (nothing would read them).
//
// Defaults: 2,048 LSTM units and 20 unrolled steps as in the big LSTM language
// models of "Exploring the Limits of Language Modeling" (2016), which the placement
// papers' RNNLM benchmark builds on; batch 64 and a 40,000-word vocabulary with a full
// softmax (the original has 793k words and a sampled softmax).
//
// Layer tags: "embedding", "lstm0".."lstm{L-1}", "softmax". Forward op count:
// 11 + 2 * steps + layers * (5 + 15 * steps).
#include <string>
#include <vector>

#include "graph/builder.h"
#include "models/models.h"
#include "models/recurrent.h"

namespace graphopt {
namespace {
constexpr double kDropoutRate = 0.1;
}  // namespace

StatusOr<Graph> BuildRnnlm(ParamReader& params) {
  const int64_t layers = params.Int("layers", 2, 1, 64);
  const int64_t batch = params.Int("batch", 64, 1, 1 << 16);
  const int64_t steps = params.Int("steps", 20, 1, 1000);
  const int64_t hidden = params.Int("hidden", 2048, 1, 1 << 16);
  const int64_t vocab = params.Int("vocab", 40000, 2, 1 << 24);
  GO_RETURN_IF_ERROR(params.status());

  GraphBuilder b("rnnlm_" + std::to_string(layers) + "l", "rnnlm");
  const int32_t embedding_layer = b.BeginLayer("embedding");
  std::vector<int32_t> lstm_layers;
  for (int64_t l = 0; l < layers; ++l) lstm_layers.push_back(b.BeginLayer("lstm" + std::to_string(l)));
  const int32_t softmax_layer = b.BeginLayer("softmax");

  b.SetLayer(embedding_layer);
  b.SetScope("embedding");
  const TensorId table = b.Variable("table", {vocab, hidden});
  const TensorId ids = b.Input("ids", {steps, batch}, DType::kI32);
  const std::vector<TensorId> inputs = EmbedTimeMajor(b, table, ids);

  std::vector<LstmWeights> weights;
  std::vector<LstmState> states;
  for (int64_t l = 0; l < layers; ++l) {
    b.SetLayer(lstm_layers[static_cast<size_t>(l)]);
    b.SetScope("lstm" + std::to_string(l));
    weights.push_back(AddLstmWeights(b, hidden, hidden));
    LstmState init;
    init.c = b.Input("initial_c", {batch, hidden});
    init.h = b.Input("initial_h", {batch, hidden});
    states.push_back(init);
  }

  std::vector<TensorId> top_outputs;
  for (int64_t t = 0; t < steps; ++t) {
    TensorId x = inputs[static_cast<size_t>(t)];
    for (int64_t l = 0; l < layers; ++l) {
      const size_t li = static_cast<size_t>(l);
      b.SetLayer(lstm_layers[li]);
      b.SetScope("lstm" + std::to_string(l) + "/t" + std::to_string(t));
      states[li] = LstmStep(b, weights[li], x, states[li], kDropoutRate);
      x = states[li].h;
    }
    b.SetLayer(softmax_layer);
    b.SetScope("softmax/t" + std::to_string(t));
    top_outputs.push_back(AddDropout(b, x, kDropoutRate));
  }

  b.SetLayer(softmax_layer);
  b.SetScope("softmax");
  const TensorId flat = b.Concat(top_outputs, 0);
  const TensorId w = b.Variable("kernel", {hidden, vocab});
  const TensorId bias = b.Variable("bias", {vocab});
  const TensorId logits = b.Add(b.MatMul(flat, w), bias);
  const TensorId labels = b.Input("labels", {steps * batch}, DType::kI32);
  b.SoftmaxCrossEntropy(logits, labels);
  return b.Finish();
}

}  // namespace graphopt
