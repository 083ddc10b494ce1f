#include "import/onnx_corpus.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/files.h"
#include "import/onnx_import.h"

namespace graphopt {

double CorpusCheckRow::macs_error() const {
  if (macs_expected == 0) return macs == 0 ? 0.0 : 1.0;
  return std::fabs(macs / macs_expected - 1.0);
}

StatusOr<std::vector<CorpusCheckRow>> CheckOnnxCorpus(const std::string& dir, const std::vector<std::string>& only) {
  const std::string manifest_path = dir + "/manifest.json";
  GO_ASSIGN_OR_RETURN(std::string text, ReadFile(manifest_path));
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    return ParseError(manifest_path + ": not JSON: " + e.what());
  }
  if (!manifest.is_object() || manifest.value("format", "") != "graphopt-onnx-corpus" ||
      !manifest.contains("models") || !manifest["models"].is_array()) {
    return ParseError(manifest_path + ": not a graphopt-onnx-corpus manifest (format, models)");
  }
  std::vector<CorpusCheckRow> rows;
  for (const auto& m : manifest["models"]) {
    CorpusCheckRow row;
    try {
      row.name = m.at("name").get<std::string>();
      row.params_expected = m.at("params_exporter").get<int64_t>();
      row.macs_expected = m.at("macs").get<double>();
    } catch (const std::exception& e) {
      return ParseError(manifest_path + ": a model entry lacks name, params_exporter or macs: " + e.what());
    }
    if (!only.empty() && std::find(only.begin(), only.end(), row.name) == only.end()) continue;
    row.expected_refusal = m.value("expect_refusal", "");
    OnnxImportOptions options;
    options.warnings = &row.warnings;
    if (m.contains("dims")) {
      for (const auto& [dim, value] : m["dims"].items()) {
        options.dim_values[dim] = value.get<int64_t>();
        row.dims += (row.dims.empty() ? "" : ",") + dim + "=" + std::to_string(value.get<int64_t>());
      }
    }
    const std::string file = dir + "/" + m.value("file", row.name + ".onnx");
    const auto start = std::chrono::steady_clock::now();
    StatusOr<Graph> g = ImportOnnx(file, options);
    row.import_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!g.ok()) {
      row.error = g.status().message();
      rows.push_back(std::move(row));
      continue;
    }
    row.imported = true;
    row.ops = g->num_ops();
    for (const Op& op : g->ops()) {
      if (op.kind == OpKind::kVariable) row.params += g->tensor(op.outputs[0]).num_elements();
      row.macs += op.cost.macs;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace graphopt
