// The registry of built-in benchmark graphs and the parameters they take.
//
// A built-in is named by a spec "name" or "name:key=value,key=value"
// (e.g. "gnmt:layers=4,batch=128"). Each builder reads its parameters through a
// ParamReader, which checks types and ranges and rejects unknown keys, and returns
// the forward graph; BuildBuiltinModel expands it into the training-step graph.
// Values follow the rule of every option string (core/options.h): decimal
// integers, "WHERE: VALUE is out of range [lo, hi]", words from a fixed set. The
// builders declare their parameters where they use them rather than in an
// OptionTable: most families have no parameter struct, and a parameter's range
// often sits beside the arithmetic it protects.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace graphopt {

// Typed access to a builder's parameters. The first error is kept; builders read
// all their parameters, then return status() if it is not OK.
class ParamReader {
 public:
  ParamReader(std::string model, std::map<std::string, std::string> values);
  // An integer parameter in [min, max], default `fallback`.
  int64_t Int(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  double Float(const std::string& key, double fallback, double min, double max);
  // A parameter from a fixed set of words.
  std::string Choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& choices);
  // OK, or the first bad value, or the first key no builder read.
  Status status() const;
  // The parameters as read (with defaults), "key=value,..." in key order.
  std::string Canonical() const;
  const std::map<std::string, std::string>& used() const { return used_; }

 private:
  std::string model_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::string> used_;
  Status status_;
};

struct BuiltinModel {
  std::string name;
  std::string description;
  // The parameters and their defaults, for `graphopt models` ("layers=8, batch=128, ...").
  std::string parameters;
  std::function<StatusOr<Graph>(ParamReader&)> build_forward;
};

const std::vector<BuiltinModel>& BuiltinModels();
bool IsBuiltinModelSpec(const std::string& spec);
// Builds the forward graph of a built-in spec.
StatusOr<Graph> BuildBuiltinForward(const std::string& spec);
// Builds the training-step graph (forward, backward and update ops) of a built-in spec.
StatusOr<Graph> BuildBuiltinModel(const std::string& spec);

}  // namespace graphopt
