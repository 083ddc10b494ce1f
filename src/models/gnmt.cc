// GNMT: the forward graph of one training step of Google's neural machine translation
// model ("Google's Neural Machine Translation System", 2016), unrolled over time op
// by op, following the GNMT model of the TensorFlow NMT tutorial code (encoder type
// "gnmt", attention "normed_bahdanau", architecture "gnmt_v2").
//
// Encoder. Source ids [steps, batch] go through one Gather of the source embedding
// and are cut into per-step inputs. Layer 0 is bidirectional: a forward and a
// backward LSTM (models/recurrent.h, Dropout of the cell input first), whose outputs
// are concatenated per step; layers 1..L-1 are unidirectional and run step-major;
// from layer 2 on (the third layer) each output adds the layer's input (residual).
// Like TensorFlow's dynamic_rnn with sequence lengths, every cell step of the
// encoder masks padding: a Compare of the source lengths with the step index, then
// Where ops that zero the output and carry the state through past a sentence's end.
// The forward direction's last state is not built (nothing reads it).
//
// Attention (tag "decoder0": in TensorFlow it is the AttentionWrapper around the
// bottom decoder cell, and its weights live there). The top encoder outputs are
// stacked into the memory [batch, steps, hidden] and projected once into the keys.
// Per decoder step the bottom layer's output is the query: MatMul, Reshape, Add to
// the keys, Add the bias, Tanh, Mul by the weight-normalized score vector,
// ReduceSum, Where (padding scores to the lowest float), Softmax, Reshape,
// BatchMatMul with the memory and Reshape give the context [batch, hidden].
//
// Decoder. Target ids are embedded like the source. Decoder layer l starts from the
// final state of encoder layer l (layer 0: the backward direction). Layer 0 reads
// concat([embedding_t, context_{t-1}]) (input feeding, zero context at t = 0);
// layers 1..L-1 read concat([output of the layer below, context_t]); from layer 2 on
// they are residual. The decoder does not mask (dynamic_decode without
// impute_finished). Softmax: per step, as in TensorFlow's statically unrolled
// sequence loss (legacy_seq2seq): MatMul to the vocabulary, bias Add and
// SoftmaxCrossEntropy against that step's labels; an AddN of the step losses is the
// only loss. Per-step projections let the softmax of step t overlap the decoder's
// step t+1.
//
// Defaults follow the GNMT WMT16 settings of the TensorFlow NMT tutorial: 1,024
// units (embeddings too), batch 128, sentences cut to 50 tokens, a 32,000-entry
// shared BPE vocabulary, dropout 0.2. Source and target both take `steps` steps.
// The smallest GNMT has 2 layers (one bidirectional, one unidirectional).
//
// Layer tags: "encoder_embedding", "encoder0".."encoder{L-1}", "decoder_embedding",
// "decoder0".."decoder{L-1}" (with the attention), "softmax". Forward op count with
// S = T = steps: 46 + 59 S + 49 T + (layers - 2) * (7 + 20 S + 17 T).
#include <limits>
#include <string>
#include <vector>

#include "graph/builder.h"
#include "models/models.h"
#include "models/recurrent.h"

