// The modules of a model, as a framework names them: an ONNX model exported from
// PyTorch names each node by the module path of the code that made it
// ("/encoder/layers.0/self_attn/MatMul": an op of module encoder.layers.0.self_attn)
// and each initializer by its parameter's dotted name
// ("encoder.layers.0.self_attn.in_proj_weight"); a built-in graph's names are paths
// too ("enc/layer_1/lstm/MatMul"). A gradient or update op belongs to the module of
// the op it comes from (Op::forward_op).
//
// At depth K an op belongs to the module named by the first K components of its path
// (PyTorch's qualified module name, as `model.get_submodule` and a device map take it:
// the components joined by '.', a component that is already qualified taken as it
// is, "/layer1/layer1.0/conv1" being layer1.0.conv1). An op whose path is shorter belongs to its module if no module lies inside
// that one (a leaf of the module tree: a Linear or a Conv directly under the model);
// else to no module of that depth (a framework runs it wherever its inputs are),
// except a parameter, which is its own entry (its dotted name), so that every
// parameter has one. These are the units a
// framework can place: `optimize --granularity module` keeps each on one device
// (ColocateModules), and a plan that does keeps them can be written as the
// {module: device} map a PyTorch program applies (sim/device_map.h).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace graphopt {

// Each op's module path, its components outermost first (empty: none).
std::vector<std::vector<std::string>> ModulePaths(const Graph& graph);

struct ModuleMap {
  int depth = 0;
  std::vector<std::string> names;      // the modules (and parameters) of that depth, in op order
  std::vector<int32_t> op_module;      // per op: an index into names, or kNoId
  std::vector<int64_t> param_bytes;    // per module: the bytes of its parameters and their state
};

// The modules of depth `depth` (>= 1), or with depth 0 the shallowest depth with at
// least `min_modules` modules that hold parameters (the deepest there is if none has
// that many). Fails on a graph none of whose op names is a path.
StatusOr<ModuleMap> ModulesAtDepth(const Graph& graph, int depth, int min_modules = 1);

// Puts the ops of each module into one colocation group (merged with the groups they
// were in), so that every plan keeps a module on one device. Returns the number of
// colocation groups afterwards.
int ColocateModules(const ModuleMap& modules, Graph* graph);

}  // namespace graphopt
