// Builders of the built-in benchmark graphs, one file per family. Each returns the
// forward graph (with layer tags and the loss as its only differentiable sink);
// BuildBuiltinModel adds the backward and update ops.
#pragma once

#include "models/registry.h"

namespace graphopt {

StatusOr<Graph> BuildRnnlm(ParamReader& params);
StatusOr<Graph> BuildGnmt(ParamReader& params);
StatusOr<Graph> BuildTransformerXl(ParamReader& params);
StatusOr<Graph> BuildInceptionV3(ParamReader& params);
StatusOr<Graph> BuildAmoebaNet(ParamReader& params);
StatusOr<Graph> BuildWaveNet(ParamReader& params);

}  // namespace graphopt
