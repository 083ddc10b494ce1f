#include "rl/local_search.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "baselines/baseline.h"
#include "core/strings.h"
#include "graph/verifier.h"

namespace graphopt {

LocalSearch::LocalSearch(const Simulator& simulator, BatchSimulator* batch, LocalSearchConfig config)
    : sim_(simulator),
      legalizer_(simulator.graph()),
      greedy_fusion_(simulator.graph(), [](OpKind) { return true; }),
      default_fusion_(GreedyFusion::Default(simulator.graph())),
      batch_(batch),
      config_(config) {
  GO_CHECK(batch_ != nullptr);
  config_.batch = std::max(1, config_.batch);
  devices_ = sim_.cluster().Accelerators();
  if (devices_.empty()) {
    for (DeviceId d = 0; d < sim_.cluster().num_devices(); ++d) devices_.push_back(d);
  }
  const Graph& g = sim_.graph();
  group_members_.assign(static_cast<size_t>(std::max(0, g.num_colocation_groups())), {});
  for (OpId o = 0; o < g.num_ops(); ++o) {
    const int32_t group = g.op(o).colocation_group;
    if (group < 0) continue;
    if (static_cast<size_t>(group) >= group_members_.size()) group_members_.resize(static_cast<size_t>(group) + 1);
    group_members_[static_cast<size_t>(group)].push_back(o);
  }
  BuildScales();
}

std::vector<OpId> LocalSearch::Widen(const std::vector<OpId>& ops) const {
  const Graph& g = sim_.graph();
  std::vector<OpId> out(ops);
  std::vector<int32_t> groups;
  for (OpId o : ops) {
    if (g.op(o).colocation_group >= 0) groups.push_back(g.op(o).colocation_group);
  }
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  for (int32_t group : groups) {
    const auto& members = group_members_[static_cast<size_t>(group)];
    out.insert(out.end(), members.begin(), members.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void LocalSearch::BuildScales() {
  const Graph& g = sim_.graph();
  scales_.clear();
  // Scale 0: fusion and priority passes (no sets).
  scales_.push_back(Scale{"passes", {}, false});
  if (devices_.size() < 2 || !config_.placement_moves) return;

  // Layers, and their forward / backward halves.
  const int num_layers = static_cast<int>(g.layer_names().size());
  if (num_layers > 1) {
    std::vector<std::vector<OpId>> layer(static_cast<size_t>(num_layers)), fwd(static_cast<size_t>(num_layers)),
        bwd(static_cast<size_t>(num_layers));
    for (OpId o = 0; o < g.num_ops(); ++o) {
      const Op& op = g.op(o);
      if (op.layer < 0 || op.layer >= num_layers) continue;
      layer[static_cast<size_t>(op.layer)].push_back(o);
      (op.phase == Phase::kForward ? fwd : bwd)[static_cast<size_t>(op.layer)].push_back(o);
    }
    Scale layers{"layers", {}, false}, halves{"layer halves", {}, false};
    for (int l = 0; l < num_layers; ++l) {
      if (!layer[static_cast<size_t>(l)].empty()) layers.sets.push_back(Widen(layer[static_cast<size_t>(l)]));
      if (!fwd[static_cast<size_t>(l)].empty() && !bwd[static_cast<size_t>(l)].empty()) {
        halves.sets.push_back(Widen(fwd[static_cast<size_t>(l)]));
        halves.sets.push_back(Widen(bwd[static_cast<size_t>(l)]));
      }
    }
    if (layers.sets.size() > 1) scales_.push_back(std::move(layers));
    if (halves.sets.size() > 2) scales_.push_back(std::move(halves));
  }

  // Blocks of the topological order of anchors (forward ops; every other op follows
  // the forward op it was made from).
  StatusOr<std::vector<OpId>> topo = TopologicalOrder(g);
  if (!topo.ok()) return;
  std::vector<OpId> anchors;
  std::vector<int32_t> anchor_index(static_cast<size_t>(g.num_ops()), -1);
  for (OpId o : *topo) {
    const Op& op = g.op(o);
    if (op.forward_op == kNoId || op.forward_op == o) {
      anchor_index[static_cast<size_t>(o)] = static_cast<int32_t>(anchors.size());
      anchors.push_back(o);
    }
  }
  std::vector<std::vector<OpId>> followers(anchors.size());
  for (OpId o = 0; o < g.num_ops(); ++o) {
    const Op& op = g.op(o);
    if (op.forward_op != kNoId && op.forward_op != o && anchor_index[static_cast<size_t>(op.forward_op)] >= 0) {
      followers[static_cast<size_t>(anchor_index[static_cast<size_t>(op.forward_op)])].push_back(o);
    }
  }
  const int n = static_cast<int>(anchors.size());
  const int d = static_cast<int>(devices_.size());
  // The coarsest scale always exists (small graphs get it too); finer ones while
  // blocks keep at least min_block_ops anchors.
  for (int blocks = std::min(2 * d, n); blocks >= 2 && blocks <= n && (blocks == std::min(2 * d, n) ||
                                                                       n / blocks >= config_.min_block_ops);
       blocks *= 4) {
    Scale s{StrFormat("%d blocks", blocks), {}, blocks > 4 * d};
    for (int b = 0; b < blocks; ++b) {
      const int begin = static_cast<int>(static_cast<int64_t>(n) * b / blocks);
      const int end = static_cast<int>(static_cast<int64_t>(n) * (b + 1) / blocks);
      std::vector<OpId> ops;
      for (int i = begin; i < end; ++i) {
        ops.push_back(anchors[static_cast<size_t>(i)]);
        const auto& f = followers[static_cast<size_t>(i)];
        ops.insert(ops.end(), f.begin(), f.end());
      }
      if (!ops.empty()) s.sets.push_back(Widen(ops));
    }
    scales_.push_back(std::move(s));
  }
}

void LocalSearch::Reset() {
  failed_scales_ = 0;
}

void LocalSearch::set_task_defaults(const TaskDefaults* defaults) {
  defaults_ = defaults;
  if (defaults == nullptr) return;
  config_.placement_moves = config_.placement_moves && defaults->decides(kTaskPlacement);
  config_.fusion_moves = config_.fusion_moves && defaults->decides(kTaskFusion);
  config_.priority_moves = config_.priority_moves && defaults->decides(kTaskScheduling);
  BuildScales();
  set_cursor(Cursor{0, 0, 0});
}

void LocalSearch::set_cursor(const Cursor& c) {
  scale_ = std::clamp(c.scale, 0, num_scales() - 1);
  position_ = 0;
  failed_scales_ = std::clamp(c.failed_scales, -1, num_scales());
  pending_valid_ = false;
}

std::vector<LocalSearch::Move> LocalSearch::MovesOfScale(int scale, const Plan& plan, const SimResult& result,
                                                         Rng& rng) const {
  std::vector<Move> moves;
  const Scale& s = scales_[static_cast<size_t>(scale)];
  if (s.sets.empty()) {
    if (config_.fusion_moves) {
      for (int k = 1; k <= 3; ++k) moves.push_back(Move{-1, kNoId, k});
    }
    if (config_.priority_moves) {
      for (int k = 4; k <= 5; ++k) moves.push_back(Move{-1, kNoId, k});
    }
    return moves;
  }
  // Majority device of every set.
  const int num_devices = sim_.cluster().num_devices();
  std::vector<DeviceId> majority(s.sets.size(), kNoId);
  std::vector<int> count(static_cast<size_t>(num_devices));
  for (size_t i = 0; i < s.sets.size(); ++i) {
    std::fill(count.begin(), count.end(), 0);
    for (OpId o : s.sets[i]) ++count[static_cast<size_t>(plan.device[static_cast<size_t>(o)])];
    majority[i] = static_cast<DeviceId>(std::max_element(count.begin(), count.end()) - count.begin());
  }
  DeviceId least_busy = devices_[0];
  for (DeviceId dev : devices_) {
    if (result.device_busy_us[static_cast<size_t>(dev)] < result.device_busy_us[static_cast<size_t>(least_busy)]) {
      least_busy = dev;
    }
  }
  for (size_t i = 0; i < s.sets.size(); ++i) {
    std::vector<DeviceId> targets;
    if (s.fine) {
      if (i > 0) targets.push_back(majority[i - 1]);
      if (i + 1 < s.sets.size()) targets.push_back(majority[i + 1]);
      targets.push_back(least_busy);
    } else {
      targets = devices_;
    }
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    for (DeviceId dev : targets) {
      // Skip a move that would change nothing.
      bool changes = false;
      for (OpId o : s.sets[i]) {
        if (plan.device[static_cast<size_t>(o)] != dev) {
          changes = true;
          break;
        }
      }
      if (changes) moves.push_back(Move{static_cast<int>(i), dev, 0});
    }
  }
  rng.Shuffle(moves);
  return moves;
}

Plan LocalSearch::Apply(const Plan& plan, const Move& move) const {
  const Graph& g = sim_.graph();
  Plan p = plan;
  switch (move.kind) {
    case 0: {
      const Scale& s = scales_[static_cast<size_t>(scale_)];
      for (OpId o : s.sets[static_cast<size_t>(move.set)]) p.device[static_cast<size_t>(o)] = move.device;
      legalizer_.DropIllegalFusions(&p);
      break;
    }
    case 1:
      greedy_fusion_.Apply(&p);  // clears the flags first
      break;
    case 2:
      default_fusion_.Apply(&p);
      break;
    case 3:
      std::fill(p.fuse_with_producer.begin(), p.fuse_with_producer.end(), 0);
      break;
    case 4:
      SetCriticalPathPriorities(g, sim_.cluster(), sim_.cost_model(), &p);
      break;
    case 5:
      std::fill(p.priority.begin(), p.priority.end(), 0.0);
      break;
    default:
      GO_CHECK_MSG(false, "unknown local-search move");
  }
  if (defaults_ != nullptr) defaults_->Apply(g, &p, &legalizer_);
  return p;
}

LocalSearchStats LocalSearch::Polish(Plan* plan, PlanScore* score, Rng& rng, int64_t max_evaluations,
                                     const std::function<bool()>& stop) {
  LocalSearchStats stats;
  GO_CHECK(plan != nullptr && score != nullptr);
  legalizer_.MakeValid(sim_.cluster(), plan);
  if (defaults_ != nullptr) defaults_->Apply(sim_.graph(), plan, &legalizer_);
  StatusOr<SimResult> current = std::move(batch_->Run({*plan}).front());  // measured, if the batch measures
  ++stats.evaluations;
  if (!current.ok()) return stats;
  const PlanScore fresh = PlanScore::Of(*current);
  // The caller's score must describe the plan: re-score (a no-op for a correct caller).
  *score = fresh;
  auto budget_left = [&] { return max_evaluations <= 0 || stats.evaluations < max_evaluations; };
  while (budget_left() && !converged()) {
    if (stop && stop()) break;
    if (!pending_valid_) {
      pending_ = MovesOfScale(scale_, *plan, *current, rng);
      position_ = 0;
      pending_valid_ = true;
    }
    if (position_ >= static_cast<int>(pending_.size())) {
      // The scale is exhausted without an accepted move since it started (or since
      // the last acceptance, which reset failed_scales_).
      ++failed_scales_;
      scale_ = (scale_ + 1) % num_scales();
      pending_valid_ = false;
      continue;
    }
    int take = config_.batch;
    if (max_evaluations > 0) take = static_cast<int>(std::min<int64_t>(take, max_evaluations - stats.evaluations));
    take = std::min(take, static_cast<int>(pending_.size()) - position_);
    std::vector<Plan> candidates;
    candidates.reserve(static_cast<size_t>(take));
    for (int i = 0; i < take; ++i) candidates.push_back(Apply(*plan, pending_[static_cast<size_t>(position_ + i)]));
    position_ += take;
    // A candidate is kept only if it beats the current plan by the margin: once the
    // current plan fits, a candidate's simulation stops as soon as it runs out of
    // memory or its clock passes that mark (SimOptions), as it then cannot be kept.
    // The kept candidate ran to its end, so the decisions and the accepted plan's
    // result are those of full simulations.
    SimOptions options;
    if (config_.stop_hopeless && score->fits()) {
      options.stop_at_oom = true;
      options.stop_after_us = score->step_time_us * (1 - config_.min_improvement);
    } else if (config_.stop_hopeless && score->scored()) {
      options.stop_above_overflow = score->overflow_bytes;  // a plan overflowing more cannot be kept
    }
    std::vector<StatusOr<SimResult>> results = batch_->Run(candidates, options);
    stats.evaluations += take;
    int best = -1;
    PlanScore best_score = *score;
    for (int i = 0; i < take; ++i) {
      if (!results[static_cast<size_t>(i)].ok()) continue;
      const PlanScore s = PlanScore::Of(*results[static_cast<size_t>(i)]);
      if (s.BetterThan(best_score, best == -1 ? config_.min_improvement : 0)) {
        best = i;
        best_score = s;
      }
    }
    if (best >= 0) {
      *plan = std::move(candidates[static_cast<size_t>(best)]);
      *score = best_score;
      current = std::move(results[static_cast<size_t>(best)]);
      ++stats.accepted;
      failed_scales_ = -1;  // this scale, too, must be tried in full again
    }
  }
  stats.converged = converged();
  return stats;
}

}  // namespace graphopt
