// AmoebaNet (Real et al., "Regularized Evolution for Image Classifier Architecture
// Search", AAAI 2019) as the forward graph of one training step, NCHW, one op per
// convolution, batch norm, relu, pool, add and concat.
//
// The network follows the reference TensorFlow implementation (tensorflow/tpu,
// models/official/amoeba_net: model_builder.py, network_utils.py, model_specs.py):
// an ImageNet stem (3x3 stride-2 convolution with 32 filters + BatchNorm, then two
// reduction cells with 1/4 and 1/2 of the filters), then three stacks of `cells`
// normal cells separated by two reduction cells; the filters double at each
// reduction (F, 2F, 4F). Each cell starts from its two predecessors: the previous
// cell's output goes through Relu + 1x1 conv + BatchNorm, the one before is matched to
// it (a factorized reduction if its spatial size differs, else a 1x1 conv if its
// channels differ). Five pairwise combinations follow: each applies one operation to
// each of two hidden states and adds the results; the hidden states no combination
// consumes are concatenated (a factorized reduction first matches any whose shape
// differs). Operations, with SAME padding and stride 2 in reduction cells on the two
// cell inputs:
//   separable KxK (K = 3, 5, 7), applied twice: Relu, depthwise KxK conv (groups =
//     channels), pointwise 1x1 conv, BatchNorm;
//   avg/max pool 3x3 (and 2x2 in AmoebaNet-D);
//   identity ("none"; a Relu + strided 1x1 conv + BatchNorm when striding);
//   1x1 conv: Relu, conv, BatchNorm;
//   3x3 and 1x7-then-7x1 convs, in a bottleneck: Relu, 1x1 conv to F/4, BatchNorm, Relu,
//     the conv(s) (BatchNorm + Relu between 1x7 and 7x1), BatchNorm, Relu, 1x1 conv, BatchNorm.
// The classifier is Relu, global average pool, dropout, a fully connected layer and the
// softmax cross-entropy loss. Left out: the auxiliary head (the reference trains with
// one, loss weight 0.4) and drop-path (off at the reference script's default
// drop_connect_keep_prob = 1).
//
// Parameters and defaults: variant = a (AmoebaNet-A, the cells the paper shows, with
// separable 3x3/5x5/7x7 convs, pools, identities and a 1x7-7x1 conv; variant=d picks
// the AmoebaNet-D cells of the reference implementation), cells = 6 normal cells per
// stack and filters = 190 (the paper's large ImageNet model AmoebaNet-A (N=6, F=190)),
// image 224 (the paper evaluates that model at 331), batch 32 (the reference's
// train_batch_size), classes 1000.
//
// Layer tags in model order: stem (stem conv and the two stem cells), cell0 ..
// cell<3*cells+1> (normal and reduction cells in order), classifier.
#include <array>
#include <string>
#include <vector>

#include "graph/builder.h"
#include "models/models.h"

