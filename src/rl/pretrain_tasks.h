// The stream of (graph, cluster) tasks a policy is pre-trained on (rl/pretrain.h):
// what users' graphs look like, each built-in family at many sizes (layers, batch,
// hidden width, sequence length, ...), model files given by the user, and varied
// clusters (2 to 8 GPUs of one or mixed kinds, NVLink or PCIe, with a host CPU).
//
// Task i of a stream is a pure function of the stream's options and i: a family
// drawn uniformly (model files count as one family each), its sizes drawn from the
// family's grid below, a cluster drawn from the list; a draw whose training graph has
// more than max_ops ops is redrawn (deterministically), so that a pre-training step
// stays cheap. No LibTorch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/status.h"
#include "graph/graph.h"

namespace graphopt {

// The six families of the GO paper's suite (models/registry.h names), in its order.
const std::vector<std::string>& PretrainFamilies();
// The clusters pre-training draws from by default: the suite's three presets and the
// others (K40 with its host, DGX-1 NVLink, DGX H100), and mixed kinds on PCIe
// (sim/cluster.h ClusterFromSpec); 2, 4, 5, 6 and 8 GPUs, so that a 3-GPU machine
// stays unseen (the transfer to a machine of a size never seen is measured on it:
// docs/results.md).
const std::vector<std::string>& DefaultPretrainClusters();

struct PretrainStreamOptions {
  std::vector<std::string> families = PretrainFamilies();  // built-in families drawn from
  // Model files or specs: together one more family, drawn as often as a built-in one,
  // then one of them uniformly.
  std::vector<std::string> models;
  std::vector<std::string> clusters = DefaultPretrainClusters();
  int64_t max_ops = 20000;  // training-graph ops of a task at most
  uint64_t seed = 0;
};

struct PretrainTask {
  int64_t index = 0;
  std::string family;  // the family, or the model file for a model of `models`
  std::string model;   // LoadModel spec: "gnmt:layers=3,batch=64,steps=20,hidden=512"
  std::string cluster;  // LoadCluster name
  int num_ops = 0;     // ops of the training graph
};

class PretrainStream {
 public:
  // Checks the options: families known, nothing given twice, at least one family or
  // model, every cluster loadable, max_ops >= 100, every model file loadable and
  // within max_ops.
  static StatusOr<PretrainStream> Create(PretrainStreamOptions options);

  // Task i (builds the candidate graphs to count their ops: a few ms to a second),
  // and its training graph in *graph if not null.
  StatusOr<PretrainTask> Task(int64_t index, Graph* graph = nullptr) const;
  const PretrainStreamOptions& options() const { return options_; }
  // The options that decide the tasks, as one line (a checkpoint's identity).
  std::string Identity() const;

 private:
  explicit PretrainStream(PretrainStreamOptions options) : options_(std::move(options)) {}
  PretrainStreamOptions options_;
};

// The spec of a graph of built-in `family` with sizes drawn from its grid. Exposed
// for tests.
std::string DrawFamilySpec(const std::string& family, Rng& rng);
// The grid of built-in `family` as one line, "layers=1/2/3,batch=32/64,..." ("" for
// another name); part of a stream's Identity.
std::string FamilyGrid(const std::string& family);

}  // namespace graphopt
