// src/rns/ckks_cuda.cu — CKKS encode and decode on the device (CUDA backend of hepa/ckks.h).
// Same steps and the same integer code (ckks_core.h) as the host path in ckks.c:
//   encode: place Δ·z_j at t_j (checking the slots) → forward DFT → untwist and round to n
//           integers m_k (checking |m_k| < Q/2; int64, the double kept where |m_k| >= 2^63) →
//           forward NTT whose first pass reduces m_k mod q_i as it loads
//           (_hepa_dev_ntt_encode; n < 2^10: a reduction kernel writes the limbs first).
//           h = 2^12 ... 2^15 on sm_90: the first three steps are one kernel (enc_fused, one
//           thread-block cluster); elsewhere enc_place, the DFT plan, enc_round.
//           The check flags live in mapped pinned memory: the kernels store to it directly and
//           the call's only wait is the stream synchronisation that returns the status;
//   decode: inverse NTT of the t limbs decode needs (into scratch) → CRT to doubles / Δ, twist →
//           inverse DFT → permute into the slots.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>

#include "rns/ckks_internal.h"
#include "device/dft_fp64.cuh"
#include "hepa/dft.h"
#include "host/roots.h"

namespace hepa_ckks_cuda {

struct ckks_dev {
    hepa_dft_plan *plan;   // size h, batch 1
    uint32_t *perm;        // h
    double2 *twist;        // h
    hepa_modulus *mods;    // L
    ckks_crt_consts *crt;  // one
    int *hflag;            // mapped pinned host memory: [0] a slot is not finite, [1] out of range
    int *flag;             // its device address; kernels only ever store 1 (no read, no atomic)
    unsigned logh;         // enc_fused serves this h (0: the plan's path)
    uint32_t *iperm;       // enc_fused: iperm[perm[j]] = j
    double2 *wh;           // enc_fused: w_h^e = e^(-2πi·e/h), e < h
    hepa_dft_plan *tplan[3]; // [HEPA_DFT_FP16], [HEPA_DFT_FP16X2]: size h, batch 1 (DFT MODE)
};

// DFT MODE (hepa/ckks.h): the DFT's buffer holds the plan's element type T: complex double
// (FP64), float (FP16X2) or half (FP16). Values go in and out through double2.
__device__ __forceinline__ void put(double2 *p, double2 v) {
    *p = v;
}
__device__ __forceinline__ void put(float2 *p, double2 v) {
    *p = make_float2((float)v.x, (float)v.y);
}
__device__ __forceinline__ void put(__half2 *p, double2 v) {
    *p = __floats2half2_rn((float)v.x, (float)v.y);
}
__device__ __forceinline__ double2 get(const double2 *p) {
    return *p;
}
__device__ __forceinline__ double2 get(const float2 *p) {
    const float2 f = *p;
    return make_double2(f.x, f.y);
}
__device__ __forceinline__ double2 get(const __half2 *p) {
    const float2 f = __half22float2(*p);
    return make_double2(f.x, f.y);
}

template <typename T>
__global__ void enc_place(T *Z, const double2 *slots, const uint32_t *perm, double scale, size_t h,
                          int *flag) {
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= h) return;
    const double2 z = slots[j];
    if (!isfinite(z.x) || !isfinite(z.y)) *(volatile int *)&flag[0] = 1;
    put(Z + perm[j], make_double2(scale * z.x, scale * z.y));
}

// m_k = round(Re(u_k·w_k)), m_(k+h) = round(Im(u_k·w_k)), u = Z / h (k < h), as int64 in w (the
// double in big, and w = CKKS_BIG, where |m| >= 2^63); 0 and the range flag where |m| >= Q/2
// (or NaN, from a scale that overflowed).
__device__ __forceinline__ void enc_store(int64_t *w, double *big, size_t k, double m) {
    const bool fits = fabs(m) < 9223372036854775808.0; // 2^63
    w[k] = fits ? (int64_t)m : CKKS_BIG;
    big[k] = m;
}