namespace graphopt {
namespace {

enum class CellOp {
  kSep3x3,
  kSep5x5,
  kSep7x7,
  kAvgPool3x3,
  kMaxPool3x3,
  kMaxPool2x2,
  kNone,
  kConv1x1,
  kConv3x3,
  kConv1x7_7x1,
};

// A cell: operation i is applied to hidden state inputs[i]; combination j adds the
// results of operations 2j and 2j+1 into hidden state j + 2. States 0 and 1 are the
// cell's inputs (previous cell, the one before). used[s] says whether state s is
// consumed by a combination; the others are concatenated into the cell's output.
struct CellSpec {
  std::array<CellOp, 10> ops;
  std::array<int, 10> inputs;
  std::array<bool, 7> used;
};

// model_specs.py, 'amoeba_net_a'.
constexpr CellSpec kNormalCellA = {
    {CellOp::kAvgPool3x3, CellOp::kMaxPool3x3, CellOp::kSep3x3, CellOp::kNone, CellOp::kNone, CellOp::kAvgPool3x3,
     CellOp::kSep3x3, CellOp::kSep5x5, CellOp::kAvgPool3x3, CellOp::kSep3x3},
    {0, 0, 1, 1, 0, 1, 0, 2, 5, 0},
    {true, false, true, false, false, true, false}};
constexpr CellSpec kReductionCellA = {
    {CellOp::kSep3x3, CellOp::kAvgPool3x3, CellOp::kMaxPool3x3, CellOp::kSep7x7, CellOp::kMaxPool3x3,
     CellOp::kMaxPool3x3, CellOp::kSep3x3, CellOp::kConv1x7_7x1, CellOp::kAvgPool3x3, CellOp::kSep7x7},
    {1, 0, 0, 2, 1, 0, 4, 0, 1, 0},
    {true, true, false, false, false, false, false}};
// model_specs.py, 'amoeba_net_d'.
constexpr CellSpec kNormalCellD = {
    {CellOp::kConv1x1, CellOp::kMaxPool3x3, CellOp::kNone, CellOp::kConv1x7_7x1, CellOp::kConv1x1, CellOp::kConv1x7_7x1,
     CellOp::kMaxPool3x3, CellOp::kNone, CellOp::kAvgPool3x3, CellOp::kConv1x1},
    {1, 1, 1, 0, 0, 0, 2, 2, 1, 5},
    {false, true, true, false, false, true, false}};
constexpr CellSpec kReductionCellD = {
    {CellOp::kMaxPool2x2, CellOp::kMaxPool3x3, CellOp::kNone, CellOp::kConv3x3, CellOp::kConv1x7_7x1,
     CellOp::kMaxPool3x3, CellOp::kNone, CellOp::kMaxPool2x2, CellOp::kAvgPool3x3, CellOp::kConv1x1},
    {0, 0, 2, 1, 2, 2, 3, 1, 2, 3},
    {true, true, true, true, false, false, false}};

constexpr int kStemFilters = 32;

// Output size of a SAME-padded stride-2 stage.
int64_t Halve(int64_t s) { return (s + 1) / 2; }

// Smallest image for which each of the four stride-2 cells (two stem cells, two
// reduction cells) gets a feature map of at least 2x2 to reduce from the stem conv
// (3x3, stride 2, VALID).
int64_t MinAmoebaImage() {
  for (int64_t image = 3;; ++image) {
    int64_t s = (image - 3) / 2 + 1;
    bool ok = true;
    for (int i = 0; i < 4 && ok; ++i) {
      ok = s >= 2;
      s = Halve(s);
    }
    if (ok) return image;
  }
}

class AmoebaNetBuilder {
 public:
  explicit AmoebaNetBuilder(GraphBuilder& b) : b_(b) {}

  TensorId Conv(TensorId x, const std::string& name, int64_t out, int64_t kh, int64_t kw, int64_t sh = 1,
                int64_t sw = 1, int64_t groups = 1) {
    b_.SetScope(scope_ + "/" + name);
    const int64_t in = b_.shape(x)[1];
    const TensorId w = b_.Variable("weight", {out, in / groups, kh, kw});
    return b_.Conv2D(x, w, {sh, sw}, {(kh - 1) / 2, (kw - 1) / 2}, {1, 1}, groups);
  }

  TensorId BatchNorm(TensorId x, const std::string& name) {
    b_.SetScope(scope_ + "/" + name);
    const int64_t c = b_.shape(x)[1];
    const TensorId gamma = b_.Variable("gamma", {c});
    const TensorId beta = b_.Variable("beta", {c});
    return b_.BatchNorm(x, gamma, beta);
  }

  TensorId Relu(TensorId x, const std::string& name) {
    b_.SetScope(scope_ + "/" + name);
    return b_.Relu(x);
  }

