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

StatusOr<DefaultPolicy> ChoosePretrained(const std::optional<std::string>& given, const std::string& flag,
                                         const std::string& method, bool go_policy, bool own_network,
                                         const std::string& checkout) {
  if (given) {
    if (*given == "none" || given->empty()) return DefaultPolicy{"", flag + " none"};
    return DefaultPolicy{*given, flag};
  }
  if (!go_policy) return DefaultPolicy{"", method + " does not plan with GO's policy"};
  if (own_network) return DefaultPolicy{"", "network options or tasks given, so not the default pre-trained policy"};
  GO_ASSIGN_OR_RETURN(DefaultPolicy found, FindDefaultPolicy(checkout));
  if (found.path.empty()) return DefaultPolicy{"", "no default policy: " + found.origin};
  if (found.origin == "shipped") found.origin = "the shipped default; " + flag + " none trains a new policy";
  return found;
}

std::string ProgramCheckout() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return exe.parent_path().parent_path().string();
}

}  // namespace graphopt
