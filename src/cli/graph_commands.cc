// The graph subcommands: models, inspect, convert.
#include <algorithm>
#include <cstdio>
#include <map>

#include "cli/commands.h"
#include "core/files.h"
#include "core/strings.h"
#include "graph/dot.h"
#include "graph/json_io.h"
#include "graph/training.h"
#include "import/onnx_corpus.h"
#include "models/load.h"
#include "models/registry.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

std::vector<FlagSpec> LoadFlags() {
  return {
      {"forward", false, "use the forward graph only (no backward and update ops)"},
      {"optimizer", true,
       "optimizer of the training step: sgd, momentum or adam (default " + TrainingOptions{}.optimizer + ")",
       "sgd|momentum|adam"},
      DimFlag(),
  };
}

StatusOr<Graph> LoadFromArgs(const Args& args) {
  if (args.positional().size() != 1) {
    return InvalidArgument("expected exactly one MODEL argument (a file or a built-in name), got " +
                           std::to_string(args.positional().size()));
  }
  GO_ASSIGN_OR_RETURN(LoadOptions options, ModelLoadOptions(args));
  options.training = !args.Has("forward");
  options.training_options.optimizer = args.Get("optimizer", TrainingOptions{}.optimizer);
  return LoadModel(args.positional()[0], options);
}

// 1234567 -> "1,234,567".
std::string WithCommas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

