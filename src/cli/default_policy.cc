#include "cli/default_policy.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace graphopt {

StatusOr<DefaultPolicy> FindDefaultPolicy() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("GRAPHOPT_POLICY"); env != nullptr) {
    const std::string path = env;
    if (path.empty() || path == "none") return DefaultPolicy{"", "GRAPHOPT_POLICY=none"};
    if (!fs::is_regular_file(path, ec)) {
      return NotFound("GRAPHOPT_POLICY names " + path + ", which is not a file (a policy from graphopt pretrain, or none)");
    }
    return DefaultPolicy{path, "GRAPHOPT_POLICY"};
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return DefaultPolicy{"", "none shipped"};
  const fs::path shipped = exe.parent_path().parent_path() / "policies" / "default.pt";
  if (!fs::is_regular_file(shipped, ec)) return DefaultPolicy{"", "none shipped"};
  return DefaultPolicy{shipped.lexically_normal().string(), "shipped"};
}

}  // namespace graphopt
