#include "exec/local_cluster.h"

#include <ATen/ATen.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

#include "core/logging.h"
#include "core/median.h"
#include "core/strings.h"
#include "core/timing.h"
#include "exec/concurrency.h"
#include "exec/pin.h"

namespace graphopt {
namespace {

// Measurement sizes: small enough that measuring two devices takes well under two
// seconds, large enough to leave the caches (memory bandwidth) and to time reliably.
constexpr int64_t kGemmStart = 512;       // matrix side of the FLOP/s measurement
constexpr int64_t kGemmMax = 2048;        // grown up to this while one product is too quick to time
constexpr double kGemmMinSeconds = 2e-3;  // ... that is, quicker than this
constexpr int kGemmRepetitions = 5;
constexpr int64_t kStreamBytes = int64_t{64} << 20;  // each of the two tensors of the bandwidth copy
constexpr int kStreamRepetitions = 3;
constexpr int kLaunchWarmup = 20;
constexpr int kLaunchRepetitions = 200;
constexpr int64_t kCopyMinBytes = int64_t{4} << 10;   // link fit: 4 KiB, 16 KiB, ... 16 MiB
constexpr int64_t kCopyMaxBytes = int64_t{16} << 20;
constexpr int kLongestDigits = 9;  // of N in local:N (no overflow; far beyond kMaxDevices)

using Clock = SteadyClock;

// N of "local:N", 0 for "local"; an error naming `name` otherwise.
StatusOr<int> ParseLocalName(const std::string& name) {
  if (name == "local") return 0;
  const std::string usage = name + ": not a local cluster (local, or local:N with N a whole number from 1)";
  if (!StartsWith(name, "local:")) return InvalidArgument(usage);
  const std::string digits = name.substr(6);
  if (digits.empty() || digits.size() > static_cast<size_t>(kLongestDigits) || digits[0] == '0') return InvalidArgument(usage);
  for (char c : digits) {
    if (c < '0' || c > '9') return InvalidArgument(usage);
  }
  return std::stoi(digits);
}

// The cores this process may run on (its main thread's affinity), in increasing order.
StatusOr<std::vector<int>> AllowedCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(getpid(), sizeof(set), &set) != 0) return InternalError("cannot read the cores this process may run on (sched_getaffinity)");
  std::vector<int> cores;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cores.push_back(c);
  }
  if (cores.empty()) return InternalError("this process may run on no core (sched_getaffinity)");
  return cores;
}

// "0", "0-1", "0-3,8": a core list as ranges of consecutive numbers.
std::string CoreRanges(const std::vector<int>& cores) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < cores.size();) {
    size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    parts.push_back(j == i ? std::to_string(cores[i]) : std::to_string(cores[i]) + "-" + std::to_string(cores[j]));
    i = j + 1;
  }
  return Join(parts, ",");
}

// MemAvailable of /proc/meminfo in bytes (free physical memory where it is missing).
int64_t AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    int64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:" && kib > 0) return kib * 1024;
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : int64_t{1} << 30;
}

// The figures of one device, measured on its cores.
struct Measured {
  double peak_flops = 0;          // FLOP/s
  double memory_bandwidth = 0;    // bytes read + written per second
  double launch_overhead_us = 0;  // median time of a tiny op
  Link link;                      // copies out of this device
};

// FLOP/s of a float GEMM (2 n^3 FLOPs): the best of a few after a warm-up, the side
// grown from 512 while one product takes under 2 ms (many threads per device).
double MeasurePeakFlops() {
  int64_t n = kGemmStart;
  at::Tensor a, b, c;
  for (;;) {
    a = at::full({n, n}, 0.5f);
    b = at::full({n, n}, 0.25f);
    c = at::empty({n, n});
    const double warm = TimeOnce([&] { at::mm_out(c, a, b); });
    if (warm >= kGemmMinSeconds || n >= kGemmMax) break;
    n *= 2;
  }
  double best = 1e30;
  for (int r = 0; r < kGemmRepetitions; ++r) best = std::min(best, TimeOnce([&] { at::mm_out(c, a, b); }));
  return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / best;
}

