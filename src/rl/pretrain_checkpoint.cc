// Pre-training checkpoints (rl/pretrain.h): step-<S>/ folders written by every rank,
// then pretrain_state.json naming the complete one, written by rank 0.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

#include "core/files.h"
#include "core/json_fields.h"
#include "core/strings.h"
#include "rl/checkpoint.h"
#include "rl/pretrain_impl.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;

constexpr const char* kPart = "pretrain";
constexpr const char* kStateFile = "pretrain_state.json";
constexpr const char* kCheckpointPrefix = "step-";

std::string SlotDir(const std::string& checkpoint, int64_t slot) { return checkpoint + "/slot-" + std::to_string(slot); }

// The step-<S> folders in `dir`.
std::vector<std::string> CheckpointFolders(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kCheckpointPrefix, 0) == 0 && entry.is_directory(ec)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

Json PretrainRecordJson(const PretrainTaskRecord& r) {
  return Json{{"index", r.task.index},       {"family", r.task.family},     {"model", r.task.model},
              {"cluster", r.task.cluster},   {"ops", r.task.num_ops},       {"units", r.num_units},
              {"reference", r.reference},    {"reference_us", r.reference_us}, {"steps", r.steps},
              {"first_batch_us", r.first_batch_us}, {"last_batch_us", r.last_batch_us}, {"best_us", r.best_us},
              {"seconds", r.seconds}};
}

StatusOr<PretrainTaskRecord> PretrainRecordFromJson(const Json& j, const std::string& where) {
  PretrainTaskRecord r;
  constexpr int64_t kMaxCount = int64_t{1} << 50;
  GO_ASSIGN_OR_RETURN(r.task.index, JsonMemberInt(j, "index", where, 0, kMaxCount));
  GO_ASSIGN_OR_RETURN(r.task.family, JsonMemberString(j, "family", where));
  GO_ASSIGN_OR_RETURN(r.task.model, JsonMemberString(j, "model", where));
  GO_ASSIGN_OR_RETURN(r.task.cluster, JsonMemberString(j, "cluster", where));
  GO_ASSIGN_OR_RETURN(const int64_t ops, JsonMemberInt(j, "ops", where, 0, INT32_MAX));
  GO_ASSIGN_OR_RETURN(const int64_t units, JsonMemberInt(j, "units", where, 0, INT32_MAX));
  GO_ASSIGN_OR_RETURN(r.reference, JsonMemberString(j, "reference", where));
  GO_ASSIGN_OR_RETURN(r.reference_us, JsonMemberNumber(j, "reference_us", where, 0, 1e18));
  GO_ASSIGN_OR_RETURN(const int64_t steps, JsonMemberInt(j, "steps", where, 0, INT32_MAX));
  GO_ASSIGN_OR_RETURN(r.first_batch_us, JsonMemberNumber(j, "first_batch_us", where, 0, 1e18));
  GO_ASSIGN_OR_RETURN(r.last_batch_us, JsonMemberNumber(j, "last_batch_us", where, 0, 1e18));
  GO_ASSIGN_OR_RETURN(r.best_us, JsonMemberNumber(j, "best_us", where, 0, 1e18));
  GO_ASSIGN_OR_RETURN(r.seconds, JsonMemberNumber(j, "seconds", where, 0, 1e9));
  r.task.num_ops = static_cast<int>(ops);
  r.num_units = static_cast<int>(units);
  r.steps = static_cast<int>(steps);
  return r;
}

StatusOr<std::vector<PretrainTaskRecord>> Pretrainer::Impl::Save() {
  if (slots.empty()) return std::vector<PretrainTaskRecord>();
  const std::string& dir = config.checkpoint_dir;
  const std::string name = kCheckpointPrefix + std::to_string(result.steps);
  const std::string checkpoint = dir + "/" + name;
  if (!dir.empty()) {
    ::mkdir(dir.c_str(), 0755);
    ::mkdir(checkpoint.c_str(), 0755);
    for (const PretrainSlot& s : slots) {
      const std::string slot_dir = SlotDir(checkpoint, s.slot);
      ::mkdir(slot_dir.c_str(), 0755);
      if (!IsDirectory(slot_dir)) return IoError("cannot create the checkpoint folder " + slot_dir);
      GO_RETURN_IF_ERROR(s.env->trainer->SaveState(slot_dir));
    }
    if (world->root()) GO_RETURN_IF_ERROR(slots.front().env->trainer->SaveWeights(checkpoint));
  }
  // Gathering the records also waits for every rank's files.
  GO_ASSIGN_OR_RETURN(std::vector<PretrainTaskRecord> current, GatherRecords());
  if (dir.empty() || !world->root()) return current;
  Json tasks = Json::array();
  for (const PretrainTaskRecord& r : result.tasks) tasks.push_back(PretrainRecordJson(r));
  for (const PretrainTaskRecord& r : current) tasks.push_back(PretrainRecordJson(r));
  Json state{{"graphs_per_step", graphs},    {"round", round},        {"task_step", task_step},
             {"steps", result.steps},        {"plans", result.plans}, {"seconds", Seconds()},
             {"entropy_coef", entropy_coef}, {"checkpoint", name},    {"tasks", tasks}};
  GO_RETURN_IF_ERROR(CheckpointStore(dir).Write(kStateFile, kPart, Identity(), std::move(state)));
  for (const std::string& old : CheckpointFolders(dir)) {
    if (old == name) continue;
    std::error_code ec;
    std::filesystem::remove_all(dir + "/" + old, ec);
  }
  return current;
}

