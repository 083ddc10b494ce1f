// Inception-v3 (Szegedy et al., "Rethinking the Inception Architecture for Computer
// Vision", CVPR 2016) as the forward graph of one training step, NCHW, one op per
// convolution, batch norm, relu, pool and concat, as in the TensorFlow training
// graphs used by the device-placement papers (ColocRL, HDP, GO).
//
// The layer structure and channel counts are those of the standard implementations
// (TF-slim's inception_v3 and torchvision's inception_v3, which agree): a stem of five
// convolutions and two max pools (299 -> 35x35x192), Mixed_5b/5c/5d (InceptionA,
// 35x35, 256/288/288 channels), Mixed_6a (InceptionB, -> 17x17x768), Mixed_6b..6e
// (InceptionC with factorized 1x7/7x1 convolutions, 128/160/160/192 intermediate
// channels), Mixed_7a (InceptionD, -> 8x8x1280), Mixed_7b/7c (InceptionE, 8x8x2048),
// then global average pool, dropout, a fully connected layer and the softmax
// cross-entropy loss. Every convolution is Conv2D without bias + BatchNorm (scale and
// bias) + Relu; every weight is its own Variable. At 299x299 and batch 1 the
// convolutions and the classifier take 5.71 G multiply-accumulates and the model has
// 23,834,568 parameters (conv weights, batch-norm scales and biases, FC weight and
// bias; torchvision's count without the auxiliary head). The auxiliary classifier on
// Mixed_6e (aux=1, 3,326,696 more parameters) adds its loss with weight 0.4.
//
// Defaults: batch 32 (the default batch_size of TF-slim's train_image_classifier.py,
// the script behind the TensorFlow Inception-v3 training graphs), image 299 (the
// model's native resolution; at least 75, 299 with the auxiliary head), classes 1000,
// aux 0.
//
// Layer tags in model order: stem, mixed_5b .. mixed_7c, [aux_classifier,] classifier.
#include <string>
#include <vector>

#include "graph/builder.h"
#include "models/models.h"

namespace graphopt {
namespace {

// Output size of a VALID window of size k and stride s; 0 if the window does not fit.
int64_t ValidOut(int64_t in, int64_t k, int64_t s) { return in < k ? 0 : (in - k) / s + 1; }

// Spatial sizes of the feature maps at the three grid sizes (35, 17 and 8 at 299x299).
struct GridSizes {
  int64_t grid35 = 0, grid17 = 0, grid8 = 0;
};

GridSizes InceptionGrids(int64_t image) {
  GridSizes g;
  int64_t s = ValidOut(image, 3, 2);  // Conv2d_1a_3x3
  s = ValidOut(s, 3, 1);              // Conv2d_2a_3x3 (2b keeps the size)
  s = ValidOut(s, 3, 2);              // MaxPool_3a_3x3
  s = ValidOut(s, 3, 1);              // Conv2d_4a_3x3 (3b is 1x1)
  g.grid35 = ValidOut(s, 3, 2);       // MaxPool_5a_3x3
  g.grid17 = ValidOut(g.grid35, 3, 2);
  g.grid8 = ValidOut(g.grid17, 3, 2);
  return g;
}

// The auxiliary head pools Mixed_6e with a 5x5 window at stride 3, then applies a 5x5
// convolution: it needs a 5x5 pooled map.
bool AuxFits(const GridSizes& g) { return ValidOut(ValidOut(g.grid17, 5, 3), 5, 1) >= 1; }

// Smallest image size for which `fits` holds.
template <typename Fits>
int64_t MinImage(Fits fits) {
  int64_t image = 1;
  while (!fits(InceptionGrids(image))) ++image;
  return image;
}

class InceptionV3Builder {
 public:
  explicit InceptionV3Builder(GraphBuilder& b) : b_(b) {}

