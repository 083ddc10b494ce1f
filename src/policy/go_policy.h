// The GO policy network (Zhou et al., "Transferable Graph Optimizers for ML
// Compilers", NeurIPS 2020) in LibTorch: one forward pass decides placement,
// scheduling and fusion for every op of a graph, for any number and kind of devices.
//
// Architecture (hidden size H, N ops in topological order, U units, D devices):
//  1. Op encoder: Linear(op features) + Embedding(kind, phase) -> LayerNorm -> [N, H].
//  2. GraphSAGE encoder, `sage_layers` layers: messages relu(W h) max-pooled over the
//     predecessors and, separately, over the successors (policy/kernels.h
//     NeighborMaxPool: sparse, O(N + E)), combined with the op's own state:
//     h' = LayerNorm(h + relu(W [h, max_pred, max_succ])).
//  3. Superposition (GO's "parameter superposition", as FiLM): a graph embedding
//     from mean- and max-pooled op states, the graph-scale features and the mean
//     allowed-device embedding, through an MLP; per attention layer, a (scale,
//     shift) pair from it multiplies and shifts the layer's output. The projection
//     starts near zero (N(0, 0.01) weights, zero bias), so an untrained network is
//     almost unconditioned while every parameter still gets a gradient.
//  4. Segment-recurrent attention (Transformer-XL style), `attention_layers` layers:
//     the ops in topological order, padded to a multiple of `segment`, are cut into
//     segments; each segment attends to itself and to a memory of the last `memory`
//     positions of the previous segment's input to the same layer, with a learned
//     per-head bias of the bucketed relative position (T5-style log buckets), no
//     causal mask (every decision sees the whole segment and the memory), padded
//     keys masked; then feed-forward, residuals and LayerNorms. All segments run in
//     one batched pass (policy/kernels.h SegmentAttention, fused). Information
//     flows forward one segment per layer through the memory, and backward and
//     globally through the GraphSAGE encoder and the graph embedding.
//  5. Heads, sharing the trunk (multi-task):
//     - placement: a unit's embedding is the mean of its ops' states (colocation
//       groups and blocks are one decision by construction) plus a projection of
//       the unit's own features (its position in the topological order in a
//       Fourier basis, its share of the time; policy/features.h): a mean over
//       hundreds of ops alone leaves the units of a block policy nearly alike; a device's embedding is an MLP of
//       its features (policy/features.h), so devices are inputs, not a fixed output
//       size; logits[u, d] = q(unit_u) . k(device_d) / sqrt(H) + b(device_d), where
//       k reads the device's embedding plus a linear map of its index on the
//       circle (device_index_key), so identical devices stay apart in the keys
//       whatever the device MLP learns; with units split by a plan, a unit's
//       state also reads that plan's device for it (unit_plan_device), so the
//       policy can imitate the plan exactly; and it reads the unit's stage, where
//       it lies in the model's sequence of layers (unit_stage: a Fourier basis of
//       its layers' rank, policy/features.h), through a linear map of its own.
//     - scheduling: a categorical over `priority_levels` levels per op (the plan's
//       priority is the level; higher runs first among ready kernels). A categorical
//       rather than a Gaussian: bounded, exact entropy, no variance to learn, and
//       only the order among ready ops matters to the simulator.
//     - fusion: a Bernoulli logit per op, masked to ops where CanFuseIntoProducer
//       holds and (when placement is decided) whose fusion producer got the same
//       device; masked ops never fuse and add nothing to log-probs or entropy.
//     Multi-task recurrence (GO's "recurrent attention over tasks", simplified):
//     the scheduling and fusion heads see the placement decisions. For a
//     placement (sampled and teacher-forced in training, argmax in Greedy) each op
//     gets a feedback vector: a projection of the embedding of the device its unit
//     was given, plus a projection of placement-context features computed from the
//     discrete decisions (fractions of its predecessors and successors on the same
//     device, fusion producer on the same device, its device's share of the
//     graph's compute time and of parameter memory; PlacementContextNames). The
//     feedback is added to the first (head_hidden wide) layer of both heads and is
//     shared by the tasks (no parameters per task beyond it), so every scheduling
//     and fusion decision is conditioned on where it and its neighbours were
//     placed and on how loaded its device is. With `feedback_attention`, the op
//     states plus a hidden-wide feedback also pass again through the LAST
//     attention layer (same weights and FiLM), so each decision also attends to
//     the placed states of the ops around it in topological order: closer to GO,
//     but one more attention layer per sample of a batch, which costs a PPO step
//     several times its time and memory (docs/experiments/2026-11-22-feedback-attention-cost.md,
//     "Result"), so it is off by default.
//     `task_feedback = false` makes the heads independent of the placement.
//
// Out-of-memory plans: the placement head never masks a device for lack of memory by
// default. Whether a plan fits depends on all units placed together (and on the
// schedule), which a one-pass decoder cannot know per decision; a mask that only
// removes devices where a unit cannot fit even alone is exact but almost never
// binding. So OOM is left to the reward (the trainer penalizes OOM plans, as GO
// does), and ToTensors(input, true) adds that per-unit memory mask
// (PolicyInput::UnitMemoryMask) for callers who want it. Devices excluded by the
// input (CPUs by default) are always masked.
//
// Masked logits are kMaskedLogit (finite, so entropies stay finite; their
// probability is exactly 0 in float).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/status.h"
#include "policy/actions.h"
#include "policy/features.h"
#include "policy/go_policy_config.h"