// `inspect --check DIR`: imports every model of an ONNX corpus and prints one row
// per model; fails if any model does not import exactly.
Status RunCorpusCheck(const std::string& dir, const std::string& only) {
  std::vector<std::string> names;
  for (size_t from = 0; from < only.size();) {
    const size_t comma = std::min(only.find(',', from), only.size());
    if (comma > from) names.push_back(only.substr(from, comma - from));
    from = comma + 1;
  }
  GO_ASSIGN_OR_RETURN(const std::vector<CorpusCheckRow> rows, CheckOnnxCorpus(dir, names));
  constexpr double kMacsTolerance = 0.01;
  std::printf("| model | ops | params | params (exporter) | MACs | MACs (independent) | MACs diff | import | check |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
  int exact = 0, refused = 0;
  double slowest = 0;
  std::string slowest_name;
  for (const auto& r : rows) {
    const std::string name = r.dims.empty() ? r.name : r.name + " (" + r.dims + ")";
    if (!r.imported) {
      const bool expected = r.refused_as_expected();
      refused += expected;
      std::printf("| %s | | | %s | | %s | | | %s: %s |\n", name.c_str(), WithCommas(r.params_expected).c_str(),
                  HumanCount(r.macs_expected).c_str(), expected ? "refused as expected" : "FAILED", r.error.c_str());
      continue;
    }
    const bool ok = r.passed(kMacsTolerance);
    exact += ok;
    if (r.import_seconds > slowest) {
      slowest = r.import_seconds;
      slowest_name = r.name;
    }
    std::string verdict = ok ? "ok" : "";
    if (!r.expected_refusal.empty()) verdict += "imported, but a refusal was expected; ";
    if (!r.params_exact()) verdict += "params differ; ";
    if (r.macs_error() > kMacsTolerance) verdict += "MACs differ; ";
    for (const auto& w : r.warnings) verdict += "warning: " + w + "; ";
    std::printf("| %s | %s | %s | %s | %s | %s | %+.3f%% | %.0f ms | %s |\n", name.c_str(), WithCommas(r.ops).c_str(),
                WithCommas(r.params).c_str(), WithCommas(r.params_expected).c_str(), HumanCount(r.macs).c_str(),
                HumanCount(r.macs_expected).c_str(),
                r.macs_expected > 0 ? 100.0 * (r.macs / r.macs_expected - 1.0) : 0.0, 1e3 * r.import_seconds,
                verdict.c_str());
  }
  const int imported = static_cast<int>(rows.size()) - refused;
  std::printf("\n%d of %d models import exactly (parameters equal, MACs within %.0f%%, no warning)", exact, imported,
              100 * kMacsTolerance);
  if (refused > 0) std::printf("; %d refused as their manifest expects", refused);
  std::printf("; slowest import %s, %.0f ms\n", slowest_name.c_str(), 1e3 * slowest);
  const int failed = static_cast<int>(rows.size()) - exact - refused;
  if (failed > 0) return FailedPrecondition(StrFormat("%s: %d of %zu models do not import as their manifest says", dir.c_str(), failed, rows.size()));
  return Status::Ok();
}

// The figures of `inspect`: counts and sizes of a graph, its op kinds by count.
struct GraphSummary {
  int64_t param_elems = 0, param_bytes = 0, state_bytes = 0, activation_bytes = 0;
  double fwd_macs = 0, fwd_flops = 0;
  int phase_count[3] = {0, 0, 0};
  int measured = 0;
  // (kind, (count, FLOPs)), the most frequent first.
  std::vector<std::pair<std::string, std::pair<int, double>>> kinds;
};

GraphSummary Summarize(const Graph& g) {
  GraphSummary s;
  std::map<std::string, std::pair<int, double>> kinds;
  for (const Op& op : g.ops()) {
    ++s.phase_count[static_cast<int>(op.phase)];
    if (op.kind == OpKind::kVariable) {
      for (TensorId t : op.outputs) s.param_elems += g.tensor(t).num_elements();
      s.param_bytes += op.param_bytes;
    } else {
      s.state_bytes += op.param_bytes;
    }
    if (op.phase == Phase::kForward) {
      s.fwd_macs += op.cost.macs;
      s.fwd_flops += op.cost.flops;
    }
    if (op.measured_time_us >= 0) ++s.measured;
    std::string key = OpKindName(op.kind);
    if (op.phase != Phase::kForward) key += std::string(" (") + PhaseName(op.phase) + ")";
    auto& k = kinds[key];
    ++k.first;
    k.second += op.cost.flops;
  }
  for (const Tensor& t : g.tensors()) {
    if (t.producer != kNoId && g.op(t.producer).kind != OpKind::kVariable) s.activation_bytes += t.bytes();
  }
  s.kinds.assign(kinds.begin(), kinds.end());
  std::sort(s.kinds.begin(), s.kinds.end(), [](const auto& a, const auto& b) {
    return a.second.first != b.second.first ? a.second.first > b.second.first : a.first < b.first;
  });
  return s;
}

Status Models(const Args&) {
  std::printf("%-16s %10s %10s %12s  %s\n", "model", "fwd ops", "train ops", "params", "description");
  for (const auto& m : BuiltinModels()) {
    GO_ASSIGN_OR_RETURN(const Graph fwd, BuildBuiltinForward(m.name));
    GO_ASSIGN_OR_RETURN(const Graph train, BuildTrainingGraph(fwd));
    std::printf("%-16s %10d %10d %12s  %s\n", m.name.c_str(), fwd.num_ops(), train.num_ops(),
                HumanBytes(static_cast<double>(fwd.TotalParamBytes())).c_str(), m.description.c_str());
    std::printf("%-16s %10s %10s %12s  defaults: %s\n", "", "", "", "", m.parameters.c_str());
  }
  return Status::Ok();
}

Status Inspect(const Args& args) {
  if (args.Has("check")) return RunCorpusCheck(args.Get("check"), args.Get("only"));
  GO_ASSIGN_OR_RETURN(const Graph g, LoadFromArgs(args));
  const GraphSummary s = Summarize(g);
  const OpCost total = g.TotalCost();
  std::printf("graph          %s%s\n", g.name().c_str(), g.family().empty() ? "" : (" (built-in " + g.family() + ")").c_str());
  for (const auto& [k, v] : g.metadata()) std::printf("  %-12s %s\n", k.c_str(), v.c_str());
  std::printf("ops            %d (forward %d, backward %d, update %d)\n", g.num_ops(), s.phase_count[0], s.phase_count[1],
              s.phase_count[2]);
  std::printf("tensors        %d\n", g.num_tensors());
  std::printf("edges          %lld tensor uses\n", static_cast<long long>(g.num_edges()));
  std::printf("parameters     %lld elements, %s\n", static_cast<long long>(s.param_elems),
              HumanBytes(static_cast<double>(s.param_bytes)).c_str());
  if (s.state_bytes > 0) std::printf("optimizer state %s\n", HumanBytes(static_cast<double>(s.state_bytes)).c_str());
  std::printf("forward MACs   %s (%.6g)\n", HumanCount(s.fwd_macs).c_str(), s.fwd_macs);
  std::printf("forward FLOPs  %s\n", HumanCount(s.fwd_flops).c_str());
  std::printf("step FLOPs     %s\n", HumanCount(total.flops).c_str());
  std::printf("memory traffic %s read, %s written\n", HumanBytes(static_cast<double>(total.bytes_read)).c_str(),
              HumanBytes(static_cast<double>(total.bytes_written)).c_str());
  std::printf("activations    %s (sum of all non-parameter tensors)\n",
              HumanBytes(static_cast<double>(s.activation_bytes)).c_str());
  if (s.measured > 0) std::printf("measured       %d ops carry measured times\n", s.measured);
  if (!g.layer_names().empty()) std::printf("layers         %zu layer tags\n", g.layer_names().size());
  std::printf("colocation     %d groups\n", g.num_colocation_groups());
  GO_ASSIGN_OR_RETURN(const int64_t top, args.GetInt("top", static_cast<int64_t>(s.kinds.size())));
  std::printf("\n%-32s %8s %14s\n", "op kind", "count", "FLOPs");
  for (size_t i = 0; i < s.kinds.size() && static_cast<int64_t>(i) < top; ++i) {
    std::printf("%-32s %8d %14s\n", s.kinds[i].first.c_str(), s.kinds[i].second.first,
                HumanCount(s.kinds[i].second.second).c_str());
  }
  return Status::Ok();
}

Status Convert(const Args& args) {
  const std::string to = args.Get("to");
  if (to != "json" && to != "dot") return InvalidArgument("--to must be json or dot, got '" + to + "'");
  GO_ASSIGN_OR_RETURN(const Graph graph, LoadFromArgs(args));
  if (args.Has("plan") && to != "dot") return InvalidArgument("--plan only applies to --to dot");
  std::vector<DeviceId> devices;
  if (args.Has("plan")) {
    GO_ASSIGN_OR_RETURN(Plan plan, ReadPlanJson(args.Get("plan"), graph));
    GO_RETURN_IF_ERROR(CompletePlan(graph, &plan).WithContext(args.Get("plan")));
    devices = plan.device;
  }
  const std::string text = to == "json" ? GraphToJson(graph) : GraphToDot(graph, devices.empty() ? nullptr : &devices);
  if (!args.Has("out")) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return Status::Ok();
  }
  GO_RETURN_IF_ERROR(WriteFileAtomic(args.Get("out"), text));
  std::fprintf(stderr, "wrote %s (%d ops, %s)\n", args.Get("out").c_str(), graph.num_ops(),
               HumanBytes(static_cast<double>(text.size())).c_str());
  return Status::Ok();
}

}  // namespace

