#include "policy/kernels.h"

#include <ATen/Parallel.h>
#include <torch/autograd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/status.h"

// The attention blocks' elementwise loops (softmax, masks) are compiled twice, for
// AVX2+FMA and for the baseline target, and picked at run time by the CPU's
// features, so the binary runs everywhere and is fast where it can be.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define GRAPHOPT_X86_DISPATCH 1
#define GRAPHOPT_INLINE __attribute__((always_inline)) inline
#else
#define GRAPHOPT_X86_DISPATCH 0
#define GRAPHOPT_INLINE inline
#endif

extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                       const float* beta, float* c, const int* ldc);

namespace graphopt {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

void CheckFloat(const at::Tensor& t, const char* what) {
  GO_CHECK_MSG(t.defined() && t.scalar_type() == at::kFloat && t.device().is_cpu(),
               std::string(what) + " must be a float CPU tensor");
}
void CheckIndex(const at::Tensor& t, const char* what) {
  GO_CHECK_MSG(t.defined() && t.scalar_type() == at::kLong && t.dim() == 1,
               std::string(what) + " must be a 1-D int64 tensor");
}

// ---------------------------------------------------------------------------
// NeighborMaxPool

struct NeighborMaxFn : public torch::autograd::Function<NeighborMaxFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x_in, const at::Tensor& offsets_in,
                            const at::Tensor& index_in) {
    CheckFloat(x_in, "NeighborMaxPool x");
    CheckIndex(offsets_in, "NeighborMaxPool offsets");
    CheckIndex(index_in, "NeighborMaxPool index");
    const at::Tensor x = x_in.contiguous();
    const at::Tensor offsets = offsets_in.contiguous();
    const at::Tensor index = index_in.contiguous();
    const int64_t n = offsets.size(0) - 1;
    const int64_t h = x.size(1);
    at::Tensor out = at::zeros({n, h}, x.options());
    at::Tensor arg = at::full({n, h}, -1, x.options().dtype(at::kInt));
    const float* xp = x.data_ptr<float>();
    const int64_t* op = offsets.data_ptr<int64_t>();
    const int64_t* ip = index.data_ptr<int64_t>();
    float* outp = out.data_ptr<float>();
    int32_t* argp = arg.data_ptr<int32_t>();
    at::parallel_for(0, n, 512, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        float* o = outp + i * h;
        int32_t* a = argp + i * h;
        for (int64_t e = op[i]; e < op[i + 1]; ++e) {
          const int64_t j = ip[e];
          const float* row = xp + j * h;
          for (int64_t c = 0; c < h; ++c) {
            if (row[c] > o[c]) {
              o[c] = row[c];
              a[c] = static_cast<int32_t>(j);
            }
          }
        }
      }
    });
    ctx->save_for_backward({arg});
    ctx->saved_data["rows"] = x.size(0);
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor arg = ctx->get_saved_variables()[0];
    const at::Tensor g = grads[0].contiguous();
    const int64_t rows = ctx->saved_data["rows"].toInt();
    const int64_t n = arg.size(0), h = arg.size(1);
    at::Tensor gx = at::zeros({rows, h}, g.options());
    const int32_t* ap = arg.data_ptr<int32_t>();
    const float* gp = g.data_ptr<float>();
    float* gxp = gx.data_ptr<float>();
    // Channels are independent: split them over threads, each thread walks all rows
    // in order (deterministic sums).
    at::parallel_for(0, h, 8, [&](int64_t c0, int64_t c1) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t c = c0; c < c1; ++c) {
          const int32_t j = ap[i * h + c];
          if (j >= 0) gxp[j * h + c] += gp[i * h + c];
        }
      }
    });
    return {gx, at::Tensor(), at::Tensor()};
  }
};

// ---------------------------------------------------------------------------
// GatherRows

