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

}  // namespace graphopt