  // Conv2D (no bias) + BatchNorm + Relu under scope `block/name`.
  TensorId Conv(TensorId x, const std::string& name, int64_t out, int64_t kh, int64_t kw, int64_t stride = 1,
                int64_t ph = 0, int64_t pw = 0) {
    b_.SetScope(block_ + "/" + name);
    const int64_t in = b_.shape(x)[1];
    const TensorId w = b_.Variable("weight", {out, in, kh, kw});
    TensorId y = b_.Conv2D(x, w, {stride, stride}, {ph, pw});
    const TensorId gamma = b_.Variable("gamma", {out});
    const TensorId beta = b_.Variable("beta", {out});
    y = b_.BatchNorm(y, gamma, beta);
    return b_.Relu(y);
  }

  TensorId Pool(OpKind kind, TensorId x, const std::string& name, int64_t k, int64_t stride, int64_t pad) {
    b_.SetScope(block_ + "/" + name);
    return b_.Pool2D(kind, x, {k, k}, {stride, stride}, {pad, pad});
  }

  TensorId Concat(const std::vector<TensorId>& xs) {
    b_.SetScope(block_);
    return b_.Concat(xs, 1);
  }

  // Starts a layer tag and the name scope of its ops.
  void Begin(const std::string& block) {
    block_ = block;
    b_.BeginLayer(block);
    b_.SetScope(block);
  }

  // Runs in the current layer (the caller starts "stem" before adding the images).
  TensorId Stem(TensorId x) {
    x = Conv(x, "conv2d_1a_3x3", 32, 3, 3, 2);
    x = Conv(x, "conv2d_2a_3x3", 32, 3, 3);
    x = Conv(x, "conv2d_2b_3x3", 64, 3, 3, 1, 1, 1);
    x = Pool(OpKind::kMaxPool, x, "maxpool_3a_3x3", 3, 2, 0);
    x = Conv(x, "conv2d_3b_1x1", 80, 1, 1);
    x = Conv(x, "conv2d_4a_3x3", 192, 3, 3);
    return Pool(OpKind::kMaxPool, x, "maxpool_5a_3x3", 3, 2, 0);
  }

  // 35x35: 64 + 64 + 96 + pool_features channels.
  TensorId InceptionA(const std::string& block, TensorId x, int64_t pool_features) {
    Begin(block);
    const TensorId b1 = Conv(x, "branch1x1", 64, 1, 1);
    TensorId b5 = Conv(x, "branch5x5_1", 48, 1, 1);
    b5 = Conv(b5, "branch5x5_2", 64, 5, 5, 1, 2, 2);
    TensorId b3 = Conv(x, "branch3x3dbl_1", 64, 1, 1);
    b3 = Conv(b3, "branch3x3dbl_2", 96, 3, 3, 1, 1, 1);
    b3 = Conv(b3, "branch3x3dbl_3", 96, 3, 3, 1, 1, 1);
    TensorId bp = Pool(OpKind::kAvgPool, x, "branch_pool", 3, 1, 1);
    bp = Conv(bp, "branch_pool", pool_features, 1, 1);
    return Concat({b1, b5, b3, bp});
  }

  // 35x35 -> 17x17: 384 + 96 + input channels.
  TensorId InceptionB(const std::string& block, TensorId x) {
    Begin(block);
    const TensorId b3 = Conv(x, "branch3x3", 384, 3, 3, 2);
    TensorId bd = Conv(x, "branch3x3dbl_1", 64, 1, 1);
    bd = Conv(bd, "branch3x3dbl_2", 96, 3, 3, 1, 1, 1);
    bd = Conv(bd, "branch3x3dbl_3", 96, 3, 3, 2);
    const TensorId bp = Pool(OpKind::kMaxPool, x, "branch_pool", 3, 2, 0);
    return Concat({b3, bd, bp});
  }

