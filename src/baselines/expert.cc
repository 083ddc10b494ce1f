// The human expert placement of each model family, as the placement papers
// describe the placements they compare against.
//
// Built-in graphs carry layer tags (Op::layer; gradient ops carry their forward
// op's tag, update ops their variable's). With D accelerators, each family rule
// maps layer tags to an accelerator slot 0..D-1 (slot s is the s-th accelerator):
//   rnnlm           LSTM layer "lstm<k>" of L on slot floor(k*D/L) (with L == D, one
//                   layer per device); "embedding" with the first layer, "softmax"
//                   with the last.
//   gnmt            encoder layer "encoder<k>" and decoder layer "decoder<k>" both on
//                   slot floor(k*D/L); "encoder_embedding" with encoder0,
//                   "decoder_embedding" with decoder0; the attention (tagged
//                   "decoder0" by the builder, or "attention" if a graph has such a
//                   tag) with decoder0, as GNMT wraps the bottom decoder cell with
//                   it; "softmax" with the last decoder layer.
//   transformer_xl  an even split of the layers "layer<k>" (slot floor(k*D/L));
//                   "embedding" first, "softmax" last.
//   wavenet         an even split of the stacks "stack<s>/layer<k>" when there are
//                   at least D stacks, otherwise of all the layers in order;
//                   "input" first, "output" last.
//   inception_v3,   the layer sequence (layer_names() in model order) cut into D
//   amoebanet       contiguous stages balanced by time: a layer costs the summed
//                   CostModel::OpTimeUs of its forward, backward and update ops on
//                   the first accelerator (baselines/stages.h).
// Layer indices are ranks among the indices found, so the rules follow the tags
// present rather than fixed counts. Ops whose tag the rule does not place (or that
// carry none) take the slot of their first placed producer, else of their first
// placed consumer, else slot 0. A graph with no family (imported), an unknown
// family, or a family whose rule finds no tag it knows is cut into D contiguous,
// cost-balanced stages of its topological order. Colocation groups go, whole, to
// the device of their lowest-id op. Priorities are 0 and nothing is fused: other
// passes add those.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "baselines/baseline.h"
#include "baselines/stages.h"
#include "core/logging.h"
#include "graph/neighbour_fill.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

// Accelerator slot of every layer tag (index into Graph::layer_names), kNoId where
// the family rule does not place the tag.
using LayerSlots = std::vector<int>;

// "lstm12" with prefix "lstm" -> 12; nullopt unless the rest is a non-empty run of digits.
std::optional<int> IndexAfter(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  int64_t value = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    value = value * 10 + (name[i] - '0');
    if (value > (int64_t{1} << 30)) return std::nullopt;
  }
  return static_cast<int>(value);
}

// Rank of every value among the distinct values: {3, 7, 3} -> {3: 0, 7: 1}.
template <typename T>
std::map<T, int> Ranks(const std::vector<T>& values) {
  std::map<T, int> ranks;
  for (const T& v : values) ranks.emplace(v, 0);
  int r = 0;
  for (auto& entry : ranks) entry.second = r++;
  return ranks;
}

// Gives `slot` to every tag named in `names`.
void PlaceNamed(const Graph& graph, const std::set<std::string>& names, int slot, LayerSlots* slots) {
  const auto& layers = graph.layer_names();
  for (size_t l = 0; l < layers.size(); ++l) {
    if (names.count(layers[l])) (*slots)[l] = slot;
  }
}

// The tags "<prefix><k>" with their number k.
std::vector<std::pair<size_t, int>> NumberedLayers(const Graph& graph, const std::string& prefix) {
  const auto& layers = graph.layer_names();
  std::vector<std::pair<size_t, int>> numbered;
  for (size_t l = 0; l < layers.size(); ++l) {
    if (auto k = IndexAfter(layers[l], prefix)) numbered.emplace_back(l, *k);
  }
  return numbered;
}