struct GatherRowsFn : public torch::autograd::Function<GatherRowsFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x_in, const at::Tensor& index_in) {
    CheckFloat(x_in, "GatherRows x");
    CheckIndex(index_in, "GatherRows index");
    const at::Tensor x = x_in.contiguous();
    const at::Tensor index = index_in.contiguous();
    ctx->save_for_backward({index});
    ctx->saved_data["rows"] = x.size(0);
    return x.index_select(0, index);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor index = ctx->get_saved_variables()[0];
    const at::Tensor g = grads[0].contiguous();
    const int64_t rows = ctx->saved_data["rows"].toInt();
    const int64_t m = index.size(0), h = g.size(1);
    at::Tensor gx = at::zeros({rows, h}, g.options());
    const int64_t* ip = index.data_ptr<int64_t>();
    const float* gp = g.data_ptr<float>();
    float* gxp = gx.data_ptr<float>();
    at::parallel_for(0, h, 8, [&](int64_t c0, int64_t c1) {
      for (int64_t i = 0; i < m; ++i) {
        float* dst = gxp + ip[i] * h;
        const float* src = gp + i * h;
        for (int64_t c = c0; c < c1; ++c) dst[c] += src[c];
      }
    });
    return {gx, at::Tensor()};
  }
};

// ---------------------------------------------------------------------------
// SegmentMean

struct SegmentMeanFn : public torch::autograd::Function<SegmentMeanFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x_in, const at::Tensor& offsets_in,
                            const at::Tensor& members_in) {
    CheckFloat(x_in, "SegmentMean x");
    CheckIndex(offsets_in, "SegmentMean offsets");
    CheckIndex(members_in, "SegmentMean members");
    const at::Tensor x = x_in.contiguous();
    const at::Tensor offsets = offsets_in.contiguous();
    const at::Tensor members = members_in.contiguous();
    const int64_t u = offsets.size(0) - 1, h = x.size(1);
    at::Tensor out = at::zeros({u, h}, x.options());
    const float* xp = x.data_ptr<float>();
    const int64_t* op = offsets.data_ptr<int64_t>();
    const int64_t* mp = members.data_ptr<int64_t>();
    float* outp = out.data_ptr<float>();
    at::parallel_for(0, u, 512, [&](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s) {
        const int64_t count = op[s + 1] - op[s];
        if (count == 0) continue;
        float* o = outp + s * h;
        for (int64_t e = op[s]; e < op[s + 1]; ++e) {
          const float* row = xp + mp[e] * h;
          for (int64_t c = 0; c < h; ++c) o[c] += row[c];
        }
        const float inv = 1.0f / static_cast<float>(count);
        for (int64_t c = 0; c < h; ++c) o[c] *= inv;
      }
    });
    ctx->save_for_backward({offsets, members});
    ctx->saved_data["rows"] = x.size(0);
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& offsets = saved[0];
    const at::Tensor& members = saved[1];
    const at::Tensor g = grads[0].contiguous();
    const int64_t rows = ctx->saved_data["rows"].toInt();
    const int64_t u = offsets.size(0) - 1, h = g.size(1);
    at::Tensor gx = at::zeros({rows, h}, g.options());
    const int64_t* op = offsets.data_ptr<int64_t>();
    const int64_t* mp = members.data_ptr<int64_t>();
    const float* gp = g.data_ptr<float>();
    float* gxp = gx.data_ptr<float>();
    at::parallel_for(0, u, 512, [&](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s) {
        const int64_t count = op[s + 1] - op[s];
        if (count == 0) continue;
        const float inv = 1.0f / static_cast<float>(count);
        const float* src = gp + s * h;
        for (int64_t e = op[s]; e < op[s + 1]; ++e) {
          float* dst = gxp + mp[e] * h;
          for (int64_t c = 0; c < h; ++c) dst[c] += src[c] * inv;
        }
      }
    });
    return {gx, at::Tensor(), at::Tensor()};
  }
};

// ---------------------------------------------------------------------------
// SegmentAttention
//
// Per (segment, head) block, in cache: scores = scale * Q K^T + bias (one BLAS
// GEMM), a masked row softmax, out = P V (one GEMM). Backward recomputes P from the
// saved log-sum-exp (FlashAttention's trick: no [S, L] tensor is kept per block)
// and does five GEMMs. Small GEMMs go to the BLAS LibTorch uses (OpenBLAS here);
// they run single-threaded inside the parallel loop over blocks.

