// The PPO trainer of one graph data-parallel over the ranks of a World (dist/world.h;
// none, or a world of one: one process). Every rank holds the same policy and
// optimizer; rank r samples its share of a step's samples (the first
// samples % ranks ranks one more) from an rng of its own seed (RankSeed), the rewards'
// mean and spread are the whole batch's, and the gradients are summed over the ranks
// before every optimizer step, so that every rank takes the same step and the
// policies stay equal bit for bit (rl/ppo.h PpoTrainer::set_world).
//
// A failed collective throws std::runtime_error with its message: it ends the step,
// and the search reports it.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "core/status.h"
#include "dist/world.h"

namespace graphopt {

class DataParallel {
 public:
  // One process.
  DataParallel() = default;
  // Over `world` (null or a world of one: one process); fails if a rank would have
  // none of `samples_per_step`.
  static StatusOr<DataParallel> Over(World* world, int samples_per_step);

  bool distributed() const { return world_ != nullptr; }
  int rank() const { return world_ != nullptr ? world_->rank() : 0; }
  int size() const { return world_ != nullptr ? world_->size() : 1; }
  // This rank's share of `samples`.
  int Share(int samples) const;
  // Whether `flag` holds on any rank (itself in one process).
  bool AnyRank(bool flag) const;
  // Every parameter's gradient summed over the ranks (rl/gradient_sum.h); nothing in
  // one process. AverageGradients divides the sum by the ranks.
  void SumGradients(const std::vector<torch::Tensor>& params) const;
  void AverageGradients(const std::vector<torch::Tensor>& params) const;
  // The whole batch's rewards: how many, their mean and their sample standard
  // deviation (0 for a batch of one), from each rank's `rewards`.
  struct Moments {
    double count = 0;
    double mean = 0;
    double spread = 0;
  };
  Moments BatchMoments(const std::vector<float>& rewards) const;

 private:
  explicit DataParallel(World* world) : world_(world) {}
  World* world_ = nullptr;
};

}  // namespace graphopt
