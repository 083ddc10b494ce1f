// Graph: the computational graph every other module works on.
//
// A Graph owns its ops and tensors in two arrays; everything else refers to them by
// OpId and TensorId, so the simulator, the baselines and the policy index the same
// arrays. Each tensor has one producer op and any number of consumer ops; graph
// inputs and parameters are produced by source ops (Input, Variable, Constant).
// Each op carries its cost (FLOPs, multiply-accumulates, bytes read and written),
// computed from its kind and shapes when it is added, or given explicitly (gradient
// ops, measured profiles). The parameter a Variable op holds is its output tensor:
// its bytes are the op's param_bytes, resident on the op's device all step.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/ids.h"
#include "core/status.h"
#include "graph/op_kind.h"

namespace graphopt {

using Shape = std::vector<int64_t>;

// Number of elements of a shape (1 for a scalar).
int64_t NumElements(const Shape& shape);
// Size limits of a verified graph (VerifyGraph): one tensor, one op's parameter or
// traffic bytes at most 2^50 bytes (1 PiB), all tensors and parameters together at
// most 2^60, so that no sum of sizes downstream overflows int64.
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 50;
inline constexpr int64_t kMaxGraphBytes = int64_t{1} << 60;
// NumElements(shape) * element_bytes in checked int64 arithmetic: false (and *out
// untouched) on a negative dimension or an overflow.
bool CheckedShapeBytes(const Shape& shape, int64_t element_bytes, int64_t* out);
std::string ShapeToString(const Shape& shape);

// An attribute value: integer, float, string or list of integers.
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;
using Attrs = std::map<std::string, AttrValue>;

int64_t GetIntAttr(const Attrs& attrs, const std::string& key, int64_t fallback);
double GetFloatAttr(const Attrs& attrs, const std::string& key, double fallback);
std::string GetStringAttr(const Attrs& attrs, const std::string& key, const std::string& fallback);
std::vector<int64_t> GetIntsAttr(const Attrs& attrs, const std::string& key, const std::vector<int64_t>& fallback = {});

struct Tensor {
  std::string name;
  Shape shape;
  DType dtype = DType::kF32;
  OpId producer = kNoId;
  std::vector<OpId> consumers;

  int64_t num_elements() const { return NumElements(shape); }
  int64_t bytes() const { return NumElements(shape) * DTypeBytes(dtype); }
};

// The cost of one op, independent of the device it runs on.
struct OpCost {
  double flops = 0;         // floating-point operations (a multiply-add is 2)
  double macs = 0;          // multiply-accumulates of contractions and recurrences
  int64_t bytes_read = 0;   // bytes read from memory
  int64_t bytes_written = 0;
};

struct Op {
  std::string name;
  OpKind kind = OpKind::kGeneric;
  Phase phase = Phase::kForward;
  Attrs attrs;
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  OpCost cost;
  int64_t param_bytes = 0;            // parameter bytes this op holds (Variable ops)
  double measured_time_us = -1;       // measured run time of this op, < 0 if none
  double measured_backward_us = -1;   // measured time of its gradient (forward graphs), < 0 if none
  int32_t colocation_group = kNoId;   // ops of one group must share a device
  int32_t layer = kNoId;              // layer tag of built-in graphs (index into Graph::layer_names)
  OpId forward_op = kNoId;            // for gradient and update ops: the forward op they come from
};

// Adjacency between ops in compressed form: the distinct predecessors and
// successors of every op (an edge per producer-consumer pair, however many tensors
// connect them).
struct Adjacency {
  std::vector<int32_t> pred_begin, preds;  // preds of op i: preds[pred_begin[i] .. pred_begin[i+1])
  std::vector<int32_t> succ_begin, succs;
  int num_edges() const { return static_cast<int>(succs.size()); }
};

class Graph {
 public:
  Graph() = default;
  explicit Graph(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // Model family of built-in graphs ("gnmt", "rnnlm", ...), "" for imported graphs.
  const std::string& family() const { return family_; }
  void set_family(std::string family) { family_ = std::move(family); }
  // Free-form string metadata (builder parameters, source file, ...).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  void set_metadata(const std::string& key, std::string value) { metadata_[key] = std::move(value); }
  // Names of the layer tags, in model order (op.layer indexes this).
  const std::vector<std::string>& layer_names() const { return layer_names_; }
  int32_t AddLayer(std::string name);
  std::vector<std::string>& mutable_layer_names() { return layer_names_; }

  int num_ops() const { return static_cast<int>(ops_.size()); }
  int num_tensors() const { return static_cast<int>(tensors_.size()); }
  const Op& op(OpId id) const { return ops_[static_cast<size_t>(id)]; }
  Op& mutable_op(OpId id) { return ops_[static_cast<size_t>(id)]; }
  const Tensor& tensor(TensorId id) const { return tensors_[static_cast<size_t>(id)]; }
  Tensor& mutable_tensor(TensorId id) { return tensors_[static_cast<size_t>(id)]; }
  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<Tensor>& tensors() const { return tensors_; }

  TensorId AddTensor(std::string name, Shape shape, DType dtype = DType::kF32);
  // Adds op, records it as the producer of its outputs and a consumer of its
  // inputs. The outputs must not have a producer yet. If compute_cost, the cost is
  // computed from kind, attributes and shapes (see graph/cost.h); otherwise
  // op.cost is kept as given.
  OpId AddOp(Op op, bool compute_cost = true);

  // Number of distinct colocation groups (ids are 0..n-1 after Normalize).
  int32_t NewColocationGroup() { return next_group_++; }
  int32_t num_colocation_groups() const { return next_group_; }
  void set_num_colocation_groups(int32_t n) { next_group_ = n; }

  Adjacency BuildAdjacency() const;

  // Totals over all ops.
  OpCost TotalCost() const;
  int64_t TotalParamBytes() const;
  int64_t num_edges() const;  // producer-consumer tensor uses

 private:
  std::string name_;
  std::string family_;
  std::map<std::string, std::string> metadata_;
  std::vector<std::string> layer_names_;
  std::vector<Op> ops_;
  std::vector<Tensor> tensors_;
  int32_t next_group_ = 0;
};

// Bytes an op keeps on its device all step: its param_bytes (a parameter, an update
// op's optimizer state); a Variable holds at least its output tensors.
int64_t OpResidentBytes(const Graph& graph, OpId op);

}  // namespace graphopt
