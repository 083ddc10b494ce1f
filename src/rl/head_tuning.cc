#include "rl/head_tuning.h"

#include <utility>

#include "policy/archive_io.h"
#include "rl/checkpoint.h"
#include "rl/training_util.h"

namespace graphopt {
namespace {

constexpr const char* kUnitBiasFile = "unit_bias.pt";
constexpr const char* kFusionBiasFile = "fusion_bias.pt";

StatusOr<torch::Tensor> LoadBias(const std::string& path, const char* key, const std::vector<int64_t>& shape) {
  torch::serialize::InputArchive archive;
  GO_RETURN_IF_ERROR(LoadArchive(path, &archive));
  torch::Tensor bias;
  GO_RETURN_IF_ERROR(ReadTensor(archive, path, key, shape, true, &bias));
  return bias;
}

}  // namespace

HeadTuning::HeadTuning(const PolicyInput& input, const PpoConfig& config, int tasks)
    : input_(input), config_(config), tasks_(tasks) {}

void HeadTuning::Freeze(GoPolicy& policy, const PolicyTensors& tensors) {
  if (frozen_) return;
  {
    torch::NoGradGuard no_grad;
    ScopedFlushDenormal flush;
    trunk_ = policy->forward(tensors);
  }
  frozen_ = true;
  if (UsesUnitBias()) unit_bias_ = torch::zeros(UnitBiasShape(), torch::requires_grad());
  if (UsesFusionBias()) fusion_bias_ = torch::zeros(FusionBiasShape(), torch::requires_grad());
}

void HeadTuning::Thaw() {
  frozen_ = false;
  trunk_ = PolicyOutput();
  unit_bias_ = torch::Tensor();
  fusion_bias_ = torch::Tensor();
}

PolicyOutput HeadTuning::Forward(GoPolicy& policy, const PolicyTensors& tensors) const {
  GO_CHECK_MSG(frozen_, "HeadTuning::Forward before Freeze");
  PolicyOutput out = policy->Heads(tensors, trunk_);
  if (unit_bias_.defined()) out.placement_logits = out.placement_logits + unit_bias_;
  if (fusion_bias_.defined()) out.fusion_bias = fusion_bias_;
  return out;
}

std::vector<torch::Tensor> HeadTuning::Parameters(GoPolicy& policy) const {
  if (!frozen_) return policy->parameters();
  std::vector<torch::Tensor> params = policy->HeadParameters();
  if (unit_bias_.defined()) params.push_back(unit_bias_);
  if (fusion_bias_.defined()) params.push_back(fusion_bias_);
  return params;
}

bool HeadTuning::UsesUnitBias() const { return config_.unit_bias && (tasks_ & kTaskPlacement) != 0; }
bool HeadTuning::UsesFusionBias() const { return config_.fusion_bias && (tasks_ & kTaskFusion) != 0; }

std::shared_ptr<torch::optim::Adam> HeadTuning::AdamFor(GoPolicy& policy, bool frozen, const torch::Tensor& unit_bias,
                                                        const torch::Tensor& fusion_bias) const {
  if (!frozen) return std::make_shared<torch::optim::Adam>(policy->parameters(), torch::optim::AdamOptions(config_.lr));
  if (!unit_bias.defined() && !fusion_bias.defined()) {
    return std::make_shared<torch::optim::Adam>(policy->HeadParameters(), torch::optim::AdamOptions(config_.head_lr));
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(policy->HeadParameters(), std::make_unique<torch::optim::AdamOptions>(config_.head_lr));
  if (unit_bias.defined()) {
    groups.emplace_back(std::vector<torch::Tensor>{unit_bias}, std::make_unique<torch::optim::AdamOptions>(config_.unit_bias_lr));
  }
  if (fusion_bias.defined()) {
    groups.emplace_back(std::vector<torch::Tensor>{fusion_bias},
                        std::make_unique<torch::optim::AdamOptions>(config_.fusion_bias_lr));
  }
  return std::make_shared<torch::optim::Adam>(std::move(groups), torch::optim::AdamOptions(config_.head_lr));
}

std::shared_ptr<torch::optim::Adam> HeadTuning::NewAdam(GoPolicy& policy) const {
  return AdamFor(policy, frozen_, unit_bias_, fusion_bias_);
}

std::shared_ptr<torch::optim::Adam> HeadTuning::ScratchAdam(GoPolicy& policy, bool frozen) const {
  const torch::Tensor unit_bias =
      frozen && UsesUnitBias() ? torch::zeros(UnitBiasShape(), torch::requires_grad()) : torch::Tensor();
  const torch::Tensor fusion_bias =
      frozen && UsesFusionBias() ? torch::zeros(FusionBiasShape(), torch::requires_grad()) : torch::Tensor();
  return AdamFor(policy, frozen, unit_bias, fusion_bias);
}

Status HeadTuning::SaveBiases(const CheckpointStore& store) const {
  if (unit_bias_.defined()) {
    GO_RETURN_IF_ERROR(SaveTensors(store.Path(kUnitBiasFile), {{"unit_bias", unit_bias_.detach()}}));
  }
  if (fusion_bias_.defined()) {
    GO_RETURN_IF_ERROR(SaveTensors(store.Path(kFusionBiasFile), {{"fusion_bias", fusion_bias_.detach()}}));
  }
  return Status::Ok();
}

StatusOr<HeadTuning::Biases> HeadTuning::ReadBiases(const CheckpointStore& store, bool unit, bool fusion) const {
  Biases b;
  if (unit) {
    GO_RETURN_IF_ERROR(store.Require({kUnitBiasFile}, "the state says the trainer learns a unit bias"));
    GO_ASSIGN_OR_RETURN(b.unit, LoadBias(store.Path(kUnitBiasFile), "unit_bias", UnitBiasShape()));
  }
  if (fusion) {
    GO_RETURN_IF_ERROR(store.Require({kFusionBiasFile}, "the state says the trainer learns a fusion bias"));
    GO_ASSIGN_OR_RETURN(b.fusion, LoadBias(store.Path(kFusionBiasFile), "fusion_bias", FusionBiasShape()));
  }
  return b;
}

void HeadTuning::SetBiases(const Biases& saved) {
  torch::NoGradGuard no_grad;
  if (saved.unit.defined() && unit_bias_.defined()) unit_bias_.copy_(saved.unit);
  if (saved.fusion.defined() && fusion_bias_.defined()) fusion_bias_.copy_(saved.fusion);
}

}  // namespace graphopt