namespace graphopt {
namespace {

constexpr double kDropoutRate = 0.2;

std::string StepScope(const std::string& prefix, int64_t t) { return prefix + "/t" + std::to_string(t); }

// True [batch, 1] where step t is inside the sentence (t < source length).
TensorId ValidAt(GraphBuilder& b, TensorId lengths, int64_t t) {
  const OpId op = b.AddOp(OpKind::kCompare, "valid", {lengths}, {b.shape(lengths)},
                          {{"comparison", std::string("greater")}, {"value", t}}, DType::kBool);
  return b.Output(op);
}

TensorId Where(GraphBuilder& b, TensorId cond, TensorId if_true, TensorId if_false) {
  const Shape out = BroadcastShapes(BroadcastShapes(b.shape(cond), b.shape(if_true)), b.shape(if_false));
  return b.Output(b.AddOp(OpKind::kWhere, "where", {cond, if_true, if_false}, {out}));
}

// One masked encoder step (TensorFlow's _rnn_step with sequence lengths): the output
// is zero and the state carried through where `valid` is false. The masked state is
// only built when a later step or the decoder reads it.
struct MaskedStep {
  TensorId output = kNoId;
  LstmState state;
};

MaskedStep EncoderStep(GraphBuilder& b, const LstmWeights& w, TensorId x, const LstmState& prev, TensorId lengths,
                       int64_t t, TensorId zeros, bool residual, bool keep_state) {
  const TensorId valid = ValidAt(b, lengths, t);
  const LstmState next = LstmStep(b, w, x, prev, kDropoutRate);
  MaskedStep step;
  const TensorId out = residual ? b.Add(next.h, x) : next.h;
  step.output = Where(b, valid, out, zeros);
  if (keep_state) {
    step.state.c = Where(b, valid, next.c, prev.c);
    step.state.h = Where(b, valid, next.h, prev.h);
  }
  return step;
}

}  // namespace

StatusOr<Graph> BuildGnmt(ParamReader& params) {
  const int64_t layers = params.Int("layers", 2, 2, 64);
  const int64_t batch = params.Int("batch", 128, 1, 1 << 16);
  const int64_t steps = params.Int("steps", 50, 1, 1000);
  const int64_t hidden = params.Int("hidden", 1024, 1, 1 << 16);
  const int64_t vocab = params.Int("vocab", 32000, 2, 1 << 24);
  GO_RETURN_IF_ERROR(params.status());
  const size_t num_layers = static_cast<size_t>(layers);
  const size_t num_steps = static_cast<size_t>(steps);

  GraphBuilder b("gnmt_" + std::to_string(layers) + "l", "gnmt");
  const int32_t enc_embedding_layer = b.BeginLayer("encoder_embedding");
  std::vector<int32_t> enc_layers, dec_layers;
  for (size_t l = 0; l < num_layers; ++l) enc_layers.push_back(b.BeginLayer("encoder" + std::to_string(l)));
  const int32_t dec_embedding_layer = b.BeginLayer("decoder_embedding");
  for (size_t l = 0; l < num_layers; ++l) dec_layers.push_back(b.BeginLayer("decoder" + std::to_string(l)));
  const int32_t softmax_layer = b.BeginLayer("softmax");

  // Source embedding and lengths.
  b.SetLayer(enc_embedding_layer);
  b.SetScope("enc/embedding");
  const TensorId src_table = b.Variable("table", {vocab, hidden});
  const TensorId src_ids = b.Input("ids", {steps, batch}, DType::kI32);
  const TensorId src_lengths = b.Input("lengths", {batch, 1}, DType::kI32);
  const std::vector<TensorId> src_inputs = EmbedTimeMajor(b, src_table, src_ids);

  // Encoder layer 0: bidirectional.
  std::vector<LstmState> enc_final(num_layers);
  std::vector<TensorId> below(num_steps);  // outputs of the layer below, per step
  {
    b.SetLayer(enc_layers[0]);
    std::vector<TensorId> fw(num_steps), bw(num_steps);
    for (const bool backward : {false, true}) {
      const std::string scope = backward ? "enc/l0/bw" : "enc/l0/fw";
      b.SetScope(scope);
      const LstmWeights w = AddLstmWeights(b, hidden, hidden);
      const TensorId zeros = b.Constant("zero_state", {batch, hidden});
      LstmState state{zeros, zeros};
      for (int64_t k = 0; k < steps; ++k) {
        const int64_t t = backward ? steps - 1 - k : k;
        b.SetScope(StepScope(scope, t));
        const bool keep_state = backward || k + 1 < steps;
        const MaskedStep step = EncoderStep(b, w, src_inputs[static_cast<size_t>(t)], state, src_lengths, t, zeros,
                                            /*residual=*/false, keep_state);
        (backward ? bw : fw)[static_cast<size_t>(t)] = step.output;
        state = step.state;
      }
      if (backward) enc_final[0] = state;
    }
    for (size_t t = 0; t < num_steps; ++t) {
      b.SetScope(StepScope("enc/l0", static_cast<int64_t>(t)));
      below[t] = b.Concat({fw[t], bw[t]}, 1);
    }
  }

  // Encoder layers 1..L-1, step-major.
  std::vector<LstmWeights> enc_weights(num_layers);
  std::vector<TensorId> enc_zeros(num_layers, kNoId);
  for (size_t l = 1; l < num_layers; ++l) {
    b.SetLayer(enc_layers[l]);
    b.SetScope("enc/l" + std::to_string(l));
    enc_weights[l] = AddLstmWeights(b, l == 1 ? 2 * hidden : hidden, hidden);
    enc_zeros[l] = b.Constant("zero_state", {batch, hidden});
    enc_final[l] = LstmState{enc_zeros[l], enc_zeros[l]};
  }
  for (size_t t = 0; t < num_steps; ++t) {
    for (size_t l = 1; l < num_layers; ++l) {
      b.SetLayer(enc_layers[l]);
      b.SetScope(StepScope("enc/l" + std::to_string(l), static_cast<int64_t>(t)));
      const MaskedStep step = EncoderStep(b, enc_weights[l], below[t], enc_final[l], src_lengths,
                                          static_cast<int64_t>(t), enc_zeros[l], /*residual=*/l >= 2,
                                          /*keep_state=*/true);
      below[t] = step.output;
      enc_final[l] = step.state;
    }
  }
  const std::vector<TensorId>& enc_outputs = below;

  // Target embedding.
  b.SetLayer(dec_embedding_layer);
  b.SetScope("dec/embedding");
  const TensorId tgt_table = b.Variable("table", {vocab, hidden});
  const TensorId tgt_ids = b.Input("ids", {steps, batch}, DType::kI32);
  const std::vector<TensorId> tgt_inputs = EmbedTimeMajor(b, tgt_table, tgt_ids);

  // Decoder layer 0 weights and the attention mechanism.
  b.SetLayer(dec_layers[0]);
  std::vector<LstmWeights> dec_weights(num_layers);
  b.SetScope("dec/l0");
  dec_weights[0] = AddLstmWeights(b, 2 * hidden, hidden);
  b.SetScope("dec/attention");
  TensorId context = b.Constant("zero_attention", {batch, hidden});
  const TensorId memory = b.Transpose(b.Reshape(b.Concat(enc_outputs, 0), {steps, batch, hidden}), {1, 0, 2});
  const TensorId keys = b.MatMul(memory, b.Variable("memory_kernel", {hidden, hidden}));
  const TensorId query_kernel = b.Variable("query_kernel", {hidden, hidden});
  const TensorId score_v = b.Variable("v", {hidden});
  const TensorId score_g = b.Variable("g", {});
  const TensorId score_bias = b.Variable("bias", {hidden});
  const TensorId v_norm = b.Unary(OpKind::kSqrt, b.Reduce(OpKind::kReduceSum, b.Mul(score_v, score_v), {0}, false));
  const TensorId normed_v = b.Mul(b.Mul(score_g, score_v), b.Unary(OpKind::kReciprocal, v_norm));
  const TensorId source_mask = b.Output(b.AddOp(OpKind::kCompare, "sequence_mask", {src_lengths}, {{batch, steps}},
                                                {{"comparison", std::string("sequence_mask")}, {"maxlen", steps}},
                                                DType::kBool));
  const TensorId score_floor = b.Constant("score_mask_value", {});
  b.mutable_graph().mutable_op(b.graph().tensor(score_floor).producer).attrs["value"] =
      static_cast<double>(std::numeric_limits<float>::lowest());

  for (size_t l = 1; l < num_layers; ++l) {
    b.SetLayer(dec_layers[l]);
    b.SetScope("dec/l" + std::to_string(l));
    dec_weights[l] = AddLstmWeights(b, 2 * hidden, hidden);
  }
  b.SetLayer(softmax_layer);
  b.SetScope("softmax");
  const TensorId out_kernel = b.Variable("kernel", {hidden, vocab});
  const TensorId out_bias = b.Variable("bias", {vocab});

  // Decoder, step-major.
  std::vector<LstmState> dec_states = enc_final;
  std::vector<TensorId> losses;
  for (size_t t = 0; t < num_steps; ++t) {
    const int64_t ti = static_cast<int64_t>(t);
    b.SetLayer(dec_layers[0]);
    b.SetScope(StepScope("dec/l0", ti));
    const TensorId input0 = b.Concat({tgt_inputs[t], context}, 1);
    dec_states[0] = LstmStep(b, dec_weights[0], input0, dec_states[0], kDropoutRate);
    TensorId y = dec_states[0].h;

    b.SetScope(StepScope("dec/attention", ti));
    const TensorId query = b.Reshape(b.MatMul(y, query_kernel), {batch, 1, hidden});
    TensorId score = b.Tanh(b.Add(b.Add(keys, query), score_bias));
    score = b.Reduce(OpKind::kReduceSum, b.Mul(score, normed_v), {2}, false);
    score = Where(b, source_mask, score, score_floor);
    const TensorId alignments = b.Reshape(b.Softmax(score, -1), {batch, 1, steps});
    context = b.Reshape(b.BatchMatMul(alignments, memory), {batch, hidden});

    for (size_t l = 1; l < num_layers; ++l) {
      b.SetLayer(dec_layers[l]);
      b.SetScope(StepScope("dec/l" + std::to_string(l), ti));
      const TensorId input = b.Concat({y, context}, 1);
      dec_states[l] = LstmStep(b, dec_weights[l], input, dec_states[l], kDropoutRate);
      y = l >= 2 ? b.Add(dec_states[l].h, y) : dec_states[l].h;
    }

    b.SetLayer(softmax_layer);
    b.SetScope(StepScope("softmax", ti));
    const TensorId labels = b.Input("labels", {batch}, DType::kI32);
    losses.push_back(b.SoftmaxCrossEntropy(b.Add(b.MatMul(y, out_kernel), out_bias), labels));
  }
  b.SetLayer(softmax_layer);
  b.SetScope("softmax");
  b.AddN(losses);
  return b.Finish();
}

}  // namespace graphopt
