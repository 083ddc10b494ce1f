// The option tables of the learned methods' configs (core/options.h): their
// canonical strings (the identity checkpoints carry), round trips, ranges, and the
// routing of the search driver's option string.
#include <gtest/gtest.h>

#include <variant>
#include <set>
#include <string>

#include "../testing/policies.h"
#include "policy/go_policy_config.h"
#include "rl/colocrl_config.h"
#include "rl/hdp_config.h"
#include "rl/learned_search.h"
#include "rl/ppo_config.h"

namespace graphopt {
namespace {

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The default strings are those written before the option tables existed, so
// saved policies and checkpoints keep their identity; device_index_key and
// unit_plan_device came later (policies saved without them load with them off:
// GoPolicyConfig::FromSavedString), and layer_units (0 unless given; 2 in a new
// network) and unit_stage (off unless given). PPO's
// unit_bias and unit_bias_lr came later too: a search or pre-training checkpoint
// saved before them is refused as another config's (the policy files are not: they
// carry the network's config alone). ColocRL's and HDP's tasks came later too: their
// checkpoints saved before it are refused the same way.
TEST(ConfigOptionsTest, DefaultStringsAreUnchanged) {
  EXPECT_EQ(GoPolicyConfig{}.ToString(),
            "hidden=64,sage_layers=2,attention_layers=2,heads=4,segment=64,memory=64,ff_multiplier=2,"
            "relative_buckets=32,detach_memory=0,superposition=1,task_feedback=1,feedback_attention=0,"
            "priority_levels=8,level_prior=5,head_hidden=16,unit_tasks=1,device_index_key=1,unit_plan_device=1,"
            "unit_stage=0,layer_units=2,tasks=placement+scheduling+fusion,seed=1");
  EXPECT_EQ(PpoConfig{}.ToString(),
            "samples=32,epochs=1,clip=0.2,lr=0.001,entropy=0.01,entropy_decay=0.98,entropy_min=0.001,"
            "baseline_decay=0.8,normalize_advantages=1,oom_penalty=2,temperature=1,max_grad_norm=1,include_best=1,"
            "critical_path_priorities=1,warm_start_level=0,warm_start_steps=300,warm_start_target=0.97,frozen_trunk=1,head_lr=0.01,unit_bias=0,unit_bias_lr=0.1,fusion_bias=0,"
            "fusion_bias_lr=0.1,"
            "trunk_every=1,imitation=1");
  EXPECT_EQ(ColocRlConfig{}.ToString(),
            "max_groups=1000,hidden=256,type_embedding=32,attention=dot,attention_size=64,bidirectional=0,samples=8,"
            "lr=0.01,max_grad_norm=1,baseline_decay=0.9,reward=sqrt,oom_step_factor=10,logit_temperature=1,"
            "tanh_constant=0,critical_path_priorities=1,tasks=all");
  EXPECT_EQ(HdpConfig{}.ToString(),
            "groups=0,hidden=512,grouper_hidden=64,type_embedding=16,attention=additive,attention_size=64,"
            "bidirectional=1,groupings=1,placements=4,lr=0.01,lr_decay=0.95,lr_decay_steps=50,lr_decay_start=400,"
            "max_grad_norm=1,baseline_decay=0.9,reward=sqrt,oom_step_factor=10,logit_temperature=10,"
            "tanh_constant=5,logit_noise=0.5,noise_steps=750,critical_path_priorities=1,tasks=all");
}

TEST(ConfigOptionsTest, GoPolicyConfigRoundTrips) {
  GoPolicyConfig c;
  c.hidden = 48;
  c.heads = 3;
  c.segment = 16;
  c.memory = 8;
  c.detach_memory = true;
  c.unit_tasks = false;
  c.feedback_attention = true;
  c.tasks = kTaskPlacement | kTaskFusion;
  c.seed = 18446744073709551615u;
  auto parsed = GoPolicyConfig::FromString(c.ToString());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->ToString(), c.ToString());
  EXPECT_EQ(parsed->tasks, c.tasks);
  EXPECT_EQ(parsed->seed, c.seed);
}

TEST(ConfigOptionsTest, PpoConfigRoundTripsDoublesExactly) {
  PpoConfig c;
  c.lr = 1.0 / 3.0;  // "%g" wrote 0.333333
  c.clip = 0.1 + 0.2;
  c.entropy_decay = 0.999999999;
  c.samples_per_step = 5;
  c.include_best = false;
  auto parsed = PpoConfig::FromString(c.ToString());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->lr, c.lr);
  EXPECT_EQ(parsed->clip, c.clip);
  EXPECT_EQ(parsed->entropy_decay, c.entropy_decay);
  EXPECT_EQ(parsed->ToString(), c.ToString());
}

