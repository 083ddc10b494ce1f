// End-to-end checks of the graphopt binary: every data file and every built-in can
// be inspected; bad input gives one clear message and a non-zero exit.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "../testing/scratch_dir.h"
#include "cli_test_util.h"
#include "eval/convergence_svg.h"
#include "eval/results.h"
#include "core/rng.h"

namespace graphopt {
namespace {

using testing::CliRun;
using testing::Data;
using testing::Graphopt;
using testing::RunShell;
using testing::ScratchDir;
using testing::TempPath;

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
  // Each message names its command once, whatever reported it.
  ExpectCleanFailure("inspect gnmt --frobnicate", "error: inspect: unknown flag --frobnicate (see graphopt inspect --help)");
  ExpectCleanFailure("convert gnmt --to yaml", "error: convert: --to must be json or dot");
  ExpectCleanFailure("bench --seed x", "error: bench: --seed");
  ExpectCleanFailure("inspect gnmt rnnlm", "error: inspect: expected at most one MODEL, got 2 arguments");
  for (const char* command : {"inspect", "convert", "simulate", "baseline", "run", "bench", "optimize"}) {
    CliRun r = Graphopt(std::string(command) + " --frobnicate");
    EXPECT_EQ(r.output.find(std::string(command) + ": " + command + ":"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(std::string("error: ") + command + ": unknown flag --frobnicate"), std::string::npos)
        << r.output;
  }
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
  const ScratchDir scratch("cli_bench");
  const std::string results = scratch.Path("placement.json");
  CliRun r = Graphopt("bench --rows rnnlm-2,wavenet-2 --methods single,expert --results " + results);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("| RNNLM 2-layer (2) |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 rows x 2 methods"), std::string::npos) << r.output;  // those rows alone
  for (const char* ext : {".json", ".md", ".csv", ".svg"}) {
    const std::string f = scratch.Path(std::string("placement") + ext);
    EXPECT_TRUE(std::ifstream(f).good()) << f;
    std::remove(f.c_str());
  }
  ExpectCleanFailure("bench --rows nosuchrow", "nosuchrow");
}

// --models: rows of their own (here two data files on a 3-GPU machine), in the order given.
TEST(CliTest, BenchRunsModelFilesAsRows) {
  const ScratchDir scratch("cli_bench_models");
  const std::string results = scratch.Path("r.json");
  CliRun r = Graphopt("bench --models '" + Data("pipedream/vgg16.txt") + ";" + Data("onnx/squeezenet1_1.onnx") +
                      "' --cluster 1xV100+2xP100 --methods tf-default,expert --results " + results);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t vgg = r.output.find("| vgg16.txt (3) | 1xV100+2xP100 |");
  const size_t squeezenet = r.output.find("| squeezenet1_1.onnx (3) | 1xV100+2xP100 |");
  ASSERT_NE(vgg, std::string::npos) << r.output;
  ASSERT_NE(squeezenet, std::string::npos) << r.output;
  EXPECT_LT(vgg, squeezenet) << r.output;
  ExpectCleanFailure("bench --rows gnmt-2 --models x.onnx --results " + results, "not both");
  ExpectCleanFailure("bench --models ' ; ' --results " + results, "names no model");
}

#ifdef GRAPHOPT_HAVE_RL
TEST(CliTest, OptimizeWritesAPlanThatSimulateAccepts) {
  const std::string plan = TempPath("optimized_plan.json");
  const std::string conv = TempPath("optimized_convergence.json");
  CliRun r = Graphopt("optimize rnnlm:layers=2,steps=3 --cluster 2xP100 --steps 2 --time-limit 60 --out " + plan +
                      " --convergence " + conv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* m : {"go (found)", "expert", "heft", "lower bound", "best baseline", "by polished policy samples",
                        "the plan comes from"}) {
    EXPECT_NE(r.output.find(m), std::string::npos) << m << "\n" << r.output;
  }
  CliRun s = Graphopt("simulate rnnlm:layers=2,steps=3 --cluster 2xP100 --plan " + plan);
  EXPECT_EQ(s.exit_code, 0) << s.output;
  EXPECT_TRUE(std::ifstream(conv).good());
  std::remove(plan.c_str());
  std::remove(conv.c_str());
}

TEST(CliTest, BenchLearnedMethodWritesConvergenceCharts) {
  const ScratchDir scratch("cli_bench_learned");
  const std::string results = scratch.Path("placement.json");
  CliRun r = Graphopt("bench --rows rnnlm-2 --methods expert,hdp --time-limit 2 --results " + results);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("hdp"), std::string::npos) << r.output;
  // A placement table's learned search scores its plans as the table does
  // (tasks=placement): its last best is the table's figure.
  auto table = ReadResultsFile(results);
  auto convergence = ReadConvergenceFile(scratch.Path("placement.convergence.json"));
  ASSERT_TRUE(table.ok() && convergence.ok());
  ASSERT_EQ(convergence->size(), 1u);
  ASSERT_FALSE(convergence->front().best_us.empty());
  EXPECT_EQ(convergence->front().best_us.back(), table->FindRow("rnnlm-2")->methods.at("hdp").step_time_us);
  for (const char* ext : {".json", ".md", ".csv", ".svg", ".convergence.json", ".convergence.svg", ".convergence-plans.svg"}) {
    const std::string f = scratch.Path(std::string("placement") + ext);
    EXPECT_TRUE(std::ifstream(f).good()) << f;
    std::remove(f.c_str());
  }
  ExpectCleanFailure("bench --rows rnnlm-2 --methods go --go-options nosuchkey=1 --results " + results, "nosuchkey");
}

