#include "graph/modules.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "core/strings.h"

namespace graphopt {
namespace {

// The qualified name of the module of the first n components of `path`. An exporter
// names a scope either by its name in its parent ("/encoder/layers.0/...": the module
// encoder.layers.0) or by its qualified name ("/layer1/layer1.0/...": layer1.0), the
// second when the component starts with its parent's qualified name and a dot.
std::string Dotted(const std::vector<std::string>& path, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && i < path.size(); ++i) {
    const std::string& c = path[i];
    const bool qualified = !out.empty() && c.size() > out.size() && c.compare(0, out.size(), out) == 0 && c[out.size()] == '.';
    out = qualified ? c : out.empty() ? c : out + "." + c;
  }
  return out;
}

// The module path in a node's name: its '/'-separated components but the last (the
// op's own name). "/encoder/layers.0/Add" -> {encoder, layers.0}; "Add" -> {}.
std::vector<std::string> NodePath(const std::string& name) {
  if (name.find('/') == std::string::npos) return {};
  std::vector<std::string> parts;
  for (const std::string& p : SplitList(name, '/')) {
    if (!p.empty()) parts.push_back(p);
  }
  if (!parts.empty()) parts.pop_back();
  return parts;
}

bool IsParameter(const Op& op) { return op.kind == OpKind::kVariable && op.param_bytes > 0; }

// The op whose module an op belongs to: itself, or the forward op a gradient or an
// update op comes from (followed to its end).
OpId Anchor(const Graph& graph, OpId o) {
  for (int hops = 0; hops < 4 && graph.op(o).forward_op != kNoId; ++hops) o = graph.op(o).forward_op;
  return o;
}

struct UnionFind {
  std::vector<int32_t> parent;
  explicit UnionFind(int n) : parent(static_cast<size_t>(n)) { std::iota(parent.begin(), parent.end(), 0); }
  int32_t Find(int32_t x) {
    while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    return x;
  }
  void Join(int32_t a, int32_t b) { parent[static_cast<size_t>(Find(a))] = Find(b); }
};

}  // namespace

std::vector<std::vector<std::string>> ModulePaths(const Graph& graph) {
  const int n = graph.num_ops();
  // The paths of the nodes, and every module they name (dotted) with its components.
  std::vector<std::vector<std::string>> own(static_cast<size_t>(n));
  std::map<std::string, std::vector<std::string>> modules;
  for (OpId o = 0; o < n; ++o) {
    own[static_cast<size_t>(o)] = NodePath(graph.op(o).name);
    const std::vector<std::string>& p = own[static_cast<size_t>(o)];
    for (size_t k = 1; k <= p.size(); ++k) modules.emplace(Dotted(p, k), std::vector<std::string>(p.begin(), p.begin() + k));
  }
  // A parameter ("encoder.layers.0.linear1.weight") belongs to the longest module its
  // dotted name starts with.
  for (OpId o = 0; o < n; ++o) {
    const Op& op = graph.op(o);
    if (!IsParameter(op) || !own[static_cast<size_t>(o)].empty()) continue;
    std::string prefix = op.name;
    for (size_t dot = prefix.rfind('.'); dot != std::string::npos && dot > 0; dot = prefix.rfind('.')) {
      prefix.resize(dot);
      auto it = modules.find(prefix);
      if (it != modules.end()) {
        own[static_cast<size_t>(o)] = it->second;
        break;
      }
    }
  }
  // One whose name is not a path (an exporter's "onnx::MatMul_1465", a weight it
  // transposed) belongs to the module of the first op that reads it.
  for (OpId o = 0; o < n; ++o) {
    const Op& op = graph.op(o);
    if (!IsParameter(op) || !own[static_cast<size_t>(o)].empty()) continue;
    for (TensorId t : op.outputs) {
      for (OpId c : graph.tensor(t).consumers) {
        const std::vector<std::string>& p = own[static_cast<size_t>(Anchor(graph, c))];
        if (!p.empty()) {
          own[static_cast<size_t>(o)] = p;
          break;
        }
      }
      if (!own[static_cast<size_t>(o)].empty()) break;
    }
  }
  std::vector<std::vector<std::string>> paths(static_cast<size_t>(n));
  for (OpId o = 0; o < n; ++o) paths[static_cast<size_t>(o)] = own[static_cast<size_t>(Anchor(graph, o))];
  return paths;
}

