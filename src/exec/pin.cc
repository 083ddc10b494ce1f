#include "exec/pin.h"

#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <string>

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
  return Status::Ok();
}

}  // namespace graphopt
