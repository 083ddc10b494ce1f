#include "policy/seq2seq.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "policy/go_policy.h"

namespace graphopt {
namespace {

Seq2SeqConfig SmallConfig(const std::string& attention = "dot", bool bidirectional = false) {
  Seq2SeqConfig c;
  c.input_size = 5;
  c.num_devices = 3;
  c.hidden = 8;
  c.attention = attention;
  c.attention_size = 4;
  c.bidirectional = bidirectional;
  c.seed = 7;
  return c;
}

torch::Tensor Inputs(int64_t e, int64_t t, uint64_t seed = 3) {
  torch::manual_seed(seed);
  return torch::randn({e, t, 5});
}

torch::Tensor AllDevices(int d = 3) { return torch::ones({d}, torch::kBool); }

TEST(Seq2SeqTest, EncodeShapes) {
  ConfigureTorchThreads(1);
  for (bool bidirectional : {false, true}) {
    Seq2SeqPlacer p(SmallConfig("additive", bidirectional));
    const Seq2SeqEncoding e = p->Encode(Inputs(2, 6));
    EXPECT_EQ(e.states.sizes(), (std::vector<int64_t>{2, 6, 8}));
    EXPECT_EQ(e.keys.sizes(), (std::vector<int64_t>{2, 6, 4}));
    EXPECT_EQ(e.h0.sizes(), (std::vector<int64_t>{2, 8}));
    EXPECT_EQ(e.c0.sizes(), (std::vector<int64_t>{2, 8}));
    const Seq2SeqEncoding r = Seq2SeqPlacerImpl::RepeatEncoding(e, 3);
    EXPECT_EQ(r.batch(), 6);
    EXPECT_TRUE(torch::equal(r.states[4], e.states[1]));
  }
}

TEST(Seq2SeqTest, SampleShapesAndMask) {
  Seq2SeqPlacer p(SmallConfig());
  const Seq2SeqEncoding e = p->Encode(Inputs(1, 7));
  Rng rng(1);
  const torch::Tensor mask = torch::tensor({true, false, true});
  const Seq2SeqSample s = p->Sample(e, 20, mask, rng);
  ASSERT_EQ(s.devices.sizes(), (std::vector<int64_t>{20, 7}));
  EXPECT_EQ(s.log_prob.sizes(), (std::vector<int64_t>{20}));
  EXPECT_EQ(s.devices.eq(1).sum().item<int64_t>(), 0);
  EXPECT_GT(s.devices.eq(0).sum().item<int64_t>(), 0);
  EXPECT_GT(s.devices.eq(2).sum().item<int64_t>(), 0);
}

TEST(Seq2SeqTest, PerStepMaskForcesDevices) {
  Seq2SeqPlacer p(SmallConfig());
  const Seq2SeqEncoding e = p->Encode(Inputs(1, 6));
  torch::Tensor mask = torch::zeros({6, 3}, torch::kBool);
  for (int t = 0; t < 6; ++t) mask[t][t % 3] = true;
  Rng rng(2);
  const Seq2SeqSample s = p->Sample(e, 4, mask, rng);
  for (int b = 0; b < 4; ++b) {
    for (int t = 0; t < 6; ++t) EXPECT_EQ(s.devices[b][t].item<int64_t>(), t % 3);
  }
  EXPECT_NEAR(s.log_prob.abs().max().item<float>(), 0.0f, 1e-5);
  const Seq2SeqEvaluation ev = p->Evaluate(e, s.devices, mask);
  EXPECT_NEAR(ev.entropy.abs().max().item<float>(), 0.0f, 1e-5);
}

// Teacher-forced evaluation must give the probabilities the step-by-step sampler used,
// for both attentions, shared (E = 1) and per-sample (E = B) inputs.
TEST(Seq2SeqTest, EvaluateMatchesSampler) {
  for (const std::string attention : {"dot", "additive"}) {
    for (int64_t e_count : {1, 5}) {
      Seq2SeqPlacer p(SmallConfig(attention, attention == "additive"));
      const Seq2SeqEncoding e = p->Encode(Inputs(e_count, 9));
      Rng rng(4);
      const Seq2SeqSample s = p->Sample(e, 5, AllDevices(), rng);
      const Seq2SeqEvaluation ev = p->Evaluate(e, s.devices, AllDevices());
      EXPECT_EQ(ev.logits.sizes(), (std::vector<int64_t>{5, 9, 3}));
      EXPECT_TRUE(torch::allclose(ev.log_prob, s.log_prob, 1e-4, 1e-4)) << attention << " E=" << e_count;
      EXPECT_TRUE((ev.entropy >= 0).all().item<bool>());
      EXPECT_TRUE((ev.entropy <= 9 * std::log(3.0) + 1e-4).all().item<bool>());
    }
  }
}

// With exploration noise, the evaluation given the sampler's noise reproduces its
// log-probabilities, and the noise is zero on masked devices.
TEST(Seq2SeqTest, LogitNoiseIsReplayedByEvaluate) {
  Seq2SeqPlacer p(SmallConfig("additive"));
  const Seq2SeqEncoding e = p->Encode(Inputs(1, 6));
  Rng rng(8);
  const torch::Tensor mask = torch::tensor({true, true, false});
  const Seq2SeqSample s = p->Sample(e, 4, mask, rng, /*greedy=*/false, /*logit_noise=*/0.5);
  ASSERT_TRUE(s.noise.defined());
  EXPECT_EQ(s.noise.sizes(), (std::vector<int64_t>{4, 6, 3}));
  EXPECT_GT(s.noise.abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(s.noise.select(2, 2).abs().sum().item<float>(), 0.0f);
  const Seq2SeqEvaluation with = p->Evaluate(e, s.devices, mask, s.noise);
  EXPECT_TRUE(torch::allclose(with.log_prob, s.log_prob, 1e-4, 1e-4));
  const Seq2SeqEvaluation without = p->Evaluate(e, s.devices, mask);
  EXPECT_FALSE(torch::allclose(without.log_prob, s.log_prob, 1e-4, 1e-4));
}

TEST(Seq2SeqTest, SequenceProbabilitiesSumToOne) {
  Seq2SeqPlacer p(SmallConfig());
  const Seq2SeqEncoding e = p->Encode(Inputs(1, 3));
  std::vector<int64_t> all;
  for (int a = 0; a < 27; ++a) {
    all.push_back(a % 3);
    all.push_back(a / 3 % 3);
    all.push_back(a / 9);
  }
  const torch::Tensor devices = torch::tensor(all).view({27, 3});
  const Seq2SeqEvaluation ev = p->Evaluate(e, devices, AllDevices());
  EXPECT_NEAR(ev.log_prob.exp().sum().item<float>(), 1.0f, 1e-4);
}

TEST(Seq2SeqTest, TanhConstantBoundsLogits) {
  Seq2SeqConfig c = SmallConfig();
  c.tanh_constant = 2;
  c.logit_temperature = 10;
  Seq2SeqPlacer p(c);
  const Seq2SeqEncoding e = p->Encode(Inputs(1, 4) * 100);
  Rng rng(5);
  const Seq2SeqSample s = p->Sample(e, 3, AllDevices(), rng);
  const Seq2SeqEvaluation ev = p->Evaluate(e, s.devices, AllDevices());
  EXPECT_LE(ev.logits.abs().max().item<float>(), 2.0f + 1e-6f);
}

TEST(Seq2SeqTest, GradientsReachEveryParameter) {
  for (const std::string attention : {"dot", "additive"}) {
    Seq2SeqPlacer p(SmallConfig(attention));
    const Seq2SeqEncoding e = p->Encode(Inputs(1, 6));
    Rng rng(6);
    const Seq2SeqSample s = p->Sample(e, 4, AllDevices(), rng);
    p->Evaluate(e, s.devices, AllDevices()).log_prob.sum().backward();
    for (const auto& item : p->named_parameters()) {
      ASSERT_TRUE(item.value().grad().defined()) << attention << " " << item.key();
      EXPECT_GT(item.value().grad().abs().sum().item<float>(), 0.0f) << attention << " " << item.key();
    }
  }
}

TEST(Seq2SeqTest, SameSeedSameParametersAndSamples) {
  Seq2SeqPlacer a(SmallConfig()), b(SmallConfig());
  auto pa = a->named_parameters(), pb = b->named_parameters();
  for (const auto& item : pa) EXPECT_TRUE(torch::equal(item.value(), pb[item.key()])) << item.key();
  Rng ra(9), rb(9);
  const Seq2SeqSample sa = a->Sample(a->Encode(Inputs(1, 8)), 6, AllDevices(), ra);
  const Seq2SeqSample sb = b->Sample(b->Encode(Inputs(1, 8)), 6, AllDevices(), rb);
  EXPECT_TRUE(torch::equal(sa.devices, sb.devices));
  Seq2SeqConfig other = SmallConfig();
  other.seed = 8;
  Seq2SeqPlacer c(other);
  EXPECT_FALSE(torch::equal(c->named_parameters()["out.weight"], pa["out.weight"]));
}

TEST(Seq2SeqTest, GreedyTakesTheMostLikelyDeviceAtEveryStep) {
  Seq2SeqPlacer p(SmallConfig());
  const Seq2SeqEncoding e = p->Encode(Inputs(1, 5));
  Rng rng(0);
  const Seq2SeqSample g = p->Sample(e, 1, AllDevices(), rng, /*greedy=*/true);
  const Seq2SeqEvaluation ev = p->Evaluate(e, g.devices, AllDevices());
  EXPECT_TRUE(torch::equal(ev.logits.argmax(2), g.devices));
}

TEST(Seq2SeqTest, ConfigValidation) {
  Seq2SeqConfig c = SmallConfig();
  EXPECT_TRUE(c.Validate().ok());
  c.attention = "cosine";
  EXPECT_NE(c.Validate().message().find("attention"), std::string::npos);
  c = SmallConfig("dot", true);
  c.hidden = 7;
  EXPECT_NE(c.Validate().message().find("even"), std::string::npos);
  c = SmallConfig();
  c.num_devices = 0;
  EXPECT_NE(c.Validate().message().find("num_devices"), std::string::npos);
}

}  // namespace
}  // namespace graphopt
