#include "core/options.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

namespace graphopt {
namespace {

struct Inner {
  int batch = 8;
};

// Every kind of field an option can bind.
struct ToyConfig {
  int count = 4;
  int64_t budget = 48;
  uint64_t seed = 1;
  double rate = 0.001;
  double decay = 0.9;
  bool flag = true;
  std::string mode = "dot";
  std::string note = "hello";
  Inner inner;
  int parity = 0;  // set through a custom codec: "even" or "odd"
};

OptionCodec<ToyConfig> ParityCodec() {
  return {[](const std::string& value, ToyConfig* c) -> Status {
            if (value != "even" && value != "odd")
              return InvalidArgument("expected even or odd, got \"" + value + "\"");
            c->parity = value == "odd" ? 1 : 0;
            return Status::Ok();
          },
          [](const ToyConfig& c) { return std::string(c.parity == 1 ? "odd" : "even"); }, "even or odd"};
}

const OptionTable<ToyConfig> kToyOptions{
    {"count|n", &ToyConfig::count, "how many", AtLeast(1)},
    {"budget", &ToyConfig::budget, "simulations"},
    {"seed", &ToyConfig::seed, "random seed"},
    {"rate", &ToyConfig::rate, "step size", Above(0)},
    {"decay", &ToyConfig::decay, "factor", AtLeastBelow(0, 1)},
    {"flag", &ToyConfig::flag, "a switch"},
    {"mode", &ToyConfig::mode, "attention", OneOf({"dot", "additive"})},
    {"note", &ToyConfig::note, "free text"},
    {"batch", &ToyConfig::inner, &Inner::batch, "nested field", InRange(1, 64)},
    {"parity", ParityCodec(), "custom"},
};

std::string Error(const std::string& text) {
  ToyConfig c;
  const Status s = kToyOptions.Apply(text, &c, "toy");
  EXPECT_FALSE(s.ok()) << text;
  return s.message();
}

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(OptionTableTest, ToStringIsCanonicalInTableOrder) {
  EXPECT_EQ(kToyOptions.ToString(ToyConfig{}),
            "count=4,budget=48,seed=1,rate=0.001,decay=0.9,flag=1,mode=dot,note=hello,batch=8,parity=even");
}

TEST(OptionTableTest, EveryTypeRoundTrips) {
  ToyConfig c;
  c.count = 1 << 30;
  c.budget = std::numeric_limits<int64_t>::min();
  c.seed = std::numeric_limits<uint64_t>::max();
  c.rate = 1.0 / 3.0;
  c.decay = 1e-300;
  c.flag = false;
  c.mode = "additive";
  c.note = "two words";
  c.inner.batch = 64;
  c.parity = 1;
  const std::string text = kToyOptions.ToString(c);
  auto parsed = kToyOptions.FromString(text, "toy");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->count, c.count);
  EXPECT_EQ(parsed->budget, c.budget);
  EXPECT_EQ(parsed->seed, c.seed);
  EXPECT_EQ(parsed->rate, c.rate);  // exact: the shortest form that parses back
  EXPECT_EQ(parsed->decay, c.decay);
  EXPECT_EQ(parsed->flag, c.flag);
  EXPECT_EQ(parsed->mode, c.mode);
  EXPECT_EQ(parsed->note, c.note);
  EXPECT_EQ(parsed->inner.batch, c.inner.batch);
  EXPECT_EQ(parsed->parity, c.parity);
  EXPECT_EQ(kToyOptions.ToString(*parsed), text);
}

TEST(OptionTableTest, AppliesOverTheGivenConfigIgnoringSpaces) {
  ToyConfig c;
  c.budget = 7;
  ASSERT_TRUE(kToyOptions.Apply(" count = 3 , flag = false, batch=2 ", &c, "toy").ok());
  EXPECT_EQ(c.count, 3);
  EXPECT_FALSE(c.flag);
  EXPECT_EQ(c.inner.batch, 2);
  EXPECT_EQ(c.budget, 7);
  ASSERT_TRUE(kToyOptions.Apply("", &c, "toy").ok());
  EXPECT_EQ(c.count, 3);
}

TEST(OptionTableTest, FailureLeavesTheConfigUnchanged) {
  ToyConfig c;
  EXPECT_FALSE(kToyOptions.Apply("budget=5,count=0", &c, "toy").ok());
  EXPECT_EQ(c.budget, 48);
  EXPECT_EQ(c.count, 4);
}

TEST(OptionTableTest, AliasSetsTheSameField) {
  auto c = kToyOptions.FromString("n=9", "toy");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->count, 9);
  EXPECT_TRUE(kToyOptions.Has("n"));
  EXPECT_TRUE(kToyOptions.Has("count"));
  EXPECT_FALSE(kToyOptions.Has("colour"));
  EXPECT_EQ(kToyOptions.ToString(*c).rfind("count=9,", 0), 0u);  // the canonical name
}

const OptionTable<ToyConfig> kRenamedOptions{{{"count", &ToyConfig::count, "how many"}}, {{"number", "count"}}};