// Coefficients k and k + h from DFT output z (k < h).
__device__ __forceinline__ void enc_round_one(int64_t *w, double *big, double2 z, double2 tw,
                                              size_t k, size_t h, double inv_h, double bound,
                                              int *flag) {
    const double ur = z.x * inv_h, ui = z.y * inv_h;
    // __dmul_rn / __dadd_rn: no FMA contraction, the same roundings as the host code
    double m0 = rint(__dadd_rn(__dmul_rn(ur, tw.x), __dmul_rn(ui, tw.y)));
    double m1 = rint(__dsub_rn(__dmul_rn(ui, tw.x), __dmul_rn(ur, tw.y)));
    if (!(fabs(m0) < bound) || !(fabs(m1) < bound)) {
        *(volatile int *)&flag[1] = 1;
        m0 = m1 = 0;
    }
    enc_store(w, big, k, m0);
    enc_store(w, big, k + h, m1);
}

// (a tensor-core mode's output that overflowed, inf, or its NaN fails the range test: flag[1])
template <typename T>
__global__ void enc_round(int64_t *w, double *big, const T *Z, const double2 *twist, size_t h,
                          double inv_h, double bound, int *flag) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < h) enc_round_one(w, big, get(Z + k), twist[k], k, h, inv_h, bound, flag);
}

// h = 2^12 ... 2^15 on sm_90: placement, DFT and rounding in one kernel, one cluster of 8 blocks
// (dft64_cluster8): input position p is slot iperm[p] times Δ, output k becomes m_k and m_(k+h).
// Against enc_place + the plan's two latency-mode passes + enc_round it saves three launches and
// the round trips of Z through global memory.
// (Its members are called only from sm_90 code: 177 "declared but never referenced" is expected
// in the sm_80 pass.)
#pragma nv_diag_suppress 177
struct enc_io {
    const double2 *slots;
    const uint32_t *iperm;
    const double2 *twist;
    int64_t *w;
    double *big;
    int *flag;
    double scale, inv_h, bound;
    unsigned h;
    // the eight index loads, then the eight slot loads, then at most one flag store
    __device__ __forceinline__ void load8(const unsigned (&p)[8], double2 (&v)[8]) const {
        unsigned j[8];
#pragma unroll
        for (int r = 0; r < 8; ++r) j[r] = __ldg(iperm + p[r]);
#pragma unroll
        for (int r = 0; r < 8; ++r) v[r] = __ldg(slots + j[r]);
        bool bad = false;
#pragma unroll
        for (int r = 0; r < 8; ++r) {
            bad |= !isfinite(v[r].x) || !isfinite(v[r].y);
            v[r] = make_double2(scale * v[r].x, scale * v[r].y);
        }
        if (bad) *(volatile int *)&flag[0] = 1;
    }
    // the eight twist loads before any store
    __device__ __forceinline__ void store8(const unsigned (&k)[8], const double2 (&v)[8]) const {
        double2 tw[8];
#pragma unroll
        for (int r = 0; r < 8; ++r) tw[r] = __ldg(twist + k[r]);
#pragma unroll
        for (int r = 0; r < 8; ++r) enc_round_one(w, big, v[r], tw[r], k[r], h, inv_h, bound, flag);
    }
};
#pragma nv_diag_default 177

template <int LOGH>
__global__ void __launch_bounds__(c8_shape<LOGH>::T) enc_fused(enc_io io, const double2 *tw) {
    dft64_cluster8<LOGH, false>(io, tw);
}
struct fused_entry {
    const void *k;
    unsigned threads;
    size_t smem;
};
template <int L> constexpr fused_entry fused_of() {
    return {(const void *)enc_fused<L>, c8_shape<L>::T, c8_shape<L>::SMEM};
}
// log2 h (h = 2^16 would need 256 KiB of shared memory per block: the plan's path)
constexpr unsigned kFusedMin = 12, kFusedMax = 15;
const fused_entry enc_fused_k[] = {fused_of<12>(), fused_of<13>(), fused_of<14>(), fused_of<15>()};

// n < 2^10 (no fused NTT): out[i·n + k] = m_k mod q_i.
__global__ void enc_reduce(uint64_t *out, const double *big, const hepa_modulus *mods,
                           size_t level, size_t n) {
    const size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x < level * n) out[x] = ckks_residue(big[x % n], &mods[x / n]);
}