// Splits numbered layers evenly by count (layer of rank r of L on slot floor(r*D/L));
// `front` tags go with the first layer and `back` tags with the last.
void PlaceStack(const Graph& graph, const std::vector<std::pair<size_t, int>>& stack,
                const std::set<std::string>& front, const std::set<std::string>& back, int num_slots,
                LayerSlots* slots) {
  if (stack.empty()) return;
  std::vector<int> numbers;
  for (const auto& entry : stack) numbers.push_back(entry.second);
  const std::map<int, int> rank = Ranks(numbers);
  const int count = static_cast<int>(rank.size());
  for (const auto& [tag, k] : stack) (*slots)[tag] = EvenStage(rank.at(k), count, num_slots);
  PlaceNamed(graph, front, EvenStage(0, count, num_slots), slots);
  PlaceNamed(graph, back, EvenStage(count - 1, count, num_slots), slots);
}

// A stack of numbered layers "<prefix><k>" (RNNLM, Transformer-XL). False if there is none.
bool StackRule(const Graph& graph, const std::string& prefix, const std::set<std::string>& front,
               const std::set<std::string>& back, int num_slots, LayerSlots* slots) {
  const auto stack = NumberedLayers(graph, prefix);
  PlaceStack(graph, stack, front, back, num_slots, slots);
  return !stack.empty();
}

// GNMT: encoder layer k and decoder layer k share slot floor(k*D/L).
bool GnmtRule(const Graph& graph, int num_slots, LayerSlots* slots) {
  const auto encoder = NumberedLayers(graph, "encoder");
  const auto decoder = NumberedLayers(graph, "decoder");
  if (encoder.empty() && decoder.empty()) return false;
  PlaceStack(graph, encoder, {"encoder_embedding"},
             decoder.empty() ? std::set<std::string>{"softmax"} : std::set<std::string>{}, num_slots, slots);
  PlaceStack(graph, decoder, {"decoder_embedding", "attention"}, {"softmax"}, num_slots, slots);
  return true;
}

// WaveNet: "stack<s>/layer<k>"; whole stacks per device when there are at least as
// many stacks as devices, otherwise an even split of all the layers in order.
bool WaveNetRule(const Graph& graph, int num_slots, LayerSlots* slots) {
  const auto& layers = graph.layer_names();
  std::vector<std::pair<size_t, std::pair<int, int>>> indexed;  // (tag, (stack, layer))
  for (size_t l = 0; l < layers.size(); ++l) {
    const size_t slash = layers[l].find('/');
    if (slash == std::string::npos) continue;
    auto s = IndexAfter(layers[l].substr(0, slash), "stack");
    auto k = IndexAfter(layers[l].substr(slash + 1), "layer");
    if (s && k) indexed.push_back({l, {*s, *k}});
  }
  if (indexed.empty()) return false;
  std::vector<int> stacks;
  std::vector<std::pair<int, int>> positions;
  for (const auto& entry : indexed) {
    stacks.push_back(entry.second.first);
    positions.push_back(entry.second);
  }
  const std::map<int, int> stack_rank = Ranks(stacks);
  const std::map<std::pair<int, int>, int> position_rank = Ranks(positions);
  const int num_stacks = static_cast<int>(stack_rank.size());
  const int num_layers = static_cast<int>(position_rank.size());
  const bool by_stack = num_stacks >= num_slots;
  for (const auto& [tag, position] : indexed) {
    (*slots)[tag] = by_stack ? EvenStage(stack_rank.at(position.first), num_stacks, num_slots)
                             : EvenStage(position_rank.at(position), num_layers, num_slots);
  }
  PlaceNamed(graph, {"input"}, 0, slots);
  PlaceNamed(
      graph, {"output"},
      by_stack ? EvenStage(num_stacks - 1, num_stacks, num_slots) : EvenStage(num_layers - 1, num_layers, num_slots),
      slots);
  return true;
}

// CNNs: the layer sequence in balanced contiguous stages by time.
bool CnnRule(const Graph& graph, const std::vector<double>& op_time, int num_slots, LayerSlots* slots) {
  const size_t num_layers = graph.layer_names().size();
  if (num_layers == 0) return false;
  std::vector<double> layer_time(num_layers, 0.0);
  bool any_tagged = false;
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    const int32_t l = graph.op(o).layer;
    if (l == kNoId) continue;
    layer_time[static_cast<size_t>(l)] += op_time[static_cast<size_t>(o)];
    any_tagged = true;
  }
  if (!any_tagged) return false;
  const std::vector<int> stage = BalancedContiguousStages(layer_time, num_slots);
  for (size_t l = 0; l < num_layers; ++l) (*slots)[l] = stage[l];
  return true;
}

