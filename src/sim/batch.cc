#include "sim/batch.h"

namespace graphopt {

BatchSimulator::BatchSimulator(const Simulator& simulator, int num_threads) : simulator_(simulator) {
  if (num_threads <= 0) num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  scratch_.resize(static_cast<size_t>(num_threads));
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

BatchSimulator::~BatchSimulator() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void BatchSimulator::Work(int index) {
  SimScratch& scratch = scratch_[static_cast<size_t>(index)];
  for (size_t i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) {
    if (plans_ != nullptr) {
      (*results_)[i] = simulator_.Simulate((*plans_)[i], *options_, &scratch);
    } else {
      const Plan plan = (*make_)(i);
      (*results_)[i] = simulator_.Simulate(plan, *options_, &scratch);
    }
  }
}

void BatchSimulator::WorkerLoop(int index) {
  uint64_t seen = 0;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    Work(index);
    std::lock_guard<std::mutex> lock(mu_);
    if (--running_ == 0) done_cv_.notify_all();
  }
}

std::vector<StatusOr<SimResult>> BatchSimulator::Run(const std::vector<Plan>& plans, const SimOptions& options) {
  return RunBatch(plans.size(), &plans, nullptr, options);
}

std::vector<StatusOr<SimResult>> BatchSimulator::RunMade(size_t count, const std::function<Plan(size_t)>& make,
                                                         const SimOptions& options) {
  return RunBatch(count, nullptr, &make, options);
}

std::vector<StatusOr<SimResult>> BatchSimulator::RunBatch(size_t count, const std::vector<Plan>* plans,
                                                          const std::function<Plan(size_t)>* make,
                                                          const SimOptions& options) {
  std::vector<StatusOr<SimResult>> results(count, StatusOr<SimResult>(Cancelled("plan not simulated")));
  if (count == 0) return results;
  auto plan = [&](size_t i) { return plans != nullptr ? (*plans)[i] : (*make)(i); };
  if (measure_) {
    for (size_t i = 0; i < count; ++i) results[i] = measure_(plan(i));
    return results;
  }
  if (count == 1) {  // one plan: the calling thread alone, no worker woken
    results[0] = simulator_.Simulate(plan(0), options, &scratch_[0]);
    return results;
  }
  plans_ = plans;
  make_ = make;
  count_ = count;
  options_ = &options;
  results_ = &results;
  next_.store(0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  work_cv_.notify_all();
  Work(0);
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return running_ == 0; });
  plans_ = nullptr;
  make_ = nullptr;
  count_ = 0;
  options_ = nullptr;
  results_ = nullptr;
  return results;
}

std::vector<StatusOr<SimResult>> SimulateBatch(const Simulator& simulator, const std::vector<Plan>& plans,
                                               const SimOptions& options, int num_threads) {
  BatchSimulator batch(simulator, num_threads);
  return batch.Run(plans, options);
}

}  // namespace graphopt
