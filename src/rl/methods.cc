#include "rl/methods.h"

#include "core/strings.h"
#include "policy/go_policy_config.h"
#include "rl/colocrl.h"
#include "rl/go_search.h"
#include "rl/hdp.h"
#include "rl/ppo_config.h"

namespace graphopt {
namespace {

template <class Config>
Config ParsedOrDefault(const StatusOr<Config>& parsed) {
  return parsed.ok() ? *parsed : Config{};
}

// A method other than the GO policy: a Trainer over a config of its own.
template <class Config, class TrainerType>
LearnedMethod PublishedMethod(const std::string& name, const OptionTable<Config>& table, const std::string& header) {
  LearnedMethod m;
  m.name = name;
  m.has_key = [&table](const std::string& key) { return table.Has(key); };
  m.known_keys = name + ": " + table.KnownKeys();
  m.help = [&table, name, header](const GoSearchConfig& c) {
    return name + " (" + header + "):\n" + table.Help(ParsedOrDefault(Config::FromString(c.method_options)));
  };
  m.validate = [](const GoSearchConfig& c) { return Config::FromString(c.method_options).status(); };
  m.create = [](const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input,
                const std::string& options, uint64_t seed) -> StatusOr<std::unique_ptr<Trainer>> {
    GO_ASSIGN_OR_RETURN(const Config config, Config::FromString(options));
    GO_ASSIGN_OR_RETURN(std::unique_ptr<TrainerType> trainer, TrainerType::Create(simulator, batch, input, config, seed));
    return std::unique_ptr<Trainer>(std::move(trainer));
  };
  return m;
}

LearnedMethod GoMethod() {
  LearnedMethod m;
  m.name = "go";
  m.go_policy = true;
  m.has_key = [](const std::string& key) { return kPpoOptions.Has(key) || kGoPolicyOptions.Has(key); };
  m.known_keys = "PPO: " + kPpoOptions.KnownKeys() + "; GO policy: " + kGoPolicyOptions.KnownKeys();
  m.help = [](const GoSearchConfig& c) {
    return "PPO (rl/ppo.h):\n" + kPpoOptions.Help(ParsedOrDefault(PpoConfig::FromString(c.ppo))) +
           "GO policy (policy/go_policy.h):\n" + kGoPolicyOptions.Help(ParsedOrDefault(GoPolicyConfig::FromString(c.policy)));
  };
  m.validate = [](const GoSearchConfig& c) -> Status {
    GO_RETURN_IF_ERROR(PpoConfig::FromString(c.ppo).status());
    return GoPolicyConfig::FromString(c.policy).status();
  };
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

Status ValidateMethodOptions(const std::string& method, const std::string& options) {
  GO_ASSIGN_OR_RETURN(const LearnedMethod* m, FindLearnedMethod(method));
  if (m->go_policy) return Status::Ok();
  GoSearchConfig c;
  c.method_options = options;
  return m->validate(c);
}

StatusOr<std::unique_ptr<Trainer>> CreateMethodTrainer(const std::string& method, const Simulator& simulator,
                                                       BatchSimulator* batch, const PolicyInput& input,
                                                       const std::string& options, uint64_t seed) {
  GO_ASSIGN_OR_RETURN(const LearnedMethod* m, FindLearnedMethod(method));
  if (!m->create) return InvalidArgument("method \"" + method + "\" is run by the GO search driver, not CreateMethodTrainer");
  return m->create(simulator, batch, input, options, seed);
}

}  // namespace graphopt
