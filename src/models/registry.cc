#include "models/registry.h"

#include "core/options.h"
#include "core/strings.h"
#include "graph/training.h"
#include "graph/verifier.h"
#include "models/models.h"

namespace graphopt {

ParamReader::ParamReader(std::string model, std::map<std::string, std::string> values)
    : model_(std::move(model)), values_(std::move(values)) {}

int64_t ParamReader::Int(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  int64_t v = fallback;
  auto it = values_.find(key);
  if (it != values_.end()) {
    auto parsed = ParseIntInRange(it->second, model_ + ": parameter '" + key + "'", min, max);
    if (parsed.ok()) {
      v = *parsed;
    } else if (status_.ok()) {
      status_ = parsed.status();
    }
  }
  used_[key] = std::to_string(v);
  return v;
}

double ParamReader::Float(const std::string& key, double fallback, double min, double max) {
  double v = fallback;
  auto it = values_.find(key);
  if (it != values_.end()) {
    auto parsed = ParseNumberInRange(it->second, model_ + ": parameter '" + key + "'", InRange(min, max));
    if (parsed.ok()) {
      v = *parsed;
    } else if (status_.ok()) {
      status_ = parsed.status();
    }
  }
  used_[key] = FormatDouble(v);
  return v;
}

std::string ParamReader::Choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& choices) {
  std::string v = fallback;
  auto it = values_.find(key);
  if (it != values_.end()) {
    auto parsed = ParseWord(it->second, model_ + ": parameter '" + key + "'", choices);
    if (parsed.ok()) {
      v = *parsed;
    } else if (status_.ok()) {
      status_ = parsed.status();
    }
  }
  used_[key] = v;
  return v;
}

Status ParamReader::status() const {
  if (!status_.ok()) return status_;
  for (const auto& [k, v] : values_) {
    if (!used_.count(k)) {
      std::string known;
      for (const auto& [uk, uv] : used_) known += (known.empty() ? "" : ", ") + uk;
      return InvalidArgument(model_ + ": unknown parameter '" + k + "' (known: " + known + ")");
    }
  }
  return Status::Ok();
}

std::string ParamReader::Canonical() const {
  std::string s;
  for (const auto& [k, v] : used_) s += (s.empty() ? "" : ",") + k + "=" + v;
  return s;
}

const std::vector<BuiltinModel>& BuiltinModels() {
  static const std::vector<BuiltinModel> kModels = {
      {"rnnlm", "RNN language model: embedding, stacked LSTM unrolled over time, softmax",
       "layers=2, batch=64, steps=20, hidden=2048, vocab=40000", BuildRnnlm},
      {"gnmt", "GNMT: LSTM encoder-decoder with attention, unrolled over time",
       "layers=2, batch=128, steps=50, hidden=1024, vocab=32000", BuildGnmt},
      {"transformer_xl", "Transformer-XL: decoder layers with segment memory and relative attention",
       "layers=2, batch=32, segment=128, memory=128, model=512, heads=8, inner=2048, vocab=32000, segments=24",
       BuildTransformerXl},
      {"inception_v3", "Inception-v3 image classifier (299x299)", "batch=32, image=299, classes=1000, aux=0", BuildInceptionV3},
      {"amoebanet", "AmoebaNet-A image classifier (variant=d: AmoebaNet-D)",
       "variant=a, cells=6, filters=190, batch=32, image=224, classes=1000",
       BuildAmoebaNet},
      {"wavenet", "WaveNet: stacks of dilated causal convolutions with gated units",
       "stacks=2, layers=18, batch=8, length=4096, channels=64, skip=256, quantization=256, kernel=2", BuildWaveNet},
  };
  return kModels;
}

namespace {
StatusOr<std::pair<const BuiltinModel*, std::map<std::string, std::string>>> ParseSpec(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const BuiltinModel* model = nullptr;
  for (const auto& m : BuiltinModels()) {
    if (m.name == name) model = &m;
  }
  if (model == nullptr) {
    std::string known;
    for (const auto& m : BuiltinModels()) known += (known.empty() ? "" : ", ") + m.name;
    return NotFound("unknown model '" + name + "': not a file and not a built-in (built-ins: " + known + ")");
  }
  std::map<std::string, std::string> values;
  if (colon != std::string::npos) {
    GO_ASSIGN_OR_RETURN(values, ParseKeyValues(spec.substr(colon + 1), "model '" + spec + "'"));
  }
  return std::make_pair(model, std::move(values));
}
}  // namespace

bool IsBuiltinModelSpec(const std::string& spec) {
  const std::string name = spec.substr(0, spec.find(':'));
  for (const auto& m : BuiltinModels()) {
    if (m.name == name) return true;
  }
  return false;
}

StatusOr<Graph> BuildBuiltinForward(const std::string& spec) {
  GO_ASSIGN_OR_RETURN(auto parsed, ParseSpec(spec));
  ParamReader reader(parsed.first->name, parsed.second);
  GO_ASSIGN_OR_RETURN(Graph g, parsed.first->build_forward(reader));
  GO_RETURN_IF_ERROR(reader.status());
  g.set_family(parsed.first->name);
  g.set_metadata("builtin", parsed.first->name + ":" + reader.Canonical());
  Status verified = VerifyGraph(g);
  GO_CHECK_MSG(verified.ok(), "built-in " + spec + " is malformed: " + verified.message());
  return g;
}

StatusOr<Graph> BuildBuiltinModel(const std::string& spec) {
  GO_ASSIGN_OR_RETURN(Graph forward, BuildBuiltinForward(spec));
  return BuildTrainingGraph(forward);
}

}  // namespace graphopt