StatusOr<bool> Pretrainer::Impl::Load() {
  const std::string& dir = config.checkpoint_dir;
  auto check_ranks = [this]() -> Status {
    if (graphs < world->size()) {
      return InvalidArgument(StrFormat("%d ranks need at least as many graphs per step (this run has %d)",
                                       world->size(), graphs));
    }
    return Status::Ok();
  };
  graphs = config.graphs_per_step > 0 ? config.graphs_per_step : world->size();
  if (dir.empty()) {
    GO_RETURN_IF_ERROR(check_ranks());
    return false;
  }
  // Rank 0 alone tidies the folder (stale temporaries) and checks it; the others read
  // the state once it has.
  const CheckpointStore store(dir);
  const std::string path = store.Path(kStateFile);
  if (world->root()) {
    StatusOr<std::optional<Json>> opened = store.Open(kStateFile, kPart, Identity(), {});
    if (opened.ok() && !opened->has_value()) {
      const std::vector<std::string> orphans = CheckpointFolders(dir);
      if (!orphans.empty()) {
        opened = FailedPrecondition(dir + " holds a pre-training checkpoint (" + orphans.back() + ") but no " +
                                    kStateFile + ": its state was lost or never written; remove the folder to start afresh");
      }
    }
    world->Barrier();
    if (!opened.ok()) return opened.status();
  } else {
    world->Barrier();
  }
  if (!FileExists(path)) {
    GO_RETURN_IF_ERROR(check_ranks());
    return false;
  }
  GO_ASSIGN_OR_RETURN(const Json state, store.Read(kStateFile, kPart, Identity()));
  GO_ASSIGN_OR_RETURN(const int64_t saved_graphs, JsonMemberInt(state, "graphs_per_step", path, 1, 4096));
  if (config.graphs_per_step == 0) graphs = static_cast<int>(saved_graphs);
  if (graphs != saved_graphs) {
    return FailedPrecondition(path + ": the checkpoint is for graphs_per_step \"" + std::to_string(saved_graphs) +
                              "\", this run's is \"" + std::to_string(graphs) +
                              "\"; resume with the same settings or use a new checkpoint folder");
  }
  GO_RETURN_IF_ERROR(check_ranks());
  constexpr int64_t kMaxCount = int64_t{1} << 50;
  GO_ASSIGN_OR_RETURN(round, JsonMemberInt(state, "round", path, 0, kMaxCount));
  GO_ASSIGN_OR_RETURN(const int64_t done, JsonMemberInt(state, "task_step", path, 1, config.steps_per_task));
  GO_ASSIGN_OR_RETURN(result.steps, JsonMemberInt(state, "steps", path, 1, kMaxCount));
  GO_ASSIGN_OR_RETURN(result.plans, JsonMemberInt(state, "plans", path, 0, kMaxCount));
  GO_ASSIGN_OR_RETURN(elapsed_offset, JsonMemberNumber(state, "seconds", path, 0, 1e9));
  GO_ASSIGN_OR_RETURN(entropy_coef, JsonMemberNumber(state, "entropy_coef", path, 0, 1e6));
  GO_ASSIGN_OR_RETURN(const std::string name, JsonMemberString(state, "checkpoint", path));
  if (name.rfind(kCheckpointPrefix, 0) != 0 || name.find('/') != std::string::npos) {
    return ParseError(path + ": checkpoint must name a step-<S> folder, not \"" + name + "\"");
  }
  const std::string checkpoint = dir + "/" + name;
  GO_ASSIGN_OR_RETURN(const Json* tasks, JsonMember(state, "tasks", path));
  if (!tasks->is_array() || tasks->size() < static_cast<size_t>(graphs)) {
    return ParseError(path + ": tasks must be an array with at least the current round's " + std::to_string(graphs));
  }
  std::vector<PretrainTaskRecord> records;
  for (size_t i = 0; i < tasks->size(); ++i) {
    GO_ASSIGN_OR_RETURN(PretrainTaskRecord r,
                        PretrainRecordFromJson((*tasks)[i], path + ": tasks[" + std::to_string(i) + "]"));
    records.push_back(std::move(r));
  }
  // The last G records are the current round's, each at the state's step.
  const size_t first_current = records.size() - static_cast<size_t>(graphs);
  for (int64_t g = 0; g < graphs; ++g) {
    const PretrainTaskRecord& r = records[first_current + static_cast<size_t>(g)];
    if (r.task.index != round * graphs + g || r.steps != done) {
      return ParseError(path + ": the last task records are not the current round's tasks (round, task_step)");
    }
  }
  GO_RETURN_IF_ERROR(
      CheckpointStore(checkpoint).Require({"policy.pt", "optimizer.pt"}, "the state names this checkpoint"));
  if (done >= config.steps_per_task) {
    // The round was finished: the next one starts from the checkpoint's weights.
    if (world->root()) result.tasks = std::move(records);
    ++round;
    task_step = 0;
    pending_weights = checkpoint;
    return true;
  }
  task_step = static_cast<int>(done);
  AssignSlots();
  for (PretrainSlot& s : slots) {
    s.record = records[first_current + static_cast<size_t>(s.slot)];
    GO_ASSIGN_OR_RETURN(s.env, BuildTask(round * graphs + s.slot, nullptr));
    if (!optimizer) optimizer = s.env->trainer->shared_optimizer();
  }
  GO_RETURN_IF_ERROR(slots.front().env->trainer->LoadWeights(checkpoint));
  for (PretrainSlot& s : slots) GO_RETURN_IF_ERROR(s.env->trainer->LoadState(SlotDir(checkpoint, s.slot)));
  records.resize(first_current);
  if (world->root()) result.tasks = std::move(records);
  return true;
}

}  // namespace graphopt
