#include "cli/suite_ranks.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "core/progress.h"
#include "core/strings.h"
#include "dist/world.h"

namespace graphopt {
namespace {

// A rank asks for its first row with kReady, each later one with the message of the
// row it finished; rank 0 answers with a row's index, or kNoMoreRows.
constexpr const char* kReady = "ready";
constexpr const char* kNoMoreRows = "no more rows";
// Rank 0's main thread looks for messages this often while its worker runs a row.
constexpr auto kPollInterval = std::chrono::milliseconds(20);

// Runs one row (no progress bar of its own), its result to `done`.
Status RunRow(const SuiteOptions& options, const SuiteRow& row, const std::function<Status(const RowResult&)>& done) {
  SuiteOptions one = options;
  one.rows = {row};
  one.show_progress = false;
  return RunSuite(one, done).status();
}

// Another rank: asks rank 0 for rows until there are none left.
Status RunRowsOfRank(const SuiteOptions& options, const std::function<std::string(const RowResult&)>& row_message) {
  World& world = World::Get();
  GO_RETURN_IF_ERROR(world.SendToRoot(kReady));
  while (true) {
    GO_ASSIGN_OR_RETURN(const std::string order, world.Receive());
    if (order == kNoMoreRows) return Status::Ok();
    const StatusOr<uint64_t> index = ParseUint(order, "rank 0's order");
    if (!index.ok() || *index >= options.rows.size()) {
      return InternalError("rank 0 sent an order that is no row: \"" + order + "\"");
    }
    std::string message;
    GO_RETURN_IF_ERROR(RunRow(options, options.rows[static_cast<size_t>(*index)], [&](const RowResult& row) {
      message = row_message(row);
      return Status::Ok();
    }));
    GO_RETURN_IF_ERROR(world.SendToRoot(message));
  }
}

// The rows, costliest first (ties in the given order), handed out from `next`. The
// state rank 0's worker thread shares is its own, so a worker left running when the
// root returns an error (the caller then ends the job) touches nothing freed.
struct SharedRows {
  SuiteOptions options;
  std::function<std::string(const RowResult&)> row_message;
  std::vector<size_t> order;
  std::mutex mu;  // guards what follows
  size_t next = 0;
  std::deque<std::string> mine;  // messages of rank 0's own rows, not yet taken
  bool worker_done = false;
  Status worker_status = Status::Ok();
  std::optional<size_t> Take() {
    std::lock_guard<std::mutex> lock(mu);
    if (next >= order.size()) return std::nullopt;
    return order[next++];
  }
};

// Rank 0's own rows, in a worker thread that calls no MPI.
std::thread StartOwnRows(const std::shared_ptr<SharedRows>& shared) {
  return std::thread([shared] {
    Status s = Status::Ok();
    while (const std::optional<size_t> i = shared->Take()) {
      s = RunRow(shared->options, shared->options.rows[*i], [&](const RowResult& row) {
        std::string message = shared->row_message(row);
        std::lock_guard<std::mutex> lock(shared->mu);
        shared->mine.push_back(std::move(message));
        return Status::Ok();
      });
      if (!s.ok()) break;
    }
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->worker_status = s;
    shared->worker_done = true;
  });
}

// The root's loop: takes the worker's messages and the other ranks', and hands each
// rank that is ready the next row, until every row is done.
Status ServeRows(World& world, SharedRows& shared, const std::function<Status(const std::string&)>& take_message) {
  int ranks_done = 0;
  while (true) {
    std::deque<std::string> ours;
    bool done = false;
    Status worker_status = Status::Ok();
    {
      std::lock_guard<std::mutex> lock(shared.mu);
      ours.swap(shared.mine);
      done = shared.worker_done;
      worker_status = shared.worker_status;
    }
    for (const std::string& message : ours) GO_RETURN_IF_ERROR(take_message(message));
    GO_RETURN_IF_ERROR(worker_status);
    if (world.HasMessage()) {
      int source = 0;
      GO_ASSIGN_OR_RETURN(const std::string message, world.Receive(&source));
      if (message != kReady) GO_RETURN_IF_ERROR(take_message(message));
      const std::optional<size_t> row = shared.Take();
      if (!row) ++ranks_done;
      GO_RETURN_IF_ERROR(world.SendTo(source, row ? std::to_string(*row) : std::string(kNoMoreRows)));
      continue;
    }
    if (done && ranks_done == world.size() - 1) return Status::Ok();
    std::this_thread::sleep_for(kPollInterval);
  }
}

}  // namespace

Status RunSuiteOverRanks(const SuiteOptions& options, const std::vector<double>& costs,
                         const std::function<std::string(const RowResult&)>& row_message,
                         const std::function<Status(const std::string&)>& on_message) {
  World& world = World::Get();
  if (!world.distributed()) {
    return RunSuite(options, [&](const RowResult& row) { return on_message(row_message(row)); }).status();
  }
  if (!world.root()) return RunRowsOfRank(options, row_message);
  if (costs.size() != options.rows.size()) return InternalError("one cost per row is needed");

  auto shared = std::make_shared<SharedRows>();
  shared->options = options;
  shared->row_message = row_message;
  shared->order.resize(options.rows.size());
  std::iota(shared->order.begin(), shared->order.end(), size_t{0});
  std::stable_sort(shared->order.begin(), shared->order.end(), [&](size_t a, size_t b) { return costs[a] > costs[b]; });
  std::thread worker = StartOwnRows(shared);

  std::unique_ptr<ProgressBar> progress;
  if (options.show_progress) progress = std::make_unique<ProgressBar>("bench", static_cast<int64_t>(options.rows.size()));
  int64_t taken = 0;
  const Status status = ServeRows(world, *shared, [&](const std::string& message) -> Status {
    GO_RETURN_IF_ERROR(on_message(message));
    ++taken;
    if (progress) progress->Update(taken, StrFormat("rows over %d ranks", world.size()));
    return Status::Ok();
  });
  if (!status.ok()) {
    worker.detach();  // the caller ends the job, this row included
    return status;
  }
  worker.join();
  if (progress) progress->Finish(StrFormat("%zu rows over %d ranks", options.rows.size(), world.size()));
  return Status::Ok();
}

}  // namespace graphopt