TEST(ConfigOptionsTest, ColocRlAndHdpConfigsRoundTrip) {
  ColocRlConfig coloc;
  coloc.attention = "additive";
  coloc.reward = "linear";
  coloc.tanh_constant = 2.5;
  auto coloc_parsed = ColocRlConfig::FromString(coloc.ToString());
  ASSERT_TRUE(coloc_parsed.ok()) << coloc_parsed.status().message();
  EXPECT_EQ(coloc_parsed->ToString(), coloc.ToString());
  HdpConfig hdp;
  hdp.groups = 17;
  hdp.attention = "dot";
  hdp.lr_decay = 1;
  auto hdp_parsed = HdpConfig::FromString(hdp.ToString());
  ASSERT_TRUE(hdp_parsed.ok()) << hdp_parsed.status().message();
  EXPECT_EQ(hdp_parsed->ToString(), hdp.ToString());
}

TEST(ConfigOptionsTest, RangesComeFromTheTables) {
  EXPECT_EQ(PpoConfig::FromString("epochs=0").status().message(),
            "PPO config: epochs: 0 is out of range [1, 1073741824]");
  EXPECT_EQ(PpoConfig::FromString("entropy_decay=0").status().message(),
            "PPO config: entropy_decay: 0 is out of range (0, 1]");
  EXPECT_EQ(PpoConfig::FromString("samples=1e9").status().message(),
            "PPO config: samples: expected an integer, got '1e9'");
  EXPECT_EQ(GoPolicyConfig::FromString("level_prior=31").status().message(),
            "GO policy config: level_prior: 31 is out of range [0, 30]");
  EXPECT_EQ(GoPolicyConfig::FromString("tasks=placing").status().message(),
            "GO policy config: tasks: unknown task \"placing\" in \"placing\" (tasks: placement, scheduling, fusion, "
            "all; join with +)");
  EXPECT_EQ(ColocRlConfig::FromString("max_groups=6000").status().message(),
            "ColocRL config: max_groups: 6000 is out of range [1, 5000]");
  EXPECT_EQ(HdpConfig::FromString("attention=cosine").status().message(),
            "HDP config: attention: \"cosine\" is not one of dot, additive");
}

TEST(ConfigOptionsTest, RulesAcrossFieldsStayInValidate) {
  EXPECT_EQ(GoPolicyConfig::FromString("hidden=30,heads=4").status().message(),
            "GO policy config: hidden (30) must be a multiple of heads (4)");
  EXPECT_TRUE(Contains(GoPolicyConfig::FromString("memory=200").status().message(), "memory (200)"));
  EXPECT_TRUE(Contains(HdpConfig::FromString("hidden=7").status().message(), "even with bidirectional=1"));
  PpoConfig ppo;
  ppo.lr = 0;  // set in code: Validate applies the table's range
  EXPECT_EQ(ppo.Validate().message(), "PPO config: lr: 0 is out of range (0, inf)");
}

TEST(ConfigOptionsTest, AnAliasAndItsNameAreOneKey) {
  EXPECT_EQ(PpoConfig::FromString("samples_per_step=6")->samples_per_step, 6);
  EXPECT_EQ(PpoConfig::FromString("samples=4,samples_per_step=8").status().message(),
            "PPO config: 'samples_per_step' given twice (also as 'samples')");
}

TEST(LearnedSearchOptionsTest, TheDriverPpoAndPolicyTablesShareNoKey) {
  std::set<std::string> seen;
  auto add = [&](const std::string& name) { EXPECT_TRUE(seen.insert(name).second) << name << " is in two tables"; };
  for (const auto& o : kLearnedSearchOptions.options())
    for (const auto& n : o.names()) add(n);
  for (const auto& o : kPpoOptions.options())
    for (const auto& n : o.names()) add(n);
  for (const auto& o : kGoPolicyOptions.options())
    for (const auto& n : o.names()) add(n);
}

TEST(LearnedSearchOptionsTest, KeysAreRoutedByTheTables) {
  auto c = ParseLearnedSearchOptions("polish_batch=4,checkpoint_every=3,lr=0.01,hidden=32,samples_per_step=2",
                                     LearnedSearchConfig{});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->polish.search.batch, 4);
  EXPECT_EQ(c->checkpoints.every, 3);
  EXPECT_EQ(c->ppo.lr, 0.01);
  EXPECT_EQ(c->ppo.samples_per_step, 2);
  ASSERT_TRUE(c->policy.has_value());
  EXPECT_EQ(c->policy->hidden, 32);
  EXPECT_EQ(c->policy->sage_layers, GoPolicyConfig{}.sage_layers);
  EXPECT_FALSE(ParseLearnedSearchOptions("lr=0.01", LearnedSearchConfig{})->policy.has_value());
  LearnedSearchConfig colocrl;
  colocrl.method = "colocrl";
  auto m = ParseLearnedSearchOptions("samples=4,time_limit=5", colocrl);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_NE(std::get_if<ColocRlConfig>(&m->method_config), nullptr);
  EXPECT_EQ(std::get<ColocRlConfig>(m->method_config).samples_per_step, 4);
  EXPECT_EQ(m->budget.time_limit_s, 5);
}

