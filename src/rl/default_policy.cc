#include "rl/default_policy.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace graphopt {

StatusOr<DefaultPolicy> FindDefaultPolicy(const std::string& checkout) {
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
  if (checkout.empty()) return DefaultPolicy{"", "none shipped"};
  const fs::path shipped = fs::path(checkout) / "policies" / "default.pt";
  if (!fs::is_regular_file(shipped, ec)) return DefaultPolicy{"", "none shipped"};
  return DefaultPolicy{shipped.lexically_normal().string(), "shipped"};
}

std::string ProgramCheckout() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return exe.parent_path().parent_path().string();
}

}  // namespace graphopt
