// The pre-trained policy a search starts from (rl/default_policy.h): the one rule the
// command and the Python module share.
#include "rl/default_policy.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "../testing/scratch_dir.h"
#include "../testing/status.h"

namespace graphopt {
namespace {

using testing::ExpectErrorWith;
using testing::ScratchDir;

// Sets GRAPHOPT_POLICY (unset for nullptr) for one scope, restoring it after.
class PolicyEnv {
 public:
  explicit PolicyEnv(const char* value) {
    if (const char* old = std::getenv("GRAPHOPT_POLICY")) old_ = old;
    value ? ::setenv("GRAPHOPT_POLICY", value, 1) : ::unsetenv("GRAPHOPT_POLICY");
  }
  ~PolicyEnv() { old_ ? ::setenv("GRAPHOPT_POLICY", old_->c_str(), 1) : ::unsetenv("GRAPHOPT_POLICY"); }

 private:
  std::optional<std::string> old_;
};

// A checkout with policies/default.pt.
std::string Checkout(const ScratchDir& scratch) {
  std::filesystem::create_directories(scratch.Path("policies"));
  std::ofstream(scratch.Path("policies/default.pt")) << "x";
  return scratch.path();
}

TEST(DefaultPolicyTest, AGivenPolicyWinsAndNoneMeansANewOne) {
  const ScratchDir scratch("given");
  const PolicyEnv env(nullptr);
  auto given = ChoosePretrained(std::string("p.pt"), "--pretrained", "go", true, false, Checkout(scratch));
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->path, "p.pt");
  auto none = ChoosePretrained(std::string("none"), "pretrained=", "go", true, false, Checkout(scratch));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->path, "");
  EXPECT_EQ(none->origin, "pretrained= none");
}

TEST(DefaultPolicyTest, TheShippedPolicyOnlyForGoWithoutItsOwnNetwork) {
  const ScratchDir scratch("shipped");
  const std::string checkout = Checkout(scratch);
  const PolicyEnv env(nullptr);
  auto shipped = ChoosePretrained(std::nullopt, "--pretrained", "go", true, false, checkout);
  ASSERT_TRUE(shipped.ok());
  EXPECT_EQ(shipped->path, scratch.Path("policies/default.pt"));
  EXPECT_EQ(shipped->origin, "the shipped default; --pretrained none trains a new policy");
  auto hdp = ChoosePretrained(std::nullopt, "--pretrained", "hdp", false, false, checkout);
  ASSERT_TRUE(hdp.ok());
  EXPECT_EQ(hdp->path, "");
  EXPECT_EQ(hdp->origin, "hdp does not plan with GO's policy");
  auto own = ChoosePretrained(std::nullopt, "--pretrained", "go", true, true, checkout);
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own->path, "");
  const ScratchDir bare("bare");
  auto unshipped = ChoosePretrained(std::nullopt, "--pretrained", "go", true, false, bare.path());
  ASSERT_TRUE(unshipped.ok());
  EXPECT_EQ(unshipped->path, "");
  EXPECT_EQ(unshipped->origin, "no default policy: none shipped");
}

TEST(DefaultPolicyTest, TheEnvironmentNamesThePolicyOrNone) {
  const ScratchDir scratch("env");
  const std::string checkout = Checkout(scratch);
  {
    const PolicyEnv env("none");
    auto r = ChoosePretrained(std::nullopt, "--pretrained", "go", true, false, checkout);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->path, "");
  }
  {
    const PolicyEnv env(scratch.Path("policies/default.pt").c_str());
    auto r = ChoosePretrained(std::nullopt, "--pretrained", "go", true, false, "");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->path, scratch.Path("policies/default.pt"));
    EXPECT_EQ(r->origin, "GRAPHOPT_POLICY");
  }
  {
    const PolicyEnv env("/no/such/policy.pt");
    ExpectErrorWith(ChoosePretrained(std::nullopt, "--pretrained", "go", true, false, checkout).status(),
                    "GRAPHOPT_POLICY names /no/such/policy.pt, which is not a file");
    // Not looked up where it would not be used.
    EXPECT_TRUE(ChoosePretrained(std::nullopt, "--pretrained", "go", true, true, checkout).ok());
    EXPECT_TRUE(ChoosePretrained(std::string("p.pt"), "--pretrained", "go", true, false, checkout).ok());
  }
}

}  // namespace
}  // namespace graphopt
