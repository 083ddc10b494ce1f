// BatchSimulator: many plans of one graph simulated on several threads (for
// training, which scores a batch of sampled plans per step).
//
// It owns a pool of worker threads, started once, and one SimScratch per thread;
// the calling thread works too. Plans are handed out one at a time from a shared
// counter and each result is stored at its plan's index, so results do not depend
// on the number of threads or on timing. The Simulator must outlive the batch
// simulator; Run is not reentrant (call it from one thread at a time).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/simulator.h"

namespace graphopt {

// A plan's result measured rather than simulated (exec/measured_reward.h: executed on
// this machine's cores): the simulator's result type, the step time measured.
using PlanMeasure = std::function<StatusOr<SimResult>(const Plan& plan)>;

class BatchSimulator {
 public:
  // num_threads <= 0 uses every core (std::thread::hardware_concurrency).
  explicit BatchSimulator(const Simulator& simulator, int num_threads = 0);
  ~BatchSimulator();
  BatchSimulator(const BatchSimulator&) = delete;
  BatchSimulator& operator=(const BatchSimulator&) = delete;

  int num_threads() const { return static_cast<int>(scratch_.size()); }
  // Scores every plan by `measure` instead of the simulator from now on (null: the
  // simulator again): one plan after another on the calling thread, as measurements
  // must not share the cores they measure. Results keep their order.
  void set_measure(PlanMeasure measure) { measure_ = std::move(measure); }
  bool measured() const { return static_cast<bool>(measure_); }
  // Simulates every plan; results[i] is plans[i]'s result or its error. A batch of
  // one plan runs on the calling thread alone.
  std::vector<StatusOr<SimResult>> Run(const std::vector<Plan>& plans, const SimOptions& options = {});
  // Simulates the `count` plans make(0), ..., make(count - 1), each made by the
  // thread that simulates it and dropped after, so that no batch of plans is held
  // at once; results[i] is make(i)'s result. `make` must be thread-safe.
  std::vector<StatusOr<SimResult>> RunMade(size_t count, const std::function<Plan(size_t)>& make,
                                           const SimOptions& options = {});

 private:
  void WorkerLoop(int index);
  void Work(int index);
  // Run and RunMade: `plans` or `make` (the other null).
  std::vector<StatusOr<SimResult>> RunBatch(size_t count, const std::vector<Plan>* plans,
                                            const std::function<Plan(size_t)>* make, const SimOptions& options);

  const Simulator& simulator_;
  std::vector<SimScratch> scratch_;  // [0] is the calling thread's
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  uint64_t generation_ = 0;
  int running_ = 0;
  bool stop_ = false;
  // The current batch.
  const std::vector<Plan>* plans_ = nullptr;  // or, for RunMade, make_ and count_
  const std::function<Plan(size_t)>* make_ = nullptr;
  size_t count_ = 0;
  const SimOptions* options_ = nullptr;
  std::vector<StatusOr<SimResult>>* results_ = nullptr;
  std::atomic<size_t> next_{0};
  PlanMeasure measure_;
};

// One-shot convenience: a BatchSimulator for one call.
std::vector<StatusOr<SimResult>> SimulateBatch(const Simulator& simulator, const std::vector<Plan>& plans,
                                               const SimOptions& options = {}, int num_threads = 0);

}  // namespace graphopt
