#include "rl/ppo_config.h"

namespace graphopt {

// The order is that of the canonical string: keep it.
const OptionTable<PpoConfig> kPpoOptions{
    {"samples|samples_per_step", &PpoConfig::samples_per_step, "action sets sampled per step", AtLeast(1)},
    {"epochs", &PpoConfig::epochs, "passes of the clipped objective per step", AtLeast(1)},
    {"clip", &PpoConfig::clip, "PPO clipping range", Above(0)},
    {"lr", &PpoConfig::lr, "Adam step", Above(0)},
    {"entropy", &PpoConfig::entropy, "entropy bonus (per decision) at step 0", AtLeast(0)},
    {"entropy_decay", &PpoConfig::entropy_decay, "entropy bonus factor per step", AboveAtMost(0, 1)},
    {"entropy_min", &PpoConfig::entropy_min, "floor of the entropy bonus", AtLeast(0)},
    {"baseline_decay", &PpoConfig::baseline_decay, "decay of the running reward baseline", AtLeastBelow(0, 1)},
    {"normalize_advantages", &PpoConfig::normalize_advantages, "divide advantages by the batch's deviation"},
    {"oom_penalty", &PpoConfig::oom_penalty, "subtracted from the reward of a plan that does not fit", AtLeast(0)},
    {"temperature", &PpoConfig::temperature, "sampling temperature", Above(0)},
    {"max_grad_norm", &PpoConfig::max_grad_norm, "gradient norm clip (<= 0: none)"},
    {"include_best", &PpoConfig::include_best, "the best plan so far joins every batch"},
    {"critical_path_priorities", &PpoConfig::critical_path_priorities,
     "priority levels first, the critical path breaks ties"},
    {"warm_start_level", &PpoConfig::warm_start_level, "priority level of imitated plans", AtLeast(0)},
    {"warm_start_steps", &PpoConfig::warm_start_steps, "supervised steps towards the warm-start plan (at most)",
     AtLeast(0)},
    {"warm_start_target", &PpoConfig::warm_start_target,
     "warm start stops once the mean probability per decision exceeds this"},
    {"frozen_trunk", &PpoConfig::frozen_trunk, "from the warm start on, only the heads learn (trunk computed once)"},
    {"head_lr", &PpoConfig::head_lr, "Adam learning rate of the heads with frozen_trunk", Above(0)},
    {"unit_bias", &PpoConfig::unit_bias, "with frozen_trunk, a learned placement logit per unit and device"},
    {"unit_bias_lr", &PpoConfig::unit_bias_lr, "Adam learning rate of unit_bias", Above(0)},
    {"fusion_bias", &PpoConfig::fusion_bias, "with frozen_trunk, a learned fusion logit per op"},
    {"fusion_bias_lr", &PpoConfig::fusion_bias_lr, "Adam learning rate of fusion_bias", Above(0)},
    {"trunk_every", &PpoConfig::trunk_every,
     "the whole network learns at every n-th step, the heads alone on the last trunk output between", AtLeast(1)},
    {"imitation", &PpoConfig::imitation, "weight of the best plan's -log-probability in the loss", AtLeast(0)},
};

Status PpoConfig::Validate() const { return kPpoOptions.Check(*this, "PPO config"); }

std::string PpoConfig::ToString() const { return kPpoOptions.ToString(*this); }

StatusOr<PpoConfig> PpoConfig::FromString(const std::string& text) {
  GO_ASSIGN_OR_RETURN(PpoConfig c, kPpoOptions.FromString(text, "PPO config"));
  GO_RETURN_IF_ERROR(c.Validate());
  return c;
}

std::string GoOptionKeys() {
  return "PPO: " + kPpoOptions.KnownKeys() + "; GO policy: " + kGoPolicyOptions.KnownKeys();
}

Status SetGoOption(const std::string& key, const std::string& value, PpoConfig* ppo, GoPolicyConfig* policy,
                   const std::string& context) {
  if (kPpoOptions.Has(key)) return kPpoOptions.Set(key, value, ppo, context);
  if (kGoPolicyOptions.Has(key)) return kGoPolicyOptions.Set(key, value, policy, context);
  return InvalidArgument(context + ": unknown key \"" + key + "\" (known: " + GoOptionKeys() + ")");
}

}  // namespace graphopt
