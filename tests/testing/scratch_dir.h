// A folder of a test's own, removed when the test is done with it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>

namespace graphopt::testing {

// A fresh, empty folder under ::testing::TempDir() with a name no other ScratchDir of
// any process has (`name`, the process id and a counter); it and everything in it is
// removed (std::filesystem::remove_all) when the ScratchDir goes out of scope.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name = "scratch") {
    static std::atomic<int> counter{0};
    path_ = ::testing::TempDir();
    if (!path_.empty() && path_.back() != '/') path_ += '/';
    path_ += "graphopt_" + name + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    std::filesystem::create_directories(path_, ec);
    EXPECT_FALSE(ec) << "cannot create " << path_ << ": " << ec.message();
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // The folder, without a trailing '/'.
  const std::string& path() const { return path_; }
  // `name` inside the folder.
  std::string Path(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace graphopt::testing
