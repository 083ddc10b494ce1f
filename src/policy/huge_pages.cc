#include "policy/huge_pages.h"

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>
#include <sys/mman.h>

#include <cstdlib>
#include <mutex>

namespace graphopt {
namespace {

// LibTorch's alignment of CPU tensors (c10::gAlignment).
constexpr size_t kSmallAlignment = 64;

void Free(void* p) { std::free(p); }

class HugePageCpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) const override {
    const c10::Device cpu(c10::DeviceType::CPU);
    if (n == 0) return {nullptr, nullptr, &Free, cpu};
    const bool huge = n >= kHugePageBytes;
    const size_t bytes = huge ? (n + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes : n;
    void* p = nullptr;
    if (posix_memalign(&p, huge ? kHugePageBytes : kSmallAlignment, bytes) != 0 || p == nullptr) {
      TORCH_CHECK(false, "CPU allocator: not enough memory: you tried to allocate ", n, " bytes");
    }
#ifdef MADV_HUGEPAGE
    if (huge) madvise(p, bytes, MADV_HUGEPAGE);  // a hint: its failure leaves ordinary pages
#endif
    return {p, p, &Free, cpu};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &Free; }
};

}  // namespace

void UseHugePagesForLargeTensors() {
  static std::once_flag once;
  // LibTorch keeps the pointer for the process's lifetime.
  std::call_once(once, [] { c10::SetCPUAllocator(new HugePageCpuAllocator(), /*priority=*/1); });
}

}  // namespace graphopt
