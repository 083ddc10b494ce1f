// Custom CPU operators of the GO policy network, with their own backward passes.
//
// The network's sparse and segment-wise steps are memory-bound when written with
// generic tensor ops (scatter_reduce, index_add, batched matmul + softmax over
// [segments, heads, S, S + M] score tensors all materialize large intermediates and
// run slow generic backward kernels). These operators do one pass each, keep the
// per-segment work in cache and never materialize a [N, N] or [N, E] tensor, which
// is what makes one policy step on an 80,000-op graph take well under a second on
// two cores. Each is an autograd function (float32, CPU, contiguous inputs; index
// tensors int64), parallel over rows / segments with at::parallel_for, and
// deterministic for any thread count (every output element is reduced in a fixed
// order by one thread). tests/policy checks each against a reference written with
// plain tensor ops.
#pragma once

#include <ATen/core/Tensor.h>

namespace graphopt {

// GraphSAGE max-pool aggregation. x [N, H]; the neighbours of row i are
// index[offsets[i] .. offsets[i + 1]). Returns [N, H] with
//   out[i, c] = max(0, max_j x[j, c]) over the neighbours j of i
// (0 for a row without neighbours). With x >= 0 (the ReLU messages of GraphSAGE)
// this is exactly the max over the neighbours. The gradient goes to the first
// neighbour attaining the max (none if 0 wins).
at::Tensor NeighborMaxPool(const at::Tensor& x, const at::Tensor& offsets, const at::Tensor& index);

// Rows of x [R, H] picked by index [M] (values in [0, R)): [M, H]. Like
// index_select, with a deterministic, single-pass backward.
at::Tensor GatherRows(const at::Tensor& x, const at::Tensor& index);

// Mean of x's rows per segment: segment u has rows members[offsets[u] ..
// offsets[u + 1]) (each row in exactly one segment). x [N, H] -> [U, H]; an empty
// segment gives zeros.
at::Tensor SegmentMean(const at::Tensor& x, const at::Tensor& offsets, const at::Tensor& members);

// Fused multi-head attention of segments over [memory, segment] keys:
//   q [B, heads, S, dh], k and v [B, heads, L, dh], bias [heads, S, L],
//   key_valid [B, L] (uint8 or bool: 0 masks the key), scale.
//   out[b, h, i] = sum_j softmax_j(scale * q_i . k_j + bias[h, i, j]) v_j over the
//   valid keys j; a query without a valid key gets zeros.
// Gradients flow to q, k, v and bias. The [B, heads, S, L] score tensor is never
// materialized (each (b, h) block is computed in cache, twice in backward).
at::Tensor SegmentAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& bias,
                            const at::Tensor& key_valid, double scale);

}  // namespace graphopt
