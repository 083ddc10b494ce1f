// A plan as a {module: device} map (sim/device_map.h).
#include "sim/device_map.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../testing/graphs.h"

namespace graphopt {
namespace {

// Every op on gpu:0 but module enc.l1 (ops 4, 5, 9) on gpu:1.
Plan TwoDevicePlan(const Graph& g) {
  Plan plan = DefaultPlan(g, 0);
  for (OpId o : {4, 5, 9}) plan.device[static_cast<size_t>(o)] = 1;
  return plan;
}

TEST(DeviceMapTest, EachModuleHasTheDeviceOfItsOps) {
  const Graph g = testing::ModuleNamedGraph();
  const ModuleMap modules = *ModulesAtDepth(g, 2);
  auto map = PlanDeviceMap(g, TwoDevicePlan(g), modules);
  ASSERT_TRUE(map.ok()) << map.status().message();
  EXPECT_EQ(map->modules, (std::vector<std::string>{"enc.l0", "enc.l1", "enc.scale", "dec"}));
  EXPECT_EQ(map->device, (std::vector<DeviceId>{0, 1, 0, 0}));
}

TEST(DeviceMapTest, APlanThatSplitsAModuleIsRefusedNamingIt) {
  const Graph g = testing::ModuleNamedGraph();
  Plan plan = TwoDevicePlan(g);
  plan.device[9] = 0;  // the gradient away from its module
  auto map = PlanDeviceMap(g, plan, *ModulesAtDepth(g, 2));
  ASSERT_FALSE(map.ok());
  EXPECT_NE(map.status().message().find("splits module enc.l1 (depth 2)"), std::string::npos) << map.status().message();
  EXPECT_NE(map.status().message().find("grad//enc/l1/MatMul/in0"), std::string::npos) << map.status().message();
}

TEST(DeviceMapTest, DevicesAreNamedAsAccelerateNamesThem) {
  const Cluster cluster = *LoadCluster("2xV100");  // gpu:0, gpu:1, cpu:0
  EXPECT_EQ(DeviceMapValue(cluster, 0), "0");
  EXPECT_EQ(DeviceMapValue(cluster, 1), "1");
  EXPECT_EQ(DeviceMapValue(cluster, cluster.FindDevice("cpu:0")), "cpu");
  const Graph g = testing::ModuleNamedGraph();
  DeviceMap map = *PlanDeviceMap(g, TwoDevicePlan(g), *ModulesAtDepth(g, 2));
  map.device[2] = cluster.FindDevice("cpu:0");
  const nlohmann::json j = nlohmann::json::parse(DeviceMapJson(map, g, cluster));
  EXPECT_EQ(j["format"], "graphopt-device-map");
  EXPECT_EQ(j["depth"], 2);
  EXPECT_EQ(j["device_map"]["enc.l0"], 0);
  EXPECT_EQ(j["device_map"]["enc.l1"], 1);
  EXPECT_EQ(j["device_map"]["enc.scale"], "cpu");
}

TEST(DeviceMapTest, TheOrderIsThatOfEachModulesFirstComputingForwardKernel) {
  const Graph g = testing::ModuleNamedGraph();
  const ModuleMap modules = *ModulesAtDepth(g, 2);
  DeviceMap map = *PlanDeviceMap(g, TwoDevicePlan(g), modules);
  auto kernel = [](OpId op, double start) {
    TimelineEvent e;
    e.op = op;
    e.start_us = start;
    return e;
  };
  // Sources (the parameters) and gradients do not count; enc.scale and dec have no
  // kernel left, and keep their order.
  SetExecutionOrder(g, modules, {kernel(1, 0), kernel(4, 0), kernel(9, 1), kernel(5, 2), kernel(2, 7)}, &map);
  EXPECT_EQ(map.order, (std::vector<std::string>{"enc.l1", "enc.l0", "enc.scale", "dec"}));
}

}  // namespace
}  // namespace graphopt