Command ModelsCommand() {
  Command c;
  c.name = "models";
  c.summary = "list the built-in model graphs with their op counts";
  c.flags = [] { return std::vector<FlagSpec>{}; };
  c.notes = "Lists the built-in graphs with their training-step op counts and their parameters' defaults.";
  c.run = Models;
  return c;
}

Command InspectCommand() {
  Command c;
  c.name = "inspect";
  c.positional = "[MODEL]";
  c.max_positional = 1;
  c.summary = "ops, tensors, parameters, FLOPs, memory, op-kind histogram of a model";
  c.flags = [] {
    std::vector<FlagSpec> specs = LoadFlags();
    specs.push_back({"top", true, "how many op kinds to list (default all)", "N"});
    specs.push_back({"check", true, "import every model of this ONNX corpus folder (its manifest.json) and compare "
                                    "parameters and MACs with the exporter's counts", "DIR"});
    specs.push_back({"only", true, "with --check: only these models (comma-separated)", "M,..."});
    return specs;
  };
  c.notes = "'graphopt inspect --check DIR' imports an ONNX corpus (data/onnx_corpus) and compares it with the\n"
            "exporter's counts, instead of inspecting one MODEL.";
  c.run = Inspect;
  return c;
}

Command ConvertCommand() {
  Command c;
  c.name = "convert";
  c.positional = "MODEL";
  c.min_positional = c.max_positional = 1;
  c.summary = "write a model as graph JSON (exact round trip) or Graphviz DOT";
  c.flags = [] {
    std::vector<FlagSpec> specs = LoadFlags();
    specs.push_back({"to", true, "output format: json or dot", "json|dot"});
    specs.push_back({"out", true, "output file (default: standard output)", "F"});
    specs.push_back({"plan", true, "with --to dot: colour the ops by the devices of this plan .json file", "P"});
    return specs;
  };
  c.outputs = {"out"};
  c.run = Convert;
  return c;
}

}  // namespace graphopt
