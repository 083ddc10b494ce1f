#include "rl/gradient_sum.h"

#include <cstring>

namespace graphopt {

Status SumGradientsOverRanks(const std::vector<torch::Tensor>& params, World* world) {
  if (world == nullptr || !world->distributed()) return Status::Ok();
  // One buffer: every gradient (zeros where a rank has none), then a flag per
  // parameter counting the ranks that have one.
  size_t total = 0;
  for (const torch::Tensor& p : params) total += static_cast<size_t>(p.numel());
  std::vector<float> buffer(total + params.size(), 0.0f);
  size_t offset = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const torch::Tensor& g = params[i].grad();
    const size_t n = static_cast<size_t>(params[i].numel());
    if (g.defined()) {
      const torch::Tensor c = g.contiguous();
      std::memcpy(buffer.data() + offset, c.data_ptr<float>(), n * sizeof(float));
      buffer[total + i] = 1;
    }
    offset += n;
  }
  GO_RETURN_IF_ERROR(world->SumAll(&buffer));
  offset = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const torch::Tensor& p = params[i];
    const size_t n = static_cast<size_t>(p.numel());
    if (buffer[total + i] > 0) {
      torch::NoGradGuard no_grad;
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      p.mutable_grad().copy_(torch::from_blob(buffer.data() + offset, p.sizes(), torch::kFloat));
    }
    offset += n;
  }
  return Status::Ok();
}

void DivideGradients(const std::vector<torch::Tensor>& params, double divisor) {
  torch::NoGradGuard no_grad;
  for (const torch::Tensor& p : params) {
    if (p.grad().defined()) p.mutable_grad().div_(divisor);
  }
}

}  // namespace graphopt
