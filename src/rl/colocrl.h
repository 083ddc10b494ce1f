// ColocRL (Mirhoseini et al., "Device Placement Optimization with Reinforcement
// Learning", ICML 2017) as a baseline learned placer: a sequence-to-sequence LSTM
// (policy/seq2seq.h) places co-location groups of ops, one device per group in
// topological order, trained with REINFORCE on the simulated step time.
//
// Groups. The paper places TensorFlow's co-location groups (ops that must share a
// device) instead of single ops, to shorten the sequence. Our co-location groups
// are the policy input's units (policy/features.h). The paper's graphs had at most a
// few thousand groups; ours have up to tens of thousands of units, and a sequential
// LSTM decode over that many steps takes minutes per training step. So when there
// are more than `max_groups` units, consecutive units in unit order (the order of
// their first op in the topological order) are merged into `max_groups` chunks of
// about equal op counts: a co-location grouping of the same kind as the paper's
// (neighbouring ops together), coarse enough for the sequence to stay short. The
// grouping is fixed for the run (as in the paper). Cost at the default 1000 groups
// and 8 samples, on 2 cores: a training step takes about 2.3 s on gnmt:layers=2
// (14k ops) and 3 s on gnmt:layers=8 (44k ops, 8xV100), most of it the 1000-step
// sequential decode.
//
// Group input (one step of the encoder): the paper's op input, aggregated over the
// group's ops: an embedding of the op types (a learned Linear of the group's op-kind
// histogram = the mean of its ops' type embeddings), the output shapes padded to a
// fixed-size list (5 outputs x 5 dims, log1p(dim) / 10, mean over the ops), and the
// adjacency as a vector over all groups (edges out to and in from every group,
// divided by the row's maximum: the "one-hot" neighbour encoding, generalized to
// counts because a group has many neighbours); plus log1p(ops in the group) / 10.
//
// Training (REINFORCE, the loop of rl/reinforce_trainer.h). Per step,
// `samples_per_step` placements are sampled from the policy (the paper measured many
// placements in parallel on workers; we simulate them in one BatchSimulator batch),
// each turned into a plan by rl/rollout.h ActionsToPlan (critical-path scheduling,
// the same for every method) and simulated. Reward R = -sqrt(step / reference) ("sqrt", the paper's reward; or
// "linear": -step / reference), the reference being the best baseline's step time;
// a plan that does not fit in memory is scored as a fixed bad step time,
// `oom_step_factor` x the reference (the paper assigns failed placements a large
// fixed runtime). The baseline is an exponential moving average of the batch mean
// reward (initialized to the first batch's mean), the loss -mean((R - b) log p),
// optimized with Adam, gradient norm clipped. No entropy bonus, no advantage
// normalization, no warm start: the published method. It ignores plans found
// elsewhere (OfferPlan returns false).
//
// Other deviations from the paper: attention is scaled dot-product content-based
// attention by default (`attention=additive` gives the Bahdanau form; its teacher-
// forced evaluation holds a [samples, G, G, attention_size] tensor, too large for
// a thousand groups); learning rate and sizes are our choices (hidden 256, Adam
// 0.01) where the paper gives none that fits a simulator-scored run of minutes.
//
// Deterministic: the rng of step i is derived from the seed and i, the parameters
// are initialized from the seed, so the same seed and config give the same plans
// and parameters at one thread, and a trainer restored from a checkpoint continues
// as an uninterrupted one. Checkpoint files (in the driver's folder, prefixed with
// the method's name): <method>_policy.pt, <method>_optimizer.pt, <method>_state.json.
//
// The loop, the reward, the batch's scores and the checkpoint files, which HDP
// (rl/hdp.h) shares, are in rl/reinforce_trainer.h and rl/reinforce.h.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "policy/actions.h"
#include "policy/features.h"
#include "policy/seq2seq.h"
#include "rl/colocrl_config.h"
#include "rl/local_search.h"
#include "rl/reinforce_trainer.h"
#include "rl/rollout.h"
#include "rl/trainer.h"
#include "rl/training_util.h"
#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {

// The grouping: group of every unit (non-decreasing in unit order), and the number
// of groups (min(units, max_groups)); chunks of consecutive units with about
// num_ops / max_groups ops each.
std::vector<int32_t> ColocRlGroups(const PolicyInput& input, int max_groups, int* num_groups);

