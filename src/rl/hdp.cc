#include "rl/hdp.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "rl/rollout.h"

namespace graphopt {
namespace {

torch::Tensor LongTensor(const std::vector<int32_t>& v) {
  return torch::tensor(std::vector<int64_t>(v.begin(), v.end()), torch::kLong);
}

}  // namespace

int HdpNumGroups(const HdpConfig& config, const PolicyInput& input) {
  if (config.groups > 0) return config.groups;
  int devices = 0;
  for (uint8_t a : input.device_allowed) devices += a != 0;
  return std::min(256, 20 * std::max(1, devices));
}

std::vector<float> GrouperOpFeatures(const Graph& graph, const PolicyInput& input) {
  const std::vector<float> shapes = OpShapeFeatures(graph, input);
  std::vector<float> f(static_cast<size_t>(input.num_ops) * kGrouperFeatures, 0.0f);
  const float n = static_cast<float>(std::max(1, input.num_ops));
  for (int i = 0; i < input.num_ops; ++i) {
    float* row = f.data() + static_cast<size_t>(i) * kGrouperFeatures;
    std::copy_n(shapes.data() + static_cast<size_t>(i) * kShapeFeatures, kShapeFeatures, row);
    int slot = 0;
    auto add = [&](int32_t neighbor, float direction) {
      if (slot >= kGrouperNeighbors) return;
      row[kShapeFeatures + 2 * slot] = static_cast<float>(neighbor) / n;
      row[kShapeFeatures + 2 * slot + 1] = direction;
      ++slot;
    };
    for (int32_t e = input.pred_offsets[static_cast<size_t>(i)]; e < input.pred_offsets[static_cast<size_t>(i) + 1];
         ++e) {
      add(input.pred_index[static_cast<size_t>(e)], -1.0f);
    }
    for (int32_t e = input.succ_offsets[static_cast<size_t>(i)]; e < input.succ_offsets[static_cast<size_t>(i) + 1];
         ++e) {
      add(input.succ_index[static_cast<size_t>(e)], 1.0f);
    }
  }
  return f;
}

// ---------------------------------------------------------------------------
// Model

HdpModelImpl::HdpModelImpl(const HdpConfig& config, int num_groups, int num_devices, uint64_t seed)
    : logit_temperature_(config.logit_temperature), tanh_constant_(config.tanh_constant) {
  placer_ = register_module("placer", Seq2SeqPlacer(PlacerConfigOf(config, kGroupFixedFeatures + 2 * num_groups, num_devices, seed)));
  WithTorchSeed(seed ^ 0x5DEECE66Dull, [&] {
    namespace nn = torch::nn;
    kind_embedding_ = register_module("kind_embedding", nn::Embedding(kNumKindIndices, config.type_embedding));
    grouper_hidden_ =
        register_module("grouper_hidden", nn::Linear(config.type_embedding + kGrouperFeatures, config.grouper_hidden));
    grouper_out_ = register_module("grouper_out", nn::Linear(config.grouper_hidden, num_groups));
  });
}

torch::Tensor HdpModelImpl::GroupLogits(const torch::Tensor& op_features, const torch::Tensor& op_kind,
                                        const torch::Tensor& node_unit, const torch::Tensor& unit_size) {
  const torch::Tensor x = torch::cat({kind_embedding_(op_kind), op_features}, 1);
  const torch::Tensor h = torch::relu(grouper_hidden_(x));  // [N, hidden]
  const torch::Tensor unit_h =
      torch::zeros({unit_size.size(0), h.size(1)}, h.options()).index_add(0, node_unit, h) / unit_size;
  torch::Tensor logits = grouper_out_(unit_h);
  if (logit_temperature_ != 1.0) logits = logits / logit_temperature_;
  if (tanh_constant_ > 0) logits = tanh_constant_ * torch::tanh(logits);
  return logits;
}

// ---------------------------------------------------------------------------
// Trainer

StatusOr<std::unique_ptr<HdpTrainer>> HdpTrainer::Create(const Simulator& simulator, BatchSimulator* batch,
                                                         const PolicyInput& input, const HdpConfig& config,
                                                         uint64_t seed) {
  GO_RETURN_IF_ERROR(config.Validate());
  GO_ASSIGN_OR_RETURN(TaskDefaults defaults, Prepare("HDP", simulator, batch, input, config.tasks));
  return Build<HdpTrainer>("HDP",
                           [&] { return new HdpTrainer(simulator, batch, input, config, std::move(defaults), seed); });
}

HdpTrainer::HdpTrainer(const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input,
                       const HdpConfig& config, TaskDefaults defaults, uint64_t seed)
    : ReinforceTrainer(simulator, batch, input,
                       ReinforceSettingsOf(config, [config](int64_t step) { return config.LearningRate(step); }),
                       std::move(defaults), seed),
      config_(config) {
  num_groups_ = HdpNumGroups(config_, input_);
  op_shapes_ = OpShapeFeatures(sim_.graph(), input_);
  std::vector<float> f = GrouperOpFeatures(sim_.graph(), input_);
  op_features_ = torch::from_blob(f.data(), {input_.num_ops, kGrouperFeatures}, torch::kFloat).clone();
  op_kind_ = LongTensor(input_.op_kind);
  node_unit_ = LongTensor(input_.node_unit);
  std::vector<float> sizes(static_cast<size_t>(input_.num_units));
  for (int u = 0; u < input_.num_units; ++u) {
    sizes[static_cast<size_t>(u)] = static_cast<float>(input_.unit_offsets[static_cast<size_t>(u) + 1] -
                                                       input_.unit_offsets[static_cast<size_t>(u)]);
  }
  unit_size_ = torch::tensor(sizes, torch::kFloat).clamp_min(1).unsqueeze(1);
  device_mask_ = DeviceMaskTensor(input_.device_allowed);
  model_ = HdpModel(config_, num_groups_, input_.num_devices, seed_);
  SetModel(model_.get(), config_.lr);
}

torch::Tensor HdpTrainer::GroupLogits() { return model_->GroupLogits(op_features_, op_kind_, node_unit_, unit_size_); }

torch::Tensor HdpTrainer::PlacerInputs(const torch::Tensor& group_of_unit) const {
  GO_CHECK(group_of_unit.dim() == 2 && group_of_unit.size(1) == input_.num_units);
  const torch::Tensor groups = group_of_unit.to(torch::kLong).contiguous();
  std::vector<torch::Tensor> rows;
  std::vector<int32_t> group_of_node(static_cast<size_t>(input_.num_ops));
  for (int64_t j = 0; j < groups.size(0); ++j) {
    const int64_t* g = groups.data_ptr<int64_t>() + j * input_.num_units;
    for (int n = 0; n < input_.num_ops; ++n) {
      group_of_node[static_cast<size_t>(n)] = static_cast<int32_t>(g[input_.node_unit[static_cast<size_t>(n)]]);
    }
    rows.push_back(GroupFeatures(input_, op_shapes_, group_of_node, num_groups_));
  }
  return torch::stack(rows);
}

std::vector<Actions> HdpTrainer::SampleBatch(Rng& rng) {
  const int m = config_.groupings;
  const int k = config_.placements;
  const int b = m * k;
  const int64_t u_count = input_.num_units;
  const int64_t g_count = num_groups_;

  const double noise = state_.step < config_.noise_steps ? config_.logit_noise : 0.0;
  logits_ = GroupLogits();  // [U, G]
  torch::Tensor noisy = logits_.unsqueeze(0).expand({m, u_count, g_count});
  if (noise > 0) {
    const double stddev = noise * logits_.detach().pow(2).mean().sqrt().item<double>();
    torch::Tensor n = torch::empty({m, u_count, g_count}, torch::kFloat);
    float* p = n.data_ptr<float>();
    for (int64_t i = 0; i < n.numel(); ++i) p[i] = static_cast<float>(stddev * rng.Normal());
    noisy = noisy + n;
  }
  group_log_p_ = torch::log_softmax(noisy, 2);
  groupings_ = torch::empty({m, u_count}, torch::kLong);
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor probs = group_log_p_.exp().contiguous();
    const float* p = probs.data_ptr<float>();
    int64_t* out = groupings_.data_ptr<int64_t>();
    for (int j = 0; j < m; ++j) {
      for (int64_t u = 0; u < u_count; ++u)
        out[j * u_count + u] = rng.Categorical(p + (j * u_count + u) * g_count, g_count);
    }
  }
  encoding_ = Seq2SeqPlacerImpl::RepeatEncoding(model_->placer()->Encode(PlacerInputs(groupings_)), k);
  sample_ = model_->placer()->Sample(encoding_, b, device_mask_, rng, /*greedy=*/false, noise);

