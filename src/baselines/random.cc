// The random planner: each colocation group on a uniformly random accelerator drawn
// with the run's seed, ready order, no fusion. A floor for the tables and the example
// of a planner in one file (registered by one line of baselines/registry.cc).
#include <memory>

#include "baselines/planner.h"
#include "core/rng.h"

namespace graphopt {
namespace {

class RandomPlanner : public Planner {
 public:
  explicit RandomPlanner(uint64_t seed) : seed_(seed) {}

  StatusOr<Plan> Run(const PlanContext& context) override {
    std::vector<DeviceId> devices = context.cluster.Accelerators();
    if (devices.empty()) {
      for (DeviceId d = 0; d < context.cluster.num_devices(); ++d) devices.push_back(d);
    }
    if (devices.empty()) return InvalidArgument("the cluster has no device");
    Rng rng(seed_);
    Plan plan = DefaultPlan(context.graph, devices[0]);
    for (DeviceId& d : plan.device) d = devices[rng.Uniform(devices.size())];
    RespectColocation(context.graph, &plan);
    return plan;
  }

 private:
  uint64_t seed_;
};

}  // namespace

StatusOr<std::unique_ptr<Planner>> NewRandomPlanner(const PlannerSettings& settings) {
  return std::unique_ptr<Planner>(new RandomPlanner(settings.seed));
}

}  // namespace graphopt
