// Builders of small ONNX models for the importer's tests.
#pragma once

#ifndef ONNX_NAMESPACE
#define ONNX_NAMESPACE onnx
#endif
#ifndef ONNX_ML
#define ONNX_ML 1
#endif
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/files.h"
#include "graph/graph.h"

namespace graphopt {
namespace onnx_test {

inline std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "graphopt_onnx_" + std::to_string(getpid()) + "_" + name;
}

// Declares v as a tensor of dims; a dimension given in `symbolic` by position takes
// that symbolic name instead.
inline void SetTensorType(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims,
                          int elem_type = onnx::TensorProto::FLOAT, const std::vector<std::string>& symbolic = {}) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  auto* shape = tt->mutable_shape();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i < symbolic.size() && !symbolic[i].empty()) {
      shape->add_dim()->set_dim_param(symbolic[i]);
    } else {
      shape->add_dim()->set_dim_value(dims[i]);
    }
  }
}

inline onnx::ModelProto NewModel(int opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.set_producer_name("onnx_import_test");
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("tiny");
  return m;
}

inline void AddInput(onnx::ModelProto* m, const std::string& name, const std::vector<int64_t>& dims,
                     int elem_type = onnx::TensorProto::FLOAT, const std::vector<std::string>& symbolic = {}) {
  SetTensorType(m->mutable_graph()->add_input(), name, dims, elem_type, symbolic);
}

// A float initializer of dims (values 0.5).
inline void AddInitializer(onnx::ModelProto* m, const std::string& name, const std::vector<int64_t>& dims) {
  auto* t = m->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  for (int64_t i = 0; i < n; ++i) t->add_float_data(0.5f);
}

// An int64 initializer holding values (1-D, or a scalar if scalar).
inline void AddInts(onnx::ModelProto* m, const std::string& name, const std::vector<int64_t>& values,
                    bool scalar = false) {
  auto* t = m->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

inline void AddFloats(onnx::ModelProto* m, const std::string& name, const std::vector<float>& values) {
  auto* t = m->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (float v : values) t->add_float_data(v);
}

inline onnx::NodeProto* AddNode(onnx::ModelProto* m, const std::string& type, const std::vector<std::string>& inputs,
                                const std::vector<std::string>& outputs, const std::string& name = "") {
  auto* n = m->mutable_graph()->add_node();
  n->set_op_type(type);
  n->set_name(name);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

inline void AddIntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

inline void AddIntAttr(onnx::NodeProto* n, const std::string& name, int64_t value) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

inline void AddStringAttr(onnx::NodeProto* n, const std::string& name, const std::string& value) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

inline std::string WriteModel(const onnx::ModelProto& m, const std::string& name) {
  const std::string path = TempPath(name);
  std::string bytes;
  EXPECT_TRUE(m.SerializeToString(&bytes));
  EXPECT_TRUE(WriteFileAtomic(path, bytes).ok());
  return path;
}

inline const Op* FindOp(const Graph& g, const std::string& name) {
  for (const Op& op : g.ops()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

inline const Tensor* FindTensor(const Graph& g, const std::string& name) {
  for (const Tensor& t : g.tensors()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace onnx_test
}  // namespace graphopt