  const int64_t* devices = sample_.devices.data_ptr<int64_t>();
  const int64_t* groups = groupings_.data_ptr<int64_t>();
  std::vector<Actions> actions(static_cast<size_t>(b));
  for (int i = 0; i < b; ++i) {
    Actions& a = actions[static_cast<size_t>(i)];
    a.unit_device.resize(static_cast<size_t>(u_count));
    const int64_t* g = groups + (i / k) * u_count;
    for (int64_t u = 0; u < u_count; ++u)
      a.unit_device[static_cast<size_t>(u)] = static_cast<int32_t>(devices[i * g_count + g[u]]);
  }
  return actions;
}

ReinforceTrainer::BatchLogProb HdpTrainer::LogProbAndEntropy() {
  const Seq2SeqEvaluation e = model_->placer()->Evaluate(encoding_, sample_.devices, device_mask_, sample_.noise);
  // log p(grouping j) = sum over units of the chosen group's log-probability.
  const torch::Tensor grouping_log_prob = group_log_p_.gather(2, groupings_.unsqueeze(2)).squeeze(2).sum(1);
  const torch::Tensor clean_log_p = torch::log_softmax(logits_.detach(), 1);
  const double grouper_entropy = -(clean_log_p.exp() * clean_log_p).sum().item<double>();
  return {e.log_prob + grouping_log_prob.repeat_interleave(config_.placements),
          (grouper_entropy + e.entropy.mean().item<double>()) / static_cast<double>(input_.num_units + num_groups_)};
}

}  // namespace graphopt
