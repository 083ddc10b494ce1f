// Seq2SeqPlacer: the sequence-to-sequence device placer of the two earlier learned
// placers, shared by ColocRL (Mirhoseini et al., "Device Placement Optimization with
// Reinforcement Learning", ICML 2017; rl/colocrl.h) and HDP's Placer (Mirhoseini et
// al., "A Hierarchical Model for Device Placement", ICLR 2018; rl/hdp.h).
//
// Architecture (T steps = the groups to place in topological order, F input features
// per step, hidden size H, D devices):
//  - Encoder: an LSTM over the T inputs (optionally bidirectional, H/2 per direction,
//    as the published HDP controller). Its outputs [T, H] are the attention memory,
//    its final (h, c) the decoder's initial state.
//  - Decoder: an LSTM that emits one device per step. Its input at step t is the
//    embedding of the device chosen at step t - 1 (a learned "go" embedding at
//    t = 0): the decoder is fed nothing else, so it knows which group it places only
//    through its own state and the attention, as in both papers.
//  - Content-based attention of the decoder state over the encoder outputs:
//    "additive" (Bahdanau: v . tanh(W1 e_j + W2 h_t), the published HDP controller) or
//    "dot" (scaled dot product (W_k e_j) . (W_q h_t) / sqrt(A)); the context is the
//    attention-weighted sum of the encoder outputs.
//  - Logits = W [h_t; context_t] (+ b) over the D devices, divided by
//    `logit_temperature` and, with `tanh_constant` C > 0, squashed to C tanh(.)
//    (HDP's "tanh constant" and "temperature"); devices outside the mask get
//    kSeq2SeqMaskedLogit (probability exactly 0).
// The context is not fed back into the decoder LSTM (no "input feeding"): the
// decoder's inputs then depend only on the previous decisions, so a teacher-forced
// evaluation of given placements runs the decoder LSTM over the whole sequence at
// once and the attention of all steps as one batched product; sampling runs step by
// step with the same weights (at::lstm_cell) and matches it to float rounding.
//
// Batches. Encode takes inputs [E, T, F]. Sampling and evaluation use B sequences;
// E must be 1 (one input shared by every sample, ColocRL) or B (one input per
// sample, HDP's groupings; RepeatEncoding repeats each of E inputs k times).
//
// Cost: sampling is T sequential steps of a few small ops; teacher-forced
// evaluation holds [B, T, T] attention scores ("dot") or [B, T, T, A] ("additive"):
// additive attention is for short sequences (HDP's G <= 256 groups).
//
// Exploration noise (HDP's released controller): Sample can add Gaussian noise to
// the logits, returns it, and Evaluate replays it, so that the log-probabilities of
// the update are those the samples were drawn from.
//
// Initialization is seeded (`seed`); the forget-gate biases start at 1 (the
// published controllers' forget_bias_init). Sampling draws from a core/rng.h Rng, so
// the same rng state, parameters and inputs give the same placements.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/status.h"

namespace graphopt {

inline constexpr float kSeq2SeqMaskedLogit = -1e9f;

struct Seq2SeqConfig {
  int input_size = 0;   // F: features per step (> 0)
  int num_devices = 0;  // D (> 0)
  int hidden = 256;     // H (even when bidirectional)
  bool bidirectional = false;
  std::string attention = "dot";  // "dot" or "additive"
  int attention_size = 64;        // A
  double logit_temperature = 1.0;
  double tanh_constant = 0;  // <= 0: no squashing
  uint64_t seed = 1;         // parameter initialization

  Status Validate() const;
  std::string ToString() const;
};

// The encoder's output for E inputs.
struct Seq2SeqEncoding {
  torch::Tensor states;  // [E, T, H] encoder outputs (attention values)
  torch::Tensor keys;    // [E, T, A] projected encoder outputs (attention keys)
  torch::Tensor h0, c0;  // [E, H] decoder initial state
  int64_t batch() const { return states.size(0); }
  int64_t steps() const { return states.size(1); }
};

// Sampled placements with the log-probabilities the sampler used (no gradient).
struct Seq2SeqSample {
  torch::Tensor devices;   // [B, T] int64
  torch::Tensor log_prob;  // [B] float, summed over steps
  torch::Tensor noise;     // [B, T, D] logit noise the sampler added (undefined if none)
};

// Teacher-forced log-probabilities and entropies of given placements.
struct Seq2SeqEvaluation {
  torch::Tensor log_prob;  // [B] summed over steps (differentiable)
  torch::Tensor entropy;   // [B] summed over steps (differentiable)
  torch::Tensor logits;    // [B, T, D] masked logits
};

class Seq2SeqPlacerImpl : public torch::nn::Module {
 public:
  // The config must be valid (Validate); an invalid one is a caller's bug.
  explicit Seq2SeqPlacerImpl(Seq2SeqConfig config);

  const Seq2SeqConfig& config() const { return config_; }

  // Encodes inputs [E, T, F] (float, T >= 1).
  Seq2SeqEncoding Encode(const torch::Tensor& inputs);
  // Each of the E encodings repeated k times in a row: [E * k, ...].
  static Seq2SeqEncoding RepeatEncoding(const Seq2SeqEncoding& encoding, int64_t k);

  // Samples `num_samples` placements (greedy: the most likely device at every step).
  // `device_mask` is [D] or [T, D] bool (true = allowed; at least one per step).
  // With logit_noise > 0, Gaussian noise of standard deviation logit_noise x the
  // root-mean-square of the step's allowed logits is added to them before sampling
  // (the published HDP controller's exploration noise); the noise is returned, and
  // the log-probabilities are those of the noisy logits. Runs without gradient.
  Seq2SeqSample Sample(const Seq2SeqEncoding& encoding, int64_t num_samples, const torch::Tensor& device_mask, Rng& rng,
                       bool greedy = false, double logit_noise = 0);
  // Log-probabilities and entropies of placements `devices` [B, T] (teacher forcing),
  // with `noise` [B, T, D] (from Sample; undefined: none) added to the logits. The
  // entropy is that of the noisy distribution too.
  Seq2SeqEvaluation Evaluate(const Seq2SeqEncoding& encoding, const torch::Tensor& devices,
                             const torch::Tensor& device_mask, const torch::Tensor& noise = {});

 private:
  // Logits [B, S, D] of decoder states h [B, S, H] against the encoding (E = 1 or B).
  torch::Tensor Logits(const Seq2SeqEncoding& encoding, const torch::Tensor& h, const torch::Tensor& mask);

  Seq2SeqConfig config_;
  torch::nn::LSTM encoder_{nullptr};
  torch::nn::LSTM decoder_{nullptr};
  torch::nn::Embedding device_embedding_{nullptr};  // [D, H]
  torch::Tensor go_embedding_;                      // [H]
  torch::nn::Linear key_{nullptr};                  // H -> A (W1 / W_k)
  torch::nn::Linear query_{nullptr};                // H -> A (W2 / W_q)
  torch::nn::Linear score_{nullptr};                // A -> 1 (v), additive attention only
  torch::nn::Linear out_{nullptr};                  // 2H -> D
};
TORCH_MODULE(Seq2SeqPlacer);

// Runs `build` with LibTorch's default CPU generator seeded with `seed`, then
// restores the generator: seeded parameter initialization that does not disturb
// other users of the generator.
void WithTorchSeed(uint64_t seed, const std::function<void()>& build);

// Masks for Sample/Evaluate from per-device flags (1 = allowed): [D] bool.
torch::Tensor DeviceMaskTensor(const std::vector<uint8_t>& allowed);

}  // namespace graphopt
