// Pinning (exec/pin.h): a pinned thread runs on its cores alone and its kernels on as
// many intra-op threads as it has cores, whatever the process-wide count is.
#include "exec/pin.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

namespace graphopt {
namespace {

TEST(PinThisThread, OneCoreOneIntraOpThreadWhateverTheProcessSet) {
  const int before = at::get_num_threads();
  at::set_num_threads(2);  // as a search training a policy on two cores does
  int threads = -1, cpus = -1;
  Status pinned = Status::Ok();
  std::thread worker([&] {
    pinned = PinThisThread({0});
    threads = at::get_num_threads();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) cpus = CPU_COUNT(&set);
  });
  worker.join();
  at::set_num_threads(before);
  ASSERT_TRUE(pinned.ok()) << pinned.message();
  EXPECT_EQ(threads, 1);
  EXPECT_EQ(cpus, 1);
}

TEST(PinThisThread, CoresOutOfRangeAreRefused) {
  Status s = Status::Ok();
  std::thread worker([&] { s = PinThisThread({-1}); });
  worker.join();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("core -1"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace graphopt
