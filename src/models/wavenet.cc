// WaveNet: the forward graph of one training step of the autoregressive audio model of
// "WaveNet: A Generative Model for Raw Audio" (2016), op by op.
//
// Input: a batch of `length` mu-law quantized samples, one-hot over `quantization`
// channels, [B, Q, L]. A causal input convolution (Pad on the left, Conv1D, bias)
// maps it to `channels` residual channels. Then `layers` residual layers in `stacks`
// stacks; within a stack the dilation doubles 1, 2, 4, ..., 2^(layers/stacks - 1) and
// it restarts at 1 in the next stack. Each residual layer: a causal left Pad of
// (kernel-1) x dilation, separate dilated filter and gate convolutions (Conv1D + bias
// each), the gated unit tanh(filter) * sigmoid(gate), a 1x1 residual convolution
// added to the layer input, and a 1x1 skip convolution to `skip` channels. The last
// layer has no residual branch (nothing would consume it). The output block sums all
// skips (AddN), then Relu, 1x1 conv, Relu, 1x1 conv to `quantization` logits, which
// are transposed to [B, L, Q] and scored with SoftmaxCrossEntropy against the next
// samples.
//
// Defaults: kernel 2 and 256 mu-law channels as in the paper; 2 stacks of 9 layers
// (dilations 1..256), the GO paper's 2-stack 18-layer setting (its 4-stack 36-layer
// variant is stacks=4,layers=36); 64 residual and dilation channels and 256 skip
// channels, sizes used by common open-source WaveNet implementations; a batch of 8
// clips of 4096 samples (0.26 s at 16 kHz), longer than the 2-stack receptive field
// of 1024 samples.
#include <string>
#include <vector>

#include "graph/builder.h"
#include "models/models.h"

namespace graphopt {
namespace {

struct WaveNetConfig {
  int64_t stacks, layers, batch, length, channels, skip, quantization, kernel;
  int64_t layers_per_stack() const { return layers / stacks; }
};

// Conv1D of x [B, C, L] with a new weight [cout, C, kernel] and bias [cout, 1]; a causal
// (left) pad of (kernel-1) x dilation keeps the length.
TensorId CausalConv(GraphBuilder& b, const std::string& name, TensorId x, int64_t cout, int64_t kernel,
                    int64_t dilation) {
  const int64_t cin = b.shape(x)[1];
  const TensorId w = b.Variable(name + "_kernel", {cout, cin, kernel});
  const TensorId bias = b.Variable(name + "_bias", {cout, 1});
  const int64_t pad = (kernel - 1) * dilation;
  if (pad > 0) x = b.Pad(x, 2, pad, 0);
  return b.Add(b.Conv1D(x, w, 1, 0, dilation), bias);
}

}  // namespace

StatusOr<Graph> BuildWaveNet(ParamReader& params) {
  WaveNetConfig c;
  c.stacks = params.Int("stacks", 2, 1, 64);
  c.layers = params.Int("layers", 18, 1, 1024);
  c.batch = params.Int("batch", 8, 1, 4096);
  c.length = params.Int("length", 4096, 1, 1 << 24);
  c.channels = params.Int("channels", 64, 1, 16384);
  c.skip = params.Int("skip", 256, 1, 16384);
  c.quantization = params.Int("quantization", 256, 2, 65536);
  c.kernel = params.Int("kernel", 2, 1, 64);
  GO_RETURN_IF_ERROR(params.status());
  if (c.layers % c.stacks != 0) {
    return InvalidArgument("wavenet: parameter 'layers' (" + std::to_string(c.layers) +
                           ") must be a multiple of parameter 'stacks' (" + std::to_string(c.stacks) + ")");
  }
  if (c.layers_per_stack() > 40) {
    return InvalidArgument("wavenet: parameters 'layers'/'stacks' (" + std::to_string(c.layers_per_stack()) +
                           " layers per stack) must be at most 40: the dilation 2^(layers per stack - 1) overflows");
  }
  const int64_t bs = c.batch, len = c.length;

  GraphBuilder b("wavenet_" + std::to_string(c.stacks) + "s" + std::to_string(c.layers) + "l", "wavenet");
  b.BeginLayer("input");
  b.SetScope("input");
  const TensorId audio = b.Input("audio_one_hot", {bs, c.quantization, len});
  const TensorId labels = b.Input("labels", {bs * len}, DType::kI32);
  TensorId x = CausalConv(b, "causal", audio, c.channels, c.kernel, 1);

  std::vector<TensorId> skips;
  for (int64_t st = 0; st < c.stacks; ++st) {
    for (int64_t i = 0; i < c.layers_per_stack(); ++i) {
      const std::string name = "stack" + std::to_string(st) + "/layer" + std::to_string(i);
      b.BeginLayer(name);
      b.SetScope(name);
      const int64_t dilation = int64_t{1} << i;
      const TensorId filter = b.Tanh(CausalConv(b, "filter", x, c.channels, c.kernel, dilation));
      const TensorId gate = b.Sigmoid(CausalConv(b, "gate", x, c.channels, c.kernel, dilation));
      const TensorId z = b.Mul(filter, gate);
      skips.push_back(CausalConv(b, "skip", z, c.skip, 1, 1));
      const bool last = st + 1 == c.stacks && i + 1 == c.layers_per_stack();
      if (!last) x = b.Add(CausalConv(b, "residual", z, c.channels, 1, 1), x);
    }
  }

  b.BeginLayer("output");
  b.SetScope("output");
  TensorId y = b.Relu(skips.size() == 1 ? skips[0] : b.AddN(skips));
  y = b.Relu(CausalConv(b, "conv1", y, c.skip, 1, 1));
  y = CausalConv(b, "conv2", y, c.quantization, 1, 1);                   // [B, Q, L]
  y = b.Reshape(b.Transpose(y, {0, 2, 1}), {bs * len, c.quantization});  // [B*L, Q]
  b.SoftmaxCrossEntropy(y, labels);
  return b.Finish();
}

}  // namespace graphopt
