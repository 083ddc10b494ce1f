// The baseline planners, one registry line each (baselines/planner.h).
//
// To add a baseline: write its file with a factory
//   StatusOr<std::unique_ptr<Planner>> NewMyPlanner(const PlannerSettings& settings);
// (baselines/random.cc is a complete example), declare the factory below and add its
// line to RegisterBaselines. `standard` puts it among the baselines every comparison
// includes (BaselineNames: the suite's default columns, the GO search's starting
// plans); without it, it runs when named (`graphopt baseline --method NAME`,
// `bench --methods NAME`).
#include "baselines/baechi.h"
#include "baselines/baechi_modes.h"
#include "baselines/baseline.h"
#include "baselines/contiguous_split.h"
#include "baselines/milp.h"
#include "baselines/planner.h"

namespace graphopt {

StatusOr<std::unique_ptr<Planner>> NewRandomPlanner(const PlannerSettings& settings);  // baselines/random.cc
StatusOr<std::unique_ptr<Planner>> NewModuleBalancedPlanner(
    const PlannerSettings& settings);                                                    // baselines/module_balanced.cc
StatusOr<std::unique_ptr<Planner>> NewPlanFilePlanner(const PlannerSettings& settings);  // baselines/plan_file.cc

namespace {

// A baseline that is one function of the context and the settings.
class FunctionPlanner : public Planner {
 public:
  using Function = std::function<StatusOr<Plan>(const PlanContext&, const BaselineOptions&)>;
  FunctionPlanner(Function f, BaselineOptions options) : f_(std::move(f)), options_(options) {}
  StatusOr<Plan> Run(const PlanContext& context) override { return f_(context, options_); }

