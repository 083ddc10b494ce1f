#include "policy/huge_pages.h"

#include <gtest/gtest.h>
#include <c10/core/CPUAllocator.h>
#include <torch/torch.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace graphopt {
namespace {

// The VmFlags line of the mapping of /proc/self/smaps that holds address p ("" if none).
std::string VmFlagsOf(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= a && a < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

TEST(HugePagesTest, LargeTensorsGoOnHugePagesWithTheSameValues) {
  torch::manual_seed(3);
  const torch::Tensor a = torch::randn({700, 900}), b = torch::randn({700, 900});
  const torch::Tensor before = torch::tanh(a * b + 1);
  UseHugePagesForLargeTensors();
  UseHugePagesForLargeTensors();  // a second call changes nothing
  const torch::Tensor after = torch::tanh(a.clone() * b.clone() + 1);
  EXPECT_TRUE(torch::equal(before, after));
  // 700 x 900 floats are 2.5 MB: 2-MiB aligned; a small tensor 64-byte aligned.
  ASSERT_GE(static_cast<size_t>(after.nbytes()), kHugePageBytes);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(after.data_ptr()) % kHugePageBytes, 0u);
  const torch::Tensor small = torch::ones({10});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data_ptr()) % 64, 0u);
  EXPECT_EQ(small.sum().item<float>(), 10.0f);
  EXPECT_EQ(torch::zeros({0}).numel(), 0);
  // The raw interface allocates and frees with the same deleter.
  c10::Allocator* allocator = c10::GetCPUAllocator();
  ASSERT_NE(allocator->raw_deleter(), nullptr);
  void* raw = allocator->raw_allocate(3 * kHugePageBytes);
  ASSERT_NE(raw, nullptr);
  static_cast<char*>(raw)[3 * kHugePageBytes - 1] = 1;
  allocator->raw_deallocate(raw);
  // Where the kernel has transparent huge pages, the large tensor's memory carries the
  // advice ("hg" in its mapping's flags).
  if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good()) {
    const std::string flags = VmFlagsOf(after.data_ptr());
    EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
  }
}

}  // namespace
}  // namespace graphopt
