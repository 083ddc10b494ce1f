#include "policy/go_policy_config.h"

#include "core/strings.h"

namespace graphopt {

namespace {

OptionCodec<GoPolicyConfig> TasksCodec() {
  return {[](const std::string& value, GoPolicyConfig* c) -> Status {
            GO_ASSIGN_OR_RETURN(c->tasks, TasksFromString(value));
            return Status::Ok();
          },
          [](const GoPolicyConfig& c) { return TasksToString(c.tasks); },
          "placement, scheduling, fusion joined with +, or all"};
}

}  // namespace

// The order is that of the canonical string, which saved policies carry: keep it.
const OptionTable<GoPolicyConfig> kGoPolicyOptions{
    {"hidden", &GoPolicyConfig::hidden, "width of every op state (a multiple of heads)", AtLeast(1)},
    {"sage_layers", &GoPolicyConfig::sage_layers, "GraphSAGE layers", AtLeast(0)},
    {"attention_layers", &GoPolicyConfig::attention_layers, "segment-recurrent attention layers", AtLeast(0)},
    {"heads", &GoPolicyConfig::heads, "attention heads", AtLeast(1)},
    {"segment", &GoPolicyConfig::segment, "ops per attention segment", AtLeast(1)},
    {"memory", &GoPolicyConfig::memory, "positions of the previous segment attended to (at most segment)", AtLeast(0)},
    {"ff_multiplier", &GoPolicyConfig::ff_multiplier, "feed-forward width over hidden", AtLeast(1)},
    {"relative_buckets", &GoPolicyConfig::relative_buckets, "relative-position buckets", AtLeast(2)},
    {"detach_memory", &GoPolicyConfig::detach_memory, "no gradient through the segment memory"},
    {"superposition", &GoPolicyConfig::superposition, "condition the attention on a graph embedding (FiLM)"},
    {"task_feedback", &GoPolicyConfig::task_feedback, "scheduling and fusion heads see the placement"},
    {"feedback_attention", &GoPolicyConfig::feedback_attention,
     "placed op states pass the last attention layer again (needs unit_tasks=0)"},
    {"priority_levels", &GoPolicyConfig::priority_levels, "scheduling priority levels", AtLeast(1)},
    {"level_prior", &GoPolicyConfig::level_prior, "initial logit advantage of priority level 0", InRange(0, 30)},
    {"head_hidden", &GoPolicyConfig::head_hidden, "hidden width of the scheduling and fusion heads", AtLeast(1)},
    {"unit_tasks", &GoPolicyConfig::unit_tasks, "one priority level per unit (0: per op)"},
    {"device_index_key", &GoPolicyConfig::device_index_key,
     "placement keys read the device's index directly (identical devices stay apart)"},
    {"unit_plan_device", &GoPolicyConfig::unit_plan_device,
     "a unit's state reads its device in the plan its units were split by"},
    {"unit_stage", &GoPolicyConfig::unit_stage, "a unit's state reads its stage among the model's layers"},
    {"layer_units", &GoPolicyConfig::layer_units,
     "decision units: 0 METIS parts, 1 never spanning two layers, 2 so on graphs of fewer layers than units",
     InRange(0, 2)},
    {"tasks", TasksCodec(), "the tasks the policy decides"},
    {"seed", &GoPolicyConfig::seed, "seed of the parameter initialization"},
};

Status GoPolicyConfig::Validate() const {
  const std::string context = "GO policy config";
  GO_RETURN_IF_ERROR(kGoPolicyOptions.Check(*this, context));
  auto bad = [&](const std::string& m) { return InvalidArgument(context + ": " + m); };
  if (hidden % heads != 0) return bad(StrFormat("hidden (%d) must be a multiple of heads (%d)", hidden, heads));
  if (memory > segment) return bad(StrFormat("memory (%d) must be in [0, segment = %d]", memory, segment));
  if (tasks == 0 || (tasks & ~static_cast<uint32_t>(kAllTasks)) != 0)
    return bad("tasks must be a non-empty subset of placement, scheduling, fusion");
  if (unit_tasks && feedback_attention)
    return bad("feedback_attention feeds per-op states back and needs unit_tasks=0 (per-op scheduling)");
  return Status::Ok();
}

std::string GoPolicyConfig::ToString() const { return kGoPolicyOptions.ToString(*this); }

StatusOr<GoPolicyConfig> GoPolicyConfig::FromString(const std::string& text) {
  GO_ASSIGN_OR_RETURN(GoPolicyConfig c, kGoPolicyOptions.FromString(text, "GO policy config"));
  GO_RETURN_IF_ERROR(c.Validate());
  return c;
}

StatusOr<GoPolicyConfig> GoPolicyConfig::FromSavedString(const std::string& text) {
  GoPolicyConfig c;
  c.device_index_key = false;
  c.unit_plan_device = false;
  c.unit_stage = false;
  c.layer_units = kLayerUnitsOff;
  GO_RETURN_IF_ERROR(kGoPolicyOptions.Apply(text, &c, "GO policy config"));
  GO_RETURN_IF_ERROR(c.Validate());
  return c;
}

}  // namespace graphopt