  // Stem convolution: 3x3, stride 2, VALID, then BatchNorm (the first cell applies the Relu).
  TensorId StemConv(TensorId images) {
    scope_ = "stem";
    b_.SetScope(scope_ + "/conv0");
    const TensorId w = b_.Variable("weight", {kStemFilters, b_.shape(images)[1], 3, 3});
    const TensorId x = b_.Conv2D(images, w, {2, 2}, {0, 0});
    return BatchNorm(x, "conv0_bn");
  }

  // Reduces the spatial size by `stride` without losing pixels: two 1x1 convs on the
  // even and the odd (shifted) pixels, concatenated, then BatchNorm.
  TensorId FactorizedReduction(TensorId x, const std::string& name, int64_t out, int64_t stride) {
    const std::string outer = scope_;
    scope_ += "/" + name;
    TensorId y;
    if (stride == 1) {
      y = Conv(x, "path_conv", out, 1, 1);
      y = BatchNorm(y, "path_bn");
    } else {
      b_.SetScope(scope_ + "/path1");
      TensorId p1 = b_.Pool2D(OpKind::kAvgPool, x, {1, 1}, {stride, stride});
      p1 = Conv(p1, "path1_conv", out / 2, 1, 1);
      b_.SetScope(scope_ + "/path2");
      const int64_t h = b_.shape(x)[2], w = b_.shape(x)[3];
      TensorId p2 = b_.Pad(x, 2, 0, 1);
      p2 = b_.Pad(p2, 3, 0, 1);
      p2 = b_.Slice(p2, 2, 1, h + 1);
      p2 = b_.Slice(p2, 3, 1, w + 1);
      p2 = b_.Pool2D(OpKind::kAvgPool, p2, {1, 1}, {stride, stride});
      p2 = Conv(p2, "path2_conv", out - out / 2, 1, 1);
      b_.SetScope(scope_);
      y = b_.Concat({p1, p2}, 1);
      y = BatchNorm(y, "final_path_bn");
    }
    scope_ = outer;
    return y;
  }

  // One cell; `prev` is the output of the cell before the previous one (kNoId: none).
  // filter_size is the channels of every hidden state (but the raw second input of
  // the first stem cell, which the operations on it bring to filter_size).
  TensorId Cell(const CellSpec& spec, const std::string& scope, TensorId net, TensorId prev, int64_t filter_size,
                int64_t stride) {
    scope_ = scope;
    filter_size_ = filter_size;
    // Cell base: match the output before the previous one to the previous one (the
    // first cell has none and uses the previous output as is), then 1x1.
    if (prev == kNoId) {
      prev = net;
    } else if (b_.shape(prev)[2] != b_.shape(net)[2]) {
      prev = Relu(prev, "prev_relu");
      prev = FactorizedReduction(prev, "prev_reduction", filter_size, 2);
    } else if (b_.shape(prev)[1] != filter_size) {
      prev = Relu(prev, "prev_relu");
      prev = Conv(prev, "prev_1x1", filter_size, 1, 1);
      prev = BatchNorm(prev, "prev_bn");
    }
    net = Relu(net, "relu");
    net = Conv(net, "1x1", filter_size, 1, 1);
    net = BatchNorm(net, "beginning_bn");
    std::vector<TensorId> states = {net, prev};

    const std::string cell_scope = scope_;
    for (int j = 0; j < 5; ++j) {
      std::array<TensorId, 2> h{};
      for (int side = 0; side < 2; ++side) {
        const int i = 2 * j + side;
        scope_ = cell_scope + "/comb_iter_" + std::to_string(j) + (side == 0 ? "/left" : "/right");
        const int input = spec.inputs[static_cast<size_t>(i)];
        h[static_cast<size_t>(side)] =
            ApplyOp(states[static_cast<size_t>(input)], spec.ops[static_cast<size_t>(i)], input < 2 ? stride : 1);
      }
      b_.SetScope(cell_scope + "/comb_iter_" + std::to_string(j) + "/combine");
      states.push_back(b_.Add(h[0], h[1]));
    }

    // Concatenate the unused states, reduced to the last state's shape where needed.
    scope_ = cell_scope + "/cell_output";
    const Shape last = b_.shape(states.back());
    std::vector<TensorId> outputs;
    for (size_t s = 0; s < states.size(); ++s) {
      if (spec.used[s]) continue;
      const Shape shape = b_.shape(states[s]);
      TensorId state = states[s];
      if (shape[1] != last[1] || shape[2] != last[2]) {
        state = FactorizedReduction(state, "reduction_" + std::to_string(s), last[1], shape[2] != last[2] ? 2 : 1);
      }
      outputs.push_back(state);
    }
    b_.SetScope(scope_);
    return b_.Concat(outputs, 1);
  }

