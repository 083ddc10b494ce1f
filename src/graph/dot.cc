#include "graph/dot.h"

#include <set>
#include <sstream>

namespace graphopt {
namespace {
const char* kPalette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                          "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}
}  // namespace

std::string GraphToDot(const Graph& g, const std::vector<DeviceId>* devices) {
  std::ostringstream os;
  os << "digraph \"" << Escape(g.name()) << "\" {\n  rankdir=TB;\n  node [shape=box, style=filled, fillcolor=white, fontsize=10];\n";
  std::set<DeviceId> used;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    const Op& op = g.op(o);
    os << "  n" << o << " [label=\"" << Escape(op.name) << "\\n" << OpKindName(op.kind);
    if (op.phase != Phase::kForward) os << " (" << PhaseName(op.phase) << ")";
    os << "\"";
    if (devices != nullptr && o < static_cast<OpId>(devices->size())) {
      const DeviceId d = (*devices)[static_cast<size_t>(o)];
      used.insert(d);
      os << ", fillcolor=\"" << kPalette[static_cast<size_t>(d < 0 ? 0 : d) % (sizeof kPalette / sizeof *kPalette)] << "\"";
    }
    os << "];\n";
  }
  for (OpId o = 0; o < g.num_ops(); ++o) {
    for (TensorId t : g.op(o).outputs) {
      for (OpId c : g.tensor(t).consumers) {
        os << "  n" << o << " -> n" << c << " [label=\"" << ShapeToString(g.tensor(t).shape) << "\", fontsize=8];\n";
      }
    }
  }
  if (!used.empty()) {
    os << "  subgraph cluster_legend {\n    label=\"devices\";\n";
    for (DeviceId d : used) {
      os << "    legend" << d << " [label=\"device " << d << "\", fillcolor=\""
         << kPalette[static_cast<size_t>(d < 0 ? 0 : d) % (sizeof kPalette / sizeof *kPalette)] << "\"];\n";
    }
    os << "  }\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace graphopt