template <typename T>
__global__ void dec_crt(T *U, const uint64_t *c, const ckks_crt_consts *crt, size_t t,
                        const double2 *twist, double inv_scale, size_t n, size_t h) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= h) return;
    const double a = __dmul_rn(ckks_crt_to_double(crt, t, c + k, n), inv_scale);
    const double b = __dmul_rn(ckks_crt_to_double(crt, t, c + k + h, n), inv_scale);
    const double2 w = twist[k];
    put(U + k, make_double2(__dsub_rn(__dmul_rn(a, w.x), __dmul_rn(b, w.y)),
                            __dadd_rn(__dmul_rn(a, w.y), __dmul_rn(b, w.x))));
}

// post: undoes the FP16 route's scaling of U (1 otherwise: an exact product)
template <typename T>
__global__ void dec_perm(double2 *slots, const T *U, const uint32_t *perm, size_t h, double post) {
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= h) return;
    const double2 v = get(U + perm[j]);
    slots[j] = make_double2(v.x * post, v.y * post);
}

unsigned blocks_for(size_t n) { return (unsigned)((n + 255) / 256); }

} // namespace hepa_ckks_cuda
using namespace hepa_ckks_cuda;

extern "C" hepa_status _hepa_dev_ckks_init(hepa_ckks_encoder *e) {
    ckks_dev *d = (ckks_dev *)calloc(1, sizeof *d);
    if (!d) return HEPA_ERR_OUT_OF_MEMORY;
    e->dev = d;
    const size_t h = e->h, L = e->ring->num_moduli;
    hepa_status s = hepa_dft_plan_create(&d->plan, h, 1, HEPA_DFT_FP64);
    if (s != HEPA_OK) return s;
    cudaError_t c = cudaMalloc((void **)&d->perm, h * sizeof *d->perm);
    if (c == cudaSuccess) c = cudaMalloc((void **)&d->twist, h * sizeof *d->twist);
    if (c == cudaSuccess) c = cudaMalloc((void **)&d->mods, L * sizeof *d->mods);
    if (c == cudaSuccess) c = cudaMalloc((void **)&d->crt, sizeof *d->crt);
    if (c == cudaSuccess) c = cudaHostAlloc((void **)&d->hflag, 2 * sizeof *d->hflag, cudaHostAllocMapped);
    if (c == cudaSuccess) {
        d->hflag[0] = d->hflag[1] = 0;
        c = cudaHostGetDevicePointer((void **)&d->flag, d->hflag, 0);
    }
    if (c == cudaSuccess)
        c = cudaMemcpy(d->perm, e->perm, h * sizeof *d->perm, cudaMemcpyHostToDevice);
    if (c == cudaSuccess)
        c = cudaMemcpy(d->twist, e->twist, h * sizeof *d->twist, cudaMemcpyHostToDevice);
    if (c == cudaSuccess)
        c = cudaMemcpy(d->mods, e->ring->mods, L * sizeof *d->mods, cudaMemcpyHostToDevice);
    if (c == cudaSuccess) c = cudaMemcpy(d->crt, &e->crt, sizeof *d->crt, cudaMemcpyHostToDevice);
    const unsigned logh = e->ring->log_n - 1; // h = N/2
    if (c == cudaSuccess && logh >= kFusedMin && logh <= kFusedMax) {
        const fused_entry &f = enc_fused_k[logh - kFusedMin];
        if (cluster_kernel_ok(f.k, kC8Blocks, f.threads, f.smem)) {
            uint32_t *ip = (uint32_t *)malloc(h * sizeof *ip);
            double2 *w = (double2 *)malloc(h * sizeof *w);
            if (!ip || !w) {
                free(ip);
                free(w);
                return HEPA_ERR_OUT_OF_MEMORY;
            }
            for (size_t j = 0; j < h; ++j) {
                ip[e->perm[j]] = (uint32_t)j;
                long double co, si;
                hepa_root_ld(j, h, &co, &si);
                w[j] = make_double2((double)co, (double)-si);
            }
            c = cudaMalloc((void **)&d->iperm, h * sizeof *d->iperm);
            if (c == cudaSuccess) c = cudaMalloc((void **)&d->wh, h * sizeof *d->wh);
            if (c == cudaSuccess)
                c = cudaMemcpy(d->iperm, ip, h * sizeof *ip, cudaMemcpyHostToDevice);
            if (c == cudaSuccess) c = cudaMemcpy(d->wh, w, h * sizeof *w, cudaMemcpyHostToDevice);
            if (c == cudaSuccess) d->logh = logh;
            free(ip);
            free(w);
        }
    }
    return c == cudaSuccess ? HEPA_OK : _hepa_dev_status(c, "hepa_ckks_encoder_create");
}

