// The GO search's options (rl/learned_search.h kLearnedSearchOptions, ParseLearnedSearchOptions,
// DefaultSearchConfig). No LibTorch: the configs' tables live in torch-free files.
#include <algorithm>
#include <string>

#include "core/strings.h"
#include "rl/learned_search.h"
#include "rl/methods.h"
#include "rl/ppo_config.h"

namespace graphopt {

const OptionTable<LearnedSearchConfig> kLearnedSearchOptions{{
    {"baselines", &LearnedSearchConfig::ingredients, &SearchIngredients::baselines,
     "start from the best baseline plan"},
    {"warm_start", &LearnedSearchConfig::ingredients, &SearchIngredients::warm_start,
     "imitate the starting plan before PPO"},
    {"train", &LearnedSearchConfig::ingredients, &SearchIngredients::train,
     "train the policy (go: PPO; colocrl, hdp: REINFORCE)"},
    {"polish", &LearnedSearchConfig::ingredients, &SearchIngredients::polish,
     "local search on the best plan after each step"},
    {"polish_samples", &LearnedSearchConfig::ingredients, &SearchIngredients::polish_samples,
     "once converged, polish the policy's samples instead"},
    {"plan_units", &LearnedSearchConfig::ingredients, &SearchIngredients::plan_units,
     "split the units by the polished best baseline's devices"},
    {"units_per_device", &LearnedSearchConfig::sampling, &PolicySampling::units_per_device,
     "decision units per device (METIS parts; 0: one per colocation group)", InRange(0, 1 << 20)},
    {"explore", &LearnedSearchConfig::ingredients, &SearchIngredients::explore,
     "fraction of the budget the policy learns from its own samples alone", InRange(0, 1)},
    {"zero_shot_samples", &LearnedSearchConfig::pretrained, &PretrainedStart::zero_shot, &ZeroShotOptions::samples,
     "with a pre-trained policy: samples of its zero-shot plan besides the greedy one", InRange(0, 4096)},
    {"zero_shot_coupled", &LearnedSearchConfig::pretrained, &PretrainedStart::zero_shot,
     &ZeroShotOptions::coupled_samples,
     "with a pre-trained policy: samples of its zero-shot plan whose units draw their devices from one shared "
     "quantile, besides the others",
     InRange(0, 4096)},
    {"zero_shot_single", &LearnedSearchConfig::pretrained, &PretrainedStart::zero_shot,
     &ZeroShotOptions::single_device_plans,
     "with a pre-trained policy: plans of its zero-shot pass given the fastest accelerator alone (the greedy one "
     "and samples; 0: none)",
     InRange(0, 4096)},
    {"zero_shot_budgeted", &LearnedSearchConfig::pretrained, &PretrainedStart::zero_shot,
     &ZeroShotOptions::budgeted_plans,
     "with a pre-trained policy: plans of its zero-shot pass whose placement is decoded under a memory budget "
     "(the greedy one and samples; 0: none)",
     InRange(0, 4096)},
    {"zero_shot_memory_budget", &LearnedSearchConfig::pretrained, &PretrainedStart::zero_shot,
     &ZeroShotOptions::memory_budget, "the budget of those plans: this fraction of each device's memory",
     AboveAtMost(0, 1)},
    {"fresh_priority", &LearnedSearchConfig::pretrained, &PretrainedStart::fresh_priority,
     "with a pre-trained policy: training starts with the scheduling head's output layer afresh"},
    {"sample_offered_levels", &LearnedSearchConfig::sampling, &PolicySampling::sample_offered_levels,
     "plans offered to the GO trainer (zero-shot, baselines, local search): placement and fusion imitated, "
     "priority levels sampled"},
    {"frozen_start", &LearnedSearchConfig::pretrained, &PretrainedStart::frozen_start,
     "with a pre-trained policy: the trunk is frozen from the first step (the heads and unit logits learn)"},
    {"explore_coupled", &LearnedSearchConfig::sampling, &PolicySampling::explore_coupled,
     "fraction of the exploring steps' samples whose units draw their devices from one shared quantile", InRange(0, 1)},
    {"coupled_layers", &LearnedSearchConfig::sampling, &PolicySampling::coupled_layers,
     "those samples share a quantile within each layer only (whole layers move, each apart)"},
    {"coupled_uniform", &LearnedSearchConfig::sampling, &PolicySampling::coupled_uniform,
     "with coupled_layers: the probability that a layer of a coupled sample takes a uniformly drawn device",
     InRange(0, 1)},
    {"step_ops", &LearnedSearchConfig::sampling, &PolicySampling::step_ops,
     "PPO samples per step grow on small graphs to hold at least this many ops in all (0: as given)", AtLeast(0)},
    {"polish_evaluations", &LearnedSearchConfig::polish, &PolishOptions::evaluations,
     "simulations of local search per step (<= 0: until converged)"},
    {"polish_batch", &LearnedSearchConfig::polish, &PolishOptions::search, &LocalSearchConfig::batch,
     "local-search candidates simulated together", AtLeast(1)},
    {"max_steps", &LearnedSearchConfig::budget, &SearchBudget::max_steps, "stop after this many steps (0: no limit)",
     AtLeast(0)},
    {"time_limit", &LearnedSearchConfig::budget, &SearchBudget::time_limit_s,
     "stop after this many seconds (<= 0: no limit)"},
    {"threads", &LearnedSearchConfig::budget, &SearchBudget::threads,
     "simulator and LibTorch threads (<= 0: every core)"},
    {"checkpoint_every", &LearnedSearchConfig::checkpoints, &SearchCheckpoints::every, "steps between checkpoints",
     AtLeast(1)},
}, {{"ppo", "train"}}};

namespace {

constexpr const char* kContext = "optimizer options";

// The method's own config in canonical form ("" for go or when unset).
std::string MethodConfigText(const LearnedSearchConfig& c) {
  auto method = FindLearnedMethod(c.method);
  return method.ok() ? (*method)->config_text(c) : std::string();
}

}  // namespace

std::string LearnedSearchIdentityConfig(const LearnedSearchConfig& c, const std::string& policy, const std::string& ppo,
                                        bool measured) {
  const SearchIngredients& in = c.ingredients;
  const PolicySampling& sa = c.sampling;
  const ZeroShotOptions& z = c.pretrained.zero_shot;
  const LocalSearchConfig& p = c.polish.search;
  return StrFormat(
             "method_options=%s;policy=%s;ppo=%s;baselines=%d,warm_start=%d,ppo=%d,polish=%d,polish_samples=%d,"
             "units_per_device=%d,plan_units=%d,explore=%.17g,polish_evaluations=%lld,pretrained=%d,zero_shot_samples=%"
             "d,"
             "zero_shot_coupled=%d,zero_shot_single=%d,zero_shot_budgeted=%d,zero_shot_memory_budget=%.17g;polish_"
             "config=%d,%.17g,%d,%d,%d,%d",
             MethodConfigText(c).c_str(), policy.c_str(), ppo.c_str(), in.baselines, in.warm_start, in.train, in.polish,
             in.polish_samples, sa.units_per_device, in.plan_units, in.explore,
             static_cast<long long>(c.polish.evaluations), !c.pretrained.file.empty(), z.samples, z.coupled_samples,
             z.single_device_plans, z.budgeted_plans, z.memory_budget, p.batch, p.min_improvement, p.min_block_ops,
             p.placement_moves, p.fusion_moves, p.priority_moves) +
         (c.fixed_placement.empty() ? "" : ";fixed_placement=" + c.fixed_placement) +
         (c.pretrained.fresh_priority ? ";fresh_priority=1" : "") +
         (sa.sample_offered_levels ? ";sample_offered_levels=1" : "") +
         (c.pretrained.frozen_start ? ";frozen_start=1" : "") +
         (sa.explore_coupled > 0 ? StrFormat(";explore_coupled=%.17g", sa.explore_coupled) : "") +
         (sa.coupled_layers ? ";coupled_layers=1" : "") +
         (sa.coupled_uniform > 0 ? StrFormat(";coupled_uniform=%.17g", sa.coupled_uniform) : "") +
         (measured ? ";reward=measured" : "");
}

const std::vector<SearchPreset>& SearchPresets() {
  static const std::vector<SearchPreset> kPresets = {
      {"policy-alone", "baselines=0,warm_start=0,polish=0",
       "every plan scored is sampled or decoded from the policy: no baseline, warm start or local search"},
      {"go-one",
       "tasks=placement,baselines=0,warm_start=0,polish=0,explore_coupled=0.5,coupled_layers=1,coupled_uniform=0.1",
       "the GO paper's GO-one: placement only, the policy alone; while exploring, half the samples move whole "
       "layers, a tenth of those layers to a uniformly drawn device"},
      {"search-only", "train=0", "no policy training: the best baseline and local search on it"},
      {"finetune",
       "time_limit=0,baselines=0,polish=0,warm_start=1,frozen_start=1,unit_bias=1,explore_coupled=0.5,coupled_"
       "layers=1,coupled_uniform=0.1,step_ops=" +
           std::to_string(kFinetuneMethodStepOps),
       "a pre-trained policy alone on the graph for a number of steps: heads and unit logits on the frozen trunk, "
       "6 x 2^20 sampled ops a step, half of them moving whole layers (as go-one's) while exploring, then "
       "imitating its best sample"},
  };
  return kPresets;
}

StatusOr<const SearchPreset*> FindSearchPreset(const std::string& name) {
  std::vector<std::string> known;
  for (const SearchPreset& p : SearchPresets()) {
    if (p.name == name) return &p;
    known.push_back(p.name);
  }
  return NotFound("unknown preset \"" + name + "\" (known: " + Join(known, ", ") + ")");
}

StatusOr<LearnedSearchConfig> ParseLearnedSearchOptions(const std::string& text, LearnedSearchConfig c) {
  if (Trim(text).empty()) return c;
  GO_ASSIGN_OR_RETURN(const LearnedMethod* method, FindLearnedMethod(c.method));
  GO_ASSIGN_OR_RETURN(auto values, ParseKeyValues(text, kContext));
  if (auto it = values.find("preset"); it != values.end()) {
    GO_ASSIGN_OR_RETURN(const SearchPreset* preset, FindSearchPreset(it->second));
    GO_ASSIGN_OR_RETURN(c, ParseLearnedSearchOptions(preset->options, c));
    values.erase(it);
  }
  for (const auto& [key, value] : values) {
    if (kLearnedSearchOptions.Has(key)) {
      GO_RETURN_IF_ERROR(kLearnedSearchOptions.Set(key, value, &c, kContext));
    } else if (!method->has_key(key)) {
      return InvalidArgument(std::string(kContext) + ": unknown key \"" + key + "\" (known: driver: " +
                             kLearnedSearchOptions.KnownKeys() + "; " + method->known_keys + ")");
    } else {
      GO_RETURN_IF_ERROR(method->set_key(key, value, &c, kContext));
    }
  }
  GO_RETURN_IF_ERROR(method->validate(c));
  return c;
}

int StepSamples(int samples_per_step, int64_t step_ops, int num_ops) {
  if (step_ops <= 0 || num_ops <= 0) return samples_per_step;
  const int64_t needed = (step_ops + num_ops - 1) / num_ops;
  return static_cast<int>(std::min<int64_t>(std::max<int64_t>(samples_per_step, needed), int64_t{1} << 30));
}

ZeroShotOptions SearchZeroShotOptions(const LearnedSearchConfig& c) {
  ZeroShotOptions options = c.pretrained.zero_shot;
  options.units_per_device = c.sampling.units_per_device;
  options.threads = c.budget.threads;
  options.seed = c.seed;
  return options;
}

std::string LearnedSearchOptionsHelp(const LearnedSearchConfig& base) {
  std::string out = "driver (rl/learned_search.h):\n" + kLearnedSearchOptions.Help(base);
  auto method = FindLearnedMethod(base.method);
  return method.ok() ? out + (*method)->help(base) : out;
}

StatusOr<LearnedSearchConfig> DefaultSearchConfig(const std::string& name) {
  LearnedSearchConfig c;
  GO_ASSIGN_OR_RETURN(const LearnedMethod* method, FindLearnedMethod(name));
  c.method = name;
  if (!method->go_policy) {
    // The published placers start from scratch and only learn from their own samples.
    c.ingredients.baselines = false;
    c.ingredients.warm_start = false;
    c.ingredients.polish = false;
  }
  return c;
}

}  // namespace graphopt
