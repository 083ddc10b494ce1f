// Pinning (exec/pin.h): a pinned thread runs on its cores alone and its kernels on as
// many intra-op threads as it has cores, whatever the process-wide count is.
#include "exec/pin.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <stdexcept>
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

TEST(RunPinned, RunsOnTheCoresAndReturnsTheBodysStatusWithContext) {
  int cpus = -1;
  const Status ok = RunPinned({0}, "probe", [&]() -> Status {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) cpus = CPU_COUNT(&set);
    return Status::Ok();
  });
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(cpus, 1);
  const Status failed = RunPinned({0}, "probe", [] { return InvalidArgument("no such tensor"); });
  EXPECT_EQ(failed.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(failed.message(), "probe: no such tensor");
}

TEST(RunPinned, AnExceptionOrABadPinComesBackAsAnError) {
  const Status thrown = RunPinned({0}, "probe", []() -> Status { throw std::runtime_error("shape mismatch"); });
  EXPECT_EQ(thrown.code(), StatusCode::kInternal);
  EXPECT_EQ(thrown.message(), "probe: shape mismatch");
  bool ran = false;
  const Status bad = RunPinned({-1}, "probe", [&] {
    ran = true;
    return Status::Ok();
  });
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(ran);
  EXPECT_NE(bad.message().find("probe: core -1"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace graphopt