StatusOr<ModuleMap> ModulesAtDepth(const Graph& graph, int depth, int min_modules) {
  if (depth < 0) return InvalidArgument(StrFormat("module depth %d: expected 0 (automatic) or more", depth));
  const std::vector<std::vector<std::string>> paths = ModulePaths(graph);
  size_t deepest = 0;
  for (const auto& p : paths) deepest = std::max(deepest, p.size());
  if (deepest == 0) {
    return InvalidArgument("graph " + graph.name() +
                           ": no op name is a module path (a model exported from PyTorch names its nodes "
                           "/module/path/Op), so it has no modules");
  }
  // The modules that have modules inside them.
  std::set<std::string> parents;
  for (const auto& p : paths) {
    for (size_t k = 1; k < p.size(); ++k) parents.insert(Dotted(p, k));
  }
  auto build = [&](size_t k) {
    ModuleMap m;
    m.depth = static_cast<int>(k);
    m.op_module.assign(paths.size(), kNoId);
    std::map<std::string, int32_t> index;
    for (OpId o = 0; o < graph.num_ops(); ++o) {
      const std::vector<std::string>& p = paths[static_cast<size_t>(o)];
      const OpId anchor = Anchor(graph, o);
      std::string name;
      if (p.size() >= k) {
        name = Dotted(p, k);
      } else if (!p.empty() && parents.count(Dotted(p, p.size())) == 0) {
        name = Dotted(p, p.size());  // a shallower module with none inside it: whole
      } else if (IsParameter(graph.op(anchor))) {
        name = graph.op(anchor).name;  // a parameter of a shallower module: its own entry
      } else {
        continue;
      }
      auto [it, added] = index.emplace(name, static_cast<int32_t>(m.names.size()));
      if (added) {
        m.names.push_back(name);
        m.param_bytes.push_back(0);
      }
      m.op_module[static_cast<size_t>(o)] = it->second;
      m.param_bytes[static_cast<size_t>(it->second)] += graph.op(o).param_bytes;
    }
    return m;
  };
  if (depth > 0) {
    if (static_cast<size_t>(depth) > deepest) {
      return InvalidArgument(StrFormat("graph %s: module depth %d, but its deepest module path has %zu components",
                                       graph.name().c_str(), depth, deepest));
    }
    return build(static_cast<size_t>(depth));
  }
  for (size_t k = 1; k < deepest; ++k) {
    ModuleMap m = build(k);
    const auto holding = std::count_if(m.param_bytes.begin(), m.param_bytes.end(), [](int64_t b) { return b > 0; });
    if (holding >= min_modules) return m;
  }
  return build(deepest);
}

int ColocateModules(const ModuleMap& modules, Graph* graph) {
  const int n = graph->num_ops();
  UnionFind sets(n);
  std::map<int32_t, OpId> first_of_group, first_of_module;
  for (OpId o = 0; o < n; ++o) {
    const int32_t g = graph->op(o).colocation_group;
    if (g != kNoId) {
      auto [it, added] = first_of_group.emplace(g, o);
      if (!added) sets.Join(o, it->second);
    }
    const int32_t m = modules.op_module[static_cast<size_t>(o)];
    if (m != kNoId) {
      auto [it, added] = first_of_module.emplace(m, o);
      if (!added) sets.Join(o, it->second);
    }
  }
  std::map<int32_t, int32_t> group_of_root;
  for (OpId o = 0; o < n; ++o) {
    Op& op = graph->mutable_op(o);
    const bool grouped = op.colocation_group != kNoId || modules.op_module[static_cast<size_t>(o)] != kNoId;
    if (!grouped) continue;
    auto [it, added] = group_of_root.emplace(sets.Find(o), static_cast<int32_t>(group_of_root.size()));
    op.colocation_group = it->second;
  }
  graph->set_num_colocation_groups(static_cast<int32_t>(group_of_root.size()));
  return static_cast<int>(group_of_root.size());
}

}  // namespace graphopt
