#include "rl/colocrl.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "rl/rollout.h"

namespace graphopt {

// ---------------------------------------------------------------------------
// Groups and their features

std::vector<int32_t> ColocRlGroups(const PolicyInput& input, int max_groups, int* num_groups) {
  const int u_count = input.num_units;
  std::vector<int32_t> group(static_cast<size_t>(u_count));
  if (u_count <= max_groups) {
    for (int u = 0; u < u_count; ++u) group[static_cast<size_t>(u)] = u;
    *num_groups = u_count;
    return group;
  }
  // Chunk of a unit: where its first op falls among num_ops / max_groups equal slices
  // of the ops counted in unit order; then the chunks are numbered densely.
  const int64_t n = std::max(1, input.num_ops);
  int64_t ops_before = 0;
  int32_t last_raw = -1, next = -1;
  for (int u = 0; u < u_count; ++u) {
    const int32_t raw = static_cast<int32_t>(std::min<int64_t>(max_groups - 1, ops_before * max_groups / n));
    if (raw != last_raw) {
      ++next;
      last_raw = raw;
    }
    group[static_cast<size_t>(u)] = next;
    ops_before += input.unit_offsets[static_cast<size_t>(u) + 1] - input.unit_offsets[static_cast<size_t>(u)];
  }
  *num_groups = next + 1;
  return group;
}

std::vector<float> OpShapeFeatures(const Graph& graph, const PolicyInput& input) {
  std::vector<float> f(static_cast<size_t>(input.num_ops) * kShapeFeatures, 0.0f);
  for (int i = 0; i < input.num_ops; ++i) {
    const Op& op = graph.op(input.order[static_cast<size_t>(i)]);
    for (size_t o = 0; o < op.outputs.size() && o < static_cast<size_t>(kShapeOutputs); ++o) {
      const Shape& shape = graph.tensor(op.outputs[o]).shape;
      for (size_t d = 0; d < shape.size() && d < static_cast<size_t>(kShapeDims); ++d) {
        f[static_cast<size_t>(i) * kShapeFeatures + o * kShapeDims + d] =
            static_cast<float>(std::log1p(static_cast<double>(std::max<int64_t>(0, shape[d]))) / 10.0);
      }
    }
  }
  return f;
}

torch::Tensor GroupFeatures(const PolicyInput& input, const std::vector<float>& op_shapes,
                            const std::vector<int32_t>& group_of_node, int num_groups) {
  const int64_t g_count = num_groups;
  const int64_t width = kGroupFixedFeatures + 2 * g_count;
  torch::Tensor t = torch::zeros({g_count, width}, torch::kFloat);
  float* f = t.data_ptr<float>();
  std::vector<int64_t> count(static_cast<size_t>(g_count), 0);
  constexpr int64_t kShapeCol = kNumKindIndices;
  constexpr int64_t kSizeCol = kNumKindIndices + kShapeFeatures;
  constexpr int64_t kAdjCol = kGroupFixedFeatures;
  for (int n = 0; n < input.num_ops; ++n) {
    const int64_t g = group_of_node[static_cast<size_t>(n)];
    float* row = f + g * width;
    ++count[static_cast<size_t>(g)];
    row[input.op_kind[static_cast<size_t>(n)]] += 1;
    for (int j = 0; j < kShapeFeatures; ++j)
      row[kShapeCol + j] += op_shapes[static_cast<size_t>(n) * kShapeFeatures + j];
    for (int32_t e = input.succ_offsets[static_cast<size_t>(n)]; e < input.succ_offsets[static_cast<size_t>(n) + 1];
         ++e) {
      const int64_t h = group_of_node[static_cast<size_t>(input.succ_index[static_cast<size_t>(e)])];
      row[kAdjCol + h] += 1;                      // out to h
      f[h * width + kAdjCol + g_count + g] += 1;  // in from g
    }
  }
  for (int64_t g = 0; g < g_count; ++g) {
    const int64_t c = count[static_cast<size_t>(g)];
    if (c == 0) continue;
    float* row = f + g * width;
    for (int64_t j = 0; j < kSizeCol; ++j) row[j] /= static_cast<float>(c);
    row[kSizeCol] = static_cast<float>(std::log1p(static_cast<double>(c)) / 10.0);
    float max_adj = 1;
    for (int64_t j = kAdjCol; j < width; ++j) max_adj = std::max(max_adj, row[j]);
    for (int64_t j = kAdjCol; j < width; ++j) row[j] /= max_adj;
  }
  return t;
}

// ---------------------------------------------------------------------------
// Model

ColocRlModelImpl::ColocRlModelImpl(const ColocRlConfig& config, int num_groups, int num_devices, uint64_t seed) {
  placer_ = register_module("placer", Seq2SeqPlacer(PlacerConfigOf(config, config.type_embedding + kShapeFeatures + 1 + 2 * num_groups, num_devices, seed)));
  WithTorchSeed(seed ^ 0x5DEECE66Dull, [&] {
    type_embedding_ = register_module(
        "type_embedding",
        torch::nn::Linear(torch::nn::LinearOptions(kNumKindIndices, config.type_embedding).bias(false)));
  });
}

torch::Tensor ColocRlModelImpl::Inputs(const torch::Tensor& group_features) {
  const torch::Tensor kinds = group_features.narrow(1, 0, kNumKindIndices);
  const torch::Tensor rest = group_features.narrow(1, kNumKindIndices, group_features.size(1) - kNumKindIndices);
  return torch::cat({type_embedding_(kinds), rest}, 1).unsqueeze(0);
}

// ---------------------------------------------------------------------------
// Trainer

StatusOr<std::unique_ptr<ColocRlTrainer>> ColocRlTrainer::Create(const Simulator& simulator, BatchSimulator* batch,
                                                                 const PolicyInput& input, const ColocRlConfig& config,
                                                                 uint64_t seed) {
  GO_RETURN_IF_ERROR(config.Validate());
  GO_ASSIGN_OR_RETURN(TaskDefaults defaults, Prepare("ColocRL", simulator, batch, input, config.tasks));
  return Build<ColocRlTrainer>(
      "ColocRL", [&] { return new ColocRlTrainer(simulator, batch, input, config, std::move(defaults), seed); });
}

ColocRlTrainer::ColocRlTrainer(const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input,
                               const ColocRlConfig& config, TaskDefaults defaults, uint64_t seed)
    : ReinforceTrainer(simulator, batch, input,
                       ReinforceSettingsOf(config, [lr = config.lr](int64_t) { return lr; }), std::move(defaults),
                       seed),
      config_(config) {
  group_of_unit_ = ColocRlGroups(input_, config_.max_groups, &num_groups_);
  std::vector<int32_t> group_of_node(static_cast<size_t>(input_.num_ops));
  for (int n = 0; n < input_.num_ops; ++n) {
    group_of_node[static_cast<size_t>(n)] =
        group_of_unit_[static_cast<size_t>(input_.node_unit[static_cast<size_t>(n)])];
  }
  group_features_ = GroupFeatures(input_, OpShapeFeatures(sim_.graph(), input_), group_of_node, num_groups_);
  device_mask_ = DeviceMaskTensor(input_.device_allowed);
  model_ = ColocRlModel(config_, num_groups_, input_.num_devices, seed_);
  SetModel(model_.get(), config_.lr);
}

Actions ColocRlTrainer::ToActions(const int64_t* group_devices) const {
  Actions a;
  a.unit_device.resize(static_cast<size_t>(input_.num_units));
  for (int u = 0; u < input_.num_units; ++u) {
    a.unit_device[static_cast<size_t>(u)] = static_cast<int32_t>(group_devices[group_of_unit_[static_cast<size_t>(u)]]);
  }
  return a;
}

std::vector<Actions> ColocRlTrainer::SampleBatch(Rng& rng) {
  const int b = config_.samples_per_step;
  encoding_ = model_->placer()->Encode(model_->Inputs(group_features_));
  sample_ = model_->placer()->Sample(encoding_, b, device_mask_, rng);
  std::vector<Actions> actions;
  const int64_t* devices = sample_.devices.data_ptr<int64_t>();
  for (int i = 0; i < b; ++i) actions.push_back(ToActions(devices + static_cast<int64_t>(i) * num_groups_));
  return actions;
}

ReinforceTrainer::BatchLogProb ColocRlTrainer::LogProbAndEntropy() {
  const Seq2SeqEvaluation e = model_->placer()->Evaluate(encoding_, sample_.devices, device_mask_);
  return {e.log_prob, e.entropy.mean().item<double>() / num_groups_};
}

Plan ColocRlTrainer::GreedyPlan() {
  torch::NoGradGuard no_grad;
  Rng rng(0);
  Seq2SeqSample sample;
  {
    ScopedFlushDenormal flush;
    const Seq2SeqEncoding encoding = model_->placer()->Encode(model_->Inputs(group_features_));
    sample = model_->placer()->Sample(encoding, 1, device_mask_, rng, /*greedy=*/true);
  }
  return builder_.Build(ToActions(sample.devices.data_ptr<int64_t>()));
}

}  // namespace graphopt