// Column-major BLAS GEMM: C = alpha * op(A) op(B) + beta * C.
void Gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  const int ldai = static_cast<int>(lda), ldbi = static_cast<int>(ldb), ldci = static_cast<int>(ldc);
  sgemm_(&transa, &transb, &mi, &ni, &ki, &alpha, a, &ldai, b, &ldbi, &beta, c, &ldci);
}

// Row-major helpers on top of Gemm (all matrices contiguous, row-major).
// C[m, n] = alpha * A[m, k] B[n, k]^T + beta * C
void GemmABt(int64_t m, int64_t n, int64_t k, float alpha, const float* a, const float* b, float beta, float* c) {
  Gemm('T', 'N', n, m, k, alpha, b, k, a, k, beta, c, n);
}
// C[m, n] = alpha * A[m, k] B[k, n] + beta * C
void GemmAB(int64_t m, int64_t n, int64_t k, float alpha, const float* a, const float* b, float beta, float* c) {
  Gemm('N', 'N', n, m, k, alpha, b, n, a, k, beta, c, n);
}
// C[m, n] = alpha * A[k, m]^T B[k, n] + beta * C
void GemmAtB(int64_t m, int64_t n, int64_t k, float alpha, const float* a, const float* b, float beta, float* c) {
  Gemm('N', 'T', n, m, k, alpha, b, n, a, m, beta, c, n);
}

// exp(x) for x <= 0 (softmax arguments after subtracting the max), branch- and
// conversion-free so that loops over it vectorize: Cephes' expf polynomial on the
// argument reduced by n = round(x / ln 2) (the 1.5 * 2^23 rounding trick, which
// also leaves n + 127 in the low mantissa bits), times 2^n built from those bits.
// Relative error < 1e-7; arguments below -87 flush to ~1e-38. (kernels.cc is
// compiled with -fno-trapping-math, without which GCC vectorizes no loop with a
// float min/max in it.)
GRAPHOPT_INLINE float ExpNonPositive(float x) {
  x = std::max(x, -87.0f);
  const float t = x * 1.44269504088896341f + 12582912.0f;
  const float fn = t - 12582912.0f;
  const float r = x - fn * 0.693359375f + fn * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  uint32_t t_bits;
  std::memcpy(&t_bits, &t, sizeof(t_bits));
  const uint32_t scale_bits = (t_bits + 127u) << 23;
  float scale;
  std::memcpy(&scale, &scale_bits, sizeof(scale));
  return p * scale;
}

// The key mask of a block as floats, so that the loops below have no branches
// (and vectorize): keep[j] = 1 or 0, add[j] = 0 or -inf.
GRAPHOPT_INLINE void KeyMask(const uint8_t* valid, int64_t L, float* keep, float* add) {
  for (int64_t j = 0; j < L; ++j) {
    keep[j] = valid[j] ? 1.0f : 0.0f;
    add[j] = valid[j] ? 0.0f : -std::numeric_limits<float>::infinity();
  }
}

// Row softmax of scores [S, L] in place over the kept keys (others get 0); writes
// each row's log-sum-exp (0 for a row without kept keys, which becomes all 0).
GRAPHOPT_INLINE void MaskedSoftmaxRows(float* scores, const float* keep, const float* add, int64_t S, int64_t L,
                                       float* lse) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < S; ++i) {
    float* s = scores + i * L;
    float m = kNegInf;
#pragma omp simd reduction(max : m)
    for (int64_t j = 0; j < L; ++j) m = std::max(m, s[j] + add[j]);
    if (m == kNegInf) {
      std::fill(s, s + L, 0.0f);
      lse[i] = 0;
      continue;
    }
#pragma omp simd
    for (int64_t j = 0; j < L; ++j) s[j] = ExpNonPositive(std::min(s[j] - m, 0.0f)) * keep[j];
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < L; ++j) sum += s[j];
    const float inv = 1.0f / sum;
