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
// Checks, before long work starts, that WriteFileAtomic(path, ...) can succeed: the
// directory exists and a file can be created in it (tried, then removed), and path
// is not a directory. The error names `what` (e.g. "--out") and the path.
Status CheckOutputWritable(const std::string& path, const std::string& what);
bool FileExists(const std::string& path);
// Whether `path` is a directory (following symbolic links).
bool IsDirectory(const std::string& path);
// Lower-cased extension without the dot ("onnx" for "a/b.ONNX"), "" if none.
std::string FileExtension(const std::string& path);
// The name after the last '/' ("b.onnx" for "a/b.onnx").
std::string FileName(const std::string& path);
// The name without its folder and extension ("b" for "a/b.onnx"; ".hidden" stays).
std::string FileStem(const std::string& path);

}  // namespace graphopt
