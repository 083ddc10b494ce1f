// The local-search polish of plans (no LibTorch here); plans are compared by their
// PlanScore (sim/plan_score.h).
//
// LocalSearch improves a plan by moves scored with the simulator, never accepting a
// worse plan: it returns its input if nothing helps. Moves:
//  - placement: move a set of ops to another device. The sets come in families,
//    coarse to fine: the layers of built-in graphs (all phases of a layer), the
//    forward and the backward half of each layer, and blocks of the topological
//    order of forward ops (each block with the gradient and update ops made from
//    its ops) at several scales. Every set is widened to whole colocation groups,
//    so a move never splits a group. At fine scales only the devices of the
//    neighbouring blocks and the least busy device are tried.
//  - fusion: greedy fusion of every fusible op, of elementwise ops only, or none.
//  - priorities: critical-path-first priorities for the current placement, or none.
// Candidates are simulated in batches (BatchSimulator, every core); the best of a
// batch is accepted if it beats the current plan by a relative margin (a candidate's
// simulation stops once it cannot: SimOptions' stop_after_us, stop_at_oom). A scale
// whose every move was tried without success hands over to the next finer one;
// when every scale fails in a row the search has converged (until the plan is
// replaced). The search state (scale, position) persists across Polish calls, so
// the optimizer can polish in slices between training steps. Deterministic: the
// moves depend only on the plan, the rng and the evaluation budget, not on time or
// thread count (a time limit, if set, only cuts a slice short).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "baselines/fusion.h"
#include "core/rng.h"
#include "graph/graph.h"
#include "sim/batch.h"
#include "sim/plan.h"
#include "rl/task_defaults.h"
#include "sim/plan_legalizer.h"
#include "sim/plan_score.h"
#include "sim/simulator.h"

namespace graphopt {

struct LocalSearchConfig {
  int batch = 8;                       // candidates simulated together
  double min_improvement = 1e-4;       // relative step-time gain a move must bring
  int min_block_ops = 8;               // finest topological block (forward ops)
  bool placement_moves = true;
  bool fusion_moves = true;
  bool priority_moves = true;
  // Once the current plan fits, stop a candidate's simulation when it runs out of
  // memory or passes the step time it must beat; while it does not, when the
  // candidate overflows by more than it (it cannot be kept then). The same moves are
  // kept either way; off only to measure what it saves.
  bool stop_hopeless = true;
};

struct LocalSearchStats {
  int64_t evaluations = 0;  // plans simulated
  int64_t accepted = 0;     // moves kept
  bool converged = false;   // every scale failed since the last accepted move
};

class LocalSearch {
 public:
  // The simulator (and batch simulator) must outlive the search.
  LocalSearch(const Simulator& simulator, BatchSimulator* batch, LocalSearchConfig config = {});

  // Improves *plan (scored *score) with at most max_evaluations simulations (<= 0:
  // until converged) or until stop() returns true (checked between batches).
  // *plan and *score are only ever replaced by a strictly better plan.
  LocalSearchStats Polish(Plan* plan, PlanScore* score, Rng& rng, int64_t max_evaluations,
                          const std::function<bool()>& stop = nullptr);

  // From now on the search moves only the tasks `defaults` decides and gives every
  // candidate the defaults of the others (rl/task_defaults.h; null: every task). It
  // must outlive the search.
  void set_task_defaults(const TaskDefaults* defaults);

  // Forgets convergence (the plan changed from outside).
  void Reset();
  int num_scales() const { return static_cast<int>(scales_.size()); }
  bool converged() const { return failed_scales_ >= static_cast<int>(scales_.size()); }

  // Search position, for checkpoints.
  struct Cursor {
    int scale = 0;
    int position = 0;
    int failed_scales = 0;
  };
  Cursor cursor() const { return Cursor{scale_, position_, failed_scales_}; }
  void set_cursor(const Cursor& c);

 private:
  // A family of op sets at one scale (its sets are disjoint).
  struct Scale {
    std::string name;
    std::vector<std::vector<OpId>> sets;
    bool fine = false;  // try only neighbouring and least busy devices
  };
  // One candidate move: set index (or -1 for a non-placement move) and what to do.
  struct Move {
    int set = -1;
    DeviceId device = kNoId;
    int kind = 0;  // 0 placement; 1..3 fusion variants; 4..5 priority variants
  };

  void BuildScales();
  std::vector<OpId> Widen(const std::vector<OpId>& ops) const;
  // Moves of the current scale, in a fixed order for this plan.
  std::vector<Move> MovesOfScale(int scale, const Plan& plan, const SimResult& result, Rng& rng) const;
  Plan Apply(const Plan& plan, const Move& move) const;

  const Simulator& sim_;
  PlanLegalizer legalizer_;
  GreedyFusion greedy_fusion_, default_fusion_;  // of every fusible kind; TensorFlow's default
  BatchSimulator* batch_;
  LocalSearchConfig config_;
  std::vector<DeviceId> devices_;                 // accelerators (all devices if none)
  std::vector<std::vector<OpId>> group_members_;  // colocation group -> ops
  std::vector<Scale> scales_;
  int scale_ = 0;
  int position_ = 0;
  int failed_scales_ = 0;
  std::vector<Move> pending_;  // moves of the current scale not tried yet
  bool pending_valid_ = false;
  const TaskDefaults* defaults_ = nullptr;
};

}  // namespace graphopt
