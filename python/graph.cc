// graphopt.load and graphopt.Graph: a model's training step as graphopt plans it.
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <vector>

#include "bindings.h"
#include "graph/op_kind.h"
#include "import/onnx_import.h"
#include "models/load.h"

namespace graphopt::python {

void BindGraph(py::module_& m) {
  py::class_<Op>(m, "Op", "One operation of a graph (read-only).")
      .def_property_readonly("name", [](const Op& op) { return op.name; }, "The op's name (an ONNX node's, or the builder's).")
      .def_property_readonly("kind", [](const Op& op) { return std::string(OpKindName(op.kind)); }, "Its kind: MatMul, Add, ...")
      .def_property_readonly("inputs", [](const Op& op) { return op.inputs; }, "The ids of the tensors it reads.")
      .def_property_readonly("outputs", [](const Op& op) { return op.outputs; }, "The ids of the tensors it writes.")
      .def_property_readonly("flops", [](const Op& op) { return op.cost.flops; }, "Floating-point operations (a multiply-add is 2).")
      .def_property_readonly("bytes_read", [](const Op& op) { return op.cost.bytes_read; }, "Bytes it reads from memory.")
      .def_property_readonly("bytes_written", [](const Op& op) { return op.cost.bytes_written; }, "Bytes it writes.")
      .def_property_readonly("param_bytes", [](const Op& op) { return op.param_bytes; }, "Parameter bytes it holds.")
      .def_property_readonly("colocation_group", [](const Op& op) { return op.colocation_group; },
                             "Ops of one group share a device (-1: none).")
      .def("__repr__", [](const Op& op) { return "<graphopt.Op " + op.name + " (" + OpKindName(op.kind) + ")>"; });

  py::class_<Tensor>(m, "Tensor", "One tensor of a graph (read-only).")
      .def_property_readonly("name", [](const Tensor& t) { return t.name; }, "The tensor's name.")
      .def_property_readonly("shape", [](const Tensor& t) { return t.shape; }, "Its dimensions.")
      .def_property_readonly("bytes", &Tensor::bytes, "Its size in bytes.")
      .def_property_readonly("producer", [](const Tensor& t) { return t.producer; }, "The op that writes it (-1: none).")
      .def_property_readonly("consumers", [](const Tensor& t) { return t.consumers; }, "The ops that read it.")
      .def("__repr__", [](const Tensor& t) { return "<graphopt.Tensor " + t.name + " " + ShapeToString(t.shape) + ">"; });

  py::class_<Graph, std::shared_ptr<Graph>>(
      m, "Graph", "A model's computational graph (its training step unless loaded with training=False). Read-only.")
      .def_property_readonly("name", &Graph::name, "The graph's name (the model's).")
      .def_property_readonly("family", &Graph::family, "The model family of a built-in graph ('' otherwise).")
      .def_property_readonly("num_ops", &Graph::num_ops, "Its ops (ids 0 .. num_ops - 1).")
      .def_property_readonly("num_tensors", &Graph::num_tensors, "Its tensors (ids 0 .. num_tensors - 1).")
      .def_property_readonly("num_edges", &Graph::num_edges, "Producer-consumer uses of tensors.")
      .def_property_readonly("param_bytes", &Graph::TotalParamBytes, "Bytes of parameters and optimizer state.")
      .def_property_readonly("flops", [](const Graph& g) { return g.TotalCost().flops; }, "Floating-point operations of a step.")
      .def(
          "op",
          [](const Graph& g, int id) -> const Op& {
            if (id < 0 || id >= g.num_ops()) throw py::index_error("op " + std::to_string(id) + " of " + std::to_string(g.num_ops()));
            return g.op(id);
          },
          py::arg("id"), py::return_value_policy::reference_internal, "The op of id `id` (0 <= id < num_ops).")
      .def(
          "tensor",
          [](const Graph& g, int id) -> const Tensor& {
            if (id < 0 || id >= g.num_tensors()) {
              throw py::index_error("tensor " + std::to_string(id) + " of " + std::to_string(g.num_tensors()));
            }
            return g.tensor(id);
          },
          py::arg("id"), py::return_value_policy::reference_internal, "The tensor of id `id`.")
      .def(
          "op_names",
          [](const Graph& g) {
            std::vector<std::string> names;
            names.reserve(g.ops().size());
            for (const Op& op : g.ops()) names.push_back(op.name);
            return names;
          },
          "Every op's name, in id order.")
      .def("__len__", &Graph::num_ops, "num_ops.")
      .def("__repr__", [](const Graph& g) {
        return "<graphopt.Graph " + g.name() + ": " + std::to_string(g.num_ops()) + " ops>";
      });

  m.def(
      "load",
      [](const std::string& model, const std::map<std::string, int64_t>& dims, int64_t default_dim, bool training) {
        LoadOptions options;
        options.training = training;
        options.onnx.dim_values = dims;
        options.onnx.default_dim = default_dim;
        StatusOr<Graph> graph = [&] {
          py::gil_scoped_release release;
          return LoadModel(model, options);
        }();
        return std::make_shared<Graph>(Value(std::move(graph)));
      },
      py::arg("model"), py::arg("dims") = std::map<std::string, int64_t>{}, py::arg("default_dim") = 0,
      py::arg("training") = true,
      "Loads a model: an ONNX file, a graph .json, a PipeDream profile, or a built-in spec such as\n"
      "'gnmt:layers=4' (graphopt models lists them). `dims` sizes an ONNX model's symbolic dimensions\n"
      "({'batch': 32}); `default_dim` sizes every one left unbound (0: an unbound one is an error).\n"
      "With training=True (the default) the forward graph is expanded into the training step.");
}

}  // namespace graphopt::python
