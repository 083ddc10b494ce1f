// The gradients of a data-parallel training step summed over the ranks (dist/world.h):
// pre-training (rl/pretrain.h), each rank training its own graphs, and the PPO trainer
// of one graph (rl/ppo.h), each rank sampling its share of a step's plans.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "core/status.h"
#include "dist/world.h"

namespace graphopt {

// Every parameter's gradient becomes its sum over the ranks (in place; nothing in a
// world of one). A rank without a gradient for a parameter adds zeros; a parameter
// no rank has a gradient for keeps none, on every rank alike (Adam skips a parameter
// without a gradient, and must skip it on every rank or the ranks' policies part).
// One collective (one buffer) per call.
Status SumGradientsOverRanks(const std::vector<torch::Tensor>& params, World* world);

// Every defined gradient divided by `divisor`.
void DivideGradients(const std::vector<torch::Tensor>& params, double divisor);

}  // namespace graphopt