// Bytes read and written per second by a copy between two 64 MiB tensors (larger than
// the last-level cache of most machines), the best of a few.
double MeasureMemoryBandwidth() {
  const int64_t elements = kStreamBytes / static_cast<int64_t>(sizeof(float));
  at::Tensor src = at::full({elements}, 1.0f);  // written once: the pages exist before timing
  at::Tensor dst = at::zeros({elements});
  double best = 1e30;
  for (int r = 0; r < kStreamRepetitions; ++r) best = std::min(best, TimeOnce([&] { dst.copy_(src); }));
  return 2.0 * static_cast<double>(kStreamBytes) / best;
}

// Median time of a tiny op (an add of two 1-element tensors, its output allocated as
// every op's is), in microseconds: what every kernel costs beyond its work.
double MeasureLaunchOverheadUs() {
  const at::Tensor a = at::ones({1}), b = at::ones({1});
  for (int r = 0; r < kLaunchWarmup; ++r) at::add(a, b);
  std::vector<double> times;
  times.reserve(kLaunchRepetitions);
  for (int r = 0; r < kLaunchRepetitions; ++r) times.push_back(TimeOnce([&] { at::add(a, b); }));
  return Median(std::move(times)) * 1e6;
}

// A thread on the receiving device's cores that reads a tensor whenever asked, while
// the asking thread waits by polling (as the executor's idle workers do: a core that
// sleeps and wakes is slower for a while after, in this virtual machine).
class Reader {
 public:
  Reader(const std::vector<int>& cores, at::Tensor tensor) : tensor_(std::move(tensor)) {
    thread_ = std::thread([this, cores] {
      status_ = PinThisThread(cores);
      for (;;) {
        int seen;
        while ((seen = request_.load(std::memory_order_acquire)) == done_.load(std::memory_order_relaxed)) {
          __builtin_ia32_pause();
        }
        if (seen < 0) return;
        if (status_.ok()) {
          try {
            sum_ += tensor_.sum().item<float>();
          } catch (const std::exception& e) {
            status_ = InternalError(std::string("reading a copy on the receiver's cores: ") + e.what());
          }
        }
        done_.store(seen, std::memory_order_release);
      }
    });
  }
  ~Reader() {
    request_.store(-1, std::memory_order_release);
    thread_.join();
  }
  // Reads the whole tensor on the receiver's cores; returns when done.
  void Read() {
    const int next = request_.load(std::memory_order_relaxed) + 1;
    request_.store(next, std::memory_order_release);
    while (done_.load(std::memory_order_acquire) != next) __builtin_ia32_pause();
  }
  const Status& status() const { return status_; }

 private:
  at::Tensor tensor_;
  std::atomic<int> request_{0}, done_{0};
  Status status_;
  double sum_ = 0;
  std::thread thread_;
};

// The link of copies out of this device, as the executor makes them in a step: the
// sender copies a tensor it has just produced (written again before each copy) into a
// buffer made before the step, which the receiving device (`receiver`'s cores) read
// after the copy before it (docs/experiments/2026-12-06-local-concurrency.md, "The
// copies as a step makes them": copies of a buffer the receiver last read take 1.5-5x
// those of a buffer in the sender's own cache). The median time of copies of 4 KiB ..
// 16 MiB (x4 each step), fitted by time = latency + bytes / bandwidth. The least squares
// are of the relative error (each point weighted by 1 / time^2), so that the 4 KiB
// copies decide the latency as much as the 16 MiB ones the bandwidth; a negative
// latency is clamped to 0 (and the bandwidth refitted through the origin).
StatusOr<Link> MeasureCopyLink(const std::vector<int>& receiver) {
  const int64_t max_elements = kCopyMaxBytes / static_cast<int64_t>(sizeof(float));
  at::Tensor src = at::full({max_elements}, 1.0f);
  at::Tensor dst = at::zeros({max_elements});
  double s = 0, sx = 0, st = 0, sxx = 0, sxt = 0;
  double largest_bytes = 0, largest_time = 0;
  for (int64_t bytes = kCopyMinBytes; bytes <= kCopyMaxBytes; bytes *= 4) {
    const int64_t elements = bytes / static_cast<int64_t>(sizeof(float));
    at::Tensor from = src.narrow(0, 0, elements), to = dst.narrow(0, 0, elements);
    Reader reader(receiver, to);
    const int repetitions = bytes < (int64_t{1} << 20) ? 15 : 5;
    std::vector<double> times;
    for (int r = 0; r <= repetitions; ++r) {  // the first: a warm-up
      reader.Read();
      from.fill_(static_cast<float>(r));  // as just produced: in the sender's cache, modified
      const double t = TimeOnce([&] { to.copy_(from); });
      if (r > 0) times.push_back(t);
    }
    GO_RETURN_IF_ERROR(reader.status());
    const double t = std::max(Median(std::move(times)), 1e-9), x = static_cast<double>(bytes);
    const double w = 1.0 / (t * t);
    s += w;
    sx += w * x;
    st += w * t;
    sxx += w * x * x;
    sxt += w * x * t;
    largest_bytes = x;
    largest_time = t;
  }
  double slope = (s * sxt - sx * st) / (s * sxx - sx * sx);  // seconds per byte
  double latency = (st - slope * sx) / s;
  if (!(latency >= 0)) {
    latency = 0;
    slope = sxt / sxx;
  }
  if (!(slope > 0)) slope = largest_time / largest_bytes;  // a flat fit: the largest copy alone
  return Link{1.0 / slope, latency * 1e6};
}

