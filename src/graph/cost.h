// Device-independent costs of ops: FLOPs, multiply-accumulates and memory traffic,
// computed from an op's kind, attributes and tensor shapes.
//
// Formulas (N = elements of the output unless said otherwise):
//   Conv            MACs = N_out * prod(W.shape[1:])   (W = [Cout, Cin/groups, k...]); bias adds N_out FLOPs
//   ConvTranspose   MACs = N_in  * prod(W.shape[1:])   (W = [Cin, Cout/groups, k...])
//   MatMul/BatchMatMul  MACs = N_out * K, K the contracted dimension of A
//   Gemm            MACs = M * N * K; C adds M * N FLOPs
//   LSTM layer      per step and direction: MACs = B * 4H * (I + H); 32 FLOPs per hidden unit
//                   for biases and gates (2 bias adds of 4H, 3 sigmoids and 2 tanh at 4 FLOPs,
//                   3 multiplies, 1 add); GRU the same with 3H gates and 24 FLOPs per unit;
//                   RNN with H gates and 6 FLOPs per unit. Cells are one step.
//   elementwise     N * flops-per-element of the kind (op_kind.h)
//   ReduceX         N_in;  Softmax/LogSoftmax 5 N_in;  LayerNorm 8 N_in;  BatchNorm 4 N_in
//   pooling         N_out * prod(kernel); GlobalAvgPool N_in
//   data movement, views, metadata, sources: 0 FLOPs
//   SoftmaxCrossEntropy  6 N_logits
//   ApplyGradient   attr "flops_per_element" (default 2: SGD) * elements of the parameter
// FLOPs of contractions and recurrences are 2 * MACs plus their elementwise extras.
// Bytes read are the inputs' bytes (Gather reads only the rows it gathers: the
// output's bytes plus the indices), bytes written the outputs' bytes; views,
// metadata and sources move no bytes.
#pragma once

#include "graph/graph.h"

namespace graphopt {

OpCost ComputeForwardCost(const Graph& graph, const Op& op);

}  // namespace graphopt