TEST(CliTest, OptimizePolicyHelpListsEveryKey) {
  CliRun r = Graphopt("optimize --policy help --time-limit 30");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"  time_limit=30 ", "  samples=32 ", "  level_prior=5 ", "(integer in [0, 30])"}) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  }
  CliRun hdp = Graphopt("optimize --method hdp --policy help");
  ASSERT_EQ(hdp.exit_code, 0) << hdp.output;
  EXPECT_NE(hdp.output.find("  groupings=1 "), std::string::npos) << hdp.output;
  EXPECT_EQ(hdp.output.find("  level_prior="), std::string::npos) << hdp.output;
}

// pretrain, then the policy plans a graph it never saw: zero-shot and fine-tuned.
TEST(CliTest, PretrainWritesAPolicyThatOptimizePlansWith) {
  const std::string policy = TempPath("pretrained.pt");
  const ScratchDir scratch("cli_pretrain");
  const std::string ckpt = scratch.Path("pretrain_ckpt");
  const std::string models = "\"rnnlm:layers=1,steps=2,hidden=256,batch=32,vocab=500;"
                             "wavenet:stacks=1,layers=2,batch=2,length=512,channels=32,skip=32,quantization=32\"";
  CliRun r = Graphopt("pretrain --families '' --models " + models +
                      " --clusters 2xV100,1xV100+1xP100 --steps 4 --steps-per-task 2 --threads 1 --checkpoint " + ckpt +
                      " --policy hidden=16,heads=2,segment=16,memory=16,samples=4 --out " + policy);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 steps, 2 tasks (1 per step)"), std::string::npos) << r.output;
  EXPECT_TRUE(std::ifstream(policy + ".json").good());
  CliRun again = Graphopt("pretrain --families '' --models " + models +
                          " --clusters 2xV100,1xV100+1xP100 --steps 6 --steps-per-task 2 --threads 1 --checkpoint " + ckpt +
                          " --policy hidden=16,heads=2,segment=16,memory=16,samples=4 --out " + policy);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("resumed from"), std::string::npos) << again.output;
  const std::string unseen = "gnmt:layers=2,steps=2,hidden=64,batch=8,vocab=100 --cluster 2xP100";
  CliRun z = Graphopt("optimize " + unseen + " --pretrained " + policy + " --zero-shot");
  ASSERT_EQ(z.exit_code, 0) << z.output;
  for (const char* m : {"zero-shot ", "expert", "of wall time", "greedy"}) EXPECT_NE(z.output.find(m), std::string::npos) << m << z.output;
  CliRun f = Graphopt("optimize " + unseen + " --pretrained " + policy +
                      " --finetune-steps 2 --policy baselines=0,warm_start=0,polish=0 --threads 1");
  ASSERT_EQ(f.exit_code, 0) << f.output;
  EXPECT_NE(f.output.find("after 2 steps"), std::string::npos) << f.output;
  EXPECT_NE(f.output.find("zero-shot plan of the pre-trained policy"), std::string::npos) << f.output;
  const std::string results = scratch.Path("bench_transfer/t.json");
  CliRun b = Graphopt("bench --rows rnnlm-2 --methods expert,zero-shot,finetune --finetune-steps 1 "
                      "--zero-shot-options zero_shot_samples=4 "
                      "--pretrained " + policy + " --results " + results);
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_NE(b.output.find("| expert | finetune | zero-shot |"), std::string::npos) << b.output;
  ExpectCleanFailure("bench --rows rnnlm-2 --methods zero-shot --results " + results, "needs --pretrained");
  ExpectCleanFailure("bench --rows rnnlm-2 --methods zero-shot --zero-shot-options zero_shot_samples=-1 --pretrained " +
                         policy + " --results " + results,
                     "zero_shot_samples");
  ExpectCleanFailure("optimize " + unseen + " --pretrained " + policy + " --policy hidden=32", "cannot be combined");
  ExpectCleanFailure("optimize " + unseen + " --zero-shot", "need a pre-trained policy");
  ExpectCleanFailure("optimize " + unseen + " --pretrained /no/such/policy.pt --zero-shot", "/no/such/policy.pt");
  ExpectCleanFailure("pretrain --holdout resnet", "--holdout: \"resnet\"");
  ExpectCleanFailure("pretrain --clusters 3xA100", "unknown GPU kind \"A100\"");
  ExpectCleanFailure("pretrain --policy colour=1", "colour");
  std::remove(policy.c_str());
  std::remove((policy + ".json").c_str());
}