// Measures one device on its cores: a thread pinned to them runs the measurements, so
// ATen's intra-op threads (as many as at::get_num_threads(), OMP_NUM_THREADS, as the
// executor's workers have) run there too.
StatusOr<Measured> MeasureOnCores(const std::vector<int>& cores, const std::vector<int>* receiver) {
  Measured m;
  GO_RETURN_IF_ERROR(RunPinned(cores, "measuring cores " + CoreRanges(cores), [&]() -> Status {
    m.peak_flops = MeasurePeakFlops();
    m.memory_bandwidth = MeasureMemoryBandwidth();
    m.launch_overhead_us = MeasureLaunchOverheadUs();
    if (receiver != nullptr) {
      GO_ASSIGN_OR_RETURN(m.link, MeasureCopyLink(*receiver));
    }
    return Status::Ok();
  }));
  return m;
}

}  // namespace

double ReferenceGemmUs(const std::vector<int>& cores) {
  double median = -1;
  const Status run = RunPinned(cores, "reference GEMM", [&]() -> Status {
    const at::Tensor a = at::rand({512, 512}), b = at::rand({512, 512});
    at::Tensor c = at::mm(a, b);
    std::vector<double> times;
    for (int i = 0; i < 5; ++i) times.push_back(TimeOnce([&] { c = at::mm(a, b); }) * 1e6);
    median = Median(std::move(times));
    return Status::Ok();
  });
  return run.ok() ? median : -1;
}

