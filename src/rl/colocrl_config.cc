#include "rl/colocrl_config.h"

namespace graphopt {

// The order is that of the canonical string, which checkpoints carry: keep it.
const OptionTable<ColocRlConfig> kColocRlOptions{
    {"max_groups", &ColocRlConfig::max_groups,
     "more units than this are merged into this many chunks (the encoder's input grows with it)",
     InRange(1, kMaxColocRlGroups)},
    {"hidden", &ColocRlConfig::hidden, "LSTM size (even with bidirectional=1)", AtLeast(2)},
    {"type_embedding", &ColocRlConfig::type_embedding, "width of the op-type embedding", AtLeast(1)},
    {"attention", &ColocRlConfig::attention, "attention of the decoder", OneOf({"dot", "additive"})},
    {"attention_size", &ColocRlConfig::attention_size, "width of the attention", AtLeast(1)},
    {"bidirectional", &ColocRlConfig::bidirectional, "bidirectional encoder"},
    {"samples", &ColocRlConfig::samples_per_step, "placements simulated per step", AtLeast(1)},
    {"lr", &ColocRlConfig::lr, "Adam step", Above(0)},
    {"max_grad_norm", &ColocRlConfig::max_grad_norm, "gradient norm clip (<= 0: none)"},
    {"baseline_decay", &ColocRlConfig::baseline_decay, "decay of the running reward baseline", AtLeastBelow(0, 1)},
    {"reward", &ColocRlConfig::reward, "sqrt: -sqrt(step / reference); linear: -step / reference",
     OneOf({"sqrt", "linear"})},
    {"oom_step_factor", &ColocRlConfig::oom_step_factor, "a plan that does not fit counts as this x the reference",
     AtLeast(1)},
    {"logit_temperature", &ColocRlConfig::logit_temperature, "logits are divided by it", Above(0)},
    {"tanh_constant", &ColocRlConfig::tanh_constant, "> 0: logits = C tanh(logits / temperature)", AtLeast(0)},
    {"critical_path_priorities", &ColocRlConfig::critical_path_priorities,
     "priority levels first, the critical path breaks ties"},
    {"tasks", &ColocRlConfig::tasks, kReinforceTasksHelp, OneOf({"all", "placement"})},
};

Status ColocRlConfig::Validate() const {
  GO_RETURN_IF_ERROR(kColocRlOptions.Check(*this, "ColocRL config"));
  if (bidirectional && hidden % 2 != 0)
    return InvalidArgument("ColocRL config: hidden must be even with bidirectional=1");
  return Status::Ok();
}

std::string ColocRlConfig::ToString() const { return kColocRlOptions.ToString(*this); }

StatusOr<ColocRlConfig> ColocRlConfig::FromString(const std::string& text) {
  GO_ASSIGN_OR_RETURN(ColocRlConfig c, kColocRlOptions.FromString(text, "ColocRL config"));
  GO_RETURN_IF_ERROR(c.Validate());
  return c;
}

}  // namespace graphopt
