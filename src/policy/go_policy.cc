#include "policy/go_policy.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <thread>

#include "core/files.h"
#include "core/strings.h"
#include "policy/archive_io.h"
#include "policy/kernels.h"
#include "policy/seq2seq.h"  // WithTorchSeed

namespace graphopt {
namespace {

using torch::indexing::Slice;

torch::Tensor LongTensor(const std::vector<int32_t>& v) {
  std::vector<int64_t> w(v.begin(), v.end());
  return torch::from_blob(w.data(), {static_cast<int64_t>(w.size())}, torch::kLong).clone();
}

// The scheduling head's start (GoPolicyConfig::level_prior): level 0's logit raised by
// `prior` over the output layer's initial bias.
void AddLevelPrior(torch::nn::Linear& priority_out, int prior) {
  torch::NoGradGuard no_grad;
  priority_out->bias[0].add_(static_cast<double>(prior));
}

torch::Tensor FloatTensor(const std::vector<float>& v, std::vector<int64_t> shape) {
  return torch::from_blob(const_cast<float*>(v.data()), shape, torch::kFloat).clone();
}

torch::Tensor BoolTensor(const std::vector<uint8_t>& v, std::vector<int64_t> shape) {
  return torch::from_blob(const_cast<uint8_t*>(v.data()), shape, torch::kUInt8).to(torch::kBool);
}


}  // namespace

// ---------------------------------------------------------------------------
// Tensors

PolicyTensors ToTensors(const PolicyInput& input, bool mask_unit_memory) {
  PolicyTensors t;
  const int64_t n = input.num_ops, d = input.num_devices, u = input.num_units;
  t.num_ops = n;
  t.num_units = u;
  t.num_devices = d;
  t.op_features = FloatTensor(input.op_features, {n, kNumOpFeatures});
  t.op_kind = LongTensor(input.op_kind);
  t.pred_offsets = LongTensor(input.pred_offsets);
  t.pred_index = LongTensor(input.pred_index);
  t.succ_offsets = LongTensor(input.succ_offsets);
  t.succ_index = LongTensor(input.succ_index);
  t.node_unit = LongTensor(input.node_unit);
  t.unit_offsets = LongTensor(input.unit_offsets);
  t.unit_nodes = LongTensor(input.unit_nodes);
  t.fusable = BoolTensor(input.fusable, {n});
  std::vector<int32_t> producer(input.fusion_producer);
  for (size_t i = 0; i < producer.size(); ++i) {
    if (producer[i] < 0) producer[i] = static_cast<int32_t>(i);
  }
  t.fusion_producer = LongTensor(producer);
  t.device_features = FloatTensor(input.device_features, {d, kNumDeviceFeatures});
  t.device_mask = BoolTensor(input.device_allowed, {d});
  if (mask_unit_memory) {
    std::vector<uint8_t> mask = input.UnitMemoryMask();
    for (int64_t i = 0; i < u; ++i) {
      uint8_t* row = &mask[static_cast<size_t>(i * d)];
      if (std::none_of(row, row + d, [](uint8_t m) { return m != 0; }))
        std::copy(input.device_allowed.begin(), input.device_allowed.end(), row);
    }
    t.unit_device_mask = BoolTensor(mask, {u, d});
  }
  t.graph_features = FloatTensor(input.graph_features, {kNumGraphFeatures});
  t.unit_features = FloatTensor(input.unit_features, {u, kNumUnitFeatures});
  t.default_device = input.default_device;
  t.input = std::make_shared<const PolicyInput>(input);
  return t;
}

void ConfigureTorchThreads(int n) {
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(n);
}

// ---------------------------------------------------------------------------
// GoPolicyImpl

GoPolicyImpl::GoPolicyImpl(GoPolicyConfig config) : config_(std::move(config)) {
  const Status valid = config_.Validate();
  GO_CHECK_MSG(valid.ok(), valid.message());
  const int64_t h = config_.hidden;
  WithTorchSeed(config_.seed, [&] {
    namespace nn = torch::nn;
    op_in_ = register_module("op_in", nn::Linear(kNumOpFeatures, h));
    kind_embedding_ = register_module("kind_embedding", nn::Embedding(nn::EmbeddingOptions(kNumKindIndices, h)));
    {
      torch::NoGradGuard no_grad;
      kind_embedding_->weight.mul_(0.1);
    }
    op_norm_ = register_module("op_norm", nn::LayerNorm(nn::LayerNormOptions({h})));
    for (int l = 0; l < config_.sage_layers; ++l) {
      const std::string p = "sage" + std::to_string(l) + "_";
      Sage s;
      s.messages = register_module(p + "messages", nn::Linear(h, 2 * h));
      s.combine = register_module(p + "combine", nn::Linear(3 * h, h));
      s.norm = register_module(p + "norm", nn::LayerNorm(nn::LayerNormOptions({h})));
      sage_.push_back(s);
    }
    for (int l = 0; l < config_.attention_layers; ++l) {
      const std::string p = "attention" + std::to_string(l) + "_";
      Attention a;
      a.qkv = register_module(p + "qkv", nn::Linear(h, 3 * h));
      a.out = register_module(p + "out", nn::Linear(h, h));
      a.ff1 = register_module(p + "ff1", nn::Linear(h, config_.ff_multiplier * h));
      a.ff2 = register_module(p + "ff2", nn::Linear(config_.ff_multiplier * h, h));
      a.norm1 = register_module(p + "norm1", nn::LayerNorm(nn::LayerNormOptions({h})));
      a.norm2 = register_module(p + "norm2", nn::LayerNorm(nn::LayerNormOptions({h})));
      a.relative_bias = register_module(p + "relative_bias", nn::Embedding(config_.relative_buckets, config_.heads));
      {
        torch::NoGradGuard no_grad;
        a.relative_bias->weight.zero_();
      }
      attention_.push_back(a);
    }
    graph_in_ = register_module("graph_in", nn::Linear(kNumGraphFeatures, h));
    graph_mlp1_ = register_module("graph_mlp1", nn::Linear(4 * h, h));
    graph_mlp2_ = register_module("graph_mlp2", nn::Linear(h, h));
    film_ = register_module("film", nn::Linear(h, 2 * h * std::max(1, config_.attention_layers)));
    {
      torch::NoGradGuard no_grad;
      film_->weight.normal_(0.0, 0.01);
      film_->bias.zero_();
    }
    device_mlp1_ = register_module("device_mlp1", nn::Linear(kNumDeviceFeatures, h));
    device_mlp2_ = register_module("device_mlp2", nn::Linear(h, h));
    place_query_ = register_module("place_query", nn::Linear(h, h));
    place_key_ = register_module("place_key", nn::Linear(h, h));
    place_bias_ = register_module("place_bias", nn::Linear(h, 1));
    unit_in_ = register_module("unit_in", nn::Linear(kUnitPlanFeature, h));
    const int64_t hh = config_.head_hidden;
    feedback_ = register_module("feedback", nn::Linear(h, hh));
    context_ = register_module("context", nn::Linear(kNumPlacementContext, hh));
    priority_hidden_ = register_module("priority_hidden", nn::Linear(h, hh));
    priority_out_ = register_module("priority_out", nn::Linear(hh, config_.priority_levels));
    AddLevelPrior(priority_out_, config_.level_prior);
    fusion_hidden_ = register_module("fusion_hidden", nn::Linear(h, hh));
    fusion_out_ = register_module("fusion_out", nn::Linear(hh, 1));
    if (config_.unit_tasks) fusion_unit_ = register_module("fusion_unit", nn::Linear(hh, 1));
    if (config_.feedback_attention) {
      feedback_states_ = register_module("feedback_states", nn::Linear(h, h));
      context_states_ = register_module("context_states", nn::Linear(kNumPlacementContext, h));
    }
    // Last, so that the parameters before it draw the same initial values with or
    // without it, and zero, so that an untrained network decides as one without it
    // does (the gradient reaches it through the keys all the same).
    if (config_.device_index_key) {
      device_index_ =
          register_module("device_index", nn::Linear(nn::LinearOptions(kNumDeviceIndexFeatures, h).bias(false)));
      torch::NoGradGuard no_grad;
      device_index_->weight.zero_();
    }
    if (config_.unit_plan_device) {
      unit_plan_ = register_module("unit_plan", nn::Linear(nn::LinearOptions(kNumUnitPlanFeatures, h).bias(false)));
      torch::NoGradGuard no_grad;
      unit_plan_->weight.zero_();
    }
    if (config_.unit_stage) {
      unit_stage_ =
          register_module("unit_stage", nn::Linear(nn::LinearOptions(kNumUnitStageFeatures, h).bias(false)));
      torch::NoGradGuard no_grad;
      unit_stage_->weight.zero_();
    }
  });

  // Relative-position buckets of (query i, key j): key j < memory is position
  // j - memory of the previous segment.
  const int64_t s = config_.segment, m = config_.memory, len = s + m;
  std::vector<int64_t> buckets(static_cast<size_t>(s * len));
  for (int64_t i = 0; i < s; ++i) {
    for (int64_t j = 0; j < len; ++j)
      buckets[static_cast<size_t>(i * len + j)] = RelativeBucket(static_cast<int>(j - m - i));
  }
  bucket_index_ = torch::from_blob(buckets.data(), {s * len}, torch::kLong).clone();
}

int GoPolicyImpl::RelativeBucket(int relative) const {
  // Half the buckets for keys before the query (and the query itself), half for
  // keys after; within a half, exact distances up to a quarter of the buckets, then
  // logarithmic up to the largest distance a segment can see.
  const int half = config_.relative_buckets / 2;
  const int base = relative > 0 ? half : 0;
  const int distance = std::abs(relative);
  const int exact = std::max(1, half / 2);
  if (distance < exact) return base + distance;
  const double max_distance = std::max(exact + 1, config_.segment + config_.memory);
  const int log_bucket = exact + static_cast<int>(std::log(static_cast<double>(distance) / exact) /
                                                  std::log(max_distance / exact) * (half - exact));
  return base + std::min(log_bucket, half - 1);
}

torch::Tensor GoPolicyImpl::NodeValid(int64_t num_ops) const {
  const int64_t s = config_.segment;
  const int64_t segments = std::max<int64_t>(1, (num_ops + s - 1) / s);
  return (torch::arange(segments * s, torch::kLong) < num_ops).to(torch::kUInt8).view({segments, s});
}

torch::Tensor GoPolicyImpl::ToSegments(const torch::Tensor& x) const {
  const torch::Tensor x3 = x.dim() == 2 ? x.unsqueeze(0) : x;
  const int64_t r = x3.size(0), n = x3.size(1), h = x3.size(2), s = config_.segment;
  const int64_t segments = std::max<int64_t>(1, (n + s - 1) / s);
  torch::Tensor padded =
      segments * s == n ? x3 : torch::cat({x3, torch::zeros({r, segments * s - n, h}, x3.options())}, 1);
  return padded.reshape({r, segments, s, h});
}

torch::Tensor GoPolicyImpl::FromSegments(const torch::Tensor& x, int64_t num_ops) const {
  const int64_t r = x.size(0), h = x.size(3);
  return x.reshape({r, x.size(1) * x.size(2), h}).slice(1, 0, num_ops);
}

torch::Tensor GoPolicyImpl::SageLayer(int layer, const torch::Tensor& h, const PolicyTensors& in) {
  Sage& s = sage_[static_cast<size_t>(layer)];
  const std::vector<torch::Tensor> messages = torch::relu(s.messages(h)).chunk(2, 1);
  const torch::Tensor pred = NeighborMaxPool(messages[0], in.pred_offsets, in.pred_index);
  const torch::Tensor succ = NeighborMaxPool(messages[1], in.succ_offsets, in.succ_index);
  return s.norm(h + torch::relu(s.combine(torch::cat({h, pred, succ}, 1))));
}

torch::Tensor GoPolicyImpl::Encode(const PolicyTensors& in) {
  torch::Tensor h = op_norm_(op_in_(in.op_features) + kind_embedding_(in.op_kind));
  for (int l = 0; l < config_.sage_layers; ++l) h = SageLayer(l, h, in);
  return h;
}

torch::Tensor GoPolicyImpl::AttentionLayer(int layer, const torch::Tensor& x, const torch::Tensor& node_valid,
                                           const torch::Tensor& film) {
  Attention& a = attention_[static_cast<size_t>(layer)];
  const int64_t r = x.size(0), segments = x.size(1), s = x.size(2), h = x.size(3);
  const int64_t heads = config_.heads, dh = h / heads, m = config_.memory, len = s + m;
  GO_CHECK(s == config_.segment && node_valid.size(0) == segments && node_valid.size(1) == s);
  // [3, R, segments, heads, S, dh]
  const torch::Tensor qkv = a.qkv(x).view({r, segments, s, 3, heads, dh}).permute({3, 0, 1, 4, 2, 5}).contiguous();
  const torch::Tensor q = qkv[0].reshape({r * segments, heads, s, dh});
  // The memory of segment s is the last M positions of segment s - 1 at this layer's
  // input; since the projections are per position, its keys and values are those
  // of segment s - 1, shifted. Transformer-XL stops gradients through the memory
  // because it runs segments one after another and cannot keep the previous
  // segment's graph; here every segment is in one batched pass, so the gradient
  // through the memory costs nothing extra and is kept unless detach_memory.
  auto with_memory = [&](const torch::Tensor& cur) {  // [R, segments, heads, S, dh] -> [R * segments, heads, M + S, dh]
    if (m == 0) return cur.reshape({r * segments, heads, s, dh});
    torch::Tensor mem = torch::cat(
        {torch::zeros({r, 1, heads, m, dh}, cur.options()), cur.slice(1, 0, segments - 1).slice(3, s - m, s)}, 1);
    if (config_.detach_memory) mem = mem.detach();
    return torch::cat({mem, cur}, 3).reshape({r * segments, heads, len, dh});
  };
  const torch::Tensor k = with_memory(qkv[1]);
  const torch::Tensor v = with_memory(qkv[2]);
  torch::Tensor key_valid = node_valid;
  if (m > 0) {
    const torch::Tensor mem_valid = torch::cat(
        {torch::zeros({1, m}, node_valid.options()), node_valid.slice(0, 0, segments - 1).slice(1, s - m, s)}, 0);
    key_valid = torch::cat({mem_valid, node_valid}, 1);
  }
  if (r > 1) key_valid = key_valid.repeat({r, 1});
  const torch::Tensor bias = GatherRows(a.relative_bias->weight, bucket_index_).t().reshape({heads, s, len});
  const torch::Tensor attended = SegmentAttention(q, k, v, bias, key_valid, 1.0 / std::sqrt(static_cast<double>(dh)))
                                     .view({r, segments, heads, s, dh})
                                     .permute({0, 1, 3, 2, 4})
                                     .reshape({r, segments, s, h});
  const torch::Tensor x1 = a.norm1(x + a.out(attended));
  torch::Tensor x2 = a.norm2(x1 + a.ff2(torch::relu(a.ff1(x1))));
  if (film.defined()) x2 = x2 * (1 + film[0]) + film[1];
  return x2;
}

torch::Tensor GoPolicyImpl::EmbedDevices(const torch::Tensor& device_features) {
  return device_mlp2_(torch::relu(device_mlp1_(device_features)));
}

PolicyOutput GoPolicyImpl::forward(const PolicyTensors& in) {
  GO_CHECK_MSG(in.num_ops > 0 && in.num_devices > 0, "GO policy: empty graph or cluster");
  PolicyOutput out;
  const int64_t n = in.num_ops, h = config_.hidden;
  const torch::Tensor encoded = Encode(in);
  out.device_embeddings = EmbedDevices(in.device_features);
  if (config_.superposition) {
    const torch::Tensor mask = in.device_mask.to(torch::kFloat).unsqueeze(1);
    const torch::Tensor device_mean = (out.device_embeddings * mask).sum(0) / mask.sum().clamp_min(1);
    const torch::Tensor pooled = torch::cat(
        {encoded.mean(0), std::get<0>(encoded.max(0)), torch::relu(graph_in_(in.graph_features)), device_mean});
    out.graph_embedding = graph_mlp2_(torch::relu(graph_mlp1_(pooled)));
    out.film = film_(out.graph_embedding).view({-1, 2, h});
  } else {
    out.graph_embedding = torch::zeros({h});
  }
  torch::Tensor x = ToSegments(encoded);
  const torch::Tensor valid = NodeValid(n);
  for (int l = 0; l < config_.attention_layers; ++l)
    x = AttentionLayer(l, x, valid, out.film.defined() ? out.film[l] : torch::Tensor());
  out.node_states = FromSegments(x, n).squeeze(0);
  return Heads(in, std::move(out));
}

PolicyOutput GoPolicyImpl::Heads(const PolicyTensors& in, PolicyOutput out) {
  const int64_t h = config_.hidden;
  const bool unit_decisions = config_.unit_tasks && (config_.tasks & (kTaskScheduling | kTaskFusion)) != 0;
  if ((config_.tasks & kTaskPlacement) || unit_decisions) {
    out.unit_states = SegmentMean(out.node_states, in.unit_offsets, in.unit_nodes) +
                      unit_in_(in.unit_features.narrow(1, 0, kUnitPlanFeature));
    if (unit_plan_) {
      out.unit_states =
          out.unit_states + unit_plan_(in.unit_features.narrow(1, kUnitPlanFeature, kNumUnitPlanFeatures));
    }
    if (unit_stage_) {
      out.unit_states =
          out.unit_states + unit_stage_(in.unit_features.narrow(1, kUnitStageFeature, kNumUnitStageFeatures));
    }
  }
  if (config_.tasks & kTaskPlacement) {
    torch::Tensor keys = out.device_embeddings;
    if (device_index_) {
      keys = keys + device_index_(in.device_features.narrow(1, kDeviceIndexFeature, kNumDeviceIndexFeatures));
    }
    torch::Tensor logits =
        place_query_(out.unit_states).mm(place_key_(keys).t()) / std::sqrt(static_cast<double>(h)) +
        place_bias_(out.device_embeddings).view({1, in.num_devices});
    torch::Tensor mask = in.device_mask.view({1, in.num_devices});
    if (in.unit_device_mask.defined()) mask = mask & in.unit_device_mask;
    out.placement_logits = logits.masked_fill(mask.logical_not(), kMaskedLogit);
  }
  return out;
}

void GoPolicyImpl::RestartPriorityOutput(uint64_t seed) {
  WithTorchSeed(seed, [&] { priority_out_->reset_parameters(); });
  AddLevelPrior(priority_out_, config_.level_prior);
}

Status GoPolicyImpl::RestrictTasks(uint32_t tasks) {
  if (tasks == 0 || (tasks & ~config_.tasks) != 0) {
    return InvalidArgument("tasks " + TasksToString(tasks) + ": the policy decides " + TasksToString(config_.tasks) +
                           ", and can be restricted to a non-empty part of that only");
  }
  config_.tasks = tasks;
  return Status::Ok();
}

std::vector<torch::Tensor> GoPolicyImpl::HeadParameters() {
  std::vector<torch::Tensor> params;
  for (torch::nn::Linear* layer : {&place_query_, &place_key_, &place_bias_, &device_index_, &unit_in_, &unit_plan_, &unit_stage_, &feedback_, &context_,
                                   &feedback_states_, &context_states_, &priority_hidden_, &priority_out_,
                                   &fusion_hidden_, &fusion_out_, &fusion_unit_}) {
    if (!*layer) continue;
    for (const torch::Tensor& p : (*layer)->parameters()) params.push_back(p);
  }
  return params;
}

// ---------------------------------------------------------------------------
// Checkpoints

namespace {
constexpr const char* kFormat = "graphopt-go-policy";
constexpr int64_t kCheckpointVersion = 2;
}  // namespace

Status SaveGoPolicy(GoPolicy& policy, const std::string& path) {
  torch::serialize::OutputArchive archive;
  try {
    archive.write("graphopt_format", c10::IValue(std::string(kFormat)));
    archive.write("graphopt_version", c10::IValue(kCheckpointVersion));
    archive.write("graphopt_feature_version", c10::IValue(static_cast<int64_t>(kFeatureVersion)));
    archive.write("graphopt_config", c10::IValue(policy->config().ToString()));
    policy->save(archive);
  } catch (const c10::Error& e) {
    return IoError("cannot write policy checkpoint " + path + ": " + e.what_without_backtrace());
  }
  return SaveArchiveAtomic(archive, path);
}

StatusOr<GoPolicy> LoadGoPolicy(const std::string& path) {
  torch::serialize::InputArchive archive;
  if (Status loaded = LoadArchive(path, &archive); !loaded.ok()) return loaded.WithContext("policy checkpoint");
  try {
    c10::IValue value;
    if (!archive.try_read("graphopt_format", value) || !value.isString() || value.toStringRef() != kFormat) {
      return ParseError("policy checkpoint " + path +
                        ": not a GO policy checkpoint (no \"graphopt_format\" = " + kFormat + ")");
    }
    if (!archive.try_read("graphopt_version", value) || !value.isInt() || value.toInt() != kCheckpointVersion) {
      return ParseError("policy checkpoint " + path + ": unsupported checkpoint version");
    }
    if (!archive.try_read("graphopt_feature_version", value) || !value.isInt() || value.toInt() != kFeatureVersion) {
      return FailedPrecondition(
          StrFormat("policy checkpoint %s: made for feature version %lld, this build computes version %d", path.c_str(),
                    static_cast<long long>(value.isInt() ? value.toInt() : -1), kFeatureVersion));
    }
    if (!archive.try_read("graphopt_config", value) || !value.isString()) {
      return ParseError("policy checkpoint " + path + ": no configuration");
    }
    auto config = GoPolicyConfig::FromSavedString(value.toStringRef());
    if (!config.ok()) return config.status().WithContext("policy checkpoint " + path);
    GoPolicy policy(*config);
    policy->load(archive);
    return policy;
  } catch (const c10::Error& e) {
    return ParseError("policy checkpoint " + path + ": " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return ParseError("policy checkpoint " + path + ": " + e.what());
  }
}

}  // namespace graphopt