namespace graphopt {

inline constexpr float kMaskedLogit = -1e9f;

// Placement-context features of an op given a placement (the multi-task feedback).
inline constexpr int kNumPlacementContext = 5;
const std::vector<std::string>& PlacementContextNames();

// The torch form of a PolicyInput (policy/features.h): built once per (graph,
// cluster), then used for every forward pass. Index tensors are int64. Keeps a copy
// of the input for the decoding loops that run on plain arrays.
struct PolicyTensors {
  std::shared_ptr<const PolicyInput> input;
  int64_t num_ops = 0, num_units = 0, num_devices = 0;
  torch::Tensor op_features;  // [N, kNumOpFeatures] float, node order
  torch::Tensor op_kind;      // [N]
  torch::Tensor pred_offsets, pred_index, succ_offsets, succ_index;
  torch::Tensor node_unit;  // [N]
  torch::Tensor unit_offsets, unit_nodes;
  torch::Tensor fusable;           // [N] bool
  torch::Tensor fusion_producer;   // [N]: node of the fusion producer (the node itself if none)
  torch::Tensor device_features;   // [D, kNumDeviceFeatures]
  torch::Tensor device_mask;       // [D] bool
  torch::Tensor unit_device_mask;  // [U, D] bool, or undefined (no per-unit mask)
  torch::Tensor graph_features;    // [kNumGraphFeatures]
  torch::Tensor unit_features;     // [U, kNumUnitFeatures]
  DeviceId default_device = 0;
};

// mask_unit_memory: also mask devices where a unit's parameters alone do not fit (a
// unit that fits nowhere keeps the input's device mask).
PolicyTensors ToTensors(const PolicyInput& input, bool mask_unit_memory = false);

// The result of a forward pass: the shared trunk and the placement logits. The
// scheduling and fusion logits depend on the placement (multi-task recurrence) and
// come from GoPolicyImpl::DecodeTasks.
struct PolicyOutput {
  torch::Tensor node_states;        // [N, H] trunk output, node order
  torch::Tensor device_embeddings;  // [D, H]
  torch::Tensor graph_embedding;    // [H] (zeros without superposition)
  torch::Tensor film;               // [attention_layers, 2, H] (scale, shift), or undefined
  torch::Tensor placement_logits;   // [U, D], masked entries kMaskedLogit; undefined if placement is inactive
  torch::Tensor unit_states;        // [U, H]: mean node state + unit features (placement and per-unit heads)
  torch::Tensor fusion_bias;        // [N], added to the fusion logits (a trainer's, rl/ppo.h), or undefined
};

// Scheduling and fusion logits for a batch of B placements (node order). Priorities
// are per node or, with GoPolicyConfig::unit_tasks, per unit (M = N or U).
struct TaskLogits {
  bool scheduling_per_unit = false;
  torch::Tensor priority_logits;  // [B, M, priority_levels], or undefined if scheduling is inactive
  torch::Tensor fusion_logits;    // [B, N], masked entries kMaskedLogit; undefined if fusion is inactive
  torch::Tensor fusion_mask;      // [B, N] bool: the fusion decisions that count
};

// Log-probabilities and entropies of a batch of actions, each summed over the
// sample's decisions ([B] tensors, differentiable). Inactive tasks add 0.
struct Evaluation {
  torch::Tensor log_prob;  // [B] total
  torch::Tensor entropy;   // [B] total: placement entropy + scheduling/fusion entropies given the sample's placement
  torch::Tensor placement_log_prob;   // [B]
  torch::Tensor scheduling_log_prob;  // [B]
  torch::Tensor fusion_log_prob;      // [B]
  torch::Tensor num_decisions;        // [B] float: decisions counted (units + ops + unmasked fusions), for normalizing
  // Per task: entropy [B] and decisions counted [B] float (0 where the task is inactive).
  torch::Tensor placement_entropy, scheduling_entropy, fusion_entropy;
  torch::Tensor placement_decisions, scheduling_decisions, fusion_decisions;

