#include "exec/concurrency.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <string>
#include <thread>

#include "core/median.h"
#include "core/timing.h"
#include "exec/pin.h"

namespace graphopt {
namespace {

constexpr int64_t kGemmSide = 256;
constexpr int64_t kStreamFloats = (int64_t{32} << 20) / 4;  // 32 MiB
constexpr int64_t kReadFloats = (int64_t{2} << 20) / 4;     // 2 MiB

using Clock = SteadyClock;

enum class Probe { kGemm, kStream };

// The probe's kernel on tensors of its own (made on the calling thread).
std::function<void()> MakeProbe(Probe probe) {
  if (probe == Probe::kGemm) {
    at::Tensor a = at::rand({kGemmSide, kGemmSide}), b = at::rand({kGemmSide, kGemmSide});
    at::Tensor c = at::empty({kGemmSide, kGemmSide});
    return [a, b, c]() mutable { at::mm_out(c, a, b); };
  }
  at::Tensor from = at::rand({kStreamFloats}), to = at::zeros({kStreamFloats});
  return [from, to]() mutable { to.copy_(from); };
}

// Median time of `repetitions` calls of `f`, after one to warm up.
double MedianSeconds(const std::function<void()>& f, int repetitions) {
  f();
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) times.push_back(TimeOnce(f));
  return Median(std::move(times));
}

// Runs `body` on a thread pinned to `cores`.
Status OnCores(const std::vector<int>& cores, const std::function<void()>& body) {
  return RunPinned(cores, "measuring concurrency", [&]() -> Status {
    body();
    return Status::Ok();
  });
}

// The probe on device 0 alone, then while every other device runs it in a loop.
StatusOr<double> BusyRatio(const std::vector<std::vector<int>>& sets, Probe probe, int repetitions) {
  std::atomic<bool> stop{false};
  std::atomic<int> ready{0};
  std::vector<Status> statuses(sets.size());
  std::vector<std::thread> others;
  double alone = 0, busy = 0;
  const Status measured = OnCores(sets[0], [&] {
    const std::function<void()> f = MakeProbe(probe);
    alone = MedianSeconds(f, repetitions);
    for (size_t d = 1; d < sets.size(); ++d) {
      others.emplace_back([&, d] {
        bool counted = false;  // in `ready`: running the probe, or stopped by an error
        statuses[d] = PinThisThread(sets[d]);
        try {
          if (statuses[d].ok()) {
            const std::function<void()> g = MakeProbe(probe);
            g();
            ++ready;
            counted = true;
            while (!stop.load(std::memory_order_relaxed)) g();
          }
        } catch (const std::exception& e) {
          statuses[d] = InternalError(std::string("measuring concurrency: ") + e.what());
        }
        if (!counted) ++ready;
      });
    }
    while (ready.load() < static_cast<int>(sets.size()) - 1) std::this_thread::yield();
    busy = MedianSeconds(f, repetitions);
    stop = true;
    for (std::thread& t : others) t.join();
  });
  if (!measured.ok()) {
    stop = true;
    for (std::thread& t : others) {
      if (t.joinable()) t.join();
    }
    return measured;
  }
  for (const Status& s : statuses) GO_RETURN_IF_ERROR(s);
  return busy / alone;
}

// Device 0 reading data device 1 has just written, over reading data it wrote itself.
StatusOr<double> RemoteReadRatio(const std::vector<std::vector<int>>& sets, int repetitions) {
  const at::Tensor source = at::rand({kReadFloats});
  at::Tensor remote = at::empty({kReadFloats}), local = at::empty({kReadFloats}), out = at::empty({kReadFloats});
  std::vector<double> remote_times, local_times;
  for (int r = 0; r <= repetitions; ++r) {  // the first of each: a warm-up
    GO_RETURN_IF_ERROR(OnCores(sets[1], [&] { remote.copy_(source); }));
    GO_RETURN_IF_ERROR(OnCores(sets[0], [&] {
      const double t_remote = TimeOnce([&] { at::add_out(out, remote, 1.0); });
      local.copy_(source);
      const double t_local = TimeOnce([&] { at::add_out(out, local, 1.0); });
      if (r > 0) {
        remote_times.push_back(t_remote);
        local_times.push_back(t_local);
      }
    }));
  }
  return Median(std::move(remote_times)) / Median(std::move(local_times));
}

}  // namespace

StatusOr<std::vector<ConcurrencySample>> MeasureConcurrency(const std::vector<std::vector<int>>& core_sets,
                                                            const ConcurrencyOptions& options) {
  if (core_sets.size() < 2) return InvalidArgument("measuring concurrency needs at least two devices");
  if (options.samples < 1 || options.samples > 100000) return InvalidArgument("samples must be in [1, 100000]");
  if (!(options.pause_ms >= 0 && options.pause_ms <= 60000)) return InvalidArgument("pause must be in [0, 60000] ms");
  if (options.repetitions < 1 || options.repetitions > 1000) return InvalidArgument("repetitions must be in [1, 1000]");
  std::vector<ConcurrencySample> samples;
  const Clock::time_point begin = Clock::now();
  for (int s = 0; s < options.samples; ++s) {
    if (s > 0 && options.pause_ms > 0)
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.pause_ms));
    ConcurrencySample sample;
    sample.seconds = SecondsSince(begin);
    GO_ASSIGN_OR_RETURN(sample.gemm, BusyRatio(core_sets, Probe::kGemm, options.repetitions));
    GO_ASSIGN_OR_RETURN(sample.stream, BusyRatio(core_sets, Probe::kStream, options.repetitions));
    if (options.read) {
      GO_ASSIGN_OR_RETURN(sample.read, RemoteReadRatio(core_sets, options.repetitions));
    }
    samples.push_back(sample);
  }
  return samples;
}

StatusOr<Contention> MeasureContention(const std::vector<std::vector<int>>& core_sets, int samples) {
  ConcurrencyOptions options;
  options.samples = samples;
  options.pause_ms = 0;
  options.repetitions = 9;
  GO_ASSIGN_OR_RETURN(const std::vector<ConcurrencySample> measured, MeasureConcurrency(core_sets, options));
  std::vector<Contention> each;
  for (const ConcurrencySample& s : measured) {
    each.push_back({std::clamp(s.gemm, 1.0, kMaxSlowdown), std::clamp(s.stream, 1.0, kMaxSlowdown),
                    std::clamp(s.read, 1.0, kMaxSlowdown)});
  }
  return MedianContention(each);
}

}  // namespace graphopt
