// Issue 14: graph JSON values are range-checked before narrowing and sizes are
// computed in checked int64 arithmetic; every error names the file and the field.
#include <gtest/gtest.h>

#include <string>

#include "graph/json_io.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

// A one-op graph: a Variable producing tensor "a" of `shape`, with `op_extra` fields
// on the op, `groups` colocation groups and `inputs` as the op's inputs.
std::string Tiny(const std::string& shape = "[1]", const std::string& op_extra = "",
                 const std::string& groups = "1", const std::string& inputs = "[]") {
  return R"({"format":"graphopt-graph","version":1,"name":"x","colocation_groups":)" + groups +
         R"(,"tensors":[{"name":"a","shape":)" + shape + R"(,"dtype":"f32"}],
           "ops":[{"name":"o","kind":"Variable","inputs":)" + inputs + R"(,"outputs":[0],"group":0)" + op_extra +
         "}]}";
}

void ExpectError(const std::string& text, const std::string& fragment) {
  auto g = GraphFromJson(text, "bad.json");
  ASSERT_FALSE(g.ok()) << "accepted: " << text;
  EXPECT_NE(g.status().message().find("bad.json"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find(fragment), std::string::npos) << g.status().message();
}

TEST(JsonValidationTest, TheTinyGraphIsValid) {
  auto g = GraphFromJson(Tiny(), "tiny.json");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->num_colocation_groups(), 1);
}

TEST(JsonValidationTest, ColocationGroupsBeyondTheOpCountAreAnError) {
  ExpectError(Tiny("[1]", "", "2147483647"), "colocation_groups: 2147483647 is more than the number of ops (1)");
  ExpectError(Tiny("[1]", "", "4294967297"), "colocation_groups");
  ExpectError(Tiny("[1]", "", "1.5"), "colocation_groups");
}

TEST(JsonValidationTest, TensorIdsAreRangeCheckedBeforeNarrowing) {
  // 2^32 used to wrap to tensor 0.
  ExpectError(Tiny("[1]", "", "1", "[4294967296]"), "ops[0] ('o').inputs[0]: 4294967296 is out of range");
  ExpectError(Tiny("[1]", "", "1", "[0.0]"), "ops[0] ('o').inputs[0]: must be an integer");
  ExpectError(Tiny("[1]", R"(,"group":4294967296)"), "group");
}

TEST(JsonValidationTest, FractionalOrHugeDimensionsAreAnError) {
  ExpectError(Tiny("[1.5, 2]"), "tensors[0].shape[0]: must be an integer");
  ExpectError(Tiny("[18446744073709551615]"), "tensors[0].shape[0]");
  ExpectError(Tiny("[-1]"), "negative");
}

TEST(JsonValidationTest, SizesThatOverflowInt64AreAnError) {
  // A tensor of shape [2^62] used to "fit in memory" (4 x 2^62 wraps to 0).
  ExpectError(Tiny("[4611686018427387904]"), "over 2^50 bytes");
  ExpectError(Tiny("[4294967296, 4294967296]"), "over 2^50 bytes");
  // Parameters of 2^63 - 1 bytes used to print "-148 B".
  ExpectError(Tiny("[1]", R"(,"param_bytes":9223372036854775807)"), "over 2^50");
  ExpectError(Tiny("[1]", R"(,"param_bytes":9223372036854775808)"), "param_bytes");
  ExpectError(Tiny("[1]", R"(,"bytes_read":1e300)"), "bytes_read");
}

TEST(JsonValidationTest, NumbersBeyondADoubleAreAnErrorNotACrash) {
  // Found by fuzz/graph_fuzz: the JSON parser reports "21e308" as out_of_range, not
  // as a parse error, and the exception used to escape GraphFromJson.
  ExpectError(Tiny("[1]", R"(,"flops":21e308)"), "not valid JSON");
  ExpectError(Tiny("[1]", R"(,"flops":21e308)"), "21e308");
  ExpectError(Tiny("[-1e999]"), "not valid JSON");
}

TEST(JsonValidationTest, AnOutputListedTwiceIsAnErrorNotACrash) {
  // Found by fuzz/graph_fuzz: only producers of earlier ops were checked, and the
  // graph's own check aborted on the second producer.
  ExpectError(R"({"format":"graphopt-graph","version":1,"name":"x",
                  "tensors":[{"name":"a","shape":[1],"dtype":"f32"}],
                  "ops":[{"name":"o","kind":"Input","inputs":[],"outputs":[0,0]}]})",
              "ops[0] ('o'): tensor 'a' is listed twice in its outputs");
}

TEST(JsonValidationTest, AttributesAreTypedExactly) {
  ExpectError(Tiny("[1]", R"(,"attrs":{"axis":{"i":1.5}})"), "ops[0] ('o').attrs.axis: must be an integer");
  ExpectError(Tiny("[1]", R"(,"attrs":{"pads":{"ints":[1, 2.5]}})"), "attrs.pads[1]");
  ExpectError(Tiny("[1]", R"(,"attrs":{"name":{"s":5}})"), "attrs.name: must be a string");
}

TEST(JsonValidationTest, CheckedShapeBytes) {
  int64_t bytes = -1;
  EXPECT_TRUE(CheckedShapeBytes({2, 3}, 4, &bytes));
  EXPECT_EQ(bytes, 24);
  EXPECT_TRUE(CheckedShapeBytes({}, 8, &bytes));
  EXPECT_EQ(bytes, 8);
  EXPECT_FALSE(CheckedShapeBytes({int64_t{1} << 62}, 4, &bytes));
  EXPECT_FALSE(CheckedShapeBytes({-1, 2}, 4, &bytes));
  EXPECT_EQ(bytes, 8);  // untouched on failure
}

}  // namespace
}  // namespace graphopt
