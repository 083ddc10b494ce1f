#include "rl/hdp_config.h"

#include <cmath>

#include "rl/colocrl_config.h"

namespace graphopt {

// The order is that of the canonical string, which checkpoints carry: keep it.
const OptionTable<HdpConfig> kHdpOptions{
    {"groups", &HdpConfig::groups, "groups G (0: min(256, 20 x allowed devices))", InRange(0, 4096)},
    {"hidden", &HdpConfig::hidden, "placer LSTM size (even with bidirectional=1)", AtLeast(2)},
    {"grouper_hidden", &HdpConfig::grouper_hidden, "grouper hidden layer", AtLeast(1)},
    {"type_embedding", &HdpConfig::type_embedding, "grouper's op-type embedding", AtLeast(1)},
    {"attention", &HdpConfig::attention, "attention of the placer's decoder", OneOf({"dot", "additive"})},
    {"attention_size", &HdpConfig::attention_size, "width of the attention", AtLeast(1)},
    {"bidirectional", &HdpConfig::bidirectional, "bidirectional placer encoder"},
    {"groupings", &HdpConfig::groupings, "m: groupings sampled per step", AtLeast(1)},
    {"placements", &HdpConfig::placements, "k: placements sampled per grouping", AtLeast(1)},
    {"lr", &HdpConfig::lr, "Adam step at the start", Above(0)},
    {"lr_decay", &HdpConfig::lr_decay, "learning-rate factor every lr_decay_steps steps", AboveAtMost(0, 1)},
    {"lr_decay_steps", &HdpConfig::lr_decay_steps, "steps between learning-rate decays", AtLeast(1)},
    {"lr_decay_start", &HdpConfig::lr_decay_start, "step of the first learning-rate decay", AtLeast(0)},
    {"max_grad_norm", &HdpConfig::max_grad_norm, "gradient norm clip (<= 0: none)"},
    {"baseline_decay", &HdpConfig::baseline_decay, "decay of the running reward baseline", AtLeastBelow(0, 1)},
    {"reward", &HdpConfig::reward, "sqrt: -sqrt(step / reference); linear: -step / reference",
     OneOf({"sqrt", "linear"})},
    {"oom_step_factor", &HdpConfig::oom_step_factor, "a plan that does not fit counts as this x the reference",
     AtLeast(1)},
    {"logit_temperature", &HdpConfig::logit_temperature, "T: logits = C tanh(logits / T)", Above(0)},
    {"tanh_constant", &HdpConfig::tanh_constant, "C (0: no squashing)", AtLeast(0)},
    {"logit_noise", &HdpConfig::logit_noise, "exploration noise, x the logits' RMS (0: none)", AtLeast(0)},
    {"noise_steps", &HdpConfig::noise_steps, "steps with logit noise", AtLeast(0)},
    {"critical_path_priorities", &HdpConfig::critical_path_priorities,
     "priority levels first, the critical path breaks ties"},
    {"tasks", &HdpConfig::tasks, kReinforceTasksHelp, OneOf({"all", "placement"})},
};

Status HdpConfig::Validate() const {
  GO_RETURN_IF_ERROR(kHdpOptions.Check(*this, "HDP config"));
  if (bidirectional && hidden % 2 != 0) return InvalidArgument("HDP config: hidden must be even with bidirectional=1");
  return Status::Ok();
}

std::string HdpConfig::ToString() const { return kHdpOptions.ToString(*this); }

StatusOr<HdpConfig> HdpConfig::FromString(const std::string& text) {
  GO_ASSIGN_OR_RETURN(HdpConfig c, kHdpOptions.FromString(text, "HDP config"));
  GO_RETURN_IF_ERROR(c.Validate());
  return c;
}

double HdpConfig::LearningRate(int64_t step) const {
  if (step < lr_decay_start || lr_decay == 1.0) return lr;
  return lr * std::pow(lr_decay, static_cast<double>((step - lr_decay_start) / lr_decay_steps));
}

}  // namespace graphopt
