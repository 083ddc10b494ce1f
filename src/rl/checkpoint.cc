#include "rl/checkpoint.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

#include "core/files.h"
#include "core/json_fields.h"

namespace graphopt {

CheckpointStore::CheckpointStore(std::string dir) : dir_(std::move(dir)) {}

StatusOr<std::optional<nlohmann::json>> CheckpointStore::Open(const std::string& state, const std::string& part,
                                                              const CheckpointIdentity& identity,
                                                              const std::vector<std::string>& files) const {
  RemoveStaleTemporaries();
  GO_RETURN_IF_ERROR(RefuseOrphans(state, files));
  if (!FileExists(Path(state))) {
    ::mkdir(dir_.c_str(), 0755);
    GO_RETURN_IF_ERROR(CheckOutputWritable(Path(state), "--checkpoint"));
    return std::optional<nlohmann::json>();
  }
  GO_ASSIGN_OR_RETURN(nlohmann::json j, Read(state, part, identity));
  return std::optional<nlohmann::json>(std::move(j));
}

StatusOr<nlohmann::json> CheckpointStore::Read(const std::string& state, const std::string& part,
                                               const CheckpointIdentity& identity) const {
  const std::string path = Path(state);
  GO_RETURN_IF_ERROR(Require({state}, "the " + part + " state of a checkpoint"));
  GO_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  GO_ASSIGN_OR_RETURN(nlohmann::json j, ParseJsonText(text, path));
  if (!j.is_object()) return ParseError(path + ": expected a JSON object (a \"" + kFormat + "\" state file)");
  const auto format = j.find("format");
  const auto version = j.find("version");
  const std::string restart = ": resume it with the graphopt that wrote it, or remove the folder to start afresh";
  if (format == j.end() || !format->is_string())
    return ParseError(path + ": not a graphopt checkpoint (no \"format\")");
  if (format->get<std::string>() != kFormat) {
    if (format->get<std::string>().rfind("graphopt-", 0) != 0) {
      return ParseError(path + ": not a graphopt checkpoint (\"format\" is " + format->dump() + ")");
    }
    return FailedPrecondition(path + ": a checkpoint of an earlier graphopt (" + format->dump() + " version " +
                              (version == j.end() ? std::string("?") : version->dump()) + "); this graphopt reads \"" +
                              kFormat + "\" version " + std::to_string(kVersion) + restart);
  }
  if (version == j.end() || !version->is_number_integer()) {
    return ParseError(path + ": \"version\" must be an integer (this graphopt reads version " +
                      std::to_string(kVersion) + ")");
  }
  if (version->get<int64_t>() != kVersion) {
    return FailedPrecondition(path + ": checkpoint version " + version->dump() + "; this graphopt reads version " +
                              std::to_string(kVersion) + restart);
  }
  GO_ASSIGN_OR_RETURN(const std::string their_part, JsonMemberString(j, "part", path));
  if (their_part != part) {
    return FailedPrecondition(path + ": the state of " + their_part + ", not of " + part);
  }
  GO_ASSIGN_OR_RETURN(const nlohmann::json* recorded, JsonMember(j, "identity", path));
  GO_RETURN_IF_ERROR(identity.Verify(*recorded, path));
  return j;
}

Status CheckpointStore::Write(const std::string& state, const std::string& part, const CheckpointIdentity& identity,
                              nlohmann::json fields) const {
  nlohmann::json j{{"format", kFormat}, {"version", kVersion}, {"part", part}, {"identity", identity.ToJson()}};
  for (auto& [key, value] : fields.items()) j[key] = std::move(value);
  ::mkdir(dir_.c_str(), 0755);
  return WriteFileAtomic(Path(state), j.dump() + "\n");
}

Status CheckpointStore::Require(const std::vector<std::string>& files, const std::string& why) const {
  for (const std::string& f : files) {
    if (!FileExists(Path(f))) return NotFound(Path(f) + " is missing: " + why);
  }
  return Status::Ok();
}

Status CheckpointStore::RefuseOrphans(const std::string& state, const std::vector<std::string>& files) const {
  if (FileExists(Path(state))) return Status::Ok();
  for (const std::string& f : files) {
    if (FileExists(Path(f))) {
      return FailedPrecondition(Path(state) + " is missing but " + Path(f) +
                                " exists: the checkpoint is incomplete (its state was deleted or never written); "
                                "remove the folder to start afresh, or use another");
    }
  }
  return Status::Ok();
}

int CheckpointStore::RemoveStaleTemporaries() const {
  DIR* d = ::opendir(dir_.c_str());
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
    if (plain || with_pid) stale.push_back(Path(name));
  }
  ::closedir(d);
  int removed = 0;
  for (const std::string& path : stale) removed += std::remove(path.c_str()) == 0;
  return removed;
}

Status CheckpointStore::WritePlan(const std::string& file, const Graph& graph, const Plan& plan) const {
  return WritePlanJson(graph, plan, Path(file));
}

StatusOr<PlanScore> CheckpointStore::ReadPlan(const std::string& file, const Simulator& sim, const PlanScore& recorded,
                                              const std::string& why, Plan* plan) const {
  GO_RETURN_IF_ERROR(Require({file}, why));
  GO_ASSIGN_OR_RETURN(Plan read, ReadPlanJson(Path(file), sim.graph()));
  GO_ASSIGN_OR_RETURN(const PlanScore score, VerifyCheckpointPlan(sim, read, recorded, Path(file)));
  *plan = std::move(read);
  return score;
}

}  // namespace graphopt