  // 17x17, 768 channels, with factorized 7x7 convolutions of c7 channels.
  TensorId InceptionC(const std::string& block, TensorId x, int64_t c7) {
    Begin(block);
    const TensorId b1 = Conv(x, "branch1x1", 192, 1, 1);
    TensorId b7 = Conv(x, "branch7x7_1", c7, 1, 1);
    b7 = Conv(b7, "branch7x7_2", c7, 1, 7, 1, 0, 3);
    b7 = Conv(b7, "branch7x7_3", 192, 7, 1, 1, 3, 0);
    TensorId bd = Conv(x, "branch7x7dbl_1", c7, 1, 1);
    bd = Conv(bd, "branch7x7dbl_2", c7, 7, 1, 1, 3, 0);
    bd = Conv(bd, "branch7x7dbl_3", c7, 1, 7, 1, 0, 3);
    bd = Conv(bd, "branch7x7dbl_4", c7, 7, 1, 1, 3, 0);
    bd = Conv(bd, "branch7x7dbl_5", 192, 1, 7, 1, 0, 3);
    TensorId bp = Pool(OpKind::kAvgPool, x, "branch_pool", 3, 1, 1);
    bp = Conv(bp, "branch_pool", 192, 1, 1);
    return Concat({b1, b7, bd, bp});
  }

  // 17x17 -> 8x8: 320 + 192 + input channels.
  TensorId InceptionD(const std::string& block, TensorId x) {
    Begin(block);
    TensorId b3 = Conv(x, "branch3x3_1", 192, 1, 1);
    b3 = Conv(b3, "branch3x3_2", 320, 3, 3, 2);
    TensorId b7 = Conv(x, "branch7x7x3_1", 192, 1, 1);
    b7 = Conv(b7, "branch7x7x3_2", 192, 1, 7, 1, 0, 3);
    b7 = Conv(b7, "branch7x7x3_3", 192, 7, 1, 1, 3, 0);
    b7 = Conv(b7, "branch7x7x3_4", 192, 3, 3, 2);
    const TensorId bp = Pool(OpKind::kMaxPool, x, "branch_pool", 3, 2, 0);
    return Concat({b3, b7, bp});
  }

  // 8x8, 2048 channels: 320 + 2 x 384 + 2 x 384 + 192.
  TensorId InceptionE(const std::string& block, TensorId x) {
    Begin(block);
    const TensorId b1 = Conv(x, "branch1x1", 320, 1, 1);
    const TensorId b3 = Conv(x, "branch3x3_1", 384, 1, 1);
    const TensorId b3a = Conv(b3, "branch3x3_2a", 384, 1, 3, 1, 0, 1);
    const TensorId b3b = Conv(b3, "branch3x3_2b", 384, 3, 1, 1, 1, 0);
    const TensorId b3cat = Concat({b3a, b3b});
    TensorId bd = Conv(x, "branch3x3dbl_1", 448, 1, 1);
    bd = Conv(bd, "branch3x3dbl_2", 384, 3, 3, 1, 1, 1);
    const TensorId bda = Conv(bd, "branch3x3dbl_3a", 384, 1, 3, 1, 0, 1);
    const TensorId bdb = Conv(bd, "branch3x3dbl_3b", 384, 3, 1, 1, 1, 0);
    const TensorId bdcat = Concat({bda, bdb});
    TensorId bp = Pool(OpKind::kAvgPool, x, "branch_pool", 3, 1, 1);
    bp = Conv(bp, "branch_pool", 192, 1, 1);
    return Concat({b1, b3cat, bdcat, bp});
  }

  // Fully connected layer [N, C] -> [N, classes] with weight and bias Variables.
  TensorId FullyConnected(TensorId x, const std::string& name, int64_t classes) {
    b_.SetScope(block_ + "/" + name);
    const TensorId w = b_.Variable("weight", {b_.shape(x)[1], classes});
    const TensorId bias = b_.Variable("bias", {classes});
    return b_.Add(b_.MatMul(x, w), bias);
  }

