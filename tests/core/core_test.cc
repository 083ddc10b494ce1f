#include <gtest/gtest.h>

#include <unistd.h>

#include "core/files.h"
#include "core/median.h"
#include "core/rng.h"
#include "core/status.h"
#include "core/strings.h"

namespace graphopt {
namespace {

TEST(RngTest, SameSeedSameSequence) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.NextU64();
    EXPECT_EQ(x, b.NextU64());
    differs |= x != c.NextU64();
  }
  EXPECT_TRUE(differs);
}

TEST(RngTest, UniformStaysInRange) {
  Rng r(1);
  for (int i = 0; i < 1000; ++i) {
    const int64_t v = r.UniformInt(-3, 3);
    EXPECT_GE(v, -3);
    EXPECT_LE(v, 3);
    const double d = r.UniformDouble();
    EXPECT_GE(d, 0.0);
    EXPECT_LT(d, 1.0);
  }
}

TEST(StatusTest, ContextIsPrepended) {
  Status s = InvalidArgument("bad thing");
  EXPECT_EQ(s.WithContext("file.json").message(), "file.json: bad thing");
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
}

TEST(StringsTest, KeyValuesParseAndReject) {
  auto kv = ParseKeyValues("layers=4, batch=128", "model");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->at("layers"), "4");
  EXPECT_EQ(kv->at("batch"), "128");
  EXPECT_FALSE(ParseKeyValues("layers", "model").ok());
  EXPECT_FALSE(ParseKeyValues("a=1,a=2", "model").ok());
}

TEST(StringsTest, IntegersAreStrict) {
  EXPECT_EQ(*ParseInt("-3", "x"), -3);
  EXPECT_FALSE(ParseInt("3x", "x").ok());
  EXPECT_FALSE(ParseInt("", "x").ok());
  EXPECT_FALSE(ParseDouble("nan", "x").ok());
}

TEST(StringsTest, BooleansAreZeroOneTrueFalse) {
  EXPECT_TRUE(*ParseBool("1", "x"));
  EXPECT_TRUE(*ParseBool("true", "x"));
  EXPECT_FALSE(*ParseBool("0", "x"));
  EXPECT_FALSE(*ParseBool("false", "x"));
  const auto bad = ParseBool("yes", "option polish");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("option polish"), std::string::npos);
  EXPECT_FALSE(ParseBool("", "x").ok());
}

TEST(StringsTest, JoinPutsTheSeparatorBetweenItems) {
  EXPECT_EQ(Join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(Join({"a"}, ","), "a");
  EXPECT_EQ(Join({}, ","), "");
}

TEST(StringsTest, SplitListTrimsAndDropsEmptyItems) {
  EXPECT_EQ(SplitList(" a, ,b ,", ','), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(SplitList("x.onnx; y.txt", ';'), (std::vector<std::string>{"x.onnx", "y.txt"}));
  EXPECT_TRUE(SplitList(" ", ',').empty());
}

TEST(StringsTest, HumanTimePicksTheUnit) {
  EXPECT_EQ(HumanTime(812.54), "812.5 us");
  EXPECT_EQ(HumanTime(43187.0), "43.187 ms");
  EXPECT_EQ(HumanTime(1.25e6), "1.250 s");
  EXPECT_EQ(HumanTime(999.9), "999.9 us");
  EXPECT_EQ(HumanTime(1000.0), "1.000 ms");
}

TEST(FilesTest, AtomicWriteThenRead) {
  const std::string path = ::testing::TempDir() + "graphopt_files_test_" + std::to_string(getpid()) + ".txt";
  ASSERT_TRUE(WriteFileAtomic(path, "hello").ok());
  auto back = ReadFile(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "hello");
  EXPECT_FALSE(FileExists(path + ".tmp." + std::to_string(getpid())));
  std::remove(path.c_str());
  auto missing = ReadFile(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(path), std::string::npos);
}

TEST(FilesTest, ExtensionIsLowerCased) {
  EXPECT_EQ(FileExtension("a/b.ONNX"), "onnx");
  EXPECT_EQ(FileExtension("a.b/c"), "");
  EXPECT_EQ(FileName("a/b.onnx"), "b.onnx");
  EXPECT_EQ(FileName("b.onnx"), "b.onnx");
  EXPECT_EQ(FileStem("a.d/b.tar.gz"), "b.tar");
  EXPECT_EQ(FileStem("a/.hidden"), ".hidden");
  EXPECT_EQ(FileStem("model"), "model");
}

TEST(MedianTest, MiddleValueOrMeanOfTheTwoMiddleOnes) {
  EXPECT_EQ(Median({}), 0.0);
  EXPECT_EQ(Median({3.0}), 3.0);
  EXPECT_EQ(Median({5.0, 1.0, 3.0}), 3.0);
  EXPECT_EQ(Median({4.0, 1.0, 3.0, 10.0}), 3.5);
}

TEST(MedianTest, UpperMedianIsAValueOfTheSeries) {
  EXPECT_EQ(UpperMedian({}), 0.0);
  EXPECT_EQ(UpperMedian({3.0}), 3.0);
  EXPECT_EQ(UpperMedian({5.0, 1.0, 3.0}), 3.0);
  EXPECT_EQ(UpperMedian({4.0, 1.0, 3.0, 10.0}), 4.0);
}

}  // namespace
}  // namespace graphopt
