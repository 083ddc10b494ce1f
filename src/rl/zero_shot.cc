#include "rl/zero_shot.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <iterator>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "policy/features.h"
#include "policy/go_policy.h"
#include "policy/memory_budget.h"
#include "rl/ppo_config.h"
#include "rl/rollout.h"
#include "rl/training_util.h"
#include "sim/batch.h"

namespace graphopt {

DeviceId FastestAccelerator(const Simulator& sim) {
  const std::vector<DeviceId> accelerators = sim.cluster().Accelerators();
  if (accelerators.size() < 2) return kNoId;
  DeviceId best = kNoId;
  double best_us = std::numeric_limits<double>::infinity();
  for (DeviceId d : accelerators) {
    double us = 0;
    for (OpId op = 0; op < sim.graph().num_ops(); ++op) us += sim.OpTimeUs(op, d);
    if (us < best_us) {
      best_us = us;
      best = d;
    }
  }
  return best;
}

namespace {

// Where a zero-shot plan came from.
enum class Source { kGreedy, kSample, kCoupled, kBudgeted, kSingleDevice };

// Below the budgeted plans' rungs, when no plan fits: greedy budgeted placements at
// this many lower rungs (0.59 down to 0.28 of each device's memory from 0.9).
constexpr int kLowerRungs = 8;

// Plans simulated together between two updates of where the later ones stop: a
// multiple of the threads of a small machine, and few enough that the best step time
// so far tightens often.
constexpr size_t kStopChunk = 16;

// Whether a simulation stopped before the plan's end (SimOptions' stops).
bool StoppedEarly(const SimResult& r) { return r.stopped_at_oom || r.stopped_slower; }

// The best score of a group of plans in the result, and whether it stopped early
// (null for the greedy plan, simulated in full).
std::pair<PlanScore*, bool*> GroupBest(Source source, ZeroShotResult* r) {
  switch (source) {
    case Source::kSample:
      return {&r->best_sample_score, &r->best_sample_stopped};
    case Source::kCoupled:
      return {&r->best_coupled_score, &r->best_coupled_stopped};
    case Source::kBudgeted:
      return {&r->best_budgeted_score, &r->best_budgeted_stopped};
    case Source::kSingleDevice:
      return {&r->best_single_device_score, &r->best_single_device_stopped};
    case Source::kGreedy:
      break;
  }
  return {&r->greedy_score, nullptr};
}

// The greedy budgeted placements at rungs [first, first + count) of options.memory_budget.
std::vector<Actions> GreedyBudgeted(const PolicyInput& input, const float* probs, const UnitMemory& unit_memory,
                                    const ZeroShotOptions& options, int first, int count) {
  std::vector<Actions> greedy(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    greedy[static_cast<size_t>(i)].unit_device =
        BudgetedPlacement(input, probs, unit_memory, BudgetRung(options.memory_budget, first + i), nullptr);
  }
  return greedy;
}

// The action sets of one forward pass of the policy on a machine, with the input
// and the builder that make plans of them (kept together on the heap: the builder
// refers to the input). Plans are made when simulated (BatchSimulator::RunMade):
// holding every plan of a pass at once took hundreds of megabytes on large graphs.
struct Decoded {
  PolicyInput input;
  std::vector<Actions> actions;
  std::unique_ptr<PlanBuilder> builder;