  // The mean log-probability per decision of each active task, summed over the
  // tasks ([B]): every task weighs the same however many decisions it has (the 64
  // placement decisions of a block policy are not drowned by 24k scheduling ones).
  torch::Tensor TaskMeanLogProb() const;
  // Of the first member of the batch: per active task, exp(mean log-probability per
  // decision); the least of them (1 if no task is active).
  double LeastTaskProbability() const;
};

// Sets the number of intra-op threads of LibTorch (n <= 0: all hardware threads).
// LibTorch's default here is 1.
void ConfigureTorchThreads(int n);

// The GO network (architecture above). Owns its parameters; holds no per-graph
// state, so one policy serves any number of graphs and clusters. forward and the
// decoding functions are not thread-safe (autograd); use one policy per thread.
class GoPolicyImpl : public torch::nn::Module {
 public:
  explicit GoPolicyImpl(GoPolicyConfig config = {});

  const GoPolicyConfig& config() const { return config_; }

  // The trunk and the placement logits. `in` must come from ToTensors.
  PolicyOutput forward(const PolicyTensors& in);
  // The part of forward after the trunk: unit states and placement logits from
  // `trunk`'s node states and device embeddings (forward = trunk, then Heads). With a
  // trunk computed without gradient, training the heads alone costs a few small
  // matrix products per step instead of the trunk's backward pass.
  PolicyOutput Heads(const PolicyTensors& in, PolicyOutput trunk);
  // The parameters of the heads: everything after the trunk (unit and placement
  // heads, placement feedback, scheduling and fusion heads); not the encoder, the
  // attention layers or the device embeddings.
  std::vector<torch::Tensor> HeadParameters();
  // The scheduling head's output layer as a new network's (LibTorch's default
  // initialization drawn from `seed`, then the level prior on level 0): the other
  // parameters are kept. A pre-trained policy's layer has learned to put every unit on
  // level 0 (pre-training imitates teachers whose plans carry no levels), so its
  // samples never try another schedule; fine-tuning can start it afresh
  // (PretrainedStart::fresh_priority, off by default).
  void RestartPriorityOutput(uint64_t seed);
  // From now on decides only `tasks`, a non-empty subset of those it decides (its
  // config's, as saved), and gives the others their defaults, as a network made
  // without them does; its parameters stay (every head exists whatever the tasks).
  // A search on a pre-trained policy of every task can so learn placement alone.
  Status RestrictTasks(uint32_t tasks);
  // Scheduling and fusion logits given placements unit_device [B, U] (int64). B is
  // the batch size of the result; the devices themselves are ignored when placement
  // is inactive. An undefined unit_device means B = 1 and no placement.
  TaskLogits DecodeTasks(const PolicyTensors& in, const PolicyOutput& out, const torch::Tensor& unit_device);