extern "C" void _hepa_dev_ckks_free(hepa_ckks_encoder *e) {
    ckks_dev *d = (ckks_dev *)e->dev;
    if (!d) return;
    hepa_dft_plan_destroy(d->plan);
    hepa_dft_plan_destroy(d->tplan[HEPA_DFT_FP16]);
    hepa_dft_plan_destroy(d->tplan[HEPA_DFT_FP16X2]);
    cudaFree(d->perm);
    cudaFree(d->twist);
    cudaFree(d->mods);
    cudaFree(d->crt);
    cudaFree(d->iperm);
    cudaFree(d->wh);
    cudaFreeHost(d->hflag);
    free(d);
    e->dev = NULL;
}

extern "C" hepa_status _hepa_dev_ckks_set_mode(hepa_ckks_encoder *e, int mode) {
    ckks_dev *d = (ckks_dev *)e->dev;
    if (mode != HEPA_DFT_FP16 && mode != HEPA_DFT_FP16X2) return HEPA_OK;
    if (d->tplan[mode]) return HEPA_OK;
    return hepa_dft_plan_create(&d->tplan[mode], e->h, 1, (hepa_dft_mode)mode);
}

namespace hepa_ckks_cuda {
// FP16's scaling (DFT MODE): s = 2^ceil(log2(h)/2) for h = N/2. The DFT of h values grows them up
// to h-fold and their RMS sqrt(h)-fold: encode feeds it z/s, decode (whose input has the slots'
// RMS over sqrt(h)) u·s, so half's range holds slots up to about 65504/sqrt(h) either way.
double fp16_scale(const hepa_ring *r) {
    return ldexp(1.0, (int)r->log_n / 2);
}

// Encode's steps up to the rounded coefficients with a tensor-core mode T (DFT MODE): the slots
// times pre (FP16X2: 1, FP16: 1/fp16_scale), the plan's DFT, then Δ/pre with the 1/h at the
// rounding.
template <typename T>
hepa_status enc_tc(const ckks_dev *d, const hepa_dft_plan *plan, cudaStream_t st, T *Z,
                   const double2 *src, int64_t *w, double *big, size_t h, double scale,
                   double bound, double pre) {
    enc_place<<<blocks_for(h), 256, 0, st>>>(Z, src, d->perm, pre, h, d->flag);
    cudaError_t c = cudaGetLastError();
    if (c != cudaSuccess) return _hepa_dev_status(c, "hepa_ckks_encode");
    hepa_status s = _hepa_dft_exec(plan, Z, Z, 0, st);
    if (s != HEPA_OK) return s;
    enc_round<<<blocks_for(h), 256, 0, st>>>(w, big, (const T *)Z, d->twist, h,
                                             scale / pre / (double)h, bound, d->flag);
    c = cudaGetLastError();
    return c == cudaSuccess ? HEPA_OK : _hepa_dev_status(c, "hepa_ckks_encode");
}
// Decode's steps from the coefficients c (t limbs) to the slots dst in mode T (DFT MODE): CRT
// to doubles / Δ and twist, times pre (FP16: fp16_scale, else 1), into U; the plan's inverse
// DFT; permute into the slots and divide by pre (an exact power of two).
template <typename T>
hepa_status dec_steps(const ckks_dev *d, const hepa_dft_plan *plan, cudaStream_t st, T *U,
                      const uint64_t *c, size_t t, double2 *dst, size_t n, size_t h, double scale,
                      double pre) {
    dec_crt<<<blocks_for(h), 256, 0, st>>>(U, c, d->crt, t, d->twist, pre / scale, n, h);
    cudaError_t ce = cudaGetLastError();
    if (ce != cudaSuccess) return _hepa_dev_status(ce, "hepa_ckks_decode");
    hepa_status s = _hepa_dft_exec(plan, U, U, 1, st);
    if (s != HEPA_OK) return s;
    dec_perm<<<blocks_for(h), 256, 0, st>>>(dst, (const T *)U, d->perm, h, 1 / pre);
    ce = cudaGetLastError();
    return ce == cudaSuccess ? HEPA_OK : _hepa_dev_status(ce, "hepa_ckks_decode");
}
} // namespace hepa_ckks_cuda

