// Graph JSON (graph/json_io.h), as `graphopt simulate graph.json` reads it: parse and
// verify; a graph that loads must write back to the same JSON (the format's exact
// round trip) and simulate on one device.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/logging.h"
#include "graph/json_io.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

using namespace graphopt;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  SetLogLevel(LogLevel::kSilent);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  StatusOr<Graph> graph = GraphFromJson(text, "fuzz.json");
  if (!graph.ok()) return 0;
  const std::string written = GraphToJson(*graph);
  StatusOr<Graph> again = GraphFromJson(written, "written.json");
  GO_CHECK_MSG(again.ok(), again.status().message());
  GO_CHECK_MSG(GraphToJson(*again) == written, "the graph JSON does not round-trip");
  static const Cluster cluster = *ClusterPreset("1xV100");
  StatusOr<Simulator> sim = Simulator::Create(*graph, cluster);
  GO_CHECK_MSG(sim.ok(), sim.status().message());
  StatusOr<SimResult> result = sim->Simulate(DefaultPlan(*graph, cluster.FirstAccelerator()));
  GO_CHECK_MSG(result.ok(), result.status().message());
  return 0;
}