 private:
  TensorId ApplyOp(TensorId x, CellOp op, int64_t stride) {
    const int64_t in = b_.shape(x)[1];
    const int64_t out = filter_size_;
    switch (op) {
      case CellOp::kSep3x3:
        return StackedSeparable(x, 3, stride);
      case CellOp::kSep5x5:
        return StackedSeparable(x, 5, stride);
      case CellOp::kSep7x7:
        return StackedSeparable(x, 7, stride);
      case CellOp::kAvgPool3x3:
      case CellOp::kMaxPool3x3:
      case CellOp::kMaxPool2x2: {
        const OpKind kind = op == CellOp::kAvgPool3x3 ? OpKind::kAvgPool : OpKind::kMaxPool;
        b_.SetScope(scope_);
        TensorId y;
        if (op == CellOp::kMaxPool2x2) {
          // SAME 2x2 at stride 2 pads one pixel only for odd sizes.
          GO_CHECK_MSG(stride == 2, "AmoebaNet: a 2x2 pool needs stride 2");
          const Shape s = b_.shape(x);
          y = b_.Pool2D(kind, x, {2, 2}, {2, 2}, {s[2] % 2, s[3] % 2});
        } else {
          y = b_.Pool2D(kind, x, {3, 3}, {stride, stride}, {1, 1});
        }
        if (in != out) {
          y = Conv(y, "1x1", out, 1, 1);
          y = BatchNorm(y, "bn_1");
        }
        return y;
      }
      case CellOp::kNone:
      case CellOp::kConv1x1: {
        if (stride == 1 && op == CellOp::kNone && in == out) return x;
        TensorId y = Relu(x, "relu_1x1");
        y = Conv(y, "1x1", out, 1, 1, stride, stride);
        return BatchNorm(y, "bn_1");
      }
      case CellOp::kConv3x3:
      case CellOp::kConv1x7_7x1: {
        const int64_t reduced = out / 4;
        const int64_t mid = reduced < 1 ? out : reduced;
        TensorId y = x;
        if (reduced >= 1) {
          y = Relu(y, "pre_relu");
          y = Conv(y, "pre_1x1", reduced, 1, 1);
          y = BatchNorm(y, "pre_bn");
        }
        y = Relu(y, "relu");
        if (op == CellOp::kConv3x3) {
          y = Conv(y, "3x3", mid, 3, 3, stride, stride);
        } else {
          y = Conv(y, "1x7", mid, 1, 7, 1, stride);
          y = BatchNorm(y, "bn_1x7_7x1");
          y = Relu(y, "relu_7x1");
          y = Conv(y, "7x1", mid, 7, 1, stride, 1);
        }
        y = BatchNorm(y, "bn");
        if (reduced >= 1) {
          y = Relu(y, "post_relu");
          y = Conv(y, "post_1x1", out, 1, 1);
          y = BatchNorm(y, "post_bn");
        }
        return y;
      }
    }
    GO_CHECK_MSG(false, "unknown AmoebaNet cell operation");
    return x;
  }