extern "C" hepa_status _hepa_dev_ckks_encode(const hepa_ckks_encoder *e, hepa_poly *out,
                                             const double *slots, double scale, int mode) {
    const ckks_dev *d = (const ckks_dev *)e->dev;
    const hepa_ring *r = e->ring;
    cudaStream_t st = (cudaStream_t)r->dev->stream;
    const size_t h = e->h, n = r->n, level = out->level;
    const bool on_dev = _hepa_dev_ptr_is_device(slots);
    const bool tc = mode == HEPA_DFT_FP16 || mode == HEPA_DFT_FP16X2;
    if (tc && !d->tplan[mode]) return HEPA_ERR_INVALID_ARGUMENT; // (set_mode makes the plan)
    const bool fused = d->logh != 0 && !tc;
    double2 *Z = NULL, *in = NULL;
    // Z: the h slots transformed in place (not with enc_fused), then the n rounded coefficients
    // (w, big: enc_round / enc_fused)
    const size_t zb = fused ? 0 : h * sizeof *Z;
    hepa_status s = _hepa_dev_alloc(r, (void **)&Z, zb + n * (sizeof(int64_t) + sizeof(double)));
    int64_t *w = (int64_t *)((char *)Z + zb);
    double *big = (double *)(w + n);
    if (s == HEPA_OK && !on_dev) s = _hepa_dev_alloc(r, (void **)&in, h * sizeof *in);
    if (s == HEPA_OK && !on_dev) s = _hepa_dev_copy(r, in, slots, h * sizeof *in, 0);
    const double2 *src = on_dev ? (const double2 *)slots : in;
    const double inv_h = 1.0 / (double)h, bound = e->halfq[level - 1];
    // The flags were left 0 by the previous call, which synchronised before reading them.
    bool launched = false;
    cudaError_t c = cudaSuccess;
    if (s == HEPA_OK && fused) {
        launched = true;
        const fused_entry &f = enc_fused_k[d->logh - kFusedMin];
        enc_io io = {src, d->iperm, d->twist, w, big, d->flag, scale, inv_h, bound, (unsigned)h};
        const double2 *tw = d->wh;
        void *args[] = {&io, (void *)&tw};
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        cluster_config(1, kC8Blocks, f.threads, f.smem, st, cfg, attr);
        c = cudaLaunchKernelExC(&cfg, f.k, args);
        if (c != cudaSuccess) s = _hepa_dev_status(c, "hepa_ckks_encode");
    } else if (s == HEPA_OK && tc) {
        launched = true;
        const hepa_dft_plan *p = d->tplan[mode];
        s = mode == HEPA_DFT_FP16
                ? enc_tc(d, p, st, (__half2 *)Z, src, w, big, h, scale, bound, 1 / fp16_scale(r))
                : enc_tc(d, p, st, (float2 *)Z, src, w, big, h, scale, bound, 1.0);
    } else if (s == HEPA_OK) {
        launched = true;
        enc_place<<<blocks_for(h), 256, 0, st>>>(Z, src, d->perm, scale, h, d->flag);
        c = cudaGetLastError();
        if (c != cudaSuccess) s = _hepa_dev_status(c, "hepa_ckks_encode");
        if (s == HEPA_OK) s = _hepa_dft_exec(d->plan, (double *)Z, (const double *)Z, 0, st);
        if (s == HEPA_OK) {
            enc_round<<<blocks_for(h), 256, 0, st>>>(w, big, (const double2 *)Z, d->twist, h, inv_h,
                                                     bound, d->flag);
            c = cudaGetLastError();
            if (c != cudaSuccess) s = _hepa_dev_status(c, "hepa_ckks_encode");
        }
    }
    if (s == HEPA_OK) {
        s = _hepa_dev_ntt_encode(r, level, out->data, w, big);
        if (s == HEPA_ERR_UNSUPPORTED) { // n < 2^10
            enc_reduce<<<blocks_for(level * n), 256, 0, st>>>(out->data, big, d->mods, level, n);
            c = cudaGetLastError();
            s = c == cudaSuccess ? _hepa_dev_ntt_forward(r, level, out->data, out->data)
                                 : _hepa_dev_status(c, "hepa_ckks_encode");
        }
    }
    if (launched) { // also after a failed launch: nothing of this call may still run on return
        c = cudaStreamSynchronize(st);
        if (c != cudaSuccess && s == HEPA_OK) s = _hepa_dev_status(c, "hepa_ckks_encode");
    }
    if (Z) _hepa_dev_free(r, Z);
    if (in) _hepa_dev_free(r, in);
    const int bad = d->hflag[0], range = d->hflag[1];
    d->hflag[0] = d->hflag[1] = 0;
    if (s != HEPA_OK) return s;
    if (bad) return HEPA_ERR_INVALID_ARGUMENT;
    if (range) return HEPA_ERR_RANGE;
    out->domain = HEPA_DOMAIN_NTT;
    return HEPA_OK;
}

