// The ONNX corpus check: imports every model of a corpus folder (written by
// scripts/export_onnx_corpus.py, described by its manifest.json) and compares what
// the importer computes with what the export script counted on its own: the
// parameters of the exported file and the multiply-accumulates PyTorch ran.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace graphopt {

struct CorpusCheckRow {
  std::string name;
  std::string dims;  // "name=value,..." bound for dynamic-axis models
  bool imported = false;
  std::string error;  // why the import failed
  // For a model the importer refuses on purpose (control flow): words its error
  // must contain (the manifest's expect_refusal).
  std::string expected_refusal;
  int ops = 0;
  int64_t params = 0, params_expected = 0;
  double macs = 0, macs_expected = 0;
  double import_seconds = 0;
  std::vector<std::string> warnings;

  bool params_exact() const { return imported && params == params_expected; }
  // |macs / macs_expected - 1|; 0 when both are 0.
  double macs_error() const;
  bool refused_as_expected() const {
    return !imported && !expected_refusal.empty() && error.find(expected_refusal) != std::string::npos;
  }
  bool passed(double macs_tolerance) const {
    if (!expected_refusal.empty()) return refused_as_expected();
    return params_exact() && macs_error() <= macs_tolerance && warnings.empty();
  }
};

// Imports every model of the manifest in dir (or only the named ones, if any).
// Fails only if the manifest cannot be read; a model that does not import is a row
// with its error.
StatusOr<std::vector<CorpusCheckRow>> CheckOnnxCorpus(const std::string& dir, const std::vector<std::string>& only = {});

}  // namespace graphopt