#pragma omp simd
    for (int64_t j = 0; j < L; ++j) s[j] *= inv;
    lse[i] = m + std::log(sum);
  }
}

// P = exp(scores - lse) over the kept keys, in place.
GRAPHOPT_INLINE void ProbabilitiesFromLse(float* scores, const float* keep, const float* lse, int64_t S, int64_t L) {
  for (int64_t i = 0; i < S; ++i) {
    float* s = scores + i * L;
    const float li = lse[i];
#pragma omp simd
    for (int64_t j = 0; j < L; ++j) s[j] = ExpNonPositive(std::min(s[j] - li, 0.0f)) * keep[j];
  }
}

// One (segment, head) block of the forward pass: q [S, dh], k and v [L, dh], bias
// [S, L] -> out [S, dh], lse [S]. scratch: S * L + 2 * L floats.
GRAPHOPT_INLINE void AttentionForwardBlockImpl(const float* q, const float* k, const float* v, const float* bias,
                                               const uint8_t* valid, int64_t S, int64_t L, int64_t dh, float scale,
                                               float* out, float* lse, float* scratch) {
  float* scores = scratch;
  float* keep = scratch + S * L;
  float* add = keep + L;
  KeyMask(valid, L, keep, add);
  std::memcpy(scores, bias, static_cast<size_t>(S * L) * sizeof(float));
  GemmABt(S, L, dh, scale, q, k, 1.0f, scores);
  MaskedSoftmaxRows(scores, keep, add, S, L, lse);
  GemmAB(S, dh, L, 1.0f, scores, v, 0.0f, out);
}

// One (segment, head) block of the backward pass: writes dq [S, dh], dk and dv [L,
// dh] (this block's own rows) and adds the bias gradient to dbias [S, L] (the
// calling chunk's buffer). scratch: 2 * S * L + 2 * L floats.
GRAPHOPT_INLINE void AttentionBackwardBlockImpl(const float* q, const float* k, const float* v, const float* bias,
                                                const uint8_t* valid, const float* out, const float* lse,
                                                const float* dout, int64_t S, int64_t L, int64_t dh, float scale,
                                                float* dq, float* dk, float* dv, float* dbias, float* scratch) {
  float* p = scratch;
  float* ds = scratch + S * L;
  float* keep = ds + S * L;
  float* add = keep + L;
  KeyMask(valid, L, keep, add);
  std::memcpy(p, bias, static_cast<size_t>(S * L) * sizeof(float));
  GemmABt(S, L, dh, scale, q, k, 1.0f, p);
  ProbabilitiesFromLse(p, keep, lse, S, L);
  GemmABt(S, L, dh, 1.0f, dout, v, 0.0f, ds);  // dP = dO V^T
  for (int64_t i = 0; i < S; ++i) {
    float di = 0;
    for (int64_t d = 0; d < dh; ++d) di += dout[i * dh + d] * out[i * dh + d];
    float* dsi = ds + i * L;
    const float* pi = p + i * L;
    float* dbi = dbias + i * L;
#pragma omp simd
    for (int64_t j = 0; j < L; ++j) {
      dsi[j] = pi[j] * (dsi[j] - di);
      dbi[j] += dsi[j];
    }
  }
  GemmAB(S, dh, L, scale, ds, k, 0.0f, dq);    // dQ = scale dS K
  GemmAtB(L, dh, S, scale, ds, q, 0.0f, dk);   // dK = scale dS^T Q
  GemmAtB(L, dh, S, 1.0f, p, dout, 0.0f, dv);  // dV = P^T dO
}

#define GRAPHOPT_FORWARD_ARGS                                                                                    \
  const float *q, const float *k, const float *v, const float *bias, const uint8_t *valid, int64_t S, int64_t L, \
      int64_t dh, float scale, float *out, float *lse, float *scratch
#define GRAPHOPT_BACKWARD_ARGS                                                                                  \
  const float *q, const float *k, const float *v, const float *bias, const uint8_t *valid, const float *out,    \
      const float *lse, const float *dout, int64_t S, int64_t L, int64_t dh, float scale, float *dq, float *dk, \
      float *dv, float *dbias, float *scratch