// optimize starts from the default pre-trained policy: GRAPHOPT_POLICY's, else the one
// shipped in policies/default.pt beside the binary's folder; network options or
// --pretrained none train a new one instead.
TEST(CliTest, OptimizeStartsFromTheDefaultPolicy) {
  const ScratchDir scratch("cli_shipped");
  const std::string dir = scratch.path();
  std::filesystem::create_directories(scratch.Path("bin"));
  std::filesystem::create_directories(scratch.Path("policies"));
  const std::string policy = dir + "/policies/default.pt";
  CliRun r = Graphopt("pretrain --families '' --models rnnlm:layers=1,steps=2,hidden=256,batch=32,vocab=500 "
                      "--clusters 2xV100 --steps 2 --steps-per-task 2 --threads 1 "
                      "--policy hidden=16,heads=2,segment=16,memory=16,samples=4 --out " + policy);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string model = "gnmt:layers=2,steps=2,hidden=64,batch=8,vocab=100 --cluster 2xP100 --threads 1";
  CliRun env = Graphopt("optimize " + model + " --zero-shot", "GRAPHOPT_POLICY=" + policy);
  ASSERT_EQ(env.exit_code, 0) << env.output;
  EXPECT_NE(env.output.find("policy   pre-trained " + policy + " (GRAPHOPT_POLICY)"), std::string::npos) << env.output;
  EXPECT_NE(env.output.find("of wall time"), std::string::npos) << env.output;
  // The shipped file, found from where the binary is.
  const std::string binary = dir + "/bin/graphopt";
  ASSERT_EQ(std::system(("cp '" + std::string(GRAPHOPT_BINARY) + "' '" + binary + "'").c_str()), 0);
  CliRun shipped = RunShell("env -u GRAPHOPT_POLICY " + binary + " optimize " + model + " --steps 1 --policy polish=0");
  ASSERT_EQ(shipped.exit_code, 0) << shipped.output;
  EXPECT_NE(shipped.output.find("policy   pre-trained " + policy + " (the shipped default"), std::string::npos)
      << shipped.output;
  EXPECT_NE(shipped.output.find("zero-shot plan of the pre-trained policy"), std::string::npos) << shipped.output;
  CliRun none = RunShell("env -u GRAPHOPT_POLICY " + binary + " optimize " + model + " --steps 1 --pretrained none");
  ASSERT_EQ(none.exit_code, 0) << none.output;
  EXPECT_NE(none.output.find("policy   new, trained from scratch (--pretrained none)"), std::string::npos) << none.output;
  CliRun own = RunShell("env -u GRAPHOPT_POLICY " + binary + " optimize " + model + " --steps 1 --policy hidden=16");
  ASSERT_EQ(own.exit_code, 0) << own.output;
  EXPECT_NE(own.output.find("new, trained from scratch (network options or tasks given"), std::string::npos)
      << own.output;
  CliRun missing = Graphopt("optimize " + model + " --steps 1", "GRAPHOPT_POLICY=/no/such/default.pt");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_NE(missing.output.find("GRAPHOPT_POLICY names /no/such/default.pt"), std::string::npos) << missing.output;
}

