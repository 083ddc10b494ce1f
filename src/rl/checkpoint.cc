#include "rl/checkpoint.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <algorithm>
#include <cstdio>

#include "core/files.h"
#include "core/json_fields.h"
#include "core/strings.h"
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

CheckpointIdentity CheckpointIdentity::Of(const Simulator& sim, const std::string& method, const std::string& config,
                                          uint64_t seed) {
  CheckpointIdentity id;
  id.graph = sim.graph().name();
  id.num_ops = sim.graph().num_ops();
  id.graph_fingerprint = Fingerprint(GraphToJson(sim.graph()));
  id.cluster = sim.cluster().name();
  id.cluster_fingerprint = Fingerprint(ClusterToJson(sim.cluster()));
  id.method = method;
  id.config = config;
  id.seed = seed;
  return id;
}

nlohmann::json CheckpointIdentity::ToJson() const {
  // Fingerprints and the seed as strings: JSON readers may hold numbers as doubles.
  return nlohmann::json{{"graph", graph},
                        {"num_ops", num_ops},
                        {"graph_fingerprint", Hex(graph_fingerprint)},
                        {"cluster", cluster},
                        {"cluster_fingerprint", Hex(cluster_fingerprint)},
                        {"method", method},
                        {"config", config},
                        {"seed", std::to_string(seed)},
                        {"graphopt_version", version}};
}

Status CheckpointIdentity::Verify(const nlohmann::json& recorded, const std::string& path) const {
  if (!recorded.is_object()) return ParseError(path + ": \"identity\" must be an object");
  const std::string where = path + ": identity.";
  auto field = [&](const char* name) -> StatusOr<std::string> {
    auto it = recorded.find(name);
    if (it == recorded.end()) return ParseError(where + name + " is missing");
    if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
    return JsonString(*it, where + name);
  };
  const std::pair<const char*, std::string> ours[] = {
      {"graphopt_version", version},
      {"graph", graph},
      {"num_ops", std::to_string(num_ops)},
      {"graph_fingerprint", Hex(graph_fingerprint)},
      {"cluster", cluster},
      {"cluster_fingerprint", Hex(cluster_fingerprint)},
      {"method", method},
      {"seed", std::to_string(seed)},
      {"config", config},
  };
  for (const auto& [name, value] : ours) {
    GO_ASSIGN_OR_RETURN(const std::string theirs, field(name));
    if (theirs == value) continue;
    std::string what = std::string("the checkpoint is for ") + name + " \"" + theirs + "\", this run's is \"" + value + "\"";
    if (std::string(name) == "config") what = "the checkpoint is for another config: " + FirstDifference(theirs, value);
    if (std::string(name) == "graph_fingerprint") what += " (the graph changed under the same name)";
    if (std::string(name) == "cluster_fingerprint") what += " (the cluster changed under the same name)";
    if (std::string(name) == "graphopt_version") what = "written by graphopt " + theirs + ", this is graphopt " + value;
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

Status RequireCheckpointFiles(const std::string& dir, const std::vector<std::string>& files, const std::string& why) {
  for (const std::string& f : files) {
    if (!FileExists(dir + "/" + f)) return NotFound(dir + "/" + f + " is missing: " + why);
  }
  return Status::Ok();
}

Status RefuseOrphanCheckpointFiles(const std::string& dir, const std::string& state,
                                   const std::vector<std::string>& files) {
  if (FileExists(dir + "/" + state)) return Status::Ok();
  for (const std::string& f : files) {
    if (FileExists(dir + "/" + f)) {
      return FailedPrecondition(dir + "/" + state + " is missing but " + dir + "/" + f +
                                " exists: the checkpoint is incomplete (its state was deleted or never written); "
                                "remove the folder to start afresh, or use another");
    }
  }
  return Status::Ok();
}

int RemoveStaleTemporaries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  const std::string own = ".tmp." + std::to_string(::getpid());
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const size_t at = name.rfind(".tmp");
    if (at == std::string::npos || at == 0) continue;
    const std::string tail = name.substr(at);
    const bool plain = tail == ".tmp";
    const bool with_pid = tail.size() > 5 && tail[4] == '.' &&
                          tail.find_first_not_of("0123456789", 5) == std::string::npos && tail != own;
    if (plain || with_pid) stale.push_back(dir + "/" + name);
  }
  ::closedir(d);
  int removed = 0;
  for (const std::string& path : stale) removed += std::remove(path.c_str()) == 0;
  return removed;
}

StatusOr<std::optional<nlohmann::json>> OpenCheckpointState(const std::string& dir, const std::string& state,
                                                             const std::vector<std::string>& files,
                                                             const std::string& format, int version) {
  RemoveStaleTemporaries(dir);
  GO_RETURN_IF_ERROR(RefuseOrphanCheckpointFiles(dir, state, files));
  const std::string path = dir + "/" + state;
  if (!FileExists(path)) {
    ::mkdir(dir.c_str(), 0755);
    GO_RETURN_IF_ERROR(CheckOutputWritable(path, "--checkpoint"));
    return std::optional<nlohmann::json>();
  }
  GO_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  GO_ASSIGN_OR_RETURN(nlohmann::json j, ParseJsonText(text, path));
  GO_RETURN_IF_ERROR(CheckJsonHeader(j, path, format, version));
  return std::optional<nlohmann::json>(std::move(j));
}

}  // namespace graphopt
