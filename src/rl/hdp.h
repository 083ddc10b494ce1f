// HDP (Mirhoseini et al., "A Hierarchical Model for Device Placement", ICLR 2018) as a
// baseline learned placer: a feed-forward Grouper puts the ops into G groups, a
// sequence-to-sequence Placer (policy/seq2seq.h) gives every group a device, and
// both are trained together with REINFORCE on the simulated step time.
//
// Grouper. Per op, the published controller's input: the op's type (a learned
// embedding of the op kind and phase), its output shapes padded to 5 outputs x 5
// dims (log1p(dim) / 10 where the published code fed raw sizes), and its adjacency
// as a padded list of up to 10 neighbours, each (topological position / ops, -1 for
// a predecessor or +1 for a successor) (the code fed raw op indices). A hidden layer
// (grouper_hidden, ReLU; the released code had no nonlinearity, making its two
// layers one linear map) and a softmax over the G groups. Deviation: the group is
// decided per unit (colocation group, policy/features.h), not per op, so that
// colocated ops always share a group and hence a device: the unit's logits come
// from the mean of its ops' hidden states. G = min(256, 20 x devices) as in the
// paper, counting the devices the policy may use (CPUs are excluded by default).
//
// Placer. The groups in index order are its sequence; a group's input is the
// released code's group embedding: edge counts to and from every group (divided by
// the row's maximum), the fraction of each op type and the mean output-shape
// features of its ops, plus log1p(ops in the group) / 10. Encoder bidirectional,
// hidden 512, additive attention, logits C tanh(logits / T) with C = 5, T = 10 (the
// paper's settings).
//
// Training: per step `groupings` groupings (m) are sampled, and `placements` (k)
// placements for each (the paper's m = 1, k = 4); every placement is simulated
// (BatchSimulator, one batch); reward -sqrt(step / reference) (the paper's sqrt of
// the runtime, relative to the best baseline so one setting fits every graph); a
// plan that does not fit in memory counts as a fixed bad step time, oom_step_factor
// x the reference (the code's "failing signal"). Loss -mean((R - b)(log p(grouping)
// + log p(placement))) with b an exponential moving average of the mean reward
// (decay 0.9 as the released code; initialized to the first batch's mean, where the
// code started from the failing signal). Adam, gradient norm clipped to 1 (the
// paper). Exploration as the released code: for the first 750 steps, Gaussian noise
// of 0.5 x the logits' root-mean-square is added to the grouper's and the placer's
// logits before sampling (the log-probabilities are those of the noisy logits).
//
// Learning rate: the paper states Adam with a fixed 0.1; the released code starts at
// 0.1 and decays it by 0.95 every 50 steps from step 400 (staircase). We keep the
// released schedule but start at 0.01 (lr=0.1 restores the published value). The
// reason: at 0.1 Adam's steps saturate the bounded logits (C tanh) within 10-20
// steps and the policy collapses onto a deterministic plan, usually one group on
// one device, that it never leaves: on two chains on two identical devices it
// settles on everything on one device (the worst fitting plan) by step 15, and on
// gnmt:layers=2 / 2xP100 its best plan stays the one found in the first second
// (0.714 s in 90 s; 0.699 s at 0.01, still improving). The published system ran
// for hours with many asynchronous workers; our runs are minutes long.
// Plans found elsewhere are ignored (OfferPlan returns false); no warm start.
//
// Determinism, checkpoints: as ColocRL (rl/colocrl.h), files hdp_policy.pt,
// hdp_optimizer.pt, hdp_state.json.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "policy/features.h"
#include "policy/seq2seq.h"
#include "rl/colocrl.h"
#include "rl/hdp_config.h"
#include "rl/reinforce_trainer.h"
#include "rl/rollout.h"
#include "rl/trainer.h"
#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {

// G for a graph: config.groups if > 0, else min(256, 20 x allowed devices).
int HdpNumGroups(const HdpConfig& config, const PolicyInput& input);

inline constexpr int kGrouperNeighbors = 10;
inline constexpr int kGrouperFeatures = kShapeFeatures + 2 * kGrouperNeighbors;
// Per-op grouper features [num_ops x kGrouperFeatures] in node order (the op type
// goes separately, as PolicyInput::op_kind).
std::vector<float> GrouperOpFeatures(const Graph& graph, const PolicyInput& input);

class HdpModelImpl : public torch::nn::Module {
 public:
  HdpModelImpl(const HdpConfig& config, int num_groups, int num_devices, uint64_t seed);
  // Grouper logits [U, G]: op_features [N, kGrouperFeatures], op_kind [N], node_unit
  // [N] (int64), unit_size [U, 1] (float).
  torch::Tensor GroupLogits(const torch::Tensor& op_features, const torch::Tensor& op_kind,
                            const torch::Tensor& node_unit, const torch::Tensor& unit_size);
  Seq2SeqPlacer& placer() { return placer_; }

 private:
  double logit_temperature_ = 1, tanh_constant_ = 0;
  torch::nn::Embedding kind_embedding_{nullptr};
  torch::nn::Linear grouper_hidden_{nullptr}, grouper_out_{nullptr};
  Seq2SeqPlacer placer_{nullptr};
};
TORCH_MODULE(HdpModel);

class HdpTrainer final : public ReinforceTrainer {
 public:
  // `simulator`, `batch` and `input` (from the same graph and cluster) must outlive
  // the trainer. Fails on an invalid config.
  static StatusOr<std::unique_ptr<HdpTrainer>> Create(const Simulator& simulator, BatchSimulator* batch,
                                                      const PolicyInput& input, const HdpConfig& config, uint64_t seed);

  std::string method() const override { return "hdp"; }

  // For tests and inspection.
  const HdpConfig& config() const { return config_; }
  int num_groups() const { return num_groups_; }
  HdpModel& model() { return model_; }
  // Grouper logits [U, G] of the current parameters.
  torch::Tensor GroupLogits();
  // Placer inputs [groupings, G, kGroupFixedFeatures + 2G] of groupings [m, U] (int64).
  torch::Tensor PlacerInputs(const torch::Tensor& group_of_unit) const;

 private:
  HdpTrainer(const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input, const HdpConfig& config,
             TaskDefaults defaults, uint64_t seed);
  // The hooks of the loop: m groupings with k placements each, and their joint
  // log-probability (grouper and placer).
  std::vector<Actions> SampleBatch(Rng& rng) override;
  BatchLogProb LogProbAndEntropy() override;

  HdpConfig config_;
  int num_groups_ = 0;
  std::vector<float> op_shapes_;
  torch::Tensor op_features_, op_kind_, node_unit_, unit_size_;
  torch::Tensor device_mask_;
  HdpModel model_{nullptr};
  // Of the last batch sampled: the grouper's clean logits [U, G], the noisy log-
  // probabilities [m, U, G], the groupings [m, U], the placer's encoding and sample.
  torch::Tensor logits_, group_log_p_, groupings_;
  Seq2SeqEncoding encoding_;
  Seq2SeqSample sample_;
};

}  // namespace graphopt