// The shipped default policy (policies/default.pt, made by scripts/pretrain_default.sh)
// loads, its report beside it, and plans zero-shot a graph on a machine of a shape it
// never trained on (three GPUs of two kinds).
TEST(CliTest, TheShippedDefaultPolicyPlansZeroShot) {
  const std::string policy = std::string(GRAPHOPT_SOURCE_DIR) + "/policies/default.pt";
  ASSERT_TRUE(std::ifstream(policy).good()) << policy;
  std::ifstream report(policy + ".json");
  ASSERT_TRUE(report.good()) << policy << ".json";
  const std::string text((std::istreambuf_iterator<char>(report)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"format\": \"graphopt-pretrain-report\""), std::string::npos);
  CliRun r = Graphopt("optimize gnmt:layers=2,steps=2,hidden=64,batch=8,vocab=100 --cluster 1xV100+2xP100 --threads 1 "
                      "--zero-shot",
                      "GRAPHOPT_POLICY=" + policy);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("policy   pre-trained " + policy + " (GRAPHOPT_POLICY)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("of wall time"), std::string::npos) << r.output;
}

// --tasks: the decisions not optimized keep TensorFlow's default; the written plan
// shows it (ready order: every priority 0); --fixed-placement for sch+fu.
TEST(CliTest, OptimizeDecidesOnlyTheTasksGiven) {
  const std::string plan = TempPath("tasks_plan.json");
  const std::string model = "rnnlm:layers=1,steps=2,hidden=256,batch=32,vocab=500 --cluster 2xV100 --threads 1 --steps 1";
  CliRun r = Graphopt("optimize " + model + " --tasks placement --out " + plan);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("tasks    placement optimized; the others TensorFlow's default\n"), std::string::npos)
      << r.output;
  std::ifstream in(plan);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t p = text.find("\"priority\"");
  ASSERT_NE(p, std::string::npos) << text;
  const std::string priorities = text.substr(p, text.find(']', p) - p);
  EXPECT_EQ(priorities.find_first_of("123456789"), std::string::npos) << priorities;
  CliRun sf = Graphopt("optimize " + model + " --tasks scheduling+fusion --fixed-placement expert");
  ASSERT_EQ(sf.exit_code, 0) << sf.output;
  EXPECT_NE(sf.output.find("(placement of expert)"), std::string::npos) << sf.output;
  ExpectCleanFailure("optimize " + model + " --fixed-placement expert", "needs placement left out");
  ExpectCleanFailure("optimize " + model + " --tasks placement+colour", "colour");
  ExpectCleanFailure("optimize " + model + " --method hdp --tasks placement", "options of --method go");
  std::remove(plan.c_str());
}

