// Plan JSON (sim/plan.h), as `graphopt simulate MODEL --cluster 4xV100 --plan p.json`
// reads it: parse against the graph of fuzz_model.h, validate on the cluster, and
// simulate a plan that is valid.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/logging.h"
#include "fuzz_model.h"
#include "sim/cluster.h"
#include "sim/plan.h"
#include "sim/simulator.h"

using namespace graphopt;

namespace {

const Simulator& FuzzSimulator() {
  static const Cluster* cluster = new Cluster(*ClusterPreset("4xV100"));
  static const Simulator* sim = new Simulator(Simulator::Create(FuzzModel(), *cluster).value());
  return *sim;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  SetLogLevel(LogLevel::kSilent);
  FuzzSimulator();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const Simulator& sim = FuzzSimulator();
  StatusOr<Plan> plan = PlanFromJson(text, sim.graph(), "fuzz.json");
  if (!plan.ok()) return 0;
  if (!ValidatePlan(sim.graph(), sim.cluster(), *plan).ok()) return 0;
  StatusOr<SimResult> result = sim.Simulate(*plan);
  GO_CHECK_MSG(result.ok(), result.status().message());
  return 0;
}
