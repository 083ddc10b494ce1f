// The GO policy's decoding (policy/go_policy.h): the scheduling and fusion heads
// given placements (multi-task feedback), sampling, greedy decoding and the
// log-probabilities and entropies of action sets. The trunk and the placement logits
// are in go_policy.cc.
#include <algorithm>
#include <cmath>

#include "policy/coupled_sampling.h"
#include "policy/go_policy.h"
#include "policy/kernels.h"

namespace graphopt {
namespace {

int ArgMax(const float* p, int n) { return static_cast<int>(std::max_element(p, p + n) - p); }

// Per-unit priority levels onto a's per-op vector: every op of unit k gets level[k].
void BroadcastUnitLevels(const PolicyInput& p, const std::vector<int>& level, Actions* a) {
  for (int32_t k = 0; k < p.num_units; ++k) {
    for (int32_t e = p.unit_offsets[static_cast<size_t>(k)]; e < p.unit_offsets[static_cast<size_t>(k) + 1]; ++e) {
      const int32_t node = p.unit_nodes[static_cast<size_t>(e)];
      a->priority_level[static_cast<size_t>(p.order[static_cast<size_t>(node)])] = level[static_cast<size_t>(k)];
    }
  }
}

}  // namespace

torch::Tensor GoPolicyImpl::NodeDevices(const PolicyTensors& in, const torch::Tensor& unit_device) const {
  return unit_device.index_select(1, in.node_unit);
}

const std::vector<std::string>& PlacementContextNames() {
  static const std::vector<std::string> names = {"same_device_predecessors", "same_device_successors",
                                                 "same_device_fusion_producer", "log_device_time_share",
                                                 "device_parameter_memory"};
  return names;
}

namespace {

// The placement-context features of every op under each placement of unit_device
// [B, U]: emit(s, i, c) receives sample s's features c[kNumPlacementContext] of op
// (node) i, ops in node order within a sample, samples spread over threads.
template <typename Emit>
void ForEachPlacementContext(const PolicyTensors& in, const torch::Tensor& unit_device, Emit&& emit) {
  const PolicyInput& p = *in.input;
  const torch::Tensor ud = unit_device.contiguous();
  const int64_t b = ud.size(0), n = p.num_ops, u = p.num_units, d = p.num_devices;
  const int64_t* udp = ud.data_ptr<int64_t>();
  int allowed = 0;
  for (uint8_t a : p.device_allowed) allowed += a ? 1 : 0;
  double total_time = 0;
  for (float t : p.node_time_us) total_time += t;
  at::parallel_for(0, b, 1, [&](int64_t s0, int64_t s1) {
    std::vector<int32_t> device(static_cast<size_t>(n));
    std::vector<double> time(static_cast<size_t>(d)), params(static_cast<size_t>(d));
    std::vector<float> time_share(static_cast<size_t>(d)), memory_share(static_cast<size_t>(d));
    for (int64_t s = s0; s < s1; ++s) {
      std::fill(time.begin(), time.end(), 0.0);
      std::fill(params.begin(), params.end(), 0.0);
      for (int64_t i = 0; i < n; ++i) {
        device[static_cast<size_t>(i)] = static_cast<int32_t>(udp[s * u + p.node_unit[static_cast<size_t>(i)]]);
        time[static_cast<size_t>(device[static_cast<size_t>(i)])] += p.node_time_us[static_cast<size_t>(i)];
      }
      for (int64_t k = 0; k < u; ++k)
        params[static_cast<size_t>(udp[s * u + k])] +=
            static_cast<double>(p.unit_resident_bytes[static_cast<size_t>(k)]);
      auto same_fraction = [&](const std::vector<int32_t>& offsets, const std::vector<int32_t>& index, int64_t i,
                               int32_t dev) {
        const int32_t begin = offsets[static_cast<size_t>(i)], end = offsets[static_cast<size_t>(i) + 1];
        if (begin == end) return 0.0f;
        int same = 0;
        for (int32_t e = begin; e < end; ++e)
          same += device[static_cast<size_t>(index[static_cast<size_t>(e)])] == dev ? 1 : 0;
        return static_cast<float>(same) / static_cast<float>(end - begin);
      };
      // The per-device features, once per device.
      for (int64_t k = 0; k < d; ++k) {
        time_share[static_cast<size_t>(k)] =
            total_time > 0 ? static_cast<float>(std::log1p(time[static_cast<size_t>(k)] / total_time * allowed)) : 0.0f;
        const double memory = static_cast<double>(p.device_memory_bytes[static_cast<size_t>(k)]);
        memory_share[static_cast<size_t>(k)] =
            memory > 0 ? static_cast<float>(std::min(4.0, params[static_cast<size_t>(k)] / memory)) : 0.0f;
      }
      float c[kNumPlacementContext];
      for (int64_t i = 0; i < n; ++i) {
        const int32_t dev = device[static_cast<size_t>(i)];
        c[0] = same_fraction(p.pred_offsets, p.pred_index, i, dev);
        c[1] = same_fraction(p.succ_offsets, p.succ_index, i, dev);
        const int32_t producer = p.fusion_producer[static_cast<size_t>(i)];
        c[2] = producer >= 0 && device[static_cast<size_t>(producer)] == dev ? 1.0f : 0.0f;
        c[3] = time_share[static_cast<size_t>(dev)];
        c[4] = memory_share[static_cast<size_t>(dev)];
        emit(s, i, static_cast<const float*>(c));
      }
    }
  });
}

}  // namespace

torch::Tensor GoPolicyImpl::PlacementContext(const PolicyTensors& in, const torch::Tensor& unit_device) {
  const int64_t b = unit_device.size(0), n = in.input->num_ops;
  torch::Tensor context = torch::zeros({b, n, kNumPlacementContext});
  float* cp = context.data_ptr<float>();
  ForEachPlacementContext(in, unit_device, [&](int64_t s, int64_t i, const float* c) {
    std::copy(c, c + kNumPlacementContext, cp + (s * n + i) * kNumPlacementContext);
  });
  return context;
}

torch::Tensor GoPolicyImpl::UnitPlacementContext(const PolicyTensors& in, const torch::Tensor& unit_device) {
  const PolicyInput& p = *in.input;
  const int64_t b = unit_device.size(0), u = p.num_units;
  // Summed in float in each unit's member order, as SegmentMean sums, then scaled.
  torch::Tensor context = torch::zeros({b, u, kNumPlacementContext});
  float* cp = context.data_ptr<float>();
  ForEachPlacementContext(in, unit_device, [&](int64_t s, int64_t i, const float* c) {
    float* o = cp + (s * u + p.node_unit[static_cast<size_t>(i)]) * kNumPlacementContext;
    for (int k = 0; k < kNumPlacementContext; ++k) o[k] += c[k];
  });
  for (int64_t s = 0; s < b; ++s) {
    for (int64_t k = 0; k < u; ++k) {
      const int32_t count = p.unit_offsets[static_cast<size_t>(k) + 1] - p.unit_offsets[static_cast<size_t>(k)];
      if (count == 0) continue;
      const float inv = 1.0f / static_cast<float>(count);
      float* o = cp + (s * u + k) * kNumPlacementContext;
      for (int c = 0; c < kNumPlacementContext; ++c) o[c] *= inv;
    }
  }
  return context;
}

TaskLogits GoPolicyImpl::DecodeTasks(const PolicyTensors& in, const PolicyOutput& out,
                                     const torch::Tensor& unit_device) {
  TaskLogits t;
  const bool scheduling = (config_.tasks & kTaskScheduling) != 0;
  const bool fusion = (config_.tasks & kTaskFusion) != 0;
  if (!scheduling && !fusion) return t;
  if (config_.unit_tasks) return DecodeUnitTasks(in, out, unit_device);
  const bool placed = (config_.tasks & kTaskPlacement) != 0 && unit_device.defined();
  const int64_t b = unit_device.defined() ? unit_device.size(0) : 1;
  const int64_t n = in.num_ops, h = config_.hidden;
  torch::Tensor node_device;  // [B, N]
  if (placed) node_device = NodeDevices(in, unit_device);
  // The heads' first layers are relu(W states + feedback): W states is computed once
  // for all samples unless the feedback went through attention (then per sample).
  torch::Tensor states = out.node_states;  // [N, H], or [B, N, H] after a feedback attention pass
  torch::Tensor feedback;                  // [B, N, head_hidden] or undefined
  if (placed && config_.task_feedback) {
    const torch::Tensor flat_device = node_device.reshape({-1});
    const torch::Tensor context = PlacementContext(in, unit_device);
    feedback =
        GatherRows(feedback_(out.device_embeddings), flat_device).view({b, n, config_.head_hidden}) + context_(context);
    if (config_.feedback_attention && config_.attention_layers > 0) {
      const int last = config_.attention_layers - 1;
      const torch::Tensor placed_states =
          states.unsqueeze(0) + GatherRows(feedback_states_(out.device_embeddings), flat_device).view({b, n, h}) +
          context_states_(context);
      const torch::Tensor x = AttentionLayer(last, ToSegments(placed_states), NodeValid(n),
                                             out.film.defined() ? out.film[last] : torch::Tensor());
      states = FromSegments(x, n);
    }
  }
  auto first_layer = [&](torch::nn::Linear& layer) {
    torch::Tensor pre = layer(states);
    if (pre.dim() == 2) pre = pre.unsqueeze(0);
    if (feedback.defined()) pre = pre + feedback;
    return torch::relu(pre);  // [1 or B, N, H]
  };
  if (scheduling) {
    t.priority_logits = priority_out_(first_layer(priority_hidden_)).expand({b, n, config_.priority_levels});
  }
  if (fusion) {
    torch::Tensor mask = in.fusable.view({1, n}).expand({b, n});
    if (placed) mask = mask & (node_device == node_device.index_select(1, in.fusion_producer));
    t.fusion_mask = mask;
    torch::Tensor logits = fusion_out_(first_layer(fusion_hidden_)).squeeze(-1).expand({b, n});
    if (out.fusion_bias.defined()) logits = logits + out.fusion_bias.view({1, n});
    t.fusion_logits = logits.masked_fill(mask.logical_not(), kMaskedLogit);
  }
  return t;
}

TaskLogits GoPolicyImpl::DecodeUnitTasks(const PolicyTensors& in, const PolicyOutput& out,
                                         const torch::Tensor& unit_device) {
  TaskLogits t;
  t.scheduling_per_unit = true;
  const bool placed = (config_.tasks & kTaskPlacement) != 0 && unit_device.defined();
  const int64_t b = unit_device.defined() ? unit_device.size(0) : 1;
  const int64_t n = in.num_ops, u = in.num_units;
  torch::Tensor feedback;  // [B, U, head_hidden] or undefined
  if (placed && config_.task_feedback) {
    // The unit's context is the mean of its ops' placement contexts.
    const torch::Tensor context = UnitPlacementContext(in, unit_device);  // [B, U, C]
    feedback = GatherRows(feedback_(out.device_embeddings), unit_device.reshape({-1})).view({b, u, config_.head_hidden}) +
               context_(context);
  }
  auto first_layer = [&](torch::nn::Linear& layer) {
    torch::Tensor pre = layer(out.unit_states).unsqueeze(0);
    if (feedback.defined()) pre = pre + feedback;
    return torch::relu(pre);  // [1 or B, U, head_hidden]
  };
  if (config_.tasks & kTaskScheduling) {
    t.priority_logits = priority_out_(first_layer(priority_hidden_)).expand({b, u, config_.priority_levels});
  }
  if (config_.tasks & kTaskFusion) {
    // Per op: a term from the op's own state (once for all samples) plus a term from
    // its unit's state and placement feedback ([B, U], broadcast to the unit's ops).
    torch::Tensor mask = in.fusable.view({1, n}).expand({b, n});
    if (placed) {
      const torch::Tensor node_device = NodeDevices(in, unit_device);
      mask = mask & (node_device == node_device.index_select(1, in.fusion_producer));
    }
    torch::Tensor logits = fusion_out_(torch::relu(fusion_hidden_(out.node_states))).view({1, n}).expand({b, n});
    logits = logits + fusion_unit_(first_layer(fusion_hidden_)).squeeze(-1).index_select(1, in.node_unit);
    if (out.fusion_bias.defined()) logits = logits + out.fusion_bias.view({1, n});
    t.fusion_mask = mask;
    t.fusion_logits = logits.masked_fill(mask.logical_not(), kMaskedLogit);
  }
  return t;
}

torch::Tensor GoPolicyImpl::UnitDeviceTensor(const PolicyTensors& in, const std::vector<Actions>& batch) const {
  const int64_t b = static_cast<int64_t>(batch.size()), u = in.num_units;
  std::vector<int64_t> devices(static_cast<size_t>(b * u), in.default_device);
  for (int64_t s = 0; s < b; ++s) {
    const auto& ud = batch[static_cast<size_t>(s)].unit_device;
    if (ud.empty()) continue;
    GO_CHECK_MSG(static_cast<int64_t>(ud.size()) == u, "Actions::unit_device has the wrong size");
    for (int64_t i = 0; i < u; ++i) {
      const int32_t d = ud[static_cast<size_t>(i)];
      GO_CHECK_MSG(d >= 0 && d < in.num_devices, "Actions::unit_device out of range");
      devices[static_cast<size_t>(s * u + i)] = d;
    }
  }
  return torch::from_blob(devices.data(), {b, u}, torch::kLong).clone();
}

std::vector<Actions> GoPolicyImpl::Sample(const PolicyTensors& in, const PolicyOutput& out, Rng& rng, int num_samples,
                                          double temperature, bool coupled, bool by_layer, double layer_uniform) {
  GO_CHECK(num_samples >= 1 && temperature > 0);
  torch::NoGradGuard no_grad;
  const int64_t u = in.num_units, d = in.num_devices;
  std::vector<Actions> actions(static_cast<size_t>(num_samples));
  for (Actions& a : actions) a.unit_device.assign(static_cast<size_t>(u), in.default_device);
  if (config_.tasks & kTaskPlacement) {
    const torch::Tensor probs = torch::softmax(out.placement_logits / temperature, 1).contiguous();
    const float* p = probs.data_ptr<float>();
    if (coupled) {
      SampleCoupledPlacement(p, u, d, rng, &actions, by_layer ? &in.input->unit_layer : nullptr,
                             by_layer ? layer_uniform : 0.0, &in.input->device_allowed);
    } else {
      for (auto& a : actions) {
        for (int64_t i = 0; i < u; ++i)
          a.unit_device[static_cast<size_t>(i)] = static_cast<int32_t>(rng.Categorical(p + i * d, d));
      }
    }
  }
  return DecodeGivenPlacement(in, out, std::move(actions), &rng, temperature);
}

Actions GoPolicyImpl::Greedy(const PolicyTensors& in, const PolicyOutput& out) {
  torch::NoGradGuard no_grad;
  const int64_t u = in.num_units, d = in.num_devices;
  std::vector<Actions> actions(1);
  Actions& a = actions[0];
  a.unit_device.assign(static_cast<size_t>(u), in.default_device);
  if (config_.tasks & kTaskPlacement) {
    const torch::Tensor logits = out.placement_logits.contiguous();
    const float* p = logits.data_ptr<float>();
    for (int64_t i = 0; i < u; ++i) a.unit_device[static_cast<size_t>(i)] = ArgMax(p + i * d, static_cast<int>(d));
  }
  return std::move(DecodeGivenPlacement(in, out, std::move(actions), nullptr)[0]);
}

std::vector<Actions> GoPolicyImpl::DecodeGivenPlacement(const PolicyTensors& in, const PolicyOutput& out,
                                                        std::vector<Actions> actions, Rng* rng, double temperature) {
  GO_CHECK(!actions.empty() && temperature > 0);
  torch::NoGradGuard no_grad;
  const int64_t n = in.num_ops, u = in.num_units;
  const int64_t b = static_cast<int64_t>(actions.size());
  for (Actions& a : actions) {
    if (a.unit_device.empty()) a.unit_device.assign(static_cast<size_t>(u), in.default_device);
    a.priority_level.assign(static_cast<size_t>(n), 0);
    a.fuse.assign(static_cast<size_t>(n), 0);
  }
  const torch::Tensor unit_device = UnitDeviceTensor(in, actions);  // [B, U]
  const TaskLogits t = DecodeTasks(in, out, unit_device);
  const int levels = config_.priority_levels;
  if (t.priority_logits.defined()) {
    // Per unit [B, U, P] or per op [B, N, P].
    const torch::Tensor scores =
        (rng != nullptr ? torch::softmax(t.priority_logits / temperature, 2) : t.priority_logits).contiguous();
    const float* p = scores.data_ptr<float>();
    auto level_of = [&](const float* row) {
      return rng != nullptr ? static_cast<int>(rng->Categorical(row, levels)) : ArgMax(row, levels);
    };
    if (t.scheduling_per_unit) {
      std::vector<int> level(static_cast<size_t>(u));
      for (int64_t s = 0; s < b; ++s) {
        const float* ps = p + s * u * levels;
        for (int64_t k = 0; k < u; ++k) level[static_cast<size_t>(k)] = level_of(ps + k * levels);
        BroadcastUnitLevels(*in.input, level, &actions[static_cast<size_t>(s)]);
      }
    } else {
      for (int64_t s = 0; s < b; ++s) {
        for (int64_t i = 0; i < n; ++i) {
          actions[static_cast<size_t>(s)].priority_level[static_cast<size_t>(in.input->order[static_cast<size_t>(i)])] =
              level_of(p + (s * n + i) * levels);
        }
      }
    }
  }
  if (t.fusion_logits.defined()) {
    const torch::Tensor scores =
        (rng != nullptr ? torch::sigmoid(t.fusion_logits / temperature) : t.fusion_logits).contiguous();
    const torch::Tensor mask = t.fusion_mask.contiguous();
    const float* p = scores.data_ptr<float>();
    const bool* m = mask.data_ptr<bool>();
    for (int64_t s = 0; s < b; ++s) {
      for (int64_t i = 0; i < n; ++i) {
        if (!m[s * n + i]) continue;
        const float v = p[s * n + i];
        actions[static_cast<size_t>(s)].fuse[static_cast<size_t>(in.input->order[static_cast<size_t>(i)])] =
            (rng != nullptr ? rng->Bernoulli(v) : v > 0) ? 1 : 0;
      }
    }
  }
  return actions;
}

Evaluation GoPolicyImpl::Evaluate(const PolicyTensors& in, const PolicyOutput& out, const std::vector<Actions>& batch) {
  GO_CHECK(!batch.empty());
  const int64_t b = static_cast<int64_t>(batch.size()), n = in.num_ops;
  Evaluation e;
  e.placement_log_prob = torch::zeros({b});
  e.scheduling_log_prob = torch::zeros({b});
  e.fusion_log_prob = torch::zeros({b});
  e.entropy = torch::zeros({b});
  e.num_decisions = torch::zeros({b});
  e.placement_entropy = torch::zeros({b});
  e.scheduling_entropy = torch::zeros({b});
  e.fusion_entropy = torch::zeros({b});
  e.placement_decisions = torch::zeros({b});
  e.scheduling_decisions = torch::zeros({b});
  e.fusion_decisions = torch::zeros({b});
  const torch::Tensor unit_device = UnitDeviceTensor(in, batch);  // [B, U]
  if (config_.tasks & kTaskPlacement) {
    const torch::Tensor log_p = torch::log_softmax(out.placement_logits, 1);  // [U, D]
    e.placement_log_prob = log_p.gather(1, unit_device.t()).sum(0);
    e.placement_entropy = (-(log_p.exp() * log_p).sum()).expand({b});
    e.placement_decisions = torch::full({b}, static_cast<double>(in.num_units));
  }
  const TaskLogits t = DecodeTasks(in, out, unit_device);
  if (t.scheduling_per_unit && t.priority_logits.defined()) EvaluateUnitScheduling(in, t, batch, &e);
  // Per-op actions in node order.
  auto node_order = [&](auto field) {
    std::vector<int64_t> v(static_cast<size_t>(b * n), 0);
    for (int64_t s = 0; s < b; ++s) {
      const auto& src = batch[static_cast<size_t>(s)].*field;
      if (src.empty()) continue;
      GO_CHECK_MSG(static_cast<int64_t>(src.size()) == n, "Actions: per-op vector has the wrong size");
      for (int64_t i = 0; i < n; ++i)
        v[static_cast<size_t>(s * n + i)] = src[static_cast<size_t>(in.input->order[static_cast<size_t>(i)])];
    }
    return torch::from_blob(v.data(), {b, n}, torch::kLong).clone();
  };
  if (t.priority_logits.defined() && !t.scheduling_per_unit) {
    const torch::Tensor levels = node_order(&Actions::priority_level);
    GO_CHECK_MSG(levels.min().item<int64_t>() >= 0 && levels.max().item<int64_t>() < config_.priority_levels,
                 "Actions::priority_level out of range");
    const torch::Tensor log_p = torch::log_softmax(t.priority_logits, 2);  // [B, N, P]
    e.scheduling_log_prob = log_p.gather(2, levels.unsqueeze(2)).squeeze(2).sum(1);
    e.scheduling_entropy = -(log_p.exp() * log_p).sum({1, 2});
    e.scheduling_decisions = torch::full({b}, static_cast<double>(n));
  }
  if (t.fusion_logits.defined()) {
    const torch::Tensor fuse = node_order(&Actions::fuse).to(torch::kFloat);  // [B, N]
    const torch::Tensor log_yes = torch::log_sigmoid(t.fusion_logits);
    const torch::Tensor log_no = torch::log_sigmoid(-t.fusion_logits);
    const torch::Tensor zero = torch::zeros({}, log_yes.options());
    e.fusion_log_prob = torch::where(t.fusion_mask, fuse * log_yes + (1 - fuse) * log_no, zero).sum(1);
    const torch::Tensor p = torch::sigmoid(t.fusion_logits);
    e.fusion_entropy = -torch::where(t.fusion_mask, p * log_yes + (1 - p) * log_no, zero).sum(1);
    e.fusion_decisions = t.fusion_mask.sum(1).to(torch::kFloat);
  }
  e.log_prob = e.placement_log_prob + e.scheduling_log_prob + e.fusion_log_prob;
  e.entropy = e.placement_entropy + e.scheduling_entropy + e.fusion_entropy;
  e.num_decisions = e.placement_decisions + e.scheduling_decisions + e.fusion_decisions;
  return e;
}

void GoPolicyImpl::EvaluateUnitScheduling(const PolicyTensors& in, const TaskLogits& t,
                                          const std::vector<Actions>& batch, Evaluation* e) const {
  const PolicyInput& p = *in.input;
  const int64_t b = static_cast<int64_t>(batch.size()), u = in.num_units, n = in.num_ops;
  // A unit's level is its first op's (exact for the policy's own samples, which give
  // every op of a unit one level).
  std::vector<int64_t> level(static_cast<size_t>(b * u), 0);
  for (int64_t s = 0; s < b; ++s) {
    const Actions& a = batch[static_cast<size_t>(s)];
    if (a.priority_level.empty()) continue;
    GO_CHECK_MSG(static_cast<int64_t>(a.priority_level.size()) == n, "Actions: per-op vector has the wrong size");
    for (int64_t k = 0; k < u; ++k) {
      const int32_t first = p.unit_nodes[static_cast<size_t>(p.unit_offsets[static_cast<size_t>(k)])];
      const int v = a.priority_level[static_cast<size_t>(p.order[static_cast<size_t>(first)])];
      GO_CHECK_MSG(v >= 0 && v < config_.priority_levels, "Actions::priority_level out of range");
      level[static_cast<size_t>(s * u + k)] = v;
    }
  }
  const torch::Tensor levels = torch::from_blob(level.data(), {b, u}, torch::kLong).clone();
  const torch::Tensor log_p = torch::log_softmax(t.priority_logits, 2);  // [B, U, P]
  e->scheduling_log_prob = log_p.gather(2, levels.unsqueeze(2)).squeeze(2).sum(1);
  e->scheduling_entropy = -(log_p.exp() * log_p).sum({1, 2});
  e->scheduling_decisions = torch::full({b}, static_cast<double>(u));
}

torch::Tensor Evaluation::TaskMeanLogProb() const {
  return placement_log_prob / placement_decisions.clamp_min(1) + scheduling_log_prob / scheduling_decisions.clamp_min(1) +
         fusion_log_prob / fusion_decisions.clamp_min(1);
}

double Evaluation::LeastTaskProbability() const {
  double least = 1;
  const torch::Tensor* tasks[][2] = {{&placement_log_prob, &placement_decisions},
                                     {&scheduling_log_prob, &scheduling_decisions},
                                     {&fusion_log_prob, &fusion_decisions}};
  for (const auto& [log_prob, decisions] : tasks) {
    const double n = (*decisions)[0].item<double>();
    if (n > 0) least = std::min(least, std::exp((*log_prob)[0].item<double>() / n));
  }
  return least;
}

}  // namespace graphopt