// The family rule's slot per layer tag, or nullopt if the family has no rule or
// its rule finds none of its tags.
std::optional<LayerSlots> FamilySlots(const Graph& graph, const std::vector<double>& op_time, int num_slots) {
  LayerSlots slots(graph.layer_names().size(), kNoId);
  const std::string& family = graph.family();
  bool placed = false;
  if (family == "rnnlm") {
    placed = StackRule(graph, "lstm", {"embedding"}, {"softmax"}, num_slots, &slots);
  } else if (family == "transformer_xl") {
    placed = StackRule(graph, "layer", {"embedding"}, {"softmax"}, num_slots, &slots);
  } else if (family == "gnmt") {
    placed = GnmtRule(graph, num_slots, &slots);
  } else if (family == "wavenet") {
    placed = WaveNetRule(graph, num_slots, &slots);
  } else if (family == "inception_v3" || family == "amoebanet") {
    placed = CnnRule(graph, op_time, num_slots, &slots);
  } else {
    return std::nullopt;
  }
  if (!placed) {
    LogInfo("expert: graph '" + graph.name() + "' of family '" + family +
            "' has none of the family's layer tags; splitting its topological order instead");
    return std::nullopt;
  }
  return slots;
}

}  // namespace

StatusOr<Plan> ExpertPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model) {
  std::vector<DeviceId> accelerators = cluster.Accelerators();
  if (accelerators.empty()) accelerators.push_back(cluster.FirstAccelerator());
  const int num_slots = static_cast<int>(accelerators.size());
  Plan plan = DefaultPlan(graph, accelerators[0]);
  if (graph.num_ops() == 0) return plan;

  auto order_or = TopologicalOrder(graph);
  if (!order_or.ok()) return order_or.status().WithContext("expert placement of '" + graph.name() + "'");
  const std::vector<OpId>& order = *order_or;
  const Device& reference = cluster.device(accelerators[0]);
  std::vector<double> op_time(static_cast<size_t>(graph.num_ops()));
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    op_time[static_cast<size_t>(o)] = cost_model.OpTimeUs(graph.op(o), reference);
  }

  std::vector<int> op_slot(static_cast<size_t>(graph.num_ops()), kNoId);
  if (auto layer_slots = FamilySlots(graph, op_time, num_slots)) {
    for (OpId o = 0; o < graph.num_ops(); ++o) {
      const int32_t l = graph.op(o).layer;
      if (l != kNoId && static_cast<size_t>(l) < layer_slots->size()) {
        op_slot[static_cast<size_t>(o)] = (*layer_slots)[static_cast<size_t>(l)];
      }
    }
    // Ops without a slot take their first placed producer's, else their first placed
    // consumer's, else slot 0.
    FillFromNeighbours(graph, order, &op_slot);
    for (int& s : op_slot) {
      if (s == kNoId) s = 0;
    }
  } else {
    std::vector<double> costs;
    costs.reserve(order.size());
    for (OpId o : order) costs.push_back(op_time[static_cast<size_t>(o)]);
    const std::vector<int> stage = BalancedContiguousStages(costs, num_slots);
    for (size_t i = 0; i < order.size(); ++i) op_slot[static_cast<size_t>(order[i])] = stage[i];
  }

  for (OpId o = 0; o < graph.num_ops(); ++o) {
    plan.device[static_cast<size_t>(o)] = accelerators[static_cast<size_t>(op_slot[static_cast<size_t>(o)])];
  }
  RespectColocation(graph, &plan);
  Status valid = ValidatePlan(graph, cluster, plan);
  if (!valid.ok()) return InternalError("expert placement of '" + graph.name() + "' is invalid: " + valid.message());
  return plan;
}

}  // namespace graphopt