  // Global average pool, flatten, fully connected layer: the logits [N, classes].
  TensorId PoolAndClassify(TensorId x, int64_t classes, bool dropout) {
    b_.SetScope(block_);
    x = b_.GlobalAvgPool(x);
    if (dropout) x = b_.Unary(OpKind::kDropout, x);
    const Shape s = b_.shape(x);
    x = b_.Reshape(x, {s[0], s[1]});
    return FullyConnected(x, "fc", classes);
  }

  // The auxiliary classifier on Mixed_6e, in the current layer: its (unweighted) loss.
  TensorId AuxClassifier(TensorId x, TensorId labels, int64_t classes) {
    x = Pool(OpKind::kAvgPool, x, "avg_pool", 5, 3, 0);
    x = Conv(x, "conv0", 128, 1, 1);
    x = Conv(x, "conv1", 768, 5, 5);
    const TensorId logits = PoolAndClassify(x, classes, /*dropout=*/false);
    b_.SetScope(block_);
    return b_.SoftmaxCrossEntropy(logits, labels);
  }

 private:
  GraphBuilder& b_;
  std::string block_;
};

}  // namespace

StatusOr<Graph> BuildInceptionV3(ParamReader& params) {
  const int64_t batch = params.Int("batch", 32, 1, 65536);
  const int64_t image = params.Int("image", 299, 1, 4096);
  const int64_t classes = params.Int("classes", 1000, 1, 1000000);
  const bool aux = params.Int("aux", 0, 0, 1) == 1;
  GO_RETURN_IF_ERROR(params.status());
  const GridSizes grids = InceptionGrids(image);
  if (grids.grid8 < 1) {
    const int64_t min_image = MinImage([](const GridSizes& g) { return g.grid8 >= 1; });
    return InvalidArgument("inception_v3: parameter 'image' must be at least " + std::to_string(min_image) +
                           " (the stride-2 stages leave no pixels below that), got " + std::to_string(image));
  }
  if (aux && !AuxFits(grids)) {
    const int64_t min_image = MinImage([](const GridSizes& g) { return g.grid8 >= 1 && AuxFits(g); });
    return InvalidArgument("inception_v3: parameter 'image' must be at least " + std::to_string(min_image) +
                           " for the auxiliary classifier (aux=1), got " + std::to_string(image));
  }

  GraphBuilder b("inception_v3", "inception_v3");
  InceptionV3Builder net(b);
  net.Begin("stem");
  TensorId x = b.Input("images", {batch, 3, image, image});
  x = net.Stem(x);
  x = net.InceptionA("mixed_5b", x, 32);
  x = net.InceptionA("mixed_5c", x, 64);
  x = net.InceptionA("mixed_5d", x, 64);
  x = net.InceptionB("mixed_6a", x);
  x = net.InceptionC("mixed_6b", x, 128);
  x = net.InceptionC("mixed_6c", x, 160);
  x = net.InceptionC("mixed_6d", x, 160);
  x = net.InceptionC("mixed_6e", x, 192);
  TensorId labels = kNoId;
  TensorId aux_loss = kNoId;
  if (aux) {
    net.Begin("aux_classifier");
    labels = b.Input("labels", {batch}, DType::kI64);
    aux_loss = net.AuxClassifier(x, labels, classes);
  }
  x = net.InceptionD("mixed_7a", x);
  x = net.InceptionE("mixed_7b", x);
  x = net.InceptionE("mixed_7c", x);

  net.Begin("classifier");
  if (labels == kNoId) labels = b.Input("labels", {batch}, DType::kI64);
  const TensorId logits = net.PoolAndClassify(x, classes, /*dropout=*/true);
  b.SetScope("classifier");
  TensorId loss = b.SoftmaxCrossEntropy(logits, labels);
  if (aux) {
    const TensorId weight = b.Constant("aux_loss_weight", {});
    loss = b.Add(loss, b.Mul(aux_loss, weight));
  }
  return b.Finish();
}

}  // namespace graphopt