TEST(OptionTableTest, ARenamedKeyIsRefusedNamingTheNewOne) {
  ToyConfig c;
  EXPECT_TRUE(kRenamedOptions.Has("number"));
  EXPECT_EQ(kRenamedOptions.Apply("number=3", &c, "toy").message(), "toy: the key \"number\" is now \"count\"");
  EXPECT_EQ(kRenamedOptions.Set("number", "3", &c, "toy").message(), "toy: the key \"number\" is now \"count\"");
  EXPECT_EQ(c.count, 4);
  ASSERT_TRUE(kRenamedOptions.Apply("count=3", &c, "toy").ok());
  EXPECT_EQ(c.count, 3);
  EXPECT_EQ(kRenamedOptions.Keys(), std::vector<std::string>{"count"});
}

TEST(OptionTableTest, KeysAreTheCanonicalNamesInOrder) {
  const std::vector<std::string> expected = {"count", "budget", "seed", "rate",  "decay",
                                             "flag",  "mode",   "note", "batch", "parity"};
  EXPECT_EQ(kToyOptions.Keys(), expected);
}

TEST(OptionTableTest, UnknownKeyListsTheKnownKeys) {
  EXPECT_EQ(Error("colour=blue"),
            "toy: unknown key \"colour\" (known: count (or n), budget, seed, rate, decay, flag, mode, note, batch, "
            "parity)");
}

TEST(OptionTableTest, KeyGivenTwiceFails) {
  EXPECT_EQ(Error("count=1,count=2"), "toy: 'count' given twice");
  EXPECT_EQ(Error("count=1,n=2"), "toy: 'n' given twice (also as 'count')");
}

TEST(OptionTableTest, IntegersAreDecimal) {
  for (const char* bad : {"1.5", "1e9", "0x10", "12abc", "ten"}) {
    EXPECT_EQ(Error(std::string("count=") + bad), std::string("toy: count: expected an integer, got '") + bad + "'");
  }
  EXPECT_EQ(Error("count="), "toy: count: expected an integer, got nothing");
  EXPECT_EQ(Error("budget=99999999999999999999"),
            "toy: budget: 99999999999999999999 is out of range [-9223372036854775808, 9223372036854775807]");
}

TEST(OptionTableTest, IntegerOutsideItsRangeFails) {
  EXPECT_EQ(Error("count=0"), "toy: count: 0 is out of range [1, 1073741824]");
  EXPECT_EQ(Error("count=1073741825"), "toy: count: 1073741825 is out of range [1, 1073741824]");
  EXPECT_EQ(Error("batch=65"), "toy: batch: 65 is out of range [1, 64]");
  EXPECT_EQ(kToyOptions.FromString("budget=-1099511627776", "toy")->budget, -1099511627776);  // int64: no 2^30 bound
}

TEST(OptionTableTest, UnsignedTakesTheWholeRangeAndNoSign) {
  auto c = kToyOptions.FromString("seed=18446744073709551615", "toy");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->seed, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Error("seed=-1"), "toy: seed: -1 is out of range [0, 18446744073709551615]");
  EXPECT_EQ(Error("seed=18446744073709551616"),
            "toy: seed: 18446744073709551616 is out of range [0, 18446744073709551615]");
  EXPECT_EQ(Error("seed=1.5"), "toy: seed: expected an integer, got '1.5'");
}

TEST(OptionTableTest, NumbersAreFiniteAndInRange) {
  for (const char* bad : {"nan", "inf", "-inf", "0x10", "1e999", "fast"}) {
    EXPECT_EQ(Error(std::string("rate=") + bad), std::string("toy: rate: expected a number, got '") + bad + "'");
  }
  EXPECT_EQ(Error("rate=0"), "toy: rate: 0 is out of range (0, inf)");
  EXPECT_EQ(Error("decay=1"), "toy: decay: 1 is out of range [0, 1)");
  EXPECT_EQ(Error("decay=-0.5"), "toy: decay: -0.5 is out of range [0, 1)");
  auto c = kToyOptions.FromString("rate=1e-9,decay=0", "toy");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->rate, 1e-9);
  EXPECT_EQ(c->decay, 0.0);
}

TEST(OptionTableTest, BooleansAreExactlyZeroOneTrueFalse) {
  for (const char* good : {"0", "1", "true", "false"}) {
    auto c = kToyOptions.FromString(std::string("flag=") + good, "toy");
    ASSERT_TRUE(c.ok()) << good;
    EXPECT_EQ(c->flag, good[0] == '1' || good[0] == 't') << good;
  }
  for (const char* bad : {"yes", "2", "TRUE", "on"}) {
    EXPECT_EQ(Error(std::string("flag=") + bad), std::string("toy: flag: expected 0/1/true/false, got '") + bad + "'");
  }
}

TEST(OptionTableTest, WordsComeFromTheirSet) {
  EXPECT_EQ(Error("mode=cosine"), "toy: mode: \"cosine\" is not one of dot, additive");
  EXPECT_EQ(kToyOptions.FromString("mode=additive", "toy")->mode, "additive");
}

