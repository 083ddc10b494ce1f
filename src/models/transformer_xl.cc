// Transformer-XL: the forward graph of one training step of a Transformer-XL language
// model, op by op as in the TensorFlow reference implementation of the paper
// "Transformer-XL: Attentive Language Models Beyond a Fixed-Length Context" (2019).
//
// The step processes `segments` consecutive segments of `segment` tokens each. For
// every segment: token embedding (Gather from the table, scaled by sqrt(d_model),
// dropout) and dropout of the sinusoidal relative position embedding; then, per
// layer, relative-position multi-head attention over concat([memory, segment]):
// one fused Q/K/V projection over the concatenation, the query cut to the current
// segment, the position keys projected from the position embedding, the content
// bias r_w_bias and position bias r_r_bias added to the query, and per head the
// content score (AC), the position score (BD) with the relative shift (Pad,
// Reshape, Slice, Reshape), scaling, causal masking, Softmax and the weighted sum of
// the values; the heads are concatenated and projected back, followed by dropout,
// residual Add and LayerNorm, and the position-wise feed-forward block (MatMul, bias,
// Relu, dropout, MatMul, bias, dropout, residual Add, LayerNorm). The softmax layer
// projects with the embedding table (tied weights) plus a bias and takes
// SoftmaxCrossEntropy; the step's loss is the mean of the segment losses.
//
// Segment-level recurrence: the memory of layer l for segment s is the last
// `memory` positions of concat([memory of segment s-1, input of layer l in segment
// s-1]) behind a StopGradient op (a free view the training expansion does not
// differentiate), so no gradient flows into it (the memory of the first segment
// comes from the previous step: one Input per layer). The memory carried
// out of the last segment is not built: nothing would consume it.
//
// Defaults follow the paper's base configuration for enwik8/text8 (d_model 512, 8
// heads of 64, d_inner 2048) with segment = memory = 128 tokens and batch 32 (the
// WT-103 base uses d_model 410, 10 heads, d_inner 2100, 150 tokens, batch 60), and a
// 32,000-entry subword vocabulary with a plain tied softmax instead of WT-103's
// 267,735 words with an adaptive softmax. 24 segments per step give an 8-layer
// training graph of about 61,000 ops, the scale of the GO paper's largest graphs.
#include <string>
#include <vector>

#include "graph/builder.h"
#include "models/models.h"

