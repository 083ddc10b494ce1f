#include "graph/builder.h"

#include <algorithm>
#include <cctype>

namespace graphopt {

Shape BroadcastShapes(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    GO_CHECK_MSG(da == db || da == 1 || db == 1, "cannot broadcast " + ShapeToString(a) + " with " + ShapeToString(b));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {
int64_t NormAxis(int64_t axis, size_t rank) {
  if (axis < 0) axis += static_cast<int64_t>(rank);
  GO_CHECK_MSG(axis >= 0 && axis < static_cast<int64_t>(rank), "axis out of range");
  return axis;
}
// Output length of a convolution or pool; <= 0 when the window does not fit.
int64_t ConvOut(int64_t in, int64_t k, int64_t stride, int64_t pad_total, int64_t dilation) {
  const int64_t span = in + pad_total - dilation * (k - 1) - 1;
  if (span < 0) return 0;
  return span / stride + 1;
}
std::string ToLower(const char* s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}
}  // namespace

GraphBuilder::GraphBuilder(std::string name, std::string family) : graph_(std::move(name)) {
  graph_.set_family(std::move(family));
}

int32_t GraphBuilder::BeginLayer(const std::string& layer_name) {
  layer_ = graph_.AddLayer(layer_name);
  return layer_;
}

Graph GraphBuilder::Finish() { return std::move(graph_); }

std::string GraphBuilder::UniqueName(const std::string& base) {
  const std::string full = scope_.empty() ? base : scope_ + "/" + base;
  if (used_names_.insert(full).second) return full;
  int& count = name_counts_[full];
  while (true) {
    std::string name = full + "_" + std::to_string(++count);
    if (used_names_.insert(name).second) return name;
  }
}

OpId GraphBuilder::AddOp(OpKind kind, const std::string& base_name, const std::vector<TensorId>& inputs,
                         const std::vector<Shape>& output_shapes, Attrs attrs, DType dtype) {
  Op op;
  op.name = UniqueName(base_name);
  op.kind = kind;
  op.attrs = std::move(attrs);
  op.inputs = inputs;
  op.layer = layer_;
  for (size_t i = 0; i < output_shapes.size(); ++i) {
    const std::string tname = output_shapes.size() == 1 ? op.name : op.name + ":" + std::to_string(i);
    op.outputs.push_back(graph_.AddTensor(tname, output_shapes[i], dtype));
  }
  return graph_.AddOp(std::move(op));
}

TensorId GraphBuilder::Single(OpKind kind, const std::string& base, const std::vector<TensorId>& inputs, Shape out,
                              Attrs attrs, DType dtype) {
  return Output(AddOp(kind, base, inputs, {std::move(out)}, std::move(attrs), dtype));
}

TensorId GraphBuilder::Input(const std::string& name, Shape shape, DType dtype) {
  return Single(OpKind::kInput, name, {}, std::move(shape), {}, dtype);
}

TensorId GraphBuilder::Variable(const std::string& name, Shape shape, DType dtype) {
  const TensorId t = Single(OpKind::kVariable, name, {}, std::move(shape), {}, dtype);
  Op& op = graph_.mutable_op(graph_.tensor(t).producer);
  op.param_bytes = graph_.tensor(t).bytes();
  op.colocation_group = graph_.NewColocationGroup();
  return t;
}

TensorId GraphBuilder::Constant(const std::string& name, Shape shape, DType dtype) {
  return Single(OpKind::kConstant, name, {}, std::move(shape), {}, dtype);
}

TensorId GraphBuilder::MatMul(TensorId a, TensorId b, bool transpose_a, bool transpose_b) {
  Shape sa = shape(a), sb = shape(b);
  GO_CHECK_MSG(sa.size() >= 2 && sb.size() >= 2, "MatMul needs rank >= 2");
  if (transpose_a) std::swap(sa[sa.size() - 1], sa[sa.size() - 2]);
  if (transpose_b) std::swap(sb[sb.size() - 1], sb[sb.size() - 2]);
  GO_CHECK_MSG(sa.back() == sb[sb.size() - 2], "MatMul inner dims differ: " + ShapeToString(sa) + " x " + ShapeToString(sb));
  Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  Shape out = BroadcastShapes(batch_a, batch_b);
  out.push_back(sa[sa.size() - 2]);
  out.push_back(sb.back());
  Attrs attrs;
  if (transpose_a) attrs["transpose_a"] = int64_t{1};
  if (transpose_b) attrs["transpose_b"] = int64_t{1};
  const OpKind kind = (sa.size() > 2 && sb.size() > 2) ? OpKind::kBatchMatMul : OpKind::kMatMul;
  return Single(kind, kind == OpKind::kMatMul ? "matmul" : "batch_matmul", {a, b}, out, attrs);
}

TensorId GraphBuilder::BatchMatMul(TensorId a, TensorId b, bool transpose_a, bool transpose_b) {
  return MatMul(a, b, transpose_a, transpose_b);
}

TensorId GraphBuilder::Conv2D(TensorId x, TensorId w, std::vector<int64_t> strides, std::vector<int64_t> pads,
                              std::vector<int64_t> dilations, int64_t groups) {
  const Shape& sx = shape(x);
  const Shape& sw = shape(w);
  GO_CHECK_MSG(sx.size() == 4 && sw.size() == 4, "Conv2D needs NCHW input and OIHW weights");
  GO_CHECK_MSG(sx[1] == sw[1] * groups, "Conv2D channels differ: " + ShapeToString(sx) + " vs " + ShapeToString(sw));
  Shape out = {sx[0], sw[0], ConvOut(sx[2], sw[2], strides[0], 2 * pads[0], dilations[0]),
               ConvOut(sx[3], sw[3], strides[1], 2 * pads[1], dilations[1])};
  GO_CHECK_MSG(out[2] > 0 && out[3] > 0, "Conv2D output is empty");
  Attrs attrs{{"kernel", std::vector<int64_t>{sw[2], sw[3]}}, {"strides", strides}, {"pads", pads},
              {"dilations", dilations}, {"group", groups}};
  return Single(OpKind::kConv, "conv", {x, w}, out, attrs);
}

TensorId GraphBuilder::Conv1D(TensorId x, TensorId w, int64_t stride, int64_t pad, int64_t dilation, int64_t groups) {
  const Shape& sx = shape(x);
  const Shape& sw = shape(w);
  GO_CHECK_MSG(sx.size() == 3 && sw.size() == 3, "Conv1D needs NCL input and OIK weights");
  GO_CHECK_MSG(sx[1] == sw[1] * groups, "Conv1D channels differ");
  Shape out = {sx[0], sw[0], ConvOut(sx[2], sw[2], stride, 2 * pad, dilation)};
  GO_CHECK_MSG(out[2] > 0, "Conv1D output is empty");
  Attrs attrs{{"kernel", std::vector<int64_t>{sw[2]}}, {"strides", std::vector<int64_t>{stride}},
              {"pads", std::vector<int64_t>{pad}}, {"dilations", std::vector<int64_t>{dilation}}, {"group", groups}};
  return Single(OpKind::kConv, "conv1d", {x, w}, out, attrs);
}

TensorId GraphBuilder::Unary(OpKind kind, TensorId x) {
  GO_CHECK(CategoryOf(kind) == OpCategory::kElementwise);
  return Single(kind, ToLower(OpKindName(kind)), {x}, shape(x), {}, graph_.tensor(x).dtype);
}

TensorId GraphBuilder::Binary(OpKind kind, TensorId a, TensorId b) {
  GO_CHECK(CategoryOf(kind) == OpCategory::kElementwise);
  const DType dtype = kind == OpKind::kCompare ? DType::kBool : graph_.tensor(a).dtype;
  return Single(kind, ToLower(OpKindName(kind)), {a, b}, BroadcastShapes(shape(a), shape(b)), {}, dtype);
}

TensorId GraphBuilder::AddN(const std::vector<TensorId>& xs) {
  GO_CHECK(!xs.empty());
  Shape out = shape(xs[0]);
  for (TensorId x : xs) out = BroadcastShapes(out, shape(x));
  return Single(OpKind::kAddN, "add_n", xs, out);
}

TensorId GraphBuilder::Reduce(OpKind kind, TensorId x, std::vector<int64_t> axes, bool keep_dims) {
  const Shape& sx = shape(x);
  std::vector<bool> reduced(sx.size(), false);
  for (int64_t a : axes) reduced[static_cast<size_t>(NormAxis(a, sx.size()))] = true;
  Shape out;
  for (size_t i = 0; i < sx.size(); ++i) {
    if (!reduced[i]) out.push_back(sx[i]);
    else if (keep_dims) out.push_back(1);
  }
  Attrs attrs{{"axes", axes}, {"keepdims", int64_t{keep_dims ? 1 : 0}}};
  return Single(kind, ToLower(OpKindName(kind)), {x}, out, attrs);
}

TensorId GraphBuilder::Softmax(TensorId x, int64_t axis) {
  return Single(OpKind::kSoftmax, "softmax", {x}, shape(x), {{"axis", axis}}, graph_.tensor(x).dtype);
}

TensorId GraphBuilder::LayerNorm(TensorId x, TensorId gamma, TensorId beta) {
  return Single(OpKind::kLayerNorm, "layer_norm", {x, gamma, beta}, shape(x), {}, graph_.tensor(x).dtype);
}

TensorId GraphBuilder::BatchNorm(TensorId x, TensorId scale, TensorId bias) {
  GO_CHECK_MSG(shape(x).size() >= 2 && shape(scale) == Shape{shape(x)[1]}, "BatchNorm scale must be [C]");
  return Single(OpKind::kBatchNorm, "batch_norm", {x, scale, bias}, shape(x));
}

TensorId GraphBuilder::Pool2D(OpKind kind, TensorId x, std::vector<int64_t> kernel, std::vector<int64_t> strides,
                              std::vector<int64_t> pads) {
  const Shape& sx = shape(x);
  GO_CHECK_MSG(sx.size() == 4, "Pool2D needs NCHW");
  Shape out = {sx[0], sx[1], ConvOut(sx[2], kernel[0], strides[0], 2 * pads[0], 1),
               ConvOut(sx[3], kernel[1], strides[1], 2 * pads[1], 1)};
  GO_CHECK_MSG(out[2] > 0 && out[3] > 0, "Pool2D output is empty");
  Attrs attrs{{"kernel", kernel}, {"strides", strides}, {"pads", pads}};
  return Single(kind, kind == OpKind::kMaxPool ? "max_pool" : "avg_pool", {x}, out, attrs);
}

TensorId GraphBuilder::GlobalAvgPool(TensorId x) {
  Shape out = shape(x);
  for (size_t i = 2; i < out.size(); ++i) out[i] = 1;
  return Single(OpKind::kGlobalAvgPool, "global_avg_pool", {x}, out);
}

TensorId GraphBuilder::Concat(const std::vector<TensorId>& xs, int64_t axis) {
  GO_CHECK(!xs.empty());
  Shape out = shape(xs[0]);
  const int64_t ax = NormAxis(axis, out.size());
  for (size_t i = 1; i < xs.size(); ++i) {
    const Shape& s = shape(xs[i]);
    GO_CHECK_MSG(s.size() == out.size(), "Concat ranks differ");
    for (size_t d = 0; d < s.size(); ++d) {
      if (static_cast<int64_t>(d) == ax) continue;
      GO_CHECK_MSG(s[d] == out[d], "Concat shapes differ: " + ShapeToString(s) + " vs " + ShapeToString(out));
    }
    out[static_cast<size_t>(ax)] += s[static_cast<size_t>(ax)];
  }
  return Single(OpKind::kConcat, "concat", xs, out, {{"axis", ax}}, graph_.tensor(xs[0]).dtype);
}

std::vector<TensorId> GraphBuilder::Split(TensorId x, int64_t axis, const std::vector<int64_t>& sizes) {
  const Shape sx = shape(x);
  const int64_t ax = NormAxis(axis, sx.size());
  int64_t total = 0;
  std::vector<Shape> outs;
  for (int64_t s : sizes) {
    Shape o = sx;
    o[static_cast<size_t>(ax)] = s;
    outs.push_back(o);
    total += s;
  }
  GO_CHECK_MSG(total == sx[static_cast<size_t>(ax)], "Split sizes do not add up to the axis");
  const OpId op = AddOp(OpKind::kSplit, "split", {x}, outs, {{"axis", ax}, {"split", sizes}}, graph_.tensor(x).dtype);
  return graph_.op(op).outputs;
}

TensorId GraphBuilder::Slice(TensorId x, int64_t axis, int64_t begin, int64_t end) {
  Shape out = shape(x);
  const int64_t ax = NormAxis(axis, out.size());
  GO_CHECK_MSG(begin >= 0 && end <= out[static_cast<size_t>(ax)] && begin < end, "Slice out of range");
  out[static_cast<size_t>(ax)] = end - begin;
  return Single(OpKind::kSlice, "slice", {x}, out, {{"axis", ax}, {"begin", begin}, {"end", end}}, graph_.tensor(x).dtype);
}

TensorId GraphBuilder::Reshape(TensorId x, Shape s) {
  GO_CHECK_MSG(NumElements(s) == graph_.tensor(x).num_elements(),
               "Reshape changes the element count: " + ShapeToString(shape(x)) + " -> " + ShapeToString(s));
  return Single(OpKind::kReshape, "reshape", {x}, s, {}, graph_.tensor(x).dtype);
}

TensorId GraphBuilder::Transpose(TensorId x, std::vector<int64_t> perm) {
  const Shape& sx = shape(x);
  GO_CHECK(perm.size() == sx.size());
  Shape out(sx.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = sx[static_cast<size_t>(perm[i])];
  return Single(OpKind::kTranspose, "transpose", {x}, out, {{"perm", perm}}, graph_.tensor(x).dtype);
}

TensorId GraphBuilder::Pad(TensorId x, int64_t axis, int64_t before, int64_t after) {
  Shape out = shape(x);
  const int64_t ax = NormAxis(axis, out.size());
  out[static_cast<size_t>(ax)] += before + after;
  return Single(OpKind::kPad, "pad", {x}, out, {{"axis", ax}, {"before", before}, {"after", after}},
                graph_.tensor(x).dtype);
}

TensorId GraphBuilder::Gather(TensorId table, TensorId indices) {
  const Shape& st = shape(table);
  GO_CHECK(st.size() == 2);
  Shape out = shape(indices);
  out.push_back(st[1]);
  return Single(OpKind::kGather, "gather", {table, indices}, out, {}, graph_.tensor(table).dtype);
}

TensorId GraphBuilder::SoftmaxCrossEntropy(TensorId logits, TensorId labels) {
  return Single(OpKind::kSoftmaxCrossEntropy, "xent", {logits, labels}, Shape{});
}

}  // namespace graphopt
