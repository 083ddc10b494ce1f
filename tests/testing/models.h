// The built-in models of the tests, built from a spec ("gnmt:layers=2,..."), and sums
// over their ops. Header-only; needs graphopt_models.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "graph/graph.h"
#include "models/registry.h"

namespace graphopt::testing {

// The forward graph of a built-in; a test failure (and an empty graph) when it does not build.
inline Graph Forward(const std::string& spec) {
  auto g = BuildBuiltinForward(spec);
  EXPECT_TRUE(g.ok()) << spec << ": " << g.status().message();
  return g.ok() ? std::move(*g) : Graph();
}

// The training graph of a built-in; a test failure (and an empty graph) when it does not build.
inline Graph Training(const std::string& spec) {
  auto g = BuildBuiltinModel(spec);
  EXPECT_TRUE(g.ok()) << spec << ": " << g.status().message();
  return g.ok() ? std::move(*g) : Graph();
}

// Why the forward graph of `spec` does not build ("" when it does).
inline std::string ErrorOf(const std::string& spec) {
  auto g = BuildBuiltinForward(spec);
  return g.ok() ? "" : g.status().message();
}

// Multiply-accumulates of every Conv and MatMul.
inline double ContractionMacs(const Graph& g) {
  double macs = 0;
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kConv || op.kind == OpKind::kMatMul) macs += op.cost.macs;
  }
  return macs;
}

// Multiply-accumulates of the forward Convs and MatMuls only.
inline double ForwardContractionMacs(const Graph& g) {
  double macs = 0;
  for (const Op& op : g.ops()) {
    if (op.phase == Phase::kForward && (op.kind == OpKind::kConv || op.kind == OpKind::kMatMul)) macs += op.cost.macs;
  }
  return macs;
}

// Parameters (4-byte floats) of the Variables.
inline int64_t ParameterCount(const Graph& g) {
  int64_t bytes = 0;
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kVariable) bytes += op.param_bytes;
  }
  return bytes / 4;
}

}  // namespace graphopt::testing