namespace graphopt {
namespace {

struct TxlConfig {
  int64_t layers, batch, segment, memory, model, heads, inner, vocab, segments;
  int64_t head_dim() const { return model / heads; }
  int64_t keys() const { return memory + segment; }
};

struct TxlLayerWeights {
  TensorId qkv, pos, r_w_bias, r_r_bias, out, ln1_gamma, ln1_beta, ff1, ff1_bias, ff2, ff2_bias, ln2_gamma, ln2_beta;
};

// Tensors shared by every layer of one segment (or of the whole step).
struct TxlShared {
  TensorId pos_emb;     // [K, D] sinusoidal relative position embedding after dropout
  TensorId attn_scale;  // scalar 1/sqrt(d_head)
  TensorId keep_mask;   // [S, K]: 1 where a query may attend, 0 elsewhere
  TensorId neg_mask;    // [S, K]: 1e30 where it may not
};

// A stop-gradient: forwards x unchanged, free, and blocks the backward pass.
TensorId StopGradient(GraphBuilder& b, TensorId x) {
  const Tensor& t = b.graph().tensor(x);
  const Shape shape = t.shape;
  const DType dtype = t.dtype;
  return b.Output(
      b.AddOp(OpKind::kStopGradient, "stop_gradient", {x}, {shape}, {}, dtype));
}

TxlLayerWeights MakeLayerWeights(GraphBuilder& b, const TxlConfig& c) {
  const int64_t d = c.model, hd = c.heads * c.head_dim();
  TxlLayerWeights w;
  w.qkv = b.Variable("attn/qkv_kernel", {d, 3 * hd});
  w.pos = b.Variable("attn/r_kernel", {d, hd});
  w.r_w_bias = b.Variable("attn/r_w_bias", {hd});  // [heads, d_head] flattened
  w.r_r_bias = b.Variable("attn/r_r_bias", {hd});
  w.out = b.Variable("attn/o_kernel", {hd, d});
  w.ln1_gamma = b.Variable("attn/ln_gamma", {d});
  w.ln1_beta = b.Variable("attn/ln_beta", {d});
  w.ff1 = b.Variable("ff/kernel1", {d, c.inner});
  w.ff1_bias = b.Variable("ff/bias1", {c.inner});
  w.ff2 = b.Variable("ff/kernel2", {c.inner, d});
  w.ff2_bias = b.Variable("ff/bias2", {d});
  w.ln2_gamma = b.Variable("ff/ln_gamma", {d});
  w.ln2_beta = b.Variable("ff/ln_beta", {d});
  return w;
}

// One layer on one segment. h [B, S, D] is the layer input, mem [B, M, D] its memory.
// Returns the layer output; *cat receives concat([mem, h]) (for the next memory).
TensorId TxlLayer(GraphBuilder& b, const TxlConfig& c, const TxlLayerWeights& w, const TxlShared& shared, TensorId h,
                  TensorId mem, TensorId* cat) {
  const int64_t bs = c.batch, s = c.segment, m = c.memory, k = c.keys(), d = c.model, nh = c.heads;
  const int64_t dh = c.head_dim(), hd = nh * dh;
  const std::string scope = b.scope();

  // Relative multi-head attention.
  b.SetScope(scope + "/attn");
  *cat = b.Concat({mem, h}, 1);
  TensorId heads = b.MatMul(b.Reshape(*cat, {bs * k, d}), w.qkv);
  heads = b.Reshape(heads, {bs, k, 3 * hd});
  const std::vector<TensorId> qkv = b.Split(heads, 2, {hd, hd, hd});
  const TensorId q = b.Slice(qkv[0], 1, m, k);
  const TensorId r_head_k = b.MatMul(shared.pos_emb, w.pos);  // [K, HD]
  const TensorId rw_q = b.Add(q, w.r_w_bias);
  const TensorId rr_q = b.Add(q, w.r_r_bias);
  const std::vector<int64_t> per_head(static_cast<size_t>(nh), dh);
  const std::vector<TensorId> rw_heads = b.Split(rw_q, 2, per_head);
  const std::vector<TensorId> rr_heads = b.Split(rr_q, 2, per_head);
  const std::vector<TensorId> k_heads = b.Split(qkv[1], 2, per_head);
  const std::vector<TensorId> v_heads = b.Split(qkv[2], 2, per_head);
  const std::vector<TensorId> r_heads = b.Split(r_head_k, 1, per_head);
  std::vector<TensorId> head_out;
  for (int64_t i = 0; i < nh; ++i) {
    const size_t hi = static_cast<size_t>(i);
    b.SetScope(scope + "/attn/head" + std::to_string(i));
    const TensorId ac = b.BatchMatMul(rw_heads[hi], k_heads[hi], false, true);  // [B, S, K]
    TensorId bd = b.MatMul(rr_heads[hi], r_heads[hi], false, true);             // [B, S, K]
    // Relative shift: row i moves left by S-1-i.
    bd = b.Pad(bd, 2, 1, 0);
    bd = b.Reshape(bd, {bs, k + 1, s});
    bd = b.Slice(bd, 1, 1, k + 1);
    bd = b.Reshape(bd, {bs, s, k});
    TensorId score = b.Mul(b.Add(ac, bd), shared.attn_scale);
    score = b.Sub(b.Mul(score, shared.keep_mask), shared.neg_mask);
    const TensorId prob = b.Softmax(score, -1);
    head_out.push_back(b.BatchMatMul(prob, v_heads[hi]));  // [B, S, dh]
  }
  b.SetScope(scope + "/attn");
  TensorId attn = b.Concat(head_out, 2);
  attn = b.MatMul(b.Reshape(attn, {bs * s, hd}), w.out);
  attn = b.Unary(OpKind::kDropout, b.Reshape(attn, {bs, s, d}));
  attn = b.LayerNorm(b.Add(attn, h), w.ln1_gamma, w.ln1_beta);

  // Position-wise feed-forward.
  b.SetScope(scope + "/ff");
  TensorId ff = b.MatMul(b.Reshape(attn, {bs * s, d}), w.ff1);
  ff = b.Unary(OpKind::kDropout, b.Relu(b.Add(ff, w.ff1_bias)));
  ff = b.Add(b.MatMul(ff, w.ff2), w.ff2_bias);
  ff = b.Unary(OpKind::kDropout, b.Reshape(ff, {bs, s, d}));
  const TensorId out = b.LayerNorm(b.Add(ff, attn), w.ln2_gamma, w.ln2_beta);
  b.SetScope(scope);
  return out;
}

}  // namespace

StatusOr<Graph> BuildTransformerXl(ParamReader& params) {
  TxlConfig c;
  c.layers = params.Int("layers", 2, 1, 64);
  c.batch = params.Int("batch", 32, 1, 4096);
  c.segment = params.Int("segment", 128, 1, 8192);
  c.memory = params.Int("memory", 128, 1, 8192);
  c.model = params.Int("model", 512, 1, 16384);
  c.heads = params.Int("heads", 8, 1, 256);
  c.inner = params.Int("inner", 2048, 1, 65536);
  c.vocab = params.Int("vocab", 32000, 2, 10000000);
  c.segments = params.Int("segments", 24, 1, 256);
  GO_RETURN_IF_ERROR(params.status());
  if (c.model % c.heads != 0) {
    return InvalidArgument("transformer_xl: parameter 'heads' (" + std::to_string(c.heads) +
                           ") must divide parameter 'model' (" + std::to_string(c.model) + ")");
  }
  const int64_t bs = c.batch, s = c.segment, m = c.memory, k = c.keys(), d = c.model;

  GraphBuilder b("transformer_xl_" + std::to_string(c.layers) + "l", "transformer_xl");
  const int32_t embedding_layer = b.BeginLayer("embedding");
  std::vector<int32_t> layer_ids;
  for (int64_t l = 0; l < c.layers; ++l) layer_ids.push_back(b.BeginLayer("layer" + std::to_string(l)));
  const int32_t softmax_layer = b.BeginLayer("softmax");

  // Parameters and step-wide constants.
  b.SetLayer(embedding_layer);
  b.SetScope("embedding");
  const TensorId table = b.Variable("table", {c.vocab, d});  // tied with the softmax
  const TensorId emb_scale = b.Constant("scale", {});
  const TensorId pos_table = b.Constant("pos_emb", {k, d});
  TxlShared shared{};
  shared.attn_scale = b.Constant("attn_scale", {});
  shared.keep_mask = b.Constant("keep_mask", {s, k});
  shared.neg_mask = b.Constant("neg_mask", {s, k});
  std::vector<TxlLayerWeights> weights;
  std::vector<TensorId> mems;
  for (int64_t l = 0; l < c.layers; ++l) {
    b.SetLayer(layer_ids[static_cast<size_t>(l)]);
    b.SetScope("layer" + std::to_string(l));
    weights.push_back(MakeLayerWeights(b, c));
    mems.push_back(b.Input("mem", {bs, m, d}));  // the previous step's memory
  }
  b.SetLayer(softmax_layer);
  b.SetScope("softmax");
  const TensorId softmax_bias = b.Variable("bias", {c.vocab});

  std::vector<TensorId> losses;
  for (int64_t seg = 0; seg < c.segments; ++seg) {
    const std::string seg_scope = "seg" + std::to_string(seg);
    const bool last = seg + 1 == c.segments;
    b.SetLayer(embedding_layer);
    b.SetScope(seg_scope + "/embedding");
    const TensorId tokens = b.Input("tokens", {bs, s}, DType::kI32);
    TensorId h = b.Unary(OpKind::kDropout, b.Mul(b.Gather(table, tokens), emb_scale));
    shared.pos_emb = b.Unary(OpKind::kDropout, pos_table);

    for (int64_t l = 0; l < c.layers; ++l) {
      const size_t li = static_cast<size_t>(l);
      b.SetLayer(layer_ids[li]);
      b.SetScope(seg_scope + "/layer" + std::to_string(l));
      TensorId cat = kNoId;
      const TensorId out = TxlLayer(b, c, weights[li], shared, h, mems[li], &cat);
      if (!last) {
        // The next segment's memory: the last M positions of concat([mem, h]).
        b.SetScope(seg_scope + "/layer" + std::to_string(l) + "/new_mem");
        TensorId next = h;
        if (m > s) next = b.Slice(cat, 1, k - m, k);
        if (m < s) next = b.Slice(h, 1, s - m, s);
        mems[li] = StopGradient(b, next);
      }
      h = out;
    }

    b.SetLayer(softmax_layer);
    b.SetScope(seg_scope + "/softmax");
    h = b.Reshape(b.Unary(OpKind::kDropout, h), {bs * s, d});
    const TensorId logits = b.Add(b.MatMul(h, table, false, true), softmax_bias);
    const TensorId labels = b.Input("labels", {bs * s}, DType::kI32);
    losses.push_back(b.SoftmaxCrossEntropy(logits, labels));
  }
  if (losses.size() > 1) {
    b.SetLayer(softmax_layer);
    b.SetScope("softmax");
    const TensorId inv_segments = b.Constant("inv_segments", {});
    b.Mul(b.AddN(losses), inv_segments);
  }
  return b.Finish();
}

}  // namespace graphopt