// ---------------------------------------------------------------------------
// Group features, shared with HDP.

inline constexpr int kShapeOutputs = 5;  // outputs per op in the shape list
inline constexpr int kShapeDims = 5;     // dims per output
inline constexpr int kShapeFeatures = kShapeOutputs * kShapeDims;

// Per-op output shapes [num_ops x kShapeFeatures] in node order: log1p(dim) / 10 of
// the first kShapeDims dims of the first kShapeOutputs outputs, zero padded.
std::vector<float> OpShapeFeatures(const Graph& graph, const PolicyInput& input);

// Columns of GroupFeatures: kNumKindIndices op-kind fractions, kShapeFeatures mean
// shape features, 1 size feature, then 2 * num_groups adjacency (out, in).
inline constexpr int kGroupFixedFeatures = kNumKindIndices + kShapeFeatures + 1;
// [num_groups, kGroupFixedFeatures + 2 * num_groups] features of a grouping
// (group_of_node [num_ops] in [0, num_groups)); empty groups are all zero.
torch::Tensor GroupFeatures(const PolicyInput& input, const std::vector<float>& op_shapes,
                            const std::vector<int32_t>& group_of_node, int num_groups);

// The placer's settings from a ColocRlConfig or HdpConfig (the fields they share).
template <class Config>
Seq2SeqConfig PlacerConfigOf(const Config& config, int input_size, int num_devices, uint64_t seed) {
  Seq2SeqConfig s;
  s.input_size = input_size;
  s.num_devices = num_devices;
  s.hidden = config.hidden;
  s.bidirectional = config.bidirectional;
  s.attention = config.attention;
  s.attention_size = config.attention_size;
  s.logit_temperature = config.logit_temperature;
  s.tanh_constant = config.tanh_constant;
  s.seed = seed;
  return s;
}

// ---------------------------------------------------------------------------
// The ColocRL network: the type embedding and the seq2seq placer.

class ColocRlModelImpl : public torch::nn::Module {
 public:
  ColocRlModelImpl(const ColocRlConfig& config, int num_groups, int num_devices, uint64_t seed);
  // Encoder inputs [1, G, type_embedding + kShapeFeatures + 1 + 2G] from GroupFeatures.
  torch::Tensor Inputs(const torch::Tensor& group_features);
  Seq2SeqPlacer& placer() { return placer_; }

 private:
  torch::nn::Linear type_embedding_{nullptr};
  Seq2SeqPlacer placer_{nullptr};
};
TORCH_MODULE(ColocRlModel);

class ColocRlTrainer final : public ReinforceTrainer {
 public:
  // `simulator`, `batch` and `input` (from the same graph and cluster) must outlive
  // the trainer. Fails on an invalid config.
  static StatusOr<std::unique_ptr<ColocRlTrainer>> Create(const Simulator& simulator, BatchSimulator* batch,
                                                          const PolicyInput& input, const ColocRlConfig& config,
                                                          uint64_t seed);

  std::string method() const override { return "colocrl"; }

  // For tests and inspection.
  const ColocRlConfig& config() const { return config_; }
  int num_groups() const { return num_groups_; }
  const std::vector<int32_t>& group_of_unit() const { return group_of_unit_; }
  const torch::Tensor& group_features() const { return group_features_; }
  ColocRlModel& model() { return model_; }
  // The most likely placement's plan (greedy decoding).
  Plan GreedyPlan();

 private:
  ColocRlTrainer(const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input, const ColocRlConfig& config,
                 TaskDefaults defaults, uint64_t seed);
  // The hooks of the loop: samples_per_step placements of the groups, and their
  // log-probability under the decoder.
  std::vector<Actions> SampleBatch(Rng& rng) override;
  BatchLogProb LogProbAndEntropy() override;
  Actions ToActions(const int64_t* group_devices) const;

  ColocRlConfig config_;
  int num_groups_ = 0;
  std::vector<int32_t> group_of_unit_;
  torch::Tensor group_features_;
  torch::Tensor device_mask_;
  ColocRlModel model_{nullptr};
  Seq2SeqEncoding encoding_;  // of the last batch sampled
  Seq2SeqSample sample_;
};

}  // namespace graphopt