  Plan Build(size_t i) const { return builder->Build(actions[i]); }
};

// One forward pass of the policy on `sim`'s machine and the action sets that `decode`
// (input, tensors, output) -> actions makes of it; the pass's time (decoding
// included) is added to *forward_seconds.
template <typename Decode>
StatusOr<std::unique_ptr<Decoded>> DecodedActions(GoPolicy& policy, const Simulator& sim,
                                                  const ZeroShotOptions& options, int* num_units,
                                                  double* forward_seconds, Decode&& decode) {
  auto decoded = std::make_unique<Decoded>();
  GO_ASSIGN_OR_RETURN(decoded->input,
                      BuildPolicyInput(sim.graph(), sim.cluster(), sim.cost_model(),
                                       UnitsPerDeviceOptions(sim.cluster(), options.units_per_device,
                                                             policy->config().layer_units)));
  const PolicyInput& input = decoded->input;
  if (num_units != nullptr) *num_units = input.num_units;
  const auto forward_start = std::chrono::steady_clock::now();
  try {
    torch::NoGradGuard no_grad;
    ScopedFlushDenormal flush;
    policy->eval();
    const PolicyTensors tensors = ToTensors(input);
    const PolicyOutput out = policy->forward(tensors);
    decoded->actions = decode(input, tensors, out);
  } catch (const c10::Error& e) {
    return InternalError(std::string("zero-shot forward pass: ") + e.what_without_backtrace());
  }
  *forward_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - forward_start).count();
  decoded->builder = std::make_unique<PlanBuilder>(sim.graph(), sim.cluster(), sim.cost_model(), input,
                                                   PpoConfig().critical_path_priorities);
  return decoded;
}

// The policy's placement distributions at the zero-shot temperature, [units x devices].
torch::Tensor PlacementProbs(const PolicyOutput& out, const ZeroShotOptions& options) {
  return torch::softmax(out.placement_logits / options.temperature, 1).contiguous();
}

// The action sets of one forward pass of the policy on `sim`'s machine: the greedy
// plan's, then `independent` samples, then `coupled` ones, then `budgeted`
// memory-budgeted ones (the greedy budgeted placement first); their sources appended
// to `sources`.
StatusOr<std::unique_ptr<Decoded>> PolicyActions(GoPolicy& policy, const Simulator& sim,
                                                 const ZeroShotOptions& options, int independent, int coupled,
                                                 int budgeted, int64_t pass, int* num_units, double* forward_seconds,
                                                 std::vector<Source>* sources) {
  if ((policy->config().tasks & kTaskPlacement) == 0) budgeted = 0;
  auto decode = [&](const PolicyInput& input, const PolicyTensors& tensors, const PolicyOutput& out) {
    std::vector<Actions> actions;
    actions.push_back(policy->Greedy(tensors, out));
    sources->push_back(Source::kGreedy);
    Rng rng(TrainingStepSeed(options.seed, pass));
    for (const bool is_coupled : {false, true}) {
      const int n = is_coupled ? coupled : independent;
      if (n == 0) continue;
      for (Actions& a : policy->Sample(tensors, out, rng, n, options.temperature, is_coupled)) {
        actions.push_back(std::move(a));
        sources->push_back(is_coupled ? Source::kCoupled : Source::kSample);
      }
    }
    if (budgeted > 0) {
      // After the other draws, so that they do not depend on the budgeted ones.
      const UnitMemory unit_memory = EstimateUnitMemory(sim.graph(), sim.cost_model(), input);
      const torch::Tensor probs = PlacementProbs(out, options);
      std::vector<Actions> greedy = GreedyBudgeted(input, probs.data_ptr<float>(), unit_memory, options, 0,
                                                   std::min(budgeted, kBudgetRungs));
      std::vector<Actions> sampled(static_cast<size_t>(std::max(0, budgeted - kBudgetRungs)));
      for (size_t i = 0; i < sampled.size(); ++i) {
        sampled[i].unit_device =
            BudgetedPlacement(input, probs.data_ptr<float>(), unit_memory,
                              BudgetRung(options.memory_budget, static_cast<int>(i) % kBudgetRungs), &rng);
      }
      sources->insert(sources->end(), greedy.size() + sampled.size(), Source::kBudgeted);
      for (Actions& a : policy->DecodeGivenPlacement(tensors, out, std::move(greedy), nullptr))
        actions.push_back(std::move(a));
      if (!sampled.empty()) {
        for (Actions& a : policy->DecodeGivenPlacement(tensors, out, std::move(sampled), &rng, options.temperature))
          actions.push_back(std::move(a));
      }
    }
    return actions;
  };
  return DecodedActions(policy, sim, options, num_units, forward_seconds, decode);
}

// The greedy budgeted placements of the kLowerRungs rungs below the budgeted plans',
// scheduling and fusion decoded given each (a forward pass of its own).
StatusOr<std::unique_ptr<Decoded>> LowerRungActions(GoPolicy& policy, const Simulator& sim,
                                                    const ZeroShotOptions& options, double* forward_seconds) {
  auto decode = [&](const PolicyInput& input, const PolicyTensors& tensors, const PolicyOutput& out) {
    const UnitMemory unit_memory = EstimateUnitMemory(sim.graph(), sim.cost_model(), input);
    const torch::Tensor probs = PlacementProbs(out, options);
    return policy->DecodeGivenPlacement(
        tensors, out, GreedyBudgeted(input, probs.data_ptr<float>(), unit_memory, options, kBudgetRungs, kLowerRungs),
        nullptr);
  };
  return DecodedActions(policy, sim, options, nullptr, forward_seconds, decode);
}

}  // namespace