// A preset's key (the finetune method's unit_bias=1) is replaced, not repeated, by the
// user's value; the user's own options still may not repeat a key.
TEST(LearnedSearchOptionsTest, AGivenKeyReplacesThePresetsValue) {
  LearnedSearchConfig preset;
  preset.ppo = testing::PpoOptions("unit_bias=1,lr=0.01");
  auto c = ParseLearnedSearchOptions("unit_bias=0,head_lr=0.02", preset);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->ppo.lr, 0.01);
  EXPECT_EQ(c->ppo.head_lr, 0.02);
  EXPECT_FALSE(c->ppo.unit_bias);
  EXPECT_TRUE(Contains(ParseLearnedSearchOptions("unit_bias=0,unit_bias=1", preset).status().message(), "given twice"));
}

TEST(LearnedSearchOptionsTest, BadKeysAndValuesFollowTheRule) {
  const std::string unknown = ParseLearnedSearchOptions("colour=blue", LearnedSearchConfig{}).status().message();
  EXPECT_TRUE(Contains(unknown, "optimizer options: unknown key \"colour\" (known: driver: baselines,")) << unknown;
  EXPECT_TRUE(Contains(unknown, "; PPO: samples (or samples_per_step),")) << unknown;
  EXPECT_TRUE(Contains(unknown, "; GO policy: hidden,")) << unknown;
  LearnedSearchConfig hdp;
  hdp.method = "hdp";
  const std::string not_hdp = ParseLearnedSearchOptions("imitation=1", hdp).status().message();
  EXPECT_TRUE(Contains(not_hdp, "unknown key \"imitation\"")) << not_hdp;
  EXPECT_TRUE(Contains(not_hdp, "hdp: groups,")) << not_hdp;
  EXPECT_EQ(ParseLearnedSearchOptions("checkpoint_every=0", LearnedSearchConfig{}).status().message(),
            "optimizer options: checkpoint_every: 0 is out of range [1, 1073741824]");
  EXPECT_EQ(ParseLearnedSearchOptions("explore=1.5", LearnedSearchConfig{}).status().message(),
            "optimizer options: explore: 1.5 is out of range [0, 1]");
  EXPECT_EQ(ParseLearnedSearchOptions("train=2", LearnedSearchConfig{}).status().message(),
            "optimizer options: train: expected 0/1/true/false, got '2'");
  // The key trains every method's policy, not PPO's alone: its old name is refused.
  EXPECT_EQ(ParseLearnedSearchOptions("ppo=0", LearnedSearchConfig{}).status().message(),
            "optimizer options: the key \"ppo\" is now \"train\"");
  EXPECT_TRUE(Contains(ParseLearnedSearchOptions("lr=0", LearnedSearchConfig{}).status().message(),
                       "optimizer options: lr: 0 is out of range"));
}

// GO's own keys go to the PPO config or the network's, by the tables; a PPO key leaves
// the search's network unset (the pre-trained file's, if any).
TEST(LearnedSearchOptionsTest, GoKeysAreRoutedToThePpoOrTheNetworkConfig) {
  PpoConfig ppo;
  GoPolicyConfig policy;
  ASSERT_TRUE(SetGoOption("samples", "7", &ppo, &policy, "--policy").ok());
  ASSERT_TRUE(SetGoOption("hidden", "24", &ppo, &policy, "--policy").ok());
  EXPECT_EQ(ppo.samples_per_step, 7);
  EXPECT_EQ(policy.hidden, 24);
  const std::string unknown = SetGoOption("colour", "blue", &ppo, &policy, "--policy").message();
  EXPECT_TRUE(Contains(unknown, "--policy: unknown key \"colour\" (known: PPO: samples")) << unknown;
  EXPECT_TRUE(Contains(unknown, "; GO policy: hidden,")) << unknown;
  auto search = ParseLearnedSearchOptions("samples=7", LearnedSearchConfig{});
  ASSERT_TRUE(search.ok()) << search.status().message();
  EXPECT_FALSE(search->policy.has_value());
  EXPECT_TRUE(ParseLearnedSearchOptions("hidden=24", LearnedSearchConfig{})->policy.has_value());
}

TEST(LearnedSearchOptionsTest, HelpListsEveryKeyOfTheMethod) {
  const std::string help = LearnedSearchOptionsHelp(LearnedSearchConfig{});
  for (const auto& keys : {kLearnedSearchOptions.Keys(), kPpoOptions.Keys(), kGoPolicyOptions.Keys()}) {
    for (const std::string& key : keys) EXPECT_TRUE(Contains(help, "  " + key + "=")) << key;
  }
  LearnedSearchConfig colocrl;
  colocrl.method = "colocrl";
  colocrl.method_config = *ColocRlConfig::FromString("samples=3");
  EXPECT_TRUE(Contains(LearnedSearchOptionsHelp(colocrl), "  samples=3 "));
}

}  // namespace
}  // namespace graphopt