// bench --tasks: the configurations of the multi-task table as columns, with the
// single-GPU and expert plans for reference.
TEST(CliTest, BenchTasksRunsTheConfigurations) {
  const ScratchDir scratch("cli_bench_tasks");
  const std::string results = scratch.Path("t.json");
  CliRun r = Graphopt("bench --tasks --rows rnnlm-2 --methods tf-default,hp-only,pl-only,pl+sch+fu --time-limit 1 --results " +
                      results);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("of pl+sch+fu are worth against the defaults on its placement:\n  rnnlm_2l on 2xP100: fusion: "),
            std::string::npos)
      << r.output;
  for (const char* column : {"| single |", "| expert |", "| hp-only |", "| pl-only |", "| tf-default |"}) {
    EXPECT_NE(r.output.find(column), std::string::npos) << column << "\n" << r.output;
  }
  ExpectCleanFailure("bench --tasks --rows rnnlm-2 --methods pl+fu --results " + results, "unknown task configuration \"pl+fu\"");
  ExpectCleanFailure("bench --tasks --fusion --results " + results, "no --transfer, --pretrained or --fusion");
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

// Issue 14: bad clusters, graphs and plans end in one clear message and exit 1,
// never an abort (exit 134).
std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

std::string TwoGpuCluster(const std::string& kind, const std::string& latency, const std::string& bidirectional) {
  return R"({"name": "two", "devices": [
    {"name": "g0", "kind": )" + kind + R"(, "peak_tflops": 10, "memory_bandwidth_gb_s": 500, "memory_gib": 8, "launch_overhead_us": 4},
    {"name": "g1", "peak_tflops": 10, "memory_bandwidth_gb_s": 500, "memory_gib": 8, "launch_overhead_us": 4}],
  "default_link": {"bandwidth_gb_s": 20, "latency_us": )" + latency + R"(},
  "links": [{"from": "g0", "to": "g1", "bandwidth_gb_s": 20, "latency_us": 3, "bidirectional": )" + bidirectional + "}]}";
}

TEST(CliTest, BadClusterFilesFailCleanly) {
  const std::string kind5 = WriteTemp("kind5.json", TwoGpuCluster("5", "3", "true"));
  ExpectCleanFailure("simulate rnnlm:layers=2 --cluster " + kind5, kind5 + ": devices[0] (g0): \"kind\"");
  const std::string kind_null = WriteTemp("kind_null.json", TwoGpuCluster("null", "3", "true"));
  ExpectCleanFailure("run rnnlm:layers=2 --cluster " + kind_null, "\"kind\": must be a string, got null");
  const std::string yes = WriteTemp("bidir_yes.json", TwoGpuCluster("\"gpu\"", "3", "\"yes\""));
  ExpectCleanFailure("simulate rnnlm:layers=2 --cluster " + yes, yes + ": links[0]: \"bidirectional\"");
  const std::string slow = WriteTemp("latency_1e308.json", TwoGpuCluster("\"gpu\"", "1e308", "true"));
  ExpectCleanFailure("baseline rnnlm:layers=2 --method heft --cluster " + slow, slow + ": default_link: \"latency_us\"");
  ExpectCleanFailure("run rnnlm:layers=2 --cluster " + slow, "outside the physical range");
  for (const std::string& f : {kind5, kind_null, yes, slow}) std::remove(f.c_str());
}

