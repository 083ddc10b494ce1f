// Head-only fine-tuning of a GO policy on one graph (PpoConfig::frozen_trunk, the
// finetune recipe): the trunk's output is computed once, without gradient, and only
// the heads learn, at PpoConfig::head_lr. With PpoConfig::unit_bias (and placement
// decided) a placement logit per unit and device, from zero, is added to the heads'
// logits and learns with them at unit_bias_lr; with PpoConfig::fusion_bias (and fusion
// decided) likewise a fusion logit per op (PolicyOutput::fusion_bias) at
// fusion_bias_lr. The heads on a frozen trunk's states fit a given placement poorly,
// a bias per unit fits any (docs/experiments/2026-11-27-finetune-unit-bias.md,
// docs/experiments/2026-11-27-finetune-fusion-bias.md). The biases
// belong to this graph: they are part of the trainer's checkpoint (unit_bias.pt,
// fusion_bias.pt), not of the policy's file.
//
// PpoTrainer (rl/ppo.h) owns one; the policy and its tensors are the trainer's.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "policy/go_policy.h"
#include "rl/checkpoint.h"
#include "rl/ppo_config.h"

namespace graphopt {

class HeadTuning {
 public:
  // `input` (the graph's) must outlive it; `tasks` are the policy's.
  HeadTuning(const PolicyInput& input, const PpoConfig& config, int tasks);

  bool frozen() const { return frozen_; }
  // Computes the trunk's output of `policy` (no gradient) and starts the biases the
  // config asks for at zero. Idempotent.
  void Freeze(GoPolicy& policy, const PolicyTensors& tensors);
  // Back to the whole network: no trunk output, no biases.
  void Thaw();
  // Frozen: the heads on the trunk's output, the biases added.
  PolicyOutput Forward(GoPolicy& policy, const PolicyTensors& tensors) const;
  // What learns: every parameter of `policy`, or, frozen, its heads and the biases.
  std::vector<torch::Tensor> Parameters(GoPolicy& policy) const;
  // An Adam over Parameters: at lr, or frozen, the heads at head_lr and the biases at
  // their rates.
  std::shared_ptr<torch::optim::Adam> NewAdam(GoPolicy& policy) const;
  // The Adam a tuning of `policy`, frozen or not, would have (zero biases of this
  // graph's shapes): the optimizer a checkpoint's state is tried on.
  std::shared_ptr<torch::optim::Adam> ScratchAdam(GoPolicy& policy, bool frozen) const;

  // The config asks for the bias and the policy decides its task.
  bool UsesUnitBias() const;
  bool UsesFusionBias() const;
  bool has_unit_bias() const { return unit_bias_.defined(); }
  bool has_fusion_bias() const { return fusion_bias_.defined(); }
  // unit_bias.pt and fusion_bias.pt in `dir`, for the biases there are.
  Status SaveBiases(const CheckpointStore& store) const;
  // The biases a checkpoint saved: those asked for are required, their shapes checked
  // against this graph's; undefined otherwise.
  struct Biases {
    torch::Tensor unit;
    torch::Tensor fusion;
  };
  StatusOr<Biases> ReadBiases(const CheckpointStore& store, bool unit, bool fusion) const;
  // Frozen: sets the biases there are to `saved`'s values (read by ReadBiases).
  void SetBiases(const Biases& saved);

 private:
  // [U, D] and [N].
  std::vector<int64_t> UnitBiasShape() const { return {input_.num_units, input_.num_devices}; }
  std::vector<int64_t> FusionBiasShape() const { return {input_.num_ops}; }
  std::shared_ptr<torch::optim::Adam> AdamFor(GoPolicy& policy, bool frozen, const torch::Tensor& unit_bias,
                                              const torch::Tensor& fusion_bias) const;

  const PolicyInput& input_;
  PpoConfig config_;
  int tasks_;
  bool frozen_ = false;
  PolicyOutput trunk_;        // frozen: the trunk's output, no gradient
  torch::Tensor unit_bias_;   // [U, D], frozen and UsesUnitBias; else undefined
  torch::Tensor fusion_bias_; // [N], frozen and UsesFusionBias; else undefined
};

}  // namespace graphopt
