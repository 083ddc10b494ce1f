#include "core/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace graphopt {

StatusOr<std::string> ReadFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return IoError(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return IoError(path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError(path + ": cannot open: " + std::strerror(errno));
  std::string data;
  data.resize(static_cast<size_t>(st.st_size));
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  if (static_cast<size_t>(in.gcount()) != data.size()) return IoError(path + ": read failed");
  return data;
}

Status WriteFileAtomic(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return IoError(path + ": cannot write: " + std::strerror(errno));
  const size_t n = std::fwrite(contents.data(), 1, contents.size(), f);
  const bool flushed = std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (n != contents.size() || !flushed || !closed) {
    std::remove(tmp.c_str());
    return IoError(path + ": write failed: " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    std::remove(tmp.c_str());
    return IoError(path + ": cannot rename into place: " + err);
  }
  return Status::Ok();
}

Status CheckOutputWritable(const std::string& path, const std::string& what) {
  if (path.empty()) return InvalidArgument(what + ": empty output path");
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return IoError(what + " " + path + ": is a directory, not a file");
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (stat(dir.c_str(), &st) != 0) return IoError(what + " " + path + ": directory " + dir + " does not exist");
  if (!S_ISDIR(st.st_mode)) return IoError(what + " " + path + ": " + dir + " is not a directory");
  // The same temporary name WriteFileAtomic uses, so the probe tests exactly what it needs.
  const std::string probe = path + ".tmp." + std::to_string(getpid());
  const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return IoError(what + " " + path + ": cannot write there: " + std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
  return Status::Ok();
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string FileExtension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

std::string FileName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string FileStem(const std::string& path) {
  std::string base = FileName(path);
  const size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  return base;
}

}  // namespace graphopt