extern "C" hepa_status _hepa_dev_ckks_decode(const hepa_ckks_encoder *e, const hepa_poly *pt,
                                             double scale, double *slots, size_t t, int mode) {
    const ckks_dev *d = (const ckks_dev *)e->dev;
    const hepa_ring *r = e->ring;
    cudaStream_t st = (cudaStream_t)r->dev->stream;
    const size_t h = e->h, n = r->n;
    const bool on_dev = _hepa_dev_ptr_is_device(slots);
    const bool tc = mode == HEPA_DFT_FP16 || mode == HEPA_DFT_FP16X2;
    if (tc && !d->tplan[mode]) return HEPA_ERR_INVALID_ARGUMENT; // (set_mode makes the plan)
    uint64_t *coef = NULL;
    double2 *U = NULL, *outv = NULL;
    hepa_status s = _hepa_dev_alloc(r, (void **)&U, h * sizeof *U);
    if (s == HEPA_OK && !on_dev) s = _hepa_dev_alloc(r, (void **)&outv, h * sizeof *outv);
    const uint64_t *c = pt->data;
    if (s == HEPA_OK && pt->domain == HEPA_DOMAIN_NTT) {
        s = _hepa_dev_alloc(r, (void **)&coef, t * n * sizeof *coef);
        if (s == HEPA_OK) s = _hepa_dev_ntt_inverse(r, t, coef, pt->data);
        c = coef;
    }
    // U holds the DFT mode's elements (DFT MODE; FP16 scaled by fp16_scale)
    const hepa_dft_plan *plan = tc ? d->tplan[mode] : d->plan;
    double2 *dst = on_dev ? (double2 *)slots : outv;
    if (s == HEPA_OK)
        s = mode == HEPA_DFT_FP16
                ? dec_steps(d, plan, st, (__half2 *)U, c, t, dst, n, h, scale, fp16_scale(r))
            : mode == HEPA_DFT_FP16X2
                ? dec_steps(d, plan, st, (float2 *)U, c, t, dst, n, h, scale, 1.0)
                : dec_steps(d, plan, st, U, c, t, dst, n, h, scale, 1.0);
    if (s == HEPA_OK && !on_dev) {
        s = _hepa_dev_copy(r, slots, outv, h * sizeof *outv, 1);
        if (s == HEPA_OK) s = _hepa_dev_sync(r);
    }
    if (coef) _hepa_dev_free(r, coef);
    if (U) _hepa_dev_free(r, U);
    if (outv) _hepa_dev_free(r, outv);
    return s;
}