TEST(OptionTableTest, CustomParserErrorsNameTheKey) {
  EXPECT_EQ(Error("parity=three"), "toy: parity: expected even or odd, got \"three\"");
  EXPECT_EQ(kToyOptions.FromString("parity=odd", "toy")->parity, 1);
}

TEST(OptionTableTest, CheckReportsAFieldSetInCode) {
  ToyConfig c;
  EXPECT_TRUE(kToyOptions.Check(c, "toy").ok());
  c.decay = 1.0;
  EXPECT_EQ(kToyOptions.Check(c, "toy").message(), "toy: decay: 1 is out of range [0, 1)");
  c = ToyConfig{};
  c.mode = "cosine";
  EXPECT_EQ(kToyOptions.Check(c, "toy").message(), "toy: mode: \"cosine\" is not one of dot, additive");
  c = ToyConfig{};
  c.count = 0;
  EXPECT_EQ(kToyOptions.Check(c, "toy").message(), "toy: count: 0 is out of range [1, 1073741824]");
}

TEST(OptionTableTest, SetTakesOneKeyByAnyName) {
  ToyConfig c;
  ASSERT_TRUE(kToyOptions.Set("n", "5", &c, "toy").ok());
  EXPECT_EQ(c.count, 5);
  EXPECT_EQ(kToyOptions.Set("n", "0", &c, "toy").message(), "toy: n: 0 is out of range [1, 1073741824]");
  EXPECT_TRUE(Contains(kToyOptions.Set("colour", "1", &c, "toy").message(), "unknown key \"colour\""));
}

TEST(OptionTableTest, HelpListsDefaultsDomainsAndAliases) {
  const std::string help = kToyOptions.Help();
  EXPECT_TRUE(Contains(help, "  count=4 ")) << help;
  EXPECT_TRUE(Contains(help, "how many (integer >= 1; also: n)")) << help;
  EXPECT_TRUE(Contains(help, "simulations (integer)")) << help;
  EXPECT_TRUE(Contains(help, "random seed (integer >= 0)")) << help;
  EXPECT_TRUE(Contains(help, "step size (number > 0)")) << help;
  EXPECT_TRUE(Contains(help, "factor (number in [0, 1))")) << help;
  EXPECT_TRUE(Contains(help, "nested field (integer in [1, 64])")) << help;
  EXPECT_TRUE(Contains(help, "a switch (0 or 1)")) << help;
  EXPECT_TRUE(Contains(help, "attention (one of dot, additive)")) << help;
  EXPECT_TRUE(Contains(help, "custom (even or odd)")) << help;
  ToyConfig other;
  other.count = 12;
  EXPECT_TRUE(Contains(kToyOptions.Help(other), "  count=12 "));
}

TEST(OptionTableDeathTest, ANameDeclaredTwiceIsAnInternalError) {
  EXPECT_DEATH((OptionTable<ToyConfig>{{"count", &ToyConfig::count, "a"}, {"budget|count", &ToyConfig::budget, "b"}}),
               "declared twice");
}

TEST(OptionRangeTest, IntegerBoundsCloseOpenEnds) {
  using Bounds = std::pair<int64_t, int64_t>;
  EXPECT_EQ(IntegerBounds(Above(0), -100, 100), Bounds(1, 100));
  EXPECT_EQ(IntegerBounds(AtLeastBelow(0, 1), -100, 100), Bounds(0, 0));
  EXPECT_EQ(IntegerBounds(InRange(-1e300, 1e300), -100, 100), Bounds(-100, 100));
  EXPECT_EQ(IntegerBounds(InRange(0.5, 2.5), -100, 100), Bounds(1, 2));
  EXPECT_EQ(InRange(0, 1).ToString(), "[0, 1]");
  EXPECT_EQ(AboveAtMost(0, 1).ToString(), "(0, 1]");
  EXPECT_EQ(OptionRange{}.ToString(), "(-inf, inf)");
}

TEST(OptionRuleTest, ReadersOfOtherValuesShareTheMessages) {
  EXPECT_EQ(ParseIntInRange("9", "graphopt optimize: --threads", 1, 8).status().message(),
            "graphopt optimize: --threads: 9 is out of range [1, 8]");
  EXPECT_EQ(ParseWord("c", "amoebanet: parameter 'variant'", {"a", "d"}).status().message(),
            "amoebanet: parameter 'variant': \"c\" is not one of a, d");
  EXPECT_EQ(*ParseNumberInRange("0.5", "x", InRange(0, 1)), 0.5);
}

TEST(FormatDoubleTest, ShortestFormThatParsesBack) {
  EXPECT_EQ(FormatDouble(0.001), "0.001");
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(10), "10");
  EXPECT_EQ(FormatDouble(1e-5), "1e-05");
  for (double v : {1.0 / 3.0, 0.1 + 0.2, 123456789.123456789, -2.5e-308}) {
    EXPECT_EQ(std::strtod(FormatDouble(v).c_str(), nullptr), v) << FormatDouble(v);
  }
}

}  // namespace
}  // namespace graphopt