 private:
  Function f_;
  BaselineOptions options_;
};

PlannerFactory Baseline(FunctionPlanner::Function f) {
  return [f](const PlannerSettings& s) -> StatusOr<std::unique_ptr<Planner>> {
    BaselineOptions options;
    options.seed = s.seed;
    options.accelerators_only = s.accelerators_only;
    return std::unique_ptr<Planner>(new FunctionPlanner(f, options));
  };
}

}  // namespace

void RegisterBaselines(PlannerRegistry* r) {
  constexpr PlannerKind kBaseline = PlannerKind::kBaseline;
  auto add = [r](PlannerInfo info) {
    const Status s = r->Register(std::move(info));
    GO_CHECK_MSG(s.ok(), s.message());
  };
  add(PlannerInfo::Of("single", kBaseline, "every op on the first accelerator, ready order, no fusion",
                      Baseline([](const PlanContext& c, const BaselineOptions&) -> StatusOr<Plan> {
                        return SingleDevicePlan(c.graph, c.cluster);
                      }))
          .Standard());
  add(PlannerInfo::Of("tf-default", kBaseline,
                      "TensorFlow's default: the first accelerator, ready order, elementwise fusion",
                      Baseline([](const PlanContext& c, const BaselineOptions&) -> StatusOr<Plan> {
                        return TfDefaultPlan(c.graph, c.cluster);
                      }))
          .Standard()
          .DecidesFusion());
  add(PlannerInfo::Of(kExpertBaseline, kBaseline,
                      "the human expert placement of the model family (layers over the devices)",
                      Baseline([](const PlanContext& c, const BaselineOptions&) {
                        return ExpertPlan(c.graph, c.cluster, c.cost_model);
                      }))
          .Standard());
  add(PlannerInfo::Of("metis", kBaseline, "METIS k-way partition (op costs, tensor bytes), one part per accelerator",
                      Baseline([](const PlanContext& c, const BaselineOptions& o) {
                        return MetisPlan(c.graph, c.cluster, c.cost_model, o);
                      }))
          .Standard());
  add(PlannerInfo::Of("scotch", kBaseline, "Scotch k-way partition (op costs, tensor bytes), one part per accelerator",
                      Baseline([](const PlanContext& c, const BaselineOptions& o) {
                        return ScotchPlan(c.graph, c.cluster, c.cost_model, o);
                      }))
          .Standard());
  add(PlannerInfo::Of("heft", kBaseline,
                      "HEFT list scheduling: upward rank, earliest finish time, the rank as priority",
                      Baseline([](const PlanContext& c, const BaselineOptions&) {
                        return HeftPlan(c.graph, c.cluster, c.cost_model);
                      }))
          .Standard());
  add(PlannerInfo::Of("random", kBaseline,
                      "each colocation group on a uniformly random accelerator (seeded), ready order",
                      NewRandomPlanner));
  add(PlannerInfo::Of(
      "module-balanced", kBaseline,
      "the model's modules in order, split over the accelerators by parameter bytes (Accelerate's balanced map)",
      NewModuleBalancedPlanner));
  // Baechi's memory-aware placers (baselines/baechi.h); ready order, no fusion.
  auto baechi = [](BaechiMethod method) {
    return Baseline([method](const PlanContext& c, const BaselineOptions&) {
      return BaechiPlan(c.graph, c.cluster, c.cost_model, method);
    });
  };
  add(PlannerInfo::Of(
      "m-topo", kBaseline,
      "Baechi's m-TOPO: the topological order filled onto the accelerators in turn, each up to its share of the "
      "memory (the share alone if its static count fits nowhere)",
      baechi(BaechiMethod::kTopo)));
  add(PlannerInfo::Of(
      "m-etf", kBaseline,
      "Baechi's m-ETF: earliest-start list scheduling on the accelerators with memory left, one channel per device "
      "(overflows least if nothing fits)",
      baechi(BaechiMethod::kEtf)));
  add(PlannerInfo::Of(
      "m-sct", kBaseline,
      "Baechi's m-SCT: m-ETF that keeps each op's favourite child (LP relaxation) on its device (overflows least if "
      "nothing fits)",
      baechi(BaechiMethod::kSct)));
  // Their modes (baselines/baechi_modes.h) and the best of the variants by their own estimate.
  auto variant = [](BaechiVariant v) {
    return Baseline([v](const PlanContext& c, const BaselineOptions&) -> StatusOr<Plan> {
      GO_ASSIGN_OR_RETURN(BaechiVariantResult r, BaechiPlanVariant(c.graph, c.cluster, c.cost_model, v));
      return std::move(r.plan);
    });
  };
  struct Mode {
    const char* suffix;
    const char* summary;
    bool forward, coplace, ports;
  };
  const Mode modes[] = {
      {"-fwd", "on the forward graph alone, each backward and update op with its forward op (charged to it)", true,
       false, false},
      {"-coplace", "after co-placement (an op with one successor joins its group) and fusion of grouped neighbours",
       false, true, false},
      {"-fwd-coplace", "on the forward graph with co-placement and fusion (the mode Baechi's code recommends)", true,
       true, false},
      {"-ports", "with transfers that contend for the links and ports they cross (not one channel per device)", false,
       false, true},
  };
  for (BaechiMethod m : {BaechiMethod::kEtf, BaechiMethod::kSct}) {
    for (const Mode& mode : modes) {
      add(PlannerInfo::Of(std::string(BaechiMethodName(m)) + mode.suffix, kBaseline,
                          std::string(m == BaechiMethod::kEtf ? "Baechi's m-ETF " : "Baechi's m-SCT ") + mode.summary,
                          variant(BaechiVariant{m, mode.forward, mode.coplace, mode.ports})));
    }
  }
  // The optimal contiguous splits of the layers (baselines/contiguous_split.h); ready order, no fusion.
  auto split = [](SplitObjective objective) {
    return Baseline([objective](const PlanContext& c, const BaselineOptions&) {
      return ContiguousSplitPlan(c.graph, c.cluster, c.cost_model, objective);
    });
  };
  add(PlannerInfo::Of(
      "contiguous-split", kBaseline,
      "the optimal split (DP) of the layers, else the topological order, into contiguous blocks on the accelerators "
      "in order: the least sum of blocks' compute and incoming transfers, within each device's memory",
      split(SplitObjective::kSum)));
  add(PlannerInfo::Of(
      "contiguous-split-max", kBaseline,
      "contiguous-split with the largest block's compute and incoming transfers as the objective (the balanced, "
      "pipelined split)",
      split(SplitObjective::kMax)));
  add(PlannerInfo::Of(
      "baechi", kBaseline,
      "the best of Baechi's m-ETF and m-SCT x whole / forward graph x co-placement off / on x channels / ports, by "
      "their own estimate of the step",
      Baseline([](const PlanContext& c, const BaselineOptions&) -> StatusOr<Plan> {
        GO_ASSIGN_OR_RETURN(BaechiVariantResult r, BaechiBestPlan(c.graph, c.cluster, c.cost_model));
        return std::move(r.plan);
      })));
  // The exact program of placement and order on the coarsened graph (baselines/milp.h).
  add(PlannerInfo::Of(
      "milp", kBaseline,
      "placement and order as one mixed-integer program on at most 64 groups of ops, solved by CBC from the m-ETF "
      "placement for up to 60 s (its gap logged)",
      Baseline([](const PlanContext& c, const BaselineOptions&) -> StatusOr<Plan> {
        GO_ASSIGN_OR_RETURN(MilpPlanResult r, MilpPlan(c.graph, c.cluster, c.cost_model));
        return std::move(r.plan);
      })));
  // A plan file (baselines/plan_file.cc), named plan:FILE.
  add(PlannerInfo::Of("plan", kBaseline,
                      "the plan in FILE (as graphopt baseline --out writes it), checked against the graph and the "
                      "cluster; FILE has no '+' (stages follow it: plan:FILE+fusion+cp)",
                      NewPlanFilePlanner)
          .WithArgument("FILE"));
}

}  // namespace graphopt
