#include "rl/methods.h"

#include <variant>

#include "core/strings.h"
#include "policy/go_policy_config.h"
#include "rl/colocrl.h"
#include "rl/hdp.h"
#include "rl/learned_search.h"
#include "rl/ppo_config.h"

namespace graphopt {
namespace {

// The config of a method other than the GO policy held in `c`, or its defaults.
template <class Config>
Config MethodConfig(const LearnedSearchConfig& c) {
  const Config* config = std::get_if<Config>(&c.method_config);
  return config != nullptr ? *config : Config{};
}

// A method other than the GO policy: a Trainer over a config of its own.
template <class Config, class TrainerType>
LearnedMethod PublishedMethod(const std::string& name, const OptionTable<Config>& table, const std::string& header) {
  LearnedMethod m;
  m.name = name;
  m.has_key = [&table](const std::string& key) { return table.Has(key); };
  m.known_keys = name + ": " + table.KnownKeys();
  m.set_key = [&table](const std::string& key, const std::string& value, LearnedSearchConfig* c,
                       const std::string& context) -> Status {
    Config config = MethodConfig<Config>(*c);
    GO_RETURN_IF_ERROR(table.Set(key, value, &config, context));
    c->method_config = config;
    return Status::Ok();
  };
  m.help = [&table, name, header](const LearnedSearchConfig& c) {
    return name + " (" + header + "):\n" + table.Help(MethodConfig<Config>(c));
  };
  m.validate = [](const LearnedSearchConfig& c) {
    const bool set = !std::holds_alternative<std::monostate>(c.method_config);
    if (set && !std::holds_alternative<Config>(c.method_config)) {
      return InvalidArgument("the options given are not " + c.method + "'s");
    }
    return MethodConfig<Config>(c).Validate();
  };
  m.config_text = [](const LearnedSearchConfig& c) {
    return std::holds_alternative<std::monostate>(c.method_config) ? std::string() : MethodConfig<Config>(c).ToString();
  };
  m.create = [validate = m.validate](const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input,
                                     const LearnedSearchConfig& c) -> StatusOr<std::unique_ptr<Trainer>> {
    GO_RETURN_IF_ERROR(validate(c));
    GO_ASSIGN_OR_RETURN(std::unique_ptr<TrainerType> trainer,
                        TrainerType::Create(simulator, batch, input, MethodConfig<Config>(c), c.seed));
    return std::unique_ptr<Trainer>(std::move(trainer));
  };
  return m;
}

LearnedMethod GoMethod() {
  LearnedMethod m;
  m.name = "go";
  m.go_policy = true;
  m.has_key = [](const std::string& key) { return kPpoOptions.Has(key) || kGoPolicyOptions.Has(key); };
  m.known_keys = GoOptionKeys();
  m.set_key = [](const std::string& key, const std::string& value, LearnedSearchConfig* c,
                 const std::string& context) -> Status {
    // The network stays unset (the defaults, or a pre-trained file's) until a key of
    // its own is given.
    GoPolicyConfig policy = c->policy.value_or(GoPolicyConfig{});
    GO_RETURN_IF_ERROR(SetGoOption(key, value, &c->ppo, &policy, context));
    if (kGoPolicyOptions.Has(key)) c->policy = policy;
    return Status::Ok();
  };
  m.help = [](const LearnedSearchConfig& c) {
    return "PPO (rl/ppo.h):\n" + kPpoOptions.Help(c.ppo) + "GO policy (policy/go_policy.h):\n" +
           kGoPolicyOptions.Help(c.policy.value_or(GoPolicyConfig{}));
  };
  m.validate = [](const LearnedSearchConfig& c) -> Status {
    GO_RETURN_IF_ERROR(c.ppo.Validate());
    return c.policy ? c.policy->Validate() : Status::Ok();
  };
  m.config_text = [](const LearnedSearchConfig&) { return std::string(); };
  return m;
}

}  // namespace

const std::vector<LearnedMethod>& LearnedMethods() {
  static const std::vector<LearnedMethod> kMethods = {
      GoMethod(),
      PublishedMethod<ColocRlConfig, ColocRlTrainer>("colocrl", kColocRlOptions, "rl/colocrl.h"),
      PublishedMethod<HdpConfig, HdpTrainer>("hdp", kHdpOptions, "rl/hdp.h"),
  };
  return kMethods;
}

StatusOr<const LearnedMethod*> FindLearnedMethod(const std::string& name) {
  for (const LearnedMethod& m : LearnedMethods()) {
    if (m.name == name) return &m;
  }
  return InvalidArgument("unknown learned method \"" + name + "\" (known: " + Join(LearnedMethodNames(), ", ") + ")");
}

std::vector<std::string> LearnedMethodNames() {
  std::vector<std::string> names;
  for (const LearnedMethod& m : LearnedMethods()) names.push_back(m.name);
  return names;
}

StatusOr<std::unique_ptr<Trainer>> CreateMethodTrainer(const LearnedSearchConfig& c, const Simulator& simulator,
                                                       BatchSimulator* batch, const PolicyInput& input) {
  GO_ASSIGN_OR_RETURN(const LearnedMethod* m, FindLearnedMethod(c.method));
  if (!m->create) return InvalidArgument("method \"" + c.method + "\" is run by the GO search driver, not CreateMethodTrainer");
  return m->create(simulator, batch, input, c);
}

}  // namespace graphopt
