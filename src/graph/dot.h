// Graphviz DOT export of a graph, optionally coloured by a device assignment.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace graphopt {

// One node per op (label: name and kind), one edge per producer-consumer tensor use
// (label: tensor shape). If devices is given (one entry per op), nodes are filled
// with a colour per device and a legend cluster names the devices.
std::string GraphToDot(const Graph& graph, const std::vector<DeviceId>* devices = nullptr);

}  // namespace graphopt
