// End-to-end checks of the graphopt binary: every data file and every built-in can
// be inspected; bad input gives one clear message and a non-zero exit.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "core/rng.h"

namespace graphopt {
namespace {

struct CliRun {
  int exit_code;
  std::string output;  // stdout and stderr
};

CliRun Graphopt(const std::string& args) {
  const std::string cmd = std::string(GRAPHOPT_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  CliRun run{-1, ""};
  if (pipe == nullptr) return run;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) run.output.append(buf.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

std::string Data(const std::string& rel) { return std::string(GRAPHOPT_DATA_DIR) + "/" + rel; }

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "graphopt_cli_" + name; }

TEST(CliTest, InspectWorksOnEveryDataFile) {
  for (const char* f : {"onnx/bert_encoder.onnx", "onnx/inception_v3.onnx", "onnx/lstm_lm.onnx", "onnx/resnet50.onnx",
                        "onnx/squeezenet1_1.onnx", "onnx/transformer_seq2seq.onnx", "pipedream/alexnet.txt",
                        "pipedream/gnmt.txt", "pipedream/inception_v3.txt", "pipedream/resnet18.txt",
                        "pipedream/resnet50.txt", "pipedream/squeezenet1_0.txt", "pipedream/vgg16.txt"}) {
    CliRun r = Graphopt("inspect " + Data(f));
    EXPECT_EQ(r.exit_code, 0) << f << "\n" << r.output;
    EXPECT_NE(r.output.find("ops "), std::string::npos) << f;
  }
}

TEST(CliTest, InspectWorksOnEveryBuiltin) {
  for (const char* m : {"rnnlm", "gnmt", "transformer_xl", "inception_v3", "amoebanet", "wavenet"}) {
    CliRun r = Graphopt(std::string("inspect ") + m);
    EXPECT_EQ(r.exit_code, 0) << m << "\n" << r.output;
    EXPECT_NE(r.output.find("backward"), std::string::npos) << m;
  }
}

TEST(CliTest, ResNet50ReportsItsParameterCount) {
  CliRun r = Graphopt("inspect " + Data("onnx/resnet50.onnx"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("25530472 elements"), std::string::npos) << r.output;
}

TEST(CliTest, ModelsListsEveryBuiltin) {
  CliRun r = Graphopt("models");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* m : {"rnnlm", "gnmt", "transformer_xl", "inception_v3", "amoebanet", "wavenet"}) {
    EXPECT_NE(r.output.find(m), std::string::npos) << m;
  }
}

TEST(CliTest, ConvertWritesJsonThatInspectReads) {
  const std::string out = TempPath("rnnlm.json");
  CliRun w = Graphopt("convert rnnlm:layers=1,steps=2 --to json --out " + out);
  ASSERT_EQ(w.exit_code, 0) << w.output;
  CliRun r = Graphopt("inspect " + out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  CliRun d = Graphopt("convert " + out + " --to dot --out " + TempPath("rnnlm.dot"));
  EXPECT_EQ(d.exit_code, 0) << d.output;
  std::remove(out.c_str());
  std::remove(TempPath("rnnlm.dot").c_str());
}

void ExpectCleanFailure(const std::string& args, const std::string& fragment) {
  CliRun r = Graphopt(args);
  EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
  EXPECT_NE(r.output.find("error: "), std::string::npos) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(fragment), std::string::npos) << args << "\n" << r.output;
}

TEST(CliTest, BadInputGetsOneClearMessage) {
  ExpectCleanFailure("inspect nosuchmodel", "unknown model 'nosuchmodel'");
  ExpectCleanFailure("inspect gnmt:layers=0", "'layers'");
  ExpectCleanFailure("inspect rnnlm:batch=-3", "'batch'");
  ExpectCleanFailure("inspect /no/such/file.onnx", "/no/such/file.onnx");
  ExpectCleanFailure("inspect gnmt --frobnicate", "unknown flag --frobnicate");
  ExpectCleanFailure("convert gnmt --to yaml", "--to must be json or dot");
}

TEST(CliTest, CorruptFilesFailCleanly) {
  // Truncated copies of real files and random bytes under each extension.
  std::ifstream in(Data("onnx/resnet50.onnx"), std::ios::binary);
  std::string onnx((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(onnx.size(), 1000u);
  std::ifstream pin(Data("pipedream/gnmt.txt"));
  std::string pd((std::istreambuf_iterator<char>(pin)), std::istreambuf_iterator<char>());
  Rng rng(3);
  std::string junk(2000, '\0');
  for (char& c : junk) c = static_cast<char>(rng.Uniform(256));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"trunc.onnx", onnx.substr(0, onnx.size() / 2)}, {"junk.onnx", junk},
      {"trunc.txt", pd.substr(0, pd.size() / 2 + 7)},  {"junk.txt", junk},
      {"junk.json", junk},                             {"trunc.json", R"({"format":"graphopt-graph","version":1,"na)"}};
  for (const auto& [name, bytes] : cases) {
    const std::string path = TempPath(name);
    std::ofstream(path, std::ios::binary) << bytes;
    CliRun r = Graphopt("inspect " + path);
    EXPECT_EQ(r.exit_code, 1) << name << "\n" << r.output;
    EXPECT_NE(r.output.find(path), std::string::npos) << name << "\n" << r.output;
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace graphopt

namespace graphopt {
namespace {

TEST(CliTest, SimulatePrintsStepTimeAndLowerBound) {
  CliRun r = Graphopt("simulate rnnlm:layers=1,steps=2 --cluster 2xP100");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("step time"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("lower bound"), std::string::npos) << r.output;
}

TEST(CliTest, BaselinePlanFeedsSimulate) {
  const std::string plan = TempPath("heft_plan.json");
  const std::string trace = TempPath("trace.json");
  CliRun b = Graphopt("baseline rnnlm:layers=2,steps=3 --cluster 2xP100 --method heft --out " + plan);
  ASSERT_EQ(b.exit_code, 0) << b.output;
  CliRun s = Graphopt("simulate rnnlm:layers=2,steps=3 --cluster 2xP100 --plan " + plan + " --trace " + trace);
  ASSERT_EQ(s.exit_code, 0) << s.output;
  std::ifstream in(trace);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("traceEvents"), std::string::npos);
  const std::string dot = TempPath("coloured.dot");
  CliRun d = Graphopt("convert rnnlm:layers=2,steps=3 --to dot --plan " + plan + " --out " + dot);
  ASSERT_EQ(d.exit_code, 0) << d.output;
  std::ifstream din(dot);
  std::string dot_text((std::istreambuf_iterator<char>(din)), std::istreambuf_iterator<char>());
  EXPECT_NE(dot_text.find("cluster_legend"), std::string::npos);
  std::remove(dot.c_str());
  std::remove(plan.c_str());
  std::remove(trace.c_str());
}

TEST(CliTest, BadPlanAndClusterFailCleanly) {
  ExpectCleanFailure("baseline rnnlm --method magic", "magic");
  const std::string bad = TempPath("bad_plan.json");
  std::ofstream(bad) << R"({"format":"graphopt-plan","version":1,"device":[99]})";
  ExpectCleanFailure("simulate rnnlm --plan " + bad, bad);
  std::remove(bad.c_str());
  ExpectCleanFailure("simulate rnnlm --cluster 3xAbacus", "3xAbacus");
}

TEST(CliTest, RunComparesEveryBaseline) {
  CliRun r = Graphopt("run rnnlm:layers=2,steps=3 --cluster 2xP100");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* m : {"single", "tf-default", "expert", "metis", "scotch", "heft"}) {
    EXPECT_NE(r.output.find(m), std::string::npos) << m;
  }
}

TEST(CliTest, BenchWritesItsReports) {
  const std::string results = TempPath("bench/placement.json");
  CliRun r = Graphopt("bench --rows rnnlm-2,wavenet-2 --methods single,expert --results " + results);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("| RNNLM 2-layer (2) |"), std::string::npos) << r.output;
  for (const char* ext : {".json", ".md", ".csv", ".svg"}) {
    const std::string f = TempPath(std::string("bench/placement") + ext);
    EXPECT_TRUE(std::ifstream(f).good()) << f;
    std::remove(f.c_str());
  }
  ExpectCleanFailure("bench --rows nosuchrow", "nosuchrow");
}

#ifdef GRAPHOPT_HAVE_RL
TEST(CliTest, OptimizeWritesAPlanThatSimulateAccepts) {
  const std::string plan = TempPath("optimized_plan.json");
  const std::string conv = TempPath("optimized_convergence.json");
  CliRun r = Graphopt("optimize rnnlm:layers=2,steps=3 --cluster 2xP100 --steps 2 --time-limit 60 --out " + plan +
                      " --convergence " + conv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* m : {"go (found)", "expert", "heft", "lower bound", "best baseline"}) {
    EXPECT_NE(r.output.find(m), std::string::npos) << m << "\n" << r.output;
  }
  CliRun s = Graphopt("simulate rnnlm:layers=2,steps=3 --cluster 2xP100 --plan " + plan);
  EXPECT_EQ(s.exit_code, 0) << s.output;
  EXPECT_TRUE(std::ifstream(conv).good());
  std::remove(plan.c_str());
  std::remove(conv.c_str());
}

TEST(CliTest, BenchLearnedMethodWritesConvergenceCharts) {
  const std::string results = TempPath("bench_learned/placement.json");
  CliRun r = Graphopt("bench --rows rnnlm-2 --methods expert,hdp --time-limit 2 --results " + results);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("hdp"), std::string::npos) << r.output;
  for (const char* ext : {".json", ".md", ".csv", ".svg", ".convergence.json", ".convergence.svg", ".convergence-plans.svg"}) {
    const std::string f = TempPath(std::string("bench_learned/placement") + ext);
    EXPECT_TRUE(std::ifstream(f).good()) << f;
    std::remove(f.c_str());
  }
  ExpectCleanFailure("bench --rows rnnlm-2 --methods go --go-options nosuchkey=1 --results " + results, "nosuchkey");
}

TEST(CliTest, OptimizeRejectsBadOptions) {
  ExpectCleanFailure("optimize rnnlm:layers=2 --method simulated-annealing", "simulated-annealing");
  ExpectCleanFailure("optimize rnnlm:layers=2 --policy hidden=-3", "hidden");
  ExpectCleanFailure("optimize rnnlm:layers=2 --policy nosuchkey=1", "nosuchkey");
  ExpectCleanFailure("optimize rnnlm:layers=2 --time-limit -1", "--time-limit");
  ExpectCleanFailure("optimize nosuchmodel", "nosuchmodel");
}
#endif

// The ONNX corpus of the repository (scripts/export_onnx_corpus.py).
std::string Corpus(const std::string& file) { return std::string(GRAPHOPT_SOURCE_DIR) + "/data/onnx_corpus/" + file; }

TEST(CliTest, DynamicOnnxModelNeedsItsDimensionsBound) {
  CliRun r = Graphopt("inspect " + Corpus("gpt_dynamic.onnx"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--dim batch=N,seq=N"), std::string::npos) << r.output;
}

TEST(CliTest, DimFlagBindsTheSymbolicDimensionsOfEveryModelCommand) {
  CliRun r = Graphopt("inspect " + Corpus("gpt_dynamic.onnx") + " --dim batch=2,seq=64");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("batch=2,seq=64"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("forward MACs   15.963 G"), std::string::npos) << r.output;
  r = Graphopt("simulate " + Corpus("bert_encoder_dynamic.onnx") + " --dim seq=128,batch=2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = Graphopt("baseline " + Corpus("bert_encoder_dynamic.onnx") + " --method single --dim seq=128,batch=2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(CliTest, DefaultDimensionIsPrinted) {
  CliRun r = Graphopt("inspect " + Corpus("gpt_dynamic.onnx") + " --forward --dim batch=2,*=16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("seq=16 (default)"), std::string::npos) << r.output;
}

TEST(CliTest, DimFlagRejectsBadBindings) {
  for (const char* dim : {"batch", "batch=0", "batch=x", "nosuchdim=3"}) {
    CliRun r = Graphopt("inspect " + Corpus("gpt_dynamic.onnx") + " --dim " + dim);
    EXPECT_NE(r.exit_code, 0) << dim;
    EXPECT_NE(r.output.find(dim[0] == 'n' ? "'nosuchdim'" : "--dim"), std::string::npos) << dim << ": " << r.output;
  }
  CliRun r = Graphopt("inspect gnmt --dim batch=2");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--dim applies to ONNX models only"), std::string::npos) << r.output;
}

TEST(CliTest, CorpusCheckPrintsOneRowPerModel) {
  CliRun r = Graphopt("inspect --check " + Corpus("") + " --only resnet18,vit_b_16,gpt_dynamic");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("| vit_b_16 | 1,105 | 86,495,464 | 86,495,464 |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| gpt_dynamic (batch=2,seq=64) |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 of 3 models import exactly"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace graphopt
