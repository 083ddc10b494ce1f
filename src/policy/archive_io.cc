#include "policy/archive_io.h"

#include <unistd.h>

#include <cstdio>

#include "core/files.h"

namespace graphopt {

Status SaveArchiveAtomic(torch::serialize::OutputArchive& archive, const std::string& path) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  try {
    archive.save_to(tmp);
  } catch (const c10::Error& e) {
    std::remove(tmp.c_str());
    return IoError("cannot write " + path + ": " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    std::remove(tmp.c_str());
    return IoError("cannot write " + path + ": " + e.what());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return IoError("cannot write " + path + ": rename failed");
  }
  return Status::Ok();
}

Status LoadArchive(const std::string& path, torch::serialize::InputArchive* archive) {
  if (!FileExists(path)) return NotFound(path + " does not exist");
  try {
    archive->load_from(path);
  } catch (const c10::Error& e) {
    return ParseError(path + ": not a readable archive (truncated or damaged?): " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return ParseError(path + ": not a readable archive: " + e.what());
  }
  return Status::Ok();
}

Status SaveTensors(const std::string& path, const std::vector<std::pair<const char*, torch::Tensor>>& tensors) {
  torch::serialize::OutputArchive archive;
  try {
    for (const auto& [key, tensor] : tensors) archive.write(key, tensor);
  } catch (const c10::Error& e) {
    return IoError("cannot write " + path + ": " + e.what_without_backtrace());
  }
  return SaveArchiveAtomic(archive, path);
}

Status ReadTensor(torch::serialize::InputArchive& archive, const std::string& path, const char* key,
                  const std::vector<int64_t>& shape, bool required, torch::Tensor* tensor) {
  try {
    if (!archive.try_read(key, *tensor)) {
      if (!required) return Status::Ok();
      return ParseError(path + ": no tensor \"" + key + "\"");
    }
  } catch (const c10::Error& e) {
    return ParseError(path + ": " + key + ": " + e.what_without_backtrace());
  }
  if (tensor->scalar_type() != torch::kFloat || tensor->sizes() != c10::IntArrayRef(shape)) {
    return ParseError(path + ": " + key + " has shape " + c10::str(tensor->sizes()) + ", this graph and policy need " +
                      c10::str(c10::IntArrayRef(shape)) + " (float)");
  }
  if (!torch::isfinite(*tensor).all().item<bool>()) return ParseError(path + ": " + key + " is not finite");
  return Status::Ok();
}

}  // namespace graphopt