void AttentionForwardBlockBase(GRAPHOPT_FORWARD_ARGS) {
  AttentionForwardBlockImpl(q, k, v, bias, valid, S, L, dh, scale, out, lse, scratch);
}
void AttentionBackwardBlockBase(GRAPHOPT_BACKWARD_ARGS) {
  AttentionBackwardBlockImpl(q, k, v, bias, valid, out, lse, dout, S, L, dh, scale, dq, dk, dv, dbias, scratch);
}
#if GRAPHOPT_X86_DISPATCH
__attribute__((target("avx2,fma"))) void AttentionForwardBlockAvx2(GRAPHOPT_FORWARD_ARGS) {
  AttentionForwardBlockImpl(q, k, v, bias, valid, S, L, dh, scale, out, lse, scratch);
}
__attribute__((target("avx2,fma"))) void AttentionBackwardBlockAvx2(GRAPHOPT_BACKWARD_ARGS) {
  AttentionBackwardBlockImpl(q, k, v, bias, valid, out, lse, dout, S, L, dh, scale, dq, dk, dv, dbias, scratch);
}
bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

void AttentionForwardBlock(GRAPHOPT_FORWARD_ARGS) {
#if GRAPHOPT_X86_DISPATCH
  if (HasAvx2()) return AttentionForwardBlockAvx2(q, k, v, bias, valid, S, L, dh, scale, out, lse, scratch);
#endif
  AttentionForwardBlockBase(q, k, v, bias, valid, S, L, dh, scale, out, lse, scratch);
}
void AttentionBackwardBlock(GRAPHOPT_BACKWARD_ARGS) {
#if GRAPHOPT_X86_DISPATCH
  if (HasAvx2())
    return AttentionBackwardBlockAvx2(q, k, v, bias, valid, out, lse, dout, S, L, dh, scale, dq, dk, dv, dbias,
                                      scratch);
#endif
  AttentionBackwardBlockBase(q, k, v, bias, valid, out, lse, dout, S, L, dh, scale, dq, dk, dv, dbias, scratch);
}

