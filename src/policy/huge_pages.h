// Large LibTorch tensors on transparent huge pages.
//
// On a graph of tens of thousands of ops a forward pass of the policy allocates a few
// hundred megabytes of fresh tensors, and the first touch of each 4-KiB page costs a
// page fault: 66,000 of them in GNMT-8's first zero-shot pass, about half of that
// pass's time on a virtual machine. With UseHugePagesForLargeTensors, LibTorch's CPU
// tensors of at least 2 MiB are allocated 2-MiB aligned, rounded up to whole 2-MiB
// pages and marked MADV_HUGEPAGE, so that where the kernel gives transparent huge
// pages on request (the "madvise" mode, Debian's default, or "always") one fault maps
// 2 MiB; smaller tensors are allocated as LibTorch allocates them (64-byte aligned).
// The advice is a hint: where the kernel does not take it, the tensors are ordinary
// memory. Values are untouched, so results do not change.
//
//   UseHugePagesForLargeTensors();  // once per process; later calls do nothing
#pragma once

#include <cstddef>

namespace graphopt {

// Tensors of at least this many bytes go on huge pages.
inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Installs the allocator as LibTorch's CPU allocator (thread-safe, idempotent).
void UseHugePagesForLargeTensors();

}  // namespace graphopt
