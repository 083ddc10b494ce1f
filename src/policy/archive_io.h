// LibTorch archives (policies, optimizer states) on disk: one atomic save and one
// load for every .pt file graphopt writes, with errors that name the file and carry
// no LibTorch backtrace.
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace graphopt {

// Writes `archive` to path.tmp.<pid>, then renames it to `path` (a reader never sees
// a half-written file; the temporary is removed on failure).
Status SaveArchiveAtomic(torch::serialize::OutputArchive& archive, const std::string& path);

// Reads `path` into *archive: NotFound if it does not exist, ParseError naming it if
// it is not a readable archive (truncated, another kind of file).
Status LoadArchive(const std::string& path, torch::serialize::InputArchive* archive);

// Writes the named tensors to `path` atomically (SaveArchiveAtomic).
Status SaveTensors(const std::string& path, const std::vector<std::pair<const char*, torch::Tensor>>& tensors);

// Reads tensor `key` of `archive` (read from `path`) into *tensor, checked to be float,
// of `shape` and finite; a missing one is an error if `required`, else left undefined.
Status ReadTensor(torch::serialize::InputArchive& archive, const std::string& path, const char* key,
                  const std::vector<int64_t>& shape, bool required, torch::Tensor* tensor);

}  // namespace graphopt
