// graphopt.cluster and graphopt.Cluster: the devices a plan places ops on.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "exec/local_cluster.h"

namespace graphopt::python {

void BindCluster(py::module_& m) {
  py::class_<Device>(m, "Device", "One device of a cluster (read-only).")
      .def_property_readonly("name", [](const Device& d) { return d.name; }, "'gpu:0', 'cpu:0', ...")
      .def_property_readonly("kind", [](const Device& d) { return std::string(DeviceKindName(d.kind)); }, "'gpu' or 'cpu'.")
      .def_property_readonly("model", [](const Device& d) { return d.model; }, "The device's model, e.g. 'V100-PCIe-16GB'.")
      .def_property_readonly("peak_flops", [](const Device& d) { return d.peak_flops; }, "FLOP/s, dense FP32.")
      .def_property_readonly("memory_bytes", [](const Device& d) { return d.memory_bytes; }, "Its memory.")
      .def_property_readonly("memory_bandwidth", [](const Device& d) { return d.memory_bandwidth; }, "Bytes/s.")
      .def("__repr__", [](const Device& d) { return "<graphopt.Device " + d.name + " " + d.model + ">"; });

  py::class_<Cluster, std::shared_ptr<Cluster>>(m, "Cluster", "A machine: its devices and the links between them.")
      .def_property_readonly("name", &Cluster::name, "The cluster's name.")
      .def_property_readonly("num_devices", &Cluster::num_devices, "Its devices, accelerators and host CPUs.")
      .def_property_readonly("devices", &Cluster::devices, "Every device, in id order.")
      .def_property_readonly("accelerators", &Cluster::Accelerators, "The ids of the accelerators.")
      .def("summary", &Cluster::Summary, "One line: its devices and links.")
      .def(
          "save", [](const Cluster& c, const std::string& path) { Check(WriteClusterJson(c, path)); }, py::arg("path"),
          "Writes the cluster as graphopt's cluster .json (graphopt.cluster and --cluster read it).")
      .def("__len__", &Cluster::num_devices, "num_devices.")
      .def("__repr__", [](const Cluster& c) { return "<graphopt.Cluster " + c.Summary() + ">"; });

  m.def(
      "cluster",
      [](const std::string& name) {
        if (IsLocalClusterName(name)) return std::make_shared<Cluster>(Value(LocalCluster(name)));
        return std::make_shared<Cluster>(Value(LoadCluster(name)));
      },
      py::arg("name"),
      "A cluster: a preset ('4xV100'; graphopt.cluster_presets() lists them), a spec such as\n"
      "'2xV100+1xP100', a cluster .json file, or this machine's cores, 'local' (one device per\n"
      "core) or 'local:N', measured when first asked for.");
  m.def("cluster_presets", &ClusterPresetNames, "The names of the built-in clusters.");
}

}  // namespace graphopt::python