TEST(CliTest, GraphWithTooManyColocationGroupsFailsCleanly) {
  const std::string graph = TempPath("groups_graph.json");
  CliRun c = Graphopt("convert rnnlm:layers=2 --to json --out " + graph);
  ASSERT_EQ(c.exit_code, 0) << c.output;
  std::ifstream in(graph);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find("\"colocation_groups\":");
  ASSERT_NE(at, std::string::npos);
  const size_t end = text.find_first_of(",}", at);
  text.replace(at, end - at, "\"colocation_groups\":2147483647");
  std::ofstream(graph) << text;
  ExpectCleanFailure("run " + graph + " --cluster 2xP100", "colocation_groups: 2147483647 is more than the number of ops");
  ExpectCleanFailure("baseline " + graph + " --method metis --cluster 2xP100", "colocation_groups");
  std::remove(graph.c_str());
}

TEST(CliTest, PlansWithoutHeaderOrForAnotherGraphAreRefused) {
  const std::string plan = TempPath("header_plan.json");
  CliRun b = Graphopt("baseline rnnlm:layers=2 --method single --cluster 2xP100 --out " + plan);
  ASSERT_EQ(b.exit_code, 0) << b.output;
  CliRun other = Graphopt("simulate gnmt:layers=2 --cluster 2xP100 --plan " + plan);
  EXPECT_EQ(other.exit_code, 1) << other.output;
  EXPECT_NE(other.output.find(plan + ": the plan is for graph"), std::string::npos) << other.output;
  const std::string bare = WriteTemp("bare_plan.json", R"({"device": [0]})");
  ExpectCleanFailure("simulate rnnlm:layers=2 --cluster 2xP100 --plan " + bare, bare + ": \"format\" is missing");
  const std::string wrapped = WriteTemp("wrapped_plan.json", R"({"format": "graphopt-plan", "version": 1, "graph": "x", "device": [4294967297]})");
  ExpectCleanFailure("simulate rnnlm:layers=2 --cluster 2xP100 --plan " + wrapped, wrapped + ": the plan is for graph \"x\"");
  for (const std::string& f : {plan, bare, wrapped}) std::remove(f.c_str());
}

TEST(CliTest, AFlagIsNotTakenAsTheValueOfAnother) {
  ExpectCleanFailure("simulate rnnlm:layers=2 --cluster --plan x.json", "flag --cluster needs a value, got the flag --plan");
  ExpectCleanFailure("baseline rnnlm:layers=2 --method --cluster 2xP100", "flag --method needs a value, got the flag --cluster");
}

TEST(CliTest, OutputPathsAreCheckedBeforeTheWork) {
  ExpectCleanFailure("baseline rnnlm:layers=2 --method single --out /no/such/dir/plan.json", "--out /no/such/dir/plan.json");
  ExpectCleanFailure("baseline rnnlm:layers=2 --method single --out /proc/x.json", "cannot write there");
  ExpectCleanFailure("simulate rnnlm:layers=2 --trace /no/such/dir/trace.json", "directory /no/such/dir does not exist");
  ExpectCleanFailure("baseline rnnlm:layers=2 --method single --out /tmp", "is a directory");
}

#ifdef GRAPHOPT_HAVE_RL
TEST(CliTest, OptimizeRefusesBadThreadCountsAndOutputsUpFront) {
  for (const char* t : {"0", "-1", "1000", "1000000000"}) {
    ExpectCleanFailure(std::string("optimize rnnlm:layers=2 --cluster 2xP100 --time-limit 5 --threads ") + t,
                       std::string("--threads: ") + t + " is out of range [1, ");
  }
  ExpectCleanFailure("optimize rnnlm:layers=2 --threads 1e9", "--threads");
  ExpectCleanFailure("optimize rnnlm:layers=2 --cluster --time-limit 5", "flag --cluster needs a value, got the flag --time-limit");
  // Refused at once, not after the 120 s of the default time limit.
  ExpectCleanFailure("optimize rnnlm:layers=2 --out /proc/x.json", "--out /proc/x.json");
  ExpectCleanFailure("optimize rnnlm:layers=2 --trace /no/such/dir/t.json", "--trace /no/such/dir/t.json");
  ExpectCleanFailure("optimize rnnlm:layers=2 --convergence /no/such/dir/c.json", "--convergence");
}
#endif

}  // namespace
}  // namespace graphopt