  // Two separable convolutions (Relu, depthwise KxK, pointwise 1x1, BatchNorm); the
  // first carries the stride.
  TensorId StackedSeparable(TensorId x, int64_t k, int64_t stride) {
    const std::string name = "separable_" + std::to_string(k) + "x" + std::to_string(k);
    for (int layer = 1; layer <= 2; ++layer) {
      const std::string suffix = "_" + std::to_string(layer);
      x = Relu(x, "relu" + suffix);
      const int64_t channels = b_.shape(x)[1];
      x = Conv(x, name + suffix + "/depthwise", channels, k, k, stride, stride, channels);
      x = Conv(x, name + suffix + "/pointwise", filter_size_, 1, 1);
      x = BatchNorm(x, "bn_sep_" + std::to_string(k) + "x" + std::to_string(k) + suffix);
      stride = 1;
    }
    return x;
  }

  GraphBuilder& b_;
  int64_t filter_size_ = 0;
  std::string scope_;
};

}  // namespace

StatusOr<Graph> BuildAmoebaNet(ParamReader& params) {
  const std::string variant = params.Choice("variant", "a", {"a", "d"});
  const int64_t cells = params.Int("cells", 6, 1, 64);
  const int64_t filters = params.Int("filters", 190, 4, 4096);
  const int64_t batch = params.Int("batch", 32, 1, 65536);
  const int64_t image = params.Int("image", 224, 1, 4096);
  const int64_t classes = params.Int("classes", 1000, 1, 1000000);
  GO_RETURN_IF_ERROR(params.status());
  const int64_t min_image = MinAmoebaImage();
  if (image < min_image) {
    return InvalidArgument("amoebanet: parameter 'image' must be at least " + std::to_string(min_image) +
                           " (the stride-2 cells each need a map of at least 2x2), got " + std::to_string(image));
  }
  const CellSpec& normal = variant == "a" ? kNormalCellA : kNormalCellD;
  const CellSpec& reduction = variant == "a" ? kReductionCellA : kReductionCellD;

  GraphBuilder b("amoebanet", "amoebanet");
  AmoebaNetBuilder net(b);
  b.BeginLayer("stem");
  b.SetScope("stem");
  const TensorId images = b.Input("images", {batch, 3, image, image});
  TensorId x = net.StemConv(images);
  // cell_outputs as in the reference: the two most recent cell outputs feed a cell.
  TensorId prev = kNoId;
  // Stem cells: reduction cells with 1/4 and 1/2 of the filters.
  for (int i = 0; i < 2; ++i) {
    const int64_t filter_size = filters / (i == 0 ? 4 : 2);
    const TensorId y = net.Cell(reduction, "stem/cell_stem_" + std::to_string(i), x, prev, filter_size, 2);
    prev = x;
    x = y;
  }
  int layer = 0;
  int64_t filter_size = filters;
  for (int stack = 0; stack < 3; ++stack) {
    if (stack > 0) {
      filter_size *= 2;
      const std::string name = "cell" + std::to_string(layer++);
      b.BeginLayer(name);
      const TensorId y = net.Cell(reduction, name, x, prev, filter_size, 2);
      prev = x;
      x = y;
    }
    for (int64_t i = 0; i < cells; ++i) {
      const std::string name = "cell" + std::to_string(layer++);
      b.BeginLayer(name);
      const TensorId y = net.Cell(normal, name, x, prev, filter_size, 1);
      prev = x;
      x = y;
    }
  }

  b.BeginLayer("classifier");
  b.SetScope("classifier");
  const TensorId labels = b.Input("labels", {batch}, DType::kI64);
  x = b.Relu(x);
  x = b.GlobalAvgPool(x);
  x = b.Unary(OpKind::kDropout, x);
  const Shape s = b.shape(x);
  x = b.Reshape(x, {s[0], s[1]});
  b.SetScope("classifier/fc");
  const TensorId w = b.Variable("weight", {s[1], classes});
  const TensorId bias = b.Variable("bias", {classes});
  const TensorId logits = b.Add(b.MatMul(x, w), bias);
  b.SetScope("classifier");
  b.SoftmaxCrossEntropy(logits, labels);
  return b.Finish();
}

}  // namespace graphopt