  // Samples `num_samples` action sets at `temperature` (> 0) from core/rng.h: the
  // same rng state and inputs give the same actions. Inactive tasks get defaults.
  // With `coupled`, the units' devices of one sample are drawn from one shared
  // quantile instead of independently: the sample takes a random order of the
  // devices and a quantile q (stratified over the samples: sample s draws q in
  // [s, s + 1) / num_samples), and each unit takes the device at q of its own
  // distribution in that order (policy/coupled_sampling.h). Each unit's device is
  // still drawn from its own distribution (over the batch, in expectation), but the
  // units move together: 14 units each giving one GPU half its mass and the rest
  // unevenly land all on one device in 70% of coupled samples (the test beside
  // coupled_sampling.h) and in one of 16,000 independent ones. Scheduling and fusion
  // are sampled given the placement as without coupling.
  // With coupled and by_layer, the coupling is within each layer only (the units of
  // PolicyInput::unit_layer's layers: coupled_sampling.h's groups), so a sample moves
  // whole layers, each drawn apart; with layer_uniform > 0 as well, a layer takes,
  // with that probability, a device drawn uniformly from the allowed ones
  // (coupled_sampling.h's group_uniform).
  std::vector<Actions> Sample(const PolicyTensors& in, const PolicyOutput& out, Rng& rng, int num_samples = 1,
                              double temperature = 1.0, bool coupled = false, bool by_layer = false,
                              double layer_uniform = 0);
  // The most likely placement, then the most likely scheduling and fusion given it.
  Actions Greedy(const PolicyTensors& in, const PolicyOutput& out);
  // Scheduling and fusion given each action set's placement (unit_device; empty: the
  // default device), drawn from `rng` at `temperature` or, with a null rng, at their
  // modes; any priority levels and fusion flags in `actions` are replaced. Sample and
  // Greedy are a placement and then this; a placement decided outside the network
  // (e.g. policy/memory_budget.h) gets the scheduling and fusion the policy gives it.
  std::vector<Actions> DecodeGivenPlacement(const PolicyTensors& in, const PolicyOutput& out,
                                            std::vector<Actions> actions, Rng* rng, double temperature = 1.0);
  // Log-probabilities and entropies of `batch` (teacher-forced: each sample's own
  // placement is fed back). Actions must have the sizes Sample produces.
  Evaluation Evaluate(const PolicyTensors& in, const PolicyOutput& out, const std::vector<Actions>& batch);
  torch::Tensor LogProb(const PolicyTensors& in, const PolicyOutput& out, const std::vector<Actions>& batch) {
    return Evaluate(in, out, batch).log_prob;
  }
  torch::Tensor Entropy(const PolicyTensors& in, const PolicyOutput& out, const std::vector<Actions>& batch) {
    return Evaluate(in, out, batch).entropy;
  }

  // Building blocks, public for tests.
  // GraphSAGE encoder output [N, H] (after the op encoder).
  torch::Tensor Encode(const PolicyTensors& in);
  // One GraphSAGE layer on states h [N, H].
  torch::Tensor SageLayer(int layer, const torch::Tensor& h, const PolicyTensors& in);
  // Attention layer `layer` on x [R, num_segments, segment, H] with node_valid
  // [num_segments, segment] (padding = 0); film [2, H] or undefined.
  torch::Tensor AttentionLayer(int layer, const torch::Tensor& x, const torch::Tensor& node_valid,
                               const torch::Tensor& film);
  // [num_segments, segment] uint8: 1 for real ops, 0 for padding.
  torch::Tensor NodeValid(int64_t num_ops) const;
  // [N, H] <-> [R, num_segments, segment, H] (zero padding).
  torch::Tensor ToSegments(const torch::Tensor& x) const;
  torch::Tensor FromSegments(const torch::Tensor& x, int64_t num_ops) const;
  // Device embeddings [D, H].
  torch::Tensor EmbedDevices(const torch::Tensor& device_features);
  // Relative-position bucket of key offset `relative` (key position - query position).
  int RelativeBucket(int relative) const;
  // Placement-context features [B, N, kNumPlacementContext] of placements
  // unit_device [B, U] (no gradient: they are functions of discrete decisions).
  static torch::Tensor PlacementContext(const PolicyTensors& in, const torch::Tensor& unit_device);
  // Their mean over each unit's ops [B, U, kNumPlacementContext], the same floats as
  // SegmentMean of PlacementContext without its [B, N] tensor.
  static torch::Tensor UnitPlacementContext(const PolicyTensors& in, const torch::Tensor& unit_device);