struct SegmentAttentionFn : public torch::autograd::Function<SegmentAttentionFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& q_in, const at::Tensor& k_in,
                            const at::Tensor& v_in, const at::Tensor& bias_in, const at::Tensor& valid_in,
                            double scale) {
    CheckFloat(q_in, "SegmentAttention q");
    CheckFloat(k_in, "SegmentAttention k");
    CheckFloat(v_in, "SegmentAttention v");
    CheckFloat(bias_in, "SegmentAttention bias");
    GO_CHECK_MSG(q_in.dim() == 4 && k_in.dim() == 4 && v_in.dim() == 4 && bias_in.dim() == 3 && valid_in.dim() == 2,
                 "SegmentAttention: q, k, v are [B, heads, S|L, dh], bias [heads, S, L], key_valid [B, L]");
    const at::Tensor q = q_in.contiguous(), k = k_in.contiguous(), v = v_in.contiguous(), bias = bias_in.contiguous();
    const at::Tensor valid = valid_in.to(at::kByte).contiguous();
    const int64_t B = q.size(0), heads = q.size(1), S = q.size(2), dh = q.size(3), L = k.size(2);
    GO_CHECK(k.size(0) == B && k.size(1) == heads && k.size(3) == dh && v.sizes() == k.sizes());
    GO_CHECK(bias.size(0) == heads && bias.size(1) == S && bias.size(2) == L && valid.size(0) == B &&
             valid.size(1) == L);
    at::Tensor out = at::empty_like(q);
    at::Tensor lse = at::empty({B, heads, S}, q.options());
    const float* qp = q.data_ptr<float>();
    const float* kp = k.data_ptr<float>();
    const float* vp = v.data_ptr<float>();
    const float* bp = bias.data_ptr<float>();
    const uint8_t* mp = valid.data_ptr<uint8_t>();
    float* outp = out.data_ptr<float>();
    float* lsep = lse.data_ptr<float>();
    const float fscale = static_cast<float>(scale);
    at::parallel_for(0, B * heads, 4, [&](int64_t begin, int64_t end) {
      std::vector<float> scratch(static_cast<size_t>(S * L + 2 * L));
      for (int64_t g = begin; g < end; ++g) {
        const int64_t b = g / heads, h = g % heads;
        AttentionForwardBlock(qp + g * S * dh, kp + g * L * dh, vp + g * L * dh, bp + h * S * L, mp + b * L, S, L, dh,
                              fscale, outp + g * S * dh, lsep + g * S, scratch.data());
      }
    });
    ctx->save_for_backward({q, k, v, bias, valid, out, lse});
    ctx->saved_data["scale"] = scale;
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &q = saved[0], &k = saved[1], &v = saved[2], &bias = saved[3], &valid = saved[4], &out = saved[5],
                     &lse = saved[6];
    const float scale = static_cast<float>(ctx->saved_data["scale"].toDouble());
    const at::Tensor dout = grads[0].contiguous();
    const int64_t B = q.size(0), heads = q.size(1), S = q.size(2), dh = q.size(3), L = k.size(2);
    at::Tensor dq = at::empty_like(q), dk = at::empty_like(k), dv = at::empty_like(v);
    // Blocks are split into kChunks fixed chunks; chunk t accumulates its bias
    // gradient in buffer t, and the buffers are summed in order: the result does not
    // depend on the number of threads or on which thread ran which chunk.
    constexpr int64_t kChunks = 16;
    at::Tensor dbias_chunks = at::zeros({kChunks, heads, S, L}, q.options());
    const float* qp = q.data_ptr<float>();
    const float* kp = k.data_ptr<float>();
    const float* vp = v.data_ptr<float>();
    const float* bp = bias.data_ptr<float>();
    const uint8_t* mp = valid.data_ptr<uint8_t>();
    const float* outp = out.data_ptr<float>();
    const float* lsep = lse.data_ptr<float>();
    const float* doutp = dout.data_ptr<float>();
    float* dqp = dq.data_ptr<float>();
    float* dkp = dk.data_ptr<float>();
    float* dvp = dv.data_ptr<float>();
    float* dbp = dbias_chunks.data_ptr<float>();
    const int64_t blocks = B * heads;
    const int64_t chunk = (blocks + kChunks - 1) / kChunks;
    at::parallel_for(0, kChunks, 1, [&](int64_t t0, int64_t t1) {
      std::vector<float> scratch(static_cast<size_t>(2 * S * L + 2 * L));
      for (int64_t t = t0; t < t1; ++t) {
        for (int64_t g = t * chunk; g < std::min(blocks, (t + 1) * chunk); ++g) {
          const int64_t b = g / heads, h = g % heads;
          AttentionBackwardBlock(qp + g * S * dh, kp + g * L * dh, vp + g * L * dh, bp + h * S * L, mp + b * L,
                                 outp + g * S * dh, lsep + g * S, doutp + g * S * dh, S, L, dh, scale, dqp + g * S * dh,
                                 dkp + g * L * dh, dvp + g * L * dh, dbp + (t * heads + h) * S * L, scratch.data());
        }
      }
    });
    at::Tensor dbias = dbias_chunks.sum(0);
    return {dq, dk, dv, dbias, at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor NeighborMaxPool(const at::Tensor& x, const at::Tensor& offsets, const at::Tensor& index) {
  return NeighborMaxFn::apply(x, offsets, index);
}

at::Tensor GatherRows(const at::Tensor& x, const at::Tensor& index) { return GatherRowsFn::apply(x, index); }

at::Tensor SegmentMean(const at::Tensor& x, const at::Tensor& offsets, const at::Tensor& members) {
  return SegmentMeanFn::apply(x, offsets, members);
}

at::Tensor SegmentAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& bias,
                            const at::Tensor& key_valid, double scale) {
  return SegmentAttentionFn::apply(q, k, v, bias, key_valid, scale);
}

}  // namespace graphopt
