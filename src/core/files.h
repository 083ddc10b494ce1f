// File helpers: whole-file reads with errors that name the file, and atomic
// writes (write to a temporary beside the target, then rename) so a reader never
// sees a half-written result.
#pragma once

#include <string>

#include "core/status.h"

namespace graphopt {

StatusOr<std::string> ReadFile(const std::string& path);
// Writes contents to path atomically: path.tmp.<pid> then rename.
Status WriteFileAtomic(const std::string& path, const std::string& contents);
bool FileExists(const std::string& path);
// Lower-cased extension without the dot ("onnx" for "a/b.ONNX"), "" if none.
std::string FileExtension(const std::string& path);

}  // namespace graphopt