namespace {

// Measures `name` (N devices, 0 = one per core) on this machine.
StatusOr<Cluster> MeasureLocalCluster(const std::string& name, int num_devices) {
  const Clock::time_point start = Clock::now();
  GO_ASSIGN_OR_RETURN(std::vector<std::vector<int>> sets, LocalCoreSets(num_devices));
  const int n = static_cast<int>(sets.size());
  const int64_t memory = std::max<int64_t>(AvailableMemoryBytes() / n, 1);
  std::vector<Device> devices;
  std::vector<Link> links;
  for (int i = 0; i < n; ++i) {
    const std::vector<int>& cores = sets[static_cast<size_t>(i)];
    // Copies out of device i are measured into device i + 1 (every link out of i gets
    // those figures).
    const std::vector<int>* receiver = n > 1 ? &sets[static_cast<size_t>((i + 1) % n)] : nullptr;
    GO_ASSIGN_OR_RETURN(Measured m, MeasureOnCores(cores, receiver));
    Device d;
    d.name = "cpu:" + std::to_string(i);
    d.kind = DeviceKind::kCpu;
    d.model = std::string(cores.size() == 1 ? "local core " : "local cores ") + CoreRanges(cores);
    d.peak_flops = m.peak_flops;
    d.memory_bandwidth = m.memory_bandwidth;
    d.memory_bytes = memory;
    d.launch_overhead_us = m.launch_overhead_us;
    d.copies_on_stream = true;  // the sender's worker makes the copy (exec/executor.h)
    devices.push_back(std::move(d));
    links.push_back(m.link);
  }
  Cluster cluster(name, std::move(devices));
  if (n > 1) {
    // Link (i, j) is a copy made by i: i's figures. Each device's out port runs at its
    // links' bandwidth, its in port at the fastest link into it, so a path is as fast
    // as its sender and the ports only make copies out of (into) a device one at a time.
    std::vector<int32_t> out, in;
    for (DeviceId i = 0; i < n; ++i) {
      double into = 0;
      for (DeviceId j = 0; j < n; ++j) {
        if (j != i) into = std::max(into, links[static_cast<size_t>(j)].bandwidth);
      }
      out.push_back(cluster.AddPort(cluster.device(i).name + " out", links[static_cast<size_t>(i)].bandwidth));
      in.push_back(cluster.AddPort(cluster.device(i).name + " in", into));
    }
    for (DeviceId i = 0; i < n; ++i) {
      for (DeviceId j = 0; j < n; ++j) {
        if (i == j) continue;
        cluster.SetLink(i, j, links[static_cast<size_t>(i)]);
        cluster.SetLinkPorts(i, j, {out[static_cast<size_t>(i)], in[static_cast<size_t>(j)]});
      }
    }
    // What the devices take from each other while they all run (sim/simulator.h,
    // "Shared machine").
    GO_ASSIGN_OR_RETURN(const Contention contention, MeasureContention(sets));
    cluster.set_contention(contention);
  }
  GO_RETURN_IF_ERROR(cluster.Validate().WithContext(name + " (measured on this machine)"));
  Log(LogLevel::kDebug, StrFormat("%s measured in %.2f s: %s", name.c_str(), SecondsSince(start), cluster.Summary().c_str()));
  // The figures as a cluster file gives them back (peak_tflops x 1e12 is not always
  // the measured FLOP/s to the last bit), so that a profile that stores this cluster
  // reloads to the same figures and plans the same.
  return ClusterFromJson(ClusterToJson(cluster), name + " (measured on this machine)");
}

}  // namespace

bool IsLocalClusterName(const std::string& name) { return ParseLocalName(name).ok(); }

StatusOr<std::vector<std::vector<int>>> LocalCoreSets(int num_devices) {
  GO_ASSIGN_OR_RETURN(std::vector<int> cores, AllowedCores());
  const int num_cores = static_cast<int>(cores.size());
  const std::string name = num_devices == 0 ? std::string("local") : "local:" + std::to_string(num_devices);
  if (num_devices < 0) return InvalidArgument(name + ": the number of devices must be positive");
  if (num_devices > num_cores) {
    return InvalidArgument(StrFormat("%s: this machine has %d core%s", name.c_str(), num_cores, num_cores == 1 ? "" : "s"));
  }
  const int n = num_devices == 0 ? num_cores : num_devices;
  // Consecutive groups; the first num_cores % n have one core more.
  std::vector<std::vector<int>> sets(static_cast<size_t>(n));
  int next = 0;
  for (int i = 0; i < n; ++i) {
    const int size = num_cores / n + (i < num_cores % n ? 1 : 0);
    sets[static_cast<size_t>(i)].assign(cores.begin() + next, cores.begin() + next + size);
    next += size;
  }
  return sets;
}

StatusOr<std::vector<std::vector<int>>> LocalCoreSets(const std::string& name) {
  GO_ASSIGN_OR_RETURN(const int num_devices, ParseLocalName(name));
  return LocalCoreSets(num_devices);
}

size_t CoresPerDevice(const std::vector<std::vector<int>>& core_sets) {
  size_t cores = core_sets.empty() ? 0 : core_sets.front().size();
  for (const std::vector<int>& set : core_sets) cores = std::min(cores, set.size());
  return cores;
}

StatusOr<Cluster> LocalCluster(const std::string& name) {
  GO_ASSIGN_OR_RETURN(int num_devices, ParseLocalName(name));
  static std::mutex mutex;
  static auto* measured = new std::map<std::string, Cluster>();  // never destroyed: usable until exit
  std::lock_guard<std::mutex> lock(mutex);
  auto it = measured->find(name);
  if (it != measured->end()) return it->second;
  GO_ASSIGN_OR_RETURN(Cluster cluster, MeasureLocalCluster(name, num_devices));
  measured->emplace(name, cluster);
  return cluster;
}

}  // namespace graphopt