StatusOr<ZeroShotResult> ZeroShotPlan(const Simulator& sim, const std::string& policy_path,
                                      const ZeroShotOptions& options) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  if (options.samples < 0) return InvalidArgument("zero-shot samples must be >= 0");
  if (!(options.temperature > 0)) return InvalidArgument("zero-shot temperature must be > 0");
  if (options.coupled_samples < 0) return InvalidArgument("zero-shot coupled samples must be >= 0");
  if (options.single_device_plans < 0) return InvalidArgument("zero-shot single-device plans must be >= 0");
  if (options.budgeted_plans < 0) return InvalidArgument("zero-shot budgeted plans must be >= 0");
  if (!(options.memory_budget > 0 && options.memory_budget <= 1)) {
    return InvalidArgument("zero-shot memory budget must be in (0, 1]");
  }
  ConfigureTorchThreads(options.threads);
  GO_ASSIGN_OR_RETURN(GoPolicy policy, LoadGoPolicy(policy_path));
  ZeroShotResult result;
  BatchSimulator batch(sim, options.threads);
  std::vector<Source> sources;
  GO_ASSIGN_OR_RETURN(const std::unique_ptr<Decoded> main,
                      PolicyActions(policy, sim, options, options.samples, options.coupled_samples,
                                    options.budgeted_plans, 0, &result.num_units, &result.forward_seconds, &sources));
  const DeviceId fastest = options.single_device_plans > 0 ? FastestAccelerator(sim) : kNoId;
  // The one-device machine: the fastest accelerator and the host CPUs (on a machine of
  // CPUs alone, whose accelerators are its CPUs: the fastest alone).
  std::vector<DeviceId> kept;
  std::unique_ptr<Simulator> one;
  std::unique_ptr<Decoded> single;
  if (fastest != kNoId) {
    kept = {fastest};
    const bool cpu_only = sim.cluster().device(fastest).kind == DeviceKind::kCpu;
    for (DeviceId d = 0; d < sim.cluster().num_devices() && !cpu_only; ++d) {
      if (sim.cluster().device(d).kind == DeviceKind::kCpu) kept.push_back(d);
    }
    GO_ASSIGN_OR_RETURN(Simulator part, Simulator::Create(sim.graph(), sim.cluster().Part(kept), sim.cost_model()));
    one = std::make_unique<Simulator>(std::move(part));
    std::vector<Source> single_sources;
    GO_ASSIGN_OR_RETURN(single, PolicyActions(policy, *one, options, options.single_device_plans - 1, 0, 0, 1,
                                              nullptr, &result.forward_seconds, &single_sources));
    sources.insert(sources.end(), single->actions.size(), Source::kSingleDevice);
  }
  // Plan i: the main pass's action sets, then the single-device pass's (its devices
  // mapped back onto the machine).
  auto make = [&](size_t i) {
    if (i < main->actions.size()) return main->Build(i);
    Plan p = single->Build(i - main->actions.size());
    for (DeviceId& d : p.device) d = kept[static_cast<size_t>(d)];
    return p;
  };
  // The lead plans first, in full: the greedy plan and the memory-budgeted ones (the
  // likeliest to win, and on a machine the graph barely fits the likeliest to fit).
  // Then the others in their order, kStopChunk at a time: once a plan so far fits,
  // every later plan that runs out of memory loses to it, and so does one still
  // running past its step time; while none fits, so does one whose overflow passes
  // the least overflow so far. With stop_early, those stop there. The results keep
  // the plans' order, so ties are broken as with every plan simulated in full, and
  // the chunks make the stops the same on every run.
  std::vector<size_t> lead, rest;
  for (size_t i = 0; i < sources.size(); ++i) {
    (sources[i] == Source::kGreedy || sources[i] == Source::kBudgeted ? lead : rest).push_back(i);
  }
  std::vector<StatusOr<SimResult>> results(sources.size(), StatusOr<SimResult>(InternalError("not simulated")));
  SimOptions stops;
  auto run = [&](const size_t* index, size_t count) {
    std::vector<StatusOr<SimResult>> chunk =
        batch.RunMade(count, [&](size_t k) { return make(index[k]); }, stops);
    for (size_t k = 0; k < count; ++k) {
      StatusOr<SimResult>& r = results[index[k]] = std::move(chunk[k]);
      if (!r.ok()) continue;
      const bool stopped = StoppedEarly(*r);
      if (stopped) ++result.stopped_plans;
      if (!options.stop_early || stopped) continue;
      if (r->oom) {  // while no plan fits: the least overflow of a plan simulated in full
        const int64_t least = stops.stop_above_overflow;
        if (!stops.stop_at_oom && (least < 0 || r->oom_overflow_bytes < least)) {
          stops.stop_above_overflow = r->oom_overflow_bytes;
        }
        continue;
      }
      stops.stop_at_oom = true;
      if (stops.stop_after_us == 0 || r->step_time_us < stops.stop_after_us) {
        stops.stop_after_us = r->step_time_us;
      }
    }
  };
  run(lead.data(), lead.size());
  for (size_t k = 0; k < rest.size(); k += kStopChunk) run(rest.data() + k, std::min(kStopChunk, rest.size() - k));
  result.stop_after_us = stops.stop_after_us;
  result.num_plans = static_cast<int>(sources.size());
  size_t best = sources.size();
  for (size_t i = 0; i < sources.size(); ++i) {
    if (!results[i].ok()) continue;
    const PlanScore score = PlanScore::Of(*results[i]);
    const Source source = sources[i];
    const auto [best_of_source, stopped] = GroupBest(source, &result);
    if (score.BetterThan(*best_of_source)) {
      *best_of_source = score;
      if (stopped != nullptr) *stopped = StoppedEarly(*results[i]);
    }
    if (score.BetterThan(result.score)) {
      result.score = score;
      best = i;
      result.from_greedy = source == Source::kGreedy;
      result.from_coupled = source == Source::kCoupled;
      result.from_budgeted = source == Source::kBudgeted;
      result.from_single_device = source == Source::kSingleDevice;
    }
  }
  if (best < sources.size()) result.plan = make(best);  // made again: plans are dropped once simulated
  // No plan fits: the budgeted placement steps further down (greedy, kLowerRungs
  // rungs), where the estimate's left-out tensors no longer overflow a device.
  if (options.budgeted_plans > 0 && (policy->config().tasks & kTaskPlacement) != 0 && result.score.scored() &&
      !result.score.fits()) {
    GO_ASSIGN_OR_RETURN(const std::unique_ptr<Decoded> lower,
                        LowerRungActions(policy, sim, options, &result.forward_seconds));
    const std::vector<StatusOr<SimResult>> lower_results =
        batch.RunMade(lower->actions.size(), [&](size_t i) { return lower->Build(i); }, stops);
    result.lower_rung_plans = static_cast<int>(lower->actions.size());
    result.num_plans += result.lower_rung_plans;
    size_t lower_best = lower->actions.size();
    for (size_t i = 0; i < lower->actions.size(); ++i) {
      if (!lower_results[i].ok()) continue;
      const PlanScore score = PlanScore::Of(*lower_results[i]);
      const bool stopped = StoppedEarly(*lower_results[i]);
      result.stopped_plans += stopped ? 1 : 0;
      if (score.BetterThan(result.best_budgeted_score)) {
        result.best_budgeted_score = score;
        result.best_budgeted_stopped = stopped;
      }
      if (score.BetterThan(result.score)) {
        result.score = score;
        lower_best = i;
        result.from_greedy = result.from_coupled = result.from_single_device = false;
        result.from_budgeted = true;
      }
    }
    if (lower_best < lower->actions.size()) result.plan = lower->Build(lower_best);
  }
  if (!result.score.scored()) return FailedPrecondition("zero-shot: no plan of the policy could be simulated");
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace graphopt
