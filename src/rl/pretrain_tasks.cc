#include "rl/pretrain_tasks.h"

#include <algorithm>
#include <set>
#include <utility>

#include "core/strings.h"
#include "models/load.h"
#include "models/registry.h"
#include "sim/cluster.h"

namespace graphopt {
namespace {

// A family's grid: each parameter with the values drawn from (uniformly, independently).
struct Grid {
  const char* family;
  std::vector<std::pair<const char*, std::vector<int>>> params;
};

// Around the suite's sizes and below (a step on a 20k-op graph costs a few hundred ms
// on 2 cores); every combination is a valid graph of the family.
const std::vector<Grid>& Grids() {
  static const std::vector<Grid> kGrids = {
      {"rnnlm",
       {{"layers", {1, 2, 3, 4, 6, 8}},
        {"batch", {32, 64, 128}},
        {"steps", {10, 20, 30}},
        {"hidden", {512, 1024, 2048}},
        {"vocab", {10000, 40000}}}},
      {"gnmt",
       {{"layers", {2, 3, 4, 6, 8}},
        {"batch", {64, 128, 256}},
        {"steps", {10, 20, 30, 40}},
        // 2048 as RNNLM's, so that a policy held out from RNNLM has seen recurrent
        // layers that wide (docs/experiments/history-pretrain.md, "GNMT as wide as
        // RNNLM in the pre-training stream").
        {"hidden", {512, 1024, 2048}},
        {"vocab", {16000, 32000}}}},
      {"transformer_xl",
       {{"layers", {1, 2, 3, 4, 6, 8}},
        {"batch", {16, 32}},
        {"segment", {64, 128}},
        {"memory", {64, 128}},
        {"model", {256, 512, 1024}},
        {"heads", {4, 8}},
        {"inner", {1024, 2048, 4096}},
        {"segments", {2, 4, 8, 12}}}},
      {"inception_v3", {{"batch", {16, 32, 64, 128}}, {"image", {224, 299}}}},
      {"amoebanet", {{"cells", {2, 3, 4, 6}}, {"filters", {64, 128, 190}}, {"batch", {16, 32, 64}}}},
      {"wavenet",
       {{"stacks", {1, 2, 3, 4}},
        {"layers", {12, 24, 36}},  // multiples of every stacks value
        {"batch", {4, 8, 16}},
        {"length", {2048, 4096, 8192}},
        {"channels", {32, 64}},
        {"skip", {128, 256}}}},
  };
  return kGrids;
}

const Grid* FindGrid(const std::string& family) {
  for (const Grid& g : Grids()) {
    if (family == g.family) return &g;
  }
  return nullptr;
}

// The seed of task i's draws.
uint64_t TaskSeed(uint64_t seed, int64_t index) {
  return MixBits((seed ^ 0x7A5C3E1F0B9D2468ull) + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(index + 1));
}

constexpr int kMaxDraws = 64;

}  // namespace

const std::vector<std::string>& PretrainFamilies() {
  static const std::vector<std::string> kFamilies = {"rnnlm", "gnmt", "transformer_xl", "inception_v3", "amoebanet",
                                                     "wavenet"};
  return kFamilies;
}

const std::vector<std::string>& DefaultPretrainClusters() {
  static const std::vector<std::string> kClusters = {
      "2xP100",        "4xV100",       "8xV100",        "2xV100",        "8xV100-nvlink",
      "4xK40+cpu",     "8xH100-nvlink", "2xV100+2xP100", "1xH100+1xV100", "4xV100+4xP100",
      "2xH100+2xV100+2xP100+2xK40", "5xV100", "6xP100", "3xV100+3xP100", "1xH100+4xV100"};
  return kClusters;
}

std::string DrawFamilySpec(const std::string& family, Rng& rng) {
  const Grid* grid = FindGrid(family);
  if (grid == nullptr) return family;
  std::string spec = family;
  char sep = ':';
  for (const auto& [key, values] : grid->params) {
    spec += sep + std::string(key) + "=" + std::to_string(values[rng.Uniform(values.size())]);
    sep = ',';
  }
  return spec;
}

StatusOr<PretrainStream> PretrainStream::Create(PretrainStreamOptions options) {
  std::set<std::string> seen;
  for (const std::string& f : options.families) {
    if (FindGrid(f) == nullptr) {
      return InvalidArgument("pre-training family \"" + f + "\" is not one of " + Join(PretrainFamilies(), ","));
    }
    if (!seen.insert(f).second) return InvalidArgument("pre-training family \"" + f + "\" is given twice");
  }
  if (options.max_ops < 100) return InvalidArgument("pre-training max_ops must be at least 100");
  for (const std::string& m : options.models) {
    if (!seen.insert(m).second) return InvalidArgument("pre-training model \"" + m + "\" is given twice");
    StatusOr<Graph> graph = LoadModel(m);
    if (!graph.ok()) return graph.status().WithContext("pre-training model");
    if (graph->num_ops() > options.max_ops) {
      return InvalidArgument("pre-training model " + m + " has " + std::to_string(graph->num_ops()) +
                             " ops, more than max_ops (" + std::to_string(options.max_ops) + ")");
    }
  }
  if (seen.empty()) return InvalidArgument("pre-training needs at least one family or model");
  if (options.clusters.empty()) return InvalidArgument("pre-training needs at least one cluster");
  for (const std::string& c : options.clusters) {
    StatusOr<Cluster> cluster = LoadCluster(c);
    if (!cluster.ok()) return cluster.status().WithContext("pre-training cluster");
  }
  return PretrainStream(std::move(options));
}

std::string FamilyGrid(const std::string& family) {
  const Grid* grid = FindGrid(family);
  if (grid == nullptr) return "";
  std::string out;
  for (const auto& [key, values] : grid->params) {
    std::vector<std::string> v;
    for (const int x : values) v.push_back(std::to_string(x));
    out += (out.empty() ? "" : ",") + std::string(key) + "=" + Join(v, "/");
  }
  return out;
}

std::string PretrainStream::Identity() const {
  // The grids too: a checkpoint of a stream drawn from other sizes is another stream.
  std::vector<std::string> grids;
  for (const std::string& f : options_.families) grids.push_back(f + ":" + FamilyGrid(f));
  return StrFormat("families=%s;models=%s;clusters=%s;max_ops=%lld;seed=%llu;grids=%s",
                   Join(options_.families, ",").c_str(), Join(options_.models, ",").c_str(),
                   Join(options_.clusters, ",").c_str(), static_cast<long long>(options_.max_ops),
                   static_cast<unsigned long long>(options_.seed), Join(grids, ";").c_str());
}

StatusOr<PretrainTask> PretrainStream::Task(int64_t index, Graph* graph_out) const {
  Rng rng(TaskSeed(options_.seed, index));
  // The model files are one more family, drawn as often as a built-in one.
  const size_t families = options_.families.size() + (options_.models.empty() ? 0 : 1);
  std::string last_error;
  for (int draw = 0; draw < kMaxDraws; ++draw) {
    const size_t f = rng.Uniform(families);
    PretrainTask task;
    task.index = index;
    const bool builtin = f < options_.families.size();
    task.family = builtin ? options_.families[f] : options_.models[rng.Uniform(options_.models.size())];
    task.model = builtin ? DrawFamilySpec(task.family, rng) : task.family;
    task.cluster = options_.clusters[rng.Uniform(options_.clusters.size())];
    StatusOr<Graph> graph = LoadModel(task.model);
    if (!graph.ok()) return graph.status().WithContext("pre-training task " + std::to_string(index));
    task.num_ops = graph->num_ops();
    // (Create checked the model files' sizes.)
    if (task.num_ops <= options_.max_ops || !builtin) {
      if (graph_out != nullptr) *graph_out = std::move(*graph);
      return task;
    }
    last_error = task.model + " has " + std::to_string(task.num_ops) + " ops";
  }
  return InvalidArgument(StrFormat("pre-training task %lld: %d draws in a row had more than %lld ops (last: %s)",
                                   static_cast<long long>(index), kMaxDraws, static_cast<long long>(options_.max_ops),
                                   last_error.c_str()));
}

}  // namespace graphopt
