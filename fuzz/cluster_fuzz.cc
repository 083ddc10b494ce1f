// Cluster JSON (sim/cluster.h), as `graphopt simulate MODEL --cluster c.json` reads
// it: parse and validate; a cluster that loads must write back to JSON that loads,
// and simulate a small graph spread over all of its devices.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/logging.h"
#include "fuzz_model.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

using namespace graphopt;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  SetLogLevel(LogLevel::kSilent);
  FuzzModel();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  StatusOr<Cluster> cluster = ClusterFromJson(text, "fuzz.json");
  if (!cluster.ok()) return 0;
  StatusOr<Cluster> again = ClusterFromJson(ClusterToJson(*cluster), "written.json");
  GO_CHECK_MSG(again.ok(), again.status().message());
  const Graph& graph = FuzzModel();
  StatusOr<Simulator> sim = Simulator::Create(graph, *cluster);
  GO_CHECK_MSG(sim.ok(), sim.status().message());
  Plan plan = DefaultPlan(graph);
  for (size_t i = 0; i < plan.device.size(); ++i) plan.device[i] = static_cast<DeviceId>(i % cluster->num_devices());
  MakePlanValid(graph, *cluster, &plan);
  StatusOr<SimResult> result = sim->Simulate(plan);
  GO_CHECK_MSG(result.ok(), result.status().message());
  return 0;
}