 private:
  struct Sage {
    torch::nn::Linear messages{nullptr};  // H -> 2H: predecessor and successor messages
    torch::nn::Linear combine{nullptr};   // 3H -> H
    torch::nn::LayerNorm norm{nullptr};
  };
  struct Attention {
    torch::nn::Linear qkv{nullptr}, out{nullptr}, ff1{nullptr}, ff2{nullptr};
    torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr};
    torch::nn::Embedding relative_bias{nullptr};  // [buckets, heads]
  };
  // [B, N] devices of each node from [B, U] unit devices.
  torch::Tensor NodeDevices(const PolicyTensors& in, const torch::Tensor& unit_device) const;
  torch::Tensor UnitDeviceTensor(const PolicyTensors& in, const std::vector<Actions>& batch) const;
  // DecodeTasks with GoPolicyConfig::unit_tasks: priority logits [B, U] from the unit
  // states; fusion logits per op, the op's own term plus its unit's.
  TaskLogits DecodeUnitTasks(const PolicyTensors& in, const PolicyOutput& out, const torch::Tensor& unit_device);
  // Evaluate's scheduling terms for per-unit priority logits.
  void EvaluateUnitScheduling(const PolicyTensors& in, const TaskLogits& t, const std::vector<Actions>& batch,
                              Evaluation* e) const;

  GoPolicyConfig config_;
  torch::nn::Linear op_in_{nullptr};
  torch::nn::Embedding kind_embedding_{nullptr};
  torch::nn::LayerNorm op_norm_{nullptr};
  std::vector<Sage> sage_;
  std::vector<Attention> attention_;
  torch::Tensor bucket_index_;  // [segment, memory + segment] int64, from the config
  torch::nn::Linear graph_in_{nullptr}, graph_mlp1_{nullptr}, graph_mlp2_{nullptr}, film_{nullptr};
  torch::nn::Linear device_mlp1_{nullptr}, device_mlp2_{nullptr};
  torch::nn::Linear place_query_{nullptr}, place_key_{nullptr}, place_bias_{nullptr}, unit_in_{nullptr};
  torch::nn::Linear device_index_{nullptr};  // the device's index into its placement key (device_index_key)
  torch::nn::Linear unit_plan_{nullptr};     // the unit's device in the split plan into its state (unit_plan_device)
  torch::nn::Linear unit_stage_{nullptr};    // the unit's stage among the layers into its state (unit_stage)
  torch::nn::Linear feedback_{nullptr}, context_{nullptr};                // placement feedback into the heads
  torch::nn::Linear feedback_states_{nullptr}, context_states_{nullptr};  // into the op states (feedback_attention)
  torch::nn::Linear priority_hidden_{nullptr}, priority_out_{nullptr};
  torch::nn::Linear fusion_hidden_{nullptr}, fusion_out_{nullptr};
  torch::nn::Linear fusion_unit_{nullptr};  // the unit's term of per-op fusion logits (unit_tasks)
};
TORCH_MODULE(GoPolicy);

// Saves the configuration and parameters to `path` atomically (write to a
// temporary beside it, then rename).
Status SaveGoPolicy(GoPolicy& policy, const std::string& path);
// Loads a policy saved by SaveGoPolicy; errors name the file.
StatusOr<GoPolicy> LoadGoPolicy(const std::string& path);

}  // namespace graphopt
