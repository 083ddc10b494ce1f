#include "rl/checkpoint_identity.h"

#include <algorithm>
#include <cmath>

#include "core/json_fields.h"
#include "core/strings.h"
#include "core/version.h"
#include "graph/json_io.h"

namespace graphopt {

uint64_t Fingerprint(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {

std::string Hex(uint64_t v) { return StrFormat("%016llx", static_cast<unsigned long long>(v)); }

// The first option where two config strings ("a=1,b=2;c=3") differ, as
// "b=2 in the checkpoint, b=5 in this run".
std::string FirstDifference(const std::string& theirs, const std::string& ours) {
  auto split = [](const std::string& s) {
    std::vector<std::string> parts(1);
    for (char c : s) {
      if (c == ',' || c == ';') {
        parts.emplace_back();
      } else {
        parts.back() += c;
      }
    }
    return parts;
  };
  const std::vector<std::string> a = split(theirs), b = split(ours);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "(nothing)";
    const std::string y = i < b.size() ? b[i] : "(nothing)";
    if (x != y) return x + " in the checkpoint, " + y + " in this run";
  }
  return "\"" + theirs + "\" in the checkpoint, \"" + ours + "\" in this run";
}

}  // namespace

CheckpointIdentity::CheckpointIdentity() { fields_.emplace_back("graphopt_version", GraphoptVersion()); }

CheckpointIdentity CheckpointIdentity::Of(const Simulator& sim, const std::string& method, const std::string& config,
                                          uint64_t seed) {
  CheckpointIdentity id;
  id.Add("graph", sim.graph().name());
  id.Add("num_ops", std::to_string(sim.graph().num_ops()));
  id.Add("graph_fingerprint", Hex(Fingerprint(GraphToJson(sim.graph()))));
  id.Add("cluster", sim.cluster().name());
  id.Add("cluster_fingerprint", Hex(Fingerprint(ClusterToJson(sim.cluster()))));
  id.Add("method", method);
  id.Add("seed", std::to_string(seed));
  id.Add("config", config);
  return id;
}

CheckpointIdentity& CheckpointIdentity::Add(const std::string& name, const std::string& value) {
  fields_.emplace_back(name, value);
  return *this;
}

std::string CheckpointIdentity::Get(const std::string& name) const {
  for (const auto& [n, v] : fields_) {
    if (n == name) return v;
  }
  return "";
}

nlohmann::json CheckpointIdentity::ToJson() const {
  // Every value a string: JSON readers may hold numbers (seeds) as doubles.
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : fields_) j[name] = value;
  return j;
}

Status CheckpointIdentity::Verify(const nlohmann::json& recorded, const std::string& path) const {
  if (!recorded.is_object()) return ParseError(path + ": \"identity\" must be an object");
  const std::string where = path + ": identity.";
  for (const auto& [name, value] : fields_) {
    auto it = recorded.find(name);
    if (it == recorded.end()) return ParseError(where + name + " is missing");
    GO_ASSIGN_OR_RETURN(const std::string theirs, JsonString(*it, where + name));
    if (theirs == value) continue;
    std::string what = "the checkpoint is for " + name + " \"" + theirs + "\", this run's is \"" + value + "\"";
    if (value.find_first_of(",;") != std::string::npos || theirs.find_first_of(",;") != std::string::npos) {
      what = "the checkpoint is for another " + name + ": " + FirstDifference(theirs, value);
    }
    if (name == "graph_fingerprint") what += " (the graph changed under the same name)";
    if (name == "cluster_fingerprint") what += " (the cluster changed under the same name)";
    if (name == "graphopt_version") what = "written by graphopt " + theirs + ", this is graphopt " + value;
    return FailedPrecondition(path + ": " + what + "; resume with the same settings or use a new checkpoint folder");
  }
  return Status::Ok();
}

StatusOr<PlanScore> VerifyCheckpointPlan(const Simulator& sim, const Plan& plan, const PlanScore& recorded,
                                         const std::string& path) {
  if (Status valid = ValidatePlan(sim.graph(), sim.cluster(), plan); !valid.ok()) {
    return valid.WithContext(path + ": the checkpoint's plan is not valid");
  }
  GO_ASSIGN_OR_RETURN(const SimResult r, sim.Simulate(plan));
  const PlanScore s = PlanScore::Of(r);
  const double tolerance = 1e-9 * std::max(1.0, std::abs(s.step_time_us));
  if (!recorded.scored() || s.oom != recorded.oom || !(std::abs(s.step_time_us - recorded.step_time_us) <= tolerance)) {
    return FailedPrecondition(path + ": the checkpoint records this plan as " + recorded.ToString() +
                              ", but it simulates to " + s.ToString() + " (the checkpoint was altered or is damaged)");
  }
  return s;
}

}  // namespace graphopt
