// `graphopt export --to device-map` and the --granularity flag of the planning commands.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_util.h"
#include "core/files.h"

namespace graphopt {
namespace {

using testing::CliRun;
using testing::Data;
using testing::Graphopt;
using testing::TempPath;

const std::string kBert = "onnx/bert_encoder.onnx";

TEST(ExportTest, AModulePlanIsWrittenAsADeviceMapWithItsOrder) {
  const std::string plan = TempPath("bert_balanced.json"), map = TempPath("bert_map.json");
  CliRun b = Graphopt("baseline " + Data(kBert) + " --cluster 4xV100 --granularity module --method module-balanced --out " +
                      plan);
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_NE(b.output.find("modules  12 at depth 1"), std::string::npos) << b.output;
  CliRun e = Graphopt("export " + Data(kBert) + " --cluster 4xV100 --plan " + plan + " --to device-map --out " + map);
  ASSERT_EQ(e.exit_code, 0) << e.output;
  const nlohmann::json j = nlohmann::json::parse(*ReadFile(map));
  EXPECT_EQ(j["depth"], 1);
  ASSERT_EQ(j["device_map"].size(), 12u);
  EXPECT_EQ(j["device_map"]["layers.0"], 0);
  EXPECT_EQ(j["device_map"]["layers.11"], 3);
  ASSERT_EQ(j["order"].size(), 12u);
  EXPECT_EQ(j["order"][0], "layers.0");
  std::remove(plan.c_str());
  std::remove(map.c_str());
}

TEST(ExportTest, APlanThatSplitsModulesIsRefusedNamingOne) {
  const std::string plan = TempPath("bert_expert.json");
  ASSERT_EQ(Graphopt("baseline " + Data(kBert) + " --cluster 4xV100 --method expert --out " + plan).exit_code, 0);
  CliRun e = Graphopt("export " + Data(kBert) + " --cluster 4xV100 --plan " + plan + " --to device-map");
  EXPECT_NE(e.exit_code, 0);
  EXPECT_NE(e.output.find("the plan splits module layers."), std::string::npos) << e.output;
  EXPECT_NE(e.output.find("--granularity module"), std::string::npos) << e.output;
  std::remove(plan.c_str());
}

TEST(ExportTest, BadFlagsAreErrors) {
  EXPECT_NE(Graphopt("export " + Data(kBert) + " --plan p.json --to onnx").output.find("expected device-map"),
            std::string::npos);
  EXPECT_NE(Graphopt("export " + Data(kBert) + " --to device-map").output.find("--plan is required"), std::string::npos);
  CliRun g = Graphopt("baseline " + Data(kBert) + " --method single --granularity layer");
  EXPECT_NE(g.output.find("--granularity: expected op or module, got 'layer'"), std::string::npos) << g.output;
  CliRun d = Graphopt("run gnmt:layers=2 --depth 2");
  EXPECT_NE(d.output.find("--depth goes with --granularity module"), std::string::npos) << d.output;
  CliRun deep = Graphopt("optimize " + Data(kBert) + " --granularity module --depth 9 --steps 1 --time-limit 0");
  EXPECT_NE(deep.output.find("module depth 9"), std::string::npos) << deep.output;
  // One range of depths for every front end (sim/device_map.h ApplyGranularity).
  CliRun far = Graphopt("baseline " + Data(kBert) + " --method single --granularity module --depth 65");
  EXPECT_NE(far.output.find("--depth: 65 is out of range [0, 64]"), std::string::npos) << far.output;
  CliRun op = Graphopt("baseline " + Data(kBert) + " --method single --granularity op --depth 2");
  EXPECT_NE(op.output.find("--depth goes with granularity module"), std::string::npos) << op.output;
}

}  // namespace
}  // namespace graphopt
