#include "exec/pin.h"

#include <ATen/Parallel.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <exception>
#include <string>
#include <thread>

namespace graphopt {

Status PinThisThread(const std::vector<int>& cores) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cores) {
    if (c < 0 || c >= CPU_SETSIZE) return InvalidArgument("core " + std::to_string(c) + " is out of range");
    CPU_SET(c, &set);
  }
  const int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  if (rc != 0) return InternalError(std::string("cannot pin a thread to its cores: ") + std::strerror(rc));
  // ATen gives a thread, on its first parallel op, the process-wide count of intra-op
  // threads (at::set_num_threads, which training sets to every core): let it do so
  // now, then give this thread its own.
  at::internal::lazy_init_num_threads();
  omp_set_num_threads(static_cast<int>(cores.size()));
  return Status::Ok();
}

Status RunPinned(const std::vector<int>& cores, const std::string& what, const std::function<Status()>& body) {
  Status status = Status::Ok();
  std::thread worker([&] {
    status = PinThisThread(cores);
    if (!status.ok()) return;
    try {
      status = body();
    } catch (const std::exception& e) {
      status = InternalError(e.what());
    }
  });
  worker.join();
  return status.WithContext(what);
}

}  // namespace graphopt
