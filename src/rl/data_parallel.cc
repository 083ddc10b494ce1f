#include "rl/data_parallel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/strings.h"
#include "rl/gradient_sum.h"

namespace graphopt {
namespace {

void ThrowIfFailed(const Status& status) {
  if (!status.ok()) throw std::runtime_error(status.message());
}

}  // namespace

StatusOr<DataParallel> DataParallel::Over(World* world, int samples_per_step) {
  if (world == nullptr || !world->distributed()) return DataParallel();
  if (samples_per_step < world->size()) {
    return InvalidArgument(StrFormat("%d samples per step cannot be shared by %d ranks (samples=N, N >= ranks)",
                                     samples_per_step, world->size()));
  }
  return DataParallel(world);
}

int DataParallel::Share(int samples) const {
  const int ranks = size();
  return samples / ranks + (rank() < samples % ranks ? 1 : 0);
}

bool DataParallel::AnyRank(bool flag) const {
  if (world_ == nullptr) return flag;
  StatusOr<bool> any = world_->AnyRank(flag);
  ThrowIfFailed(any.status());
  return *any;
}

void DataParallel::SumGradients(const std::vector<torch::Tensor>& params) const {
  if (world_ != nullptr) ThrowIfFailed(SumGradientsOverRanks(params, world_));
}

void DataParallel::AverageGradients(const std::vector<torch::Tensor>& params) const {
  if (world_ == nullptr) return;
  ThrowIfFailed(SumGradientsOverRanks(params, world_));
  DivideGradients(params, world_->size());
}

DataParallel::Moments DataParallel::BatchMoments(const std::vector<float>& rewards) const {
  std::vector<double> totals{0, 0, static_cast<double>(rewards.size())};
  for (const float r : rewards) {
    totals[0] += r;
    totals[1] += static_cast<double>(r) * r;
  }
  if (world_ != nullptr) ThrowIfFailed(world_->SumAll(&totals));
  Moments m;
  m.count = totals[2];
  m.mean = totals[0] / totals[2];
  const double n = totals[2];
  m.spread = n > 1 ? std::sqrt(std::max(0.0, (totals[1] - n * m.mean * m.mean) / (n - 1))) : 0;
  return m;
}

}  // namespace graphopt
