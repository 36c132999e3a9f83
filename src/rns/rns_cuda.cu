// src/rns/rns_cuda.cu — device kernels of the ciphertext building blocks (the CUDA side of
// rns_ops.c and keyswitch.c; same formulas, bit-identical results): tensor product, rescale,
// automorphisms, base conversion, the key-switch inner product, and (a - b)·s per limb.
// Element-wise kernels take one thread per pair of words (16-byte loads and stores) and find
// the limb as index >> log n (n >= 16: a pair never straddles two limbs).
#include <cuda_runtime.h>

#include "device/internal.h"
#include "device/pdl.cuh"
#include "hepa/modarith.h"
#include "ntt/f64_arith.cuh"
#include "rns/conv_core.h"
#include "rns/internal.h"
#include "rns/ksk_layout.h"

namespace hepa_rns_cuda {

constexpr unsigned kThreads = 256;

unsigned blocks_for(size_t work) { return (unsigned)((work + kThreads - 1) / kThreads); }

__device__ __forceinline__ hepa_modulus limb_mod(const hepa_dev_limb *limbs, int i) {
    const hepa_dev_limb l = limbs[i];
    return hepa_modulus{l.q, l.ratio_hi, l.ratio_lo};
}

// d0 = a0 b0, d1 = a0 b1 + a1 b0, d2 = a1 b1. Bytes: 4 words read, 3 written per coefficient.
// D2: d2 alone (2 read, 1 written): hepa_mul_relin's fused path, whose ModDown computes d0, d1.
template <bool D2>
__global__ void tensor_kernel(uint64_t *d0, uint64_t *d1, uint64_t *d2, const uint64_t *a0,
                              const uint64_t *a1, const uint64_t *b0, const uint64_t *b1,
                              const hepa_dev_limb *__restrict__ limbs, int logn, size_t pairs) {
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const hepa_modulus m = limb_mod(limbs, (int)((2 * p) >> logn));
    const ulonglong2 x1 = reinterpret_cast<const ulonglong2 *>(a1)[p];
    const ulonglong2 y1 = reinterpret_cast<const ulonglong2 *>(b1)[p];
    ulonglong2 r2;
    r2.x = hepa_mod_mul(x1.x, y1.x, &m);
    r2.y = hepa_mod_mul(x1.y, y1.y, &m);
    if constexpr (!D2) {
        const ulonglong2 x0 = reinterpret_cast<const ulonglong2 *>(a0)[p];
        const ulonglong2 y0 = reinterpret_cast<const ulonglong2 *>(b0)[p];
        ulonglong2 r0, r1;
        uint64_t h, l, h2, l2;
#define MID(A, B, C, D, OUT)                                                                   \
    hepa_mul64(A, B, &h, &l);                                                                  \
    hepa_mul64(C, D, &h2, &l2);                                                                \
    l += l2;                                                                                   \
    h += h2 + (l < l2);                                                                        \
    OUT = hepa_mod_reduce128(h, l, &m);
        r0.x = hepa_mod_mul(x0.x, y0.x, &m);
        r0.y = hepa_mod_mul(x0.y, y0.y, &m);
        MID(x0.x, y1.x, x1.x, y0.x, r1.x)
        MID(x0.y, y1.y, x1.y, y0.y, r1.y)
#undef MID
        reinterpret_cast<ulonglong2 *>(d0)[p] = r0;
        reinterpret_cast<ulonglong2 *>(d1)[p] = r1;
    }
    reinterpret_cast<ulonglong2 *>(d2)[p] = r2;
}

// MODDOWN RESCALE's first step (_hepa_dev_ks_rescale_prep): t_k += P·d_k on the one limb of
// q_(level-1), d_k from the tensor's inputs. Bytes: 6 words read, 2 written per coefficient
// (1 MiB of data at n = 2^16): a latency-bound launch on the key switch's helper chain.
__global__ void ks_rescale_prep_kernel(uint64_t *t0, uint64_t *t1, const uint64_t *a0,
                                       const uint64_t *a1, const uint64_t *b0, const uint64_t *b1,
                                       const hepa_modulus m, uint64_t pmod, uint64_t pmod_sh,
                                       size_t pairs) {
    pdl_wait(); // (launched without PDL; no-op then)
    pdl_trigger();
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const uint64_t q = m.value;
    const ulonglong2 x0 = reinterpret_cast<const ulonglong2 *>(a0)[p];
    const ulonglong2 x1 = reinterpret_cast<const ulonglong2 *>(a1)[p];
    const ulonglong2 y0 = reinterpret_cast<const ulonglong2 *>(b0)[p];
    const ulonglong2 y1 = reinterpret_cast<const ulonglong2 *>(b1)[p];
    ulonglong2 u0 = reinterpret_cast<const ulonglong2 *>(t0)[p];
    ulonglong2 u1 = reinterpret_cast<const ulonglong2 *>(t1)[p];
    auto step = [&](unsigned long long &r0, unsigned long long &r1, uint64_t xa0, uint64_t xa1,
                    uint64_t yb0, uint64_t yb1) {
        const uint64_t d0 = hepa_mod_mul(xa0, yb0, &m);
        const uint64_t d1 = hepa_mod_add(hepa_mod_mul(xa0, yb1, &m), hepa_mod_mul(xa1, yb0, &m), q);
        r0 = hepa_mod_add(r0, hepa_mul_shoup(d0, pmod, pmod_sh, q), q);
        r1 = hepa_mod_add(r1, hepa_mul_shoup(d1, pmod, pmod_sh, q), q);
    };
    step(u0.x, u1.x, x0.x, x1.x, y0.x, y1.x);
    step(u0.y, u1.y, x0.y, x1.y, y0.y, y1.y);
    reinterpret_cast<ulonglong2 *>(t0)[p] = u0;
    reinterpret_cast<ulonglong2 *>(t1)[p] = u1;
}

struct PerLimb {
    uint64_t a[HEPA_RING_MAX_MODULI], b[HEPA_RING_MAX_MODULI], c[HEPA_RING_MAX_MODULI];
};

// out_i = (a_i - corr_i) · inv_i for i < level - 1, where corr_i = centred(last) mod q_i;
// `last` is the last limb in the coefficient domain (a's own, or its inverse NTT). With
// corr_out (NTT path), only corr_i is written there (to be transformed), nothing else.
__global__ void rescale_kernel(uint64_t *out, const uint64_t *a, const uint64_t *last,
                               uint64_t *corr_out, const hepa_dev_limb *__restrict__ limbs,
                               int logn, size_t pairs, uint64_t half, const PerLimb k) {
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const size_t n = (size_t)1 << logn;
    const int i = (int)((2 * p) >> logn);
    const hepa_modulus m = limb_mod(limbs, i);
    const ulonglong2 x = reinterpret_cast<const ulonglong2 *>(last)[p & (n / 2 - 1)];
    ulonglong2 r = {hepa_center_mod(x.x, half, k.c[i], &m), hepa_center_mod(x.y, half, k.c[i], &m)};
    if (corr_out) {
        reinterpret_cast<ulonglong2 *>(corr_out)[p] = r;
        return;
    }
    const ulonglong2 y = reinterpret_cast<const ulonglong2 *>(a)[p];
    r.x = hepa_mul_shoup(hepa_mod_sub(y.x, r.x, m.value), k.a[i], k.b[i], m.value);
    r.y = hepa_mul_shoup(hepa_mod_sub(y.y, r.y, m.value), k.a[i], k.b[i], m.value);
    reinterpret_cast<ulonglong2 *>(out)[p] = r;
}

// out_k = (a_k - b_k) · s per limb, k = blockIdx.y (one or two polynomials).
__global__ void sub_scale_kernel(uint64_t *out0, const uint64_t *a0, const uint64_t *b0,
                                 uint64_t *out1, const uint64_t *a1, const uint64_t *b1,
                                 const uint64_t *c0, const uint64_t *c1,
                                 const hepa_dev_limb *__restrict__ limbs, int logn, size_t pairs,
                                 const PerLimb k) {
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const int i = (int)((2 * p) >> logn);
    const uint64_t q = limbs[i].q;
    uint64_t *out = blockIdx.y ? out1 : out0;
    const ulonglong2 x = reinterpret_cast<const ulonglong2 *>(blockIdx.y ? a1 : a0)[p];
    const ulonglong2 y = reinterpret_cast<const ulonglong2 *>(blockIdx.y ? b1 : b0)[p];
    ulonglong2 r;
    r.x = hepa_mul_shoup(hepa_mod_sub(x.x, y.x, q), k.a[i], k.b[i], q);
    r.y = hepa_mul_shoup(hepa_mod_sub(x.y, y.y, q), k.a[i], k.b[i], q);
    if (const uint64_t *c = blockIdx.y ? c1 : c0) { // read before out is written: may alias it
        const ulonglong2 z = reinterpret_cast<const ulonglong2 *>(c)[p];
        r.x = hepa_mod_add(r.x, z.x, q);
        r.y = hepa_mod_add(r.y, z.y, q);
    }
    reinterpret_cast<ulonglong2 *>(out)[p] = r;
}

// The NTT-domain slot that σ_g reads for output slot k < n = 2^logn (rns_ops.c's
// _hepa_auto_ntt_src): 2·rev(k') + 1 = (2·rev(k) + 1)·g mod 2n; mask = 2n - 1.
__device__ __forceinline__ uint32_t auto_ntt_src(uint32_t k, uint64_t g, int logn, uint64_t mask) {
    const uint32_t r = __brev(k) >> (32 - logn);
    const uint64_t e = ((2 * (uint64_t)r + 1) * g) & mask;
    return __brev((uint32_t)((e - 1) >> 1)) >> (32 - logn);
}

// σ_g: one thread per output word. Coefficient domain: output e gathers from j = e·g^(-1)
// (mod 2n) with the sign of whether j·g wraps past n an odd number of times; NTT domain: the
// permutation of auto_ntt_src in rns_ops.c, computed with __brev.
template <bool NTT>
__global__ void automorphism_kernel(uint64_t *out, const uint64_t *a,
                                    const hepa_dev_limb *__restrict__ limbs, int logn,
                                    size_t words, uint64_t g, uint64_t ginv) {
    const size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= words) return;
    const size_t n = (size_t)1 << logn, base = w & ~(n - 1), k = w & (n - 1);
    const uint64_t mask = 2 * (uint64_t)n - 1;
    if (NTT) {
        out[w] = a[base + auto_ntt_src((uint32_t)k, g, logn, mask)];
    } else {
        // out[e] for e < n comes from j with j·g ≡ e or e + n (mod 2n): j = e·g^(-1) mod 2n,
        // taken mod n, and negated when j·g ≡ e + n.
        const uint64_t j2 = (k * ginv) & mask; // j·g ≡ e (mod 2n) for j2 < 2n
        const uint64_t j = j2 & (n - 1);
        const uint64_t x = a[base + j];
        // if j2 >= n then x^j maps to x^(e + n·...) : j = j2 - n gives j·g ≡ e - n·g ≡ e + n
        out[w] = j2 >= n ? hepa_mod_neg(x, limbs[w >> logn].q) : x;
    }
}

// Base conversion, blockIdx.y = job, two adjacent coefficients x, x + 1 per thread (16-byte
// loads and stores; the table words of a target are loaded once for both). Digits of 1 .. 4
// limbs (every ModUp digit and ModDown of P with up to 4 special primes) take conv_pair<NS>:
// v_k in registers, loops unrolled, and targets below 2^47 on the FP64 route where the sources
// allow it (conv_target_f64); larger ones conv_any: v_k in shared memory ([k][thread], so the
// loads in hepa_conv_target are conflict-free), one coefficient at a time. The table is read
// through the read-only cache, the same word by every thread of the warp (a broadcast). The
// kernel parameter holds HEPA_CONV_MAX_JOBS jobs of 56 bytes: 3.5 KiB, under the 4 KiB limit.
struct Jobs {
    hepa_conv_job j[HEPA_CONV_MAX_JOBS];
};
constexpr unsigned kConvThreads = 128;

// Whether target t's words go out in PACKED COLUMNS (the job asks for them, t below the bound).
__device__ __forceinline__ bool conv_packed(const hepa_conv_job &jb, const uint64_t *tab,
                                            unsigned t) {
    return jb.pack && hepa_conv_tg(tab, (unsigned)tab[0], t)[0] < HEPA_KSK_PACK_BELOW;
}

// FP64 route (FP64 LIMBS, src/ntt/f64_arith.cuh) of conv_pair, for a target t < 2^47 when every
// source s_k is below 2^47 and at most 13t (f64_conv_sum's conditions): f64_canonical_q of the
// sum gives the word in [0, t) that hepa_conv_target gives.
template <int NS>
__device__ __forceinline__ uint64_t conv_target_f64(const uint64_t *tab, unsigned t,
                                                    const double (&vd)[NS], uint64_t u, double qd,
                                                    double qi) {
    const uint64_t *hat = hepa_conv_hat(tab, NS, t);
    double hd[NS];
#pragma unroll
    for (int k = 0; k < NS; ++k)
        hd[k] = u2d(hat[k]);
    return f64_canonical_q(f64_conv_sum<NS>(u2d(hepa_conv_corr(tab, NS, t)[u]), vd, hd, qd, qi), qd,
                           qi);
}

template <int NS, bool F64>
__device__ __forceinline__ void conv_pair(const hepa_conv_job &jb, const uint64_t *tab, size_t n,
                                          size_t x, size_t hi, int exact) {
    const unsigned nt = (unsigned)tab[1];
    uint64_t v0[NS], v1[NS];
    double d0[NS], d1[NS]; // v as doubles for the FP64 route
    double f0 = 0, f1 = 0;
#pragma unroll
    for (int k = 0; k < NS; ++k) {
        const ulonglong2 in = *reinterpret_cast<const ulonglong2 *>(jb.in + (size_t)k * n + x);
        v0[k] = hepa_conv_v(tab, k, in.x);
        v1[k] = hepa_conv_v(tab, k, in.y);
        if (exact) {
            f0 = hepa_conv_frac_add(f0, tab, k, v0[k]);
            f1 = hepa_conv_frac_add(f1, tab, k, v1[k]);
        }
        if (jb.copy_in)
            *reinterpret_cast<ulonglong2 *>(jb.out + (jb.copy_at + k) * n + x) =
                *reinterpret_cast<const ulonglong2 *>(jb.copy_in + (size_t)k * n + x);
    }
    const uint64_t u0 = exact ? hepa_conv_round(f0) : 0, u1 = exact ? hepa_conv_round(f1) : 0;
    const uint64_t smax = jb.smax; // the largest source modulus (hepa_conv_smax, on the host)
    const bool src_f64 = F64 && smax < HEPA_DEV_F64_BELOW;
    if (src_f64) {
#pragma unroll
        for (int k = 0; k < NS; ++k)
            d0[k] = u2d(v0[k]), d1[k] = u2d(v1[k]);
    }
    // the stores' byte offsets, 32 bits (see hepa_pcol_put2)
    const unsigned off_lo = 4 * (unsigned)x, off_hi = 4 * (unsigned)n + (unsigned)hi;
    for (unsigned t = 0; t < nt; ++t) {
        const uint64_t *tg = hepa_conv_tg(tab, NS, t);
        uint64_t y0, y1;
        if (src_f64 && tg[0] < HEPA_DEV_F64_BELOW && smax <= 13 * tg[0]) {
            const double qd = u2d(tg[0]), qi = dbl(tg[1]);
            y0 = conv_target_f64<NS>(tab, t, d0, u0, qd, qi);
            y1 = conv_target_f64<NS>(tab, t, d1, u1, qd, qi);
        } else {
            y0 = hepa_conv_target_ns(tab, NS, t, v0, 1, u0);
            y1 = hepa_conv_target_ns(tab, NS, t, v1, 1, u1);
        }
        unsigned char *limb =
            reinterpret_cast<unsigned char *>(jb.out + hepa_conv_out_limb(tab, t) * n);
        if (conv_packed(jb, tab, t)) {
            hepa_pcol_put2(limb, off_lo, off_hi, y0, y1);
        } else {
            *reinterpret_cast<ulonglong2 *>(limb + 2 * off_lo) = ulonglong2{y0, y1};
        }
    }
}

__device__ void conv_any(const hepa_conv_job &jb, const uint64_t *tab, size_t n, size_t x,
                         int exact, uint64_t *vs) {
    const unsigned ns = (unsigned)tab[0], nt = (unsigned)tab[1];
    uint64_t *v = vs + threadIdx.x;
    for (size_t xx = x; xx < x + 2; ++xx) {
        double f = 0;
        for (unsigned k = 0; k < ns; ++k) {
            const uint64_t in = jb.in[(size_t)k * n + xx];
            v[k * kConvThreads] = hepa_conv_v(tab, k, in);
            if (exact) f = hepa_conv_frac_add(f, tab, k, v[k * kConvThreads]);
            if (jb.copy_in) jb.out[(jb.copy_at + k) * n + xx] = jb.copy_in[(size_t)k * n + xx];
        }
        const uint64_t u = exact ? hepa_conv_round(f) : 0;
        for (unsigned t = 0; t < nt; ++t) {
            const uint64_t y = hepa_conv_target(tab, t, v, kConvThreads, u);
            uint64_t *limb = jb.out + hepa_conv_out_limb(tab, t) * n;
            if (conv_packed(jb, tab, t))
                hepa_pcol_put(limb, n, xx, y);
            else
                limb[xx] = y;
        }
    }
}

// any: every job through conv_any (a pointer that is not 16-byte aligned, possible only from the
// raw tier hepa_rns_convert)
// F64: the build with conv_pair's FP64 route, launched when some job's sources are all below
// 2^47 (70 registers without the route, 72 with it; when a single build had the route at 80
// registers, ModDown from 60-bit special primes measured 6-10 µs slower in it)
// CONVERSION PDL (HEPA_CONV_PDL = 1): launched with PDL (device/pdl.cuh), to hide the launch
// after the inverse NTT before it (key switching's ModUp and ModDown with more than
// HEPA_DEV_FUSED_CONV_MAX sources; until digits of 4 were fused, P = 4). MEASURED SLOWER, so off:
// H200, hepa-bench --ks, 2^16/33, P = 4 (then through this kernel), same call, three rounds, µs:
// with the attribute and the wait + trigger at the top, hepa_mul_relin 567.0, 565.0, 577.1 ->
// 601.9, 602.2, 601.6 (ModUp alone 359.6 -> 381.6, ModDown 113.5 -> 138.8); the trigger alone
// (the attribute off), which lets the column pass after it become resident early, 542-546 ->
// 565-577; the attribute and the wait without the trigger (HEPA_CONV_PDL = 1 now): 542.4-546.5
// -> 548.9-550.5, ModDown 113.8-114.6 -> 137.7-138.3. (Not understood: its blocks wait
// resident in the slots that the inverse NTT's last wave frees.)
#ifndef HEPA_CONV_PDL
#define HEPA_CONV_PDL 0
#endif
template <bool F64> __global__ void conv_kernel(const Jobs jobs, int logn, int exact, int any) {
    extern __shared__ uint64_t vs[];
    const hepa_conv_job jb = jobs.j[blockIdx.y];
    const size_t n = (size_t)1 << logn;
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; // pair index
    if (2 * p >= n) return;
    // PACKED COLUMNS (jb.pack: n >= 2^13): pairs in sector order, so the high bytes of pair p
    // sit at 2p (hepa_pcol_pair; in element order a warp's high bytes touch 8 sectors, each a
    // quarter, the rest written by 3 other blocks)
    const size_t x = jb.pack ? hepa_pcol_pair(p) : 2 * p;
    const uint64_t *tab = jb.tab;
    pdl_wait(); // CONVERSION PDL: before any global read (no trigger: see there)
    switch (any ? 0 : tab[0]) { // the same for the whole block
    case 1:
        conv_pair<1, F64>(jb, tab, n, x, 2 * p, exact);
        break;
    case 2:
        conv_pair<2, F64>(jb, tab, n, x, 2 * p, exact);
        break;
    case 3:
        conv_pair<3, F64>(jb, tab, n, x, 2 * p, exact);
        break;
    case 4:
        conv_pair<4, F64>(jb, tab, n, x, 2 * p, exact);
        break;
    default:
        conv_any(jb, tab, n, x, exact, vs);
        break;
    }
}

// A key limb's words 2x, 2x + 1 (PACKED KEYS: 8 + 2 bytes when packed, else 16).
__device__ __forceinline__ ulonglong2 ksk_pair(const unsigned char *limb, bool packed, size_t n,
                                               size_t x) {
    if (!packed) return reinterpret_cast<const ulonglong2 *>(limb)[x];
    return hepa_pack5_get2(limb, n, 2 * x);
}

// t0/t1[e] = Σ_j ext[j][e] ⊙ key_j(b / a)[mod(e)]: 128-bit sums, folded every 16 terms.
// Bytes: dnum·(8 + 2·(8 or 5)) read and 16 written per extended coefficient.
// AUTO (HOISTING, keyswitch.c): ext is read through σ_g, output word k from ext word src(k) of
// _hepa_auto_ntt_src (computed as automorphism_kernel does). src(2x + 1) = src(2x) ^ 1, so the
// pair is one 16-byte load, swapped when src(2x) is odd; a warp's 32 pairs (an aligned block of
// 64 words) read an aligned block of 64 words, so the loads stay coalesced.
template <bool AUTO>
__global__ void ks_inner_kernel(uint64_t *t0, uint64_t *t1, const uint64_t *ext,
                                const unsigned char *key, const hepa_dev_limb *__restrict__ limbs,
                                int logn, unsigned l, unsigned L, unsigned E, unsigned dnum,
                                size_t comp, uint64_t packed, uint64_t g) {
    const size_t n = (size_t)1 << logn;
    const size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x; // pair index in the limb
    if (2 * x >= n) return;
    size_t xs = x; // the pair read from each ext limb
    bool swap = false;
    if (AUTO) {
        const uint32_t k2 = auto_ntt_src((uint32_t)(2 * x), g, logn, 2 * (uint64_t)n - 1);
        xs = k2 >> 1, swap = k2 & 1;
    }
    const unsigned e = blockIdx.y;
    const unsigned mi = e < l ? e : L + e - l;
    const hepa_modulus m = limb_mod(limbs, (int)mi);
    const bool pk = packed >> mi & 1;
    const unsigned char *klimb = key + hepa_ksk_limb_at(packed, n, mi);
    uint64_t h0[2] = {0, 0}, l0[2] = {0, 0}, h1[2] = {0, 0}, l1[2] = {0, 0};
    for (unsigned j = 0; j < dnum; ++j) {
        const ulonglong2 v =
            reinterpret_cast<const ulonglong2 *>(ext + ((size_t)j * E + e) * n)[xs];
        const ulonglong2 b = ksk_pair(klimb + 2 * j * comp, pk, n, x);
        const ulonglong2 a = ksk_pair(klimb + (2 * j + 1) * comp, pk, n, x);
        const uint64_t vv[2] = {swap ? v.y : v.x, swap ? v.x : v.y}, bb[2] = {b.x, b.y},
                       aa[2] = {a.x, a.y};
#pragma unroll
        for (int s = 0; s < 2; ++s) {
            hepa_mac64(vv[s], bb[s], &h0[s], &l0[s]);
            hepa_mac64(vv[s], aa[s], &h1[s], &l1[s]);
            if ((j & 15) == 15) {
                l0[s] = hepa_mod_reduce128(h0[s], l0[s], &m), h0[s] = 0;
                l1[s] = hepa_mod_reduce128(h1[s], l1[s], &m), h1[s] = 0;
            }
        }
    }
    reinterpret_cast<ulonglong2 *>(t0 + (size_t)e * n)[x] =
        ulonglong2{hepa_mod_reduce128(h0[0], l0[0], &m), hepa_mod_reduce128(h0[1], l0[1], &m)};
    reinterpret_cast<ulonglong2 *>(t1 + (size_t)e * n)[x] =
        ulonglong2{hepa_mod_reduce128(h1[0], l1[0], &m), hepa_mod_reduce128(h1[1], l1[1], &m)};
}

// One component of a switching key into the PACKED KEYS layout: limb m = blockIdx.y.
__global__ void ksk_pack_kernel(unsigned char *dst, const uint64_t *src, size_t n,
                                uint64_t packed) {
    const size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n) return;
    const unsigned m = blockIdx.y;
    const uint64_t w = src[(size_t)m * n + x];
    unsigned char *limb = dst + hepa_ksk_limb_at(packed, n, m);
    if (packed >> m & 1)
        hepa_pack5_put(limb, n, x, w);
    else
        reinterpret_cast<uint64_t *>(limb)[x] = w;
}

} // namespace hepa_rns_cuda
using namespace hepa_rns_cuda;

extern "C" hepa_status _hepa_dev_tensor(const hepa_ring *ring, size_t level, uint64_t *d0,
                                        uint64_t *d1, uint64_t *d2, const uint64_t *a0,
                                        const uint64_t *a1, const uint64_t *b0,
                                        const uint64_t *b1) {
    if (!d0 != !d1) return HEPA_ERR_INVALID_ARGUMENT; /* d0, d1 both or neither */
    const size_t pairs = level * ring->n / 2;
    cudaStream_t st = (cudaStream_t)ring->dev->stream;
    if (!d0)
        tensor_kernel<true><<<blocks_for(pairs), kThreads, 0, st>>>(
            d0, d1, d2, a0, a1, b0, b1, ring->dev->limbs, (int)ring->log_n, pairs);
    else
        tensor_kernel<false><<<blocks_for(pairs), kThreads, 0, st>>>(
            d0, d1, d2, a0, a1, b0, b1, ring->dev->limbs, (int)ring->log_n, pairs);
    return _hepa_dev_status(cudaGetLastError(), "tensor kernel");
}

extern "C" hepa_status _hepa_dev_ks_rescale_prep(const hepa_ring *ring, size_t level, uint64_t *t0,
                                                 uint64_t *t1, const hepa_tensor_in *tens,
                                                 uint64_t pmod) {
    if (level == 0 || !tens) return HEPA_ERR_INVALID_ARGUMENT;
    const size_t n = ring->n, pairs = n / 2, o = (level - 1) * n;
    const hepa_modulus m = ring->mods[level - 1];
    ks_rescale_prep_kernel<<<blocks_for(pairs), kThreads, 0, (cudaStream_t)ring->dev->stream>>>(
        t0 + o, t1 + o, tens->a0 + o, tens->a1 + o, tens->b0 + o, tens->b1 + o, m, pmod,
        hepa_shoup_precompute(pmod, m.value), pairs);
    return _hepa_dev_status(cudaGetLastError(), "MODDOWN RESCALE's first step");
}

extern "C" hepa_status _hepa_dev_rescale(const hepa_ring *ring, size_t level, uint64_t *out0,
                                         const uint64_t *a0, uint64_t *out1, const uint64_t *a1,
                                         int ntt, uint64_t *tmp) {
    cudaStream_t st = (cudaStream_t)ring->dev->stream;
    const size_t n = ring->n, pairs = (level - 1) * n / 2;
    hepa_status s;
    // n >= 2^13, NTT domain: inverse NTT, correction and subtract-scale fused into the NTT's
    // passes, a pair in shared launches
    if (ntt &&
        (s = _hepa_dev_ntt_rescale(ring, level, out0, a0, out1, a1, tmp)) != HEPA_ERR_UNSUPPORTED)
        return s;
    PerLimb k;
    _hepa_rescale_consts(ring, level, k.a, k.b, k.c);
    const uint64_t half = ring->moduli[level - 1] / 2;
    const int logn = (int)ring->log_n;
    for (int p = 0; p < (out1 ? 2 : 1); ++p) {
        uint64_t *out = p ? out1 : out0;
        const uint64_t *a = p ? a1 : a0, *last = a + (level - 1) * n;
        if (ntt) {
            // tmp limb 0: the last limb in the coefficient domain (map: data limb 0, modulus
            // l-1); limbs 1 .. l-1: the corrections, forward-transformed, then subtracted and
            // scaled
            if ((s = _hepa_dev_ntt_map(ring, 1, tmp, last, ring->dev->idmap + level - 1, 1)) !=
                HEPA_OK)
                return s;
            rescale_kernel<<<blocks_for(pairs), kThreads, 0, st>>>(
                nullptr, nullptr, tmp, tmp + n, ring->dev->limbs, logn, pairs, half, k);
            if ((s = _hepa_dev_status(cudaGetLastError(), "rescale kernel")) != HEPA_OK) return s;
            if ((s = _hepa_dev_ntt_forward(ring, level - 1, tmp + n, tmp + n)) != HEPA_OK) return s;
            s = _hepa_dev_sub_scale(ring, level - 1, 1, out, a, tmp + n, nullptr, nullptr, nullptr,
                                    k.a, k.b, nullptr, nullptr);
        } else {
            rescale_kernel<<<blocks_for(pairs), kThreads, 0, st>>>(
                out, a, last, nullptr, ring->dev->limbs, logn, pairs, half, k);
            s = _hepa_dev_status(cudaGetLastError(), "rescale kernel");
        }
        if (s != HEPA_OK) return s;
    }
    return HEPA_OK;
}

extern "C" hepa_status _hepa_dev_sub_scale(const hepa_ring *ring, size_t level, int npoly,
                                           uint64_t *out0, const uint64_t *a0, const uint64_t *b0,
                                           uint64_t *out1, const uint64_t *a1, const uint64_t *b1,
                                           const uint64_t *s, const uint64_t *s_sh,
                                           const uint64_t *c0, const uint64_t *c1) {
    PerLimb k;
    for (size_t i = 0; i < level; ++i) k.a[i] = s[i], k.b[i] = s_sh[i];
    const size_t pairs = level * ring->n / 2;
    dim3 grid(blocks_for(pairs), (unsigned)npoly);
    sub_scale_kernel<<<grid, kThreads, 0, (cudaStream_t)ring->dev->stream>>>(
        out0, a0, b0, out1, a1, b1, c0, c1, ring->dev->limbs, (int)ring->log_n, pairs, k);
    return _hepa_dev_status(cudaGetLastError(), "sub-scale kernel");
}

extern "C" hepa_status _hepa_dev_automorphism(const hepa_ring *ring, size_t level, uint64_t *out,
                                              const uint64_t *a, uint64_t g, int ntt) {
    const size_t n = ring->n, words = level * n;
    const uint64_t mask = 2 * (uint64_t)n - 1;
    g &= mask;
    uint64_t ginv = 1; // g^(-1) mod 2n = g^(n/2 - 1)·... : the group (Z/2n)* has exponent n/2
    for (uint64_t e = n / 2 - 1, b = g; e; e >>= 1, b = (b * b) & mask)
        if (e & 1) ginv = (ginv * b) & mask;
    cudaStream_t st = (cudaStream_t)ring->dev->stream;
    if (ntt)
        automorphism_kernel<true><<<blocks_for(words), kThreads, 0, st>>>(
            out, a, ring->dev->limbs, (int)ring->log_n, words, g, ginv);
    else
        automorphism_kernel<false><<<blocks_for(words), kThreads, 0, st>>>(
            out, a, ring->dev->limbs, (int)ring->log_n, words, g, ginv);
    return _hepa_dev_status(cudaGetLastError(), "automorphism kernel");
}

extern "C" hepa_status _hepa_dev_conv(const hepa_ring *ring, const hepa_conv_job *jobs,
                                      size_t njobs, size_t max_ns, int exact) {
    Jobs J;
    int any = 0;
    bool f64 = false;
    for (size_t i = 0; i < njobs; ++i) {
        J.j[i] = jobs[i];
        any |= (int)(((uintptr_t)jobs[i].in | (uintptr_t)jobs[i].out | (uintptr_t)jobs[i].copy_in) &
                     15);
        f64 |= jobs[i].smax < HEPA_DEV_F64_BELOW;
    }
    auto kern = f64 ? conv_kernel<true> : conv_kernel<false>;
    if (max_ns > HEPA_RING_MAX_MODULI) return HEPA_ERR_INVALID_ARGUMENT;
    const size_t smem = max_ns > 4 || any ? max_ns * kConvThreads * sizeof(uint64_t) : 0;
    // (ONE LIMIT PER KERNEL, ntt_cuda.cu: the most any launch takes, the same from every thread)
    const size_t smax = HEPA_RING_MAX_MODULI * kConvThreads * sizeof(uint64_t);
    if (smem > 48 * 1024) {
        const cudaError_t e =
            cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smax);
        if (e != cudaSuccess) return _hepa_dev_status(e, "conversion kernel attribute");
    }
    // two coefficients per thread (n >= 16 is even)
    dim3 grid((unsigned)((ring->n / 2 + kConvThreads - 1) / kConvThreads), (unsigned)njobs);
    const cudaError_t e = launch_k(HEPA_CONV_PDL, ring, kern, grid, kConvThreads, smem,
                                   (cudaStream_t)ring->dev->stream, J, (int)ring->log_n, exact,
                                   (int)(any != 0));
    return _hepa_dev_status(e, "conversion kernel");
}

extern "C" hepa_status _hepa_dev_ks_modup1(const hepa_ring *ring, size_t l, size_t E,
                                          uint64_t *ext, const uint64_t *c, const uint64_t *coef,
                                          const uint32_t *map, size_t count, const uint64_t *aux) {
    if (ring->log_n < 10) return HEPA_ERR_UNSUPPORTED;
    const size_t n = ring->n, row = n * sizeof(uint64_t);
    // digit j's own limb: c + j·n -> ext + (j·E + j)·n, one strided copy for all l digits
    const cudaError_t e = cudaMemcpy2DAsync(ext, (E + 1) * row, c, row, row, l,
                                            cudaMemcpyDeviceToDevice,
                                            (cudaStream_t)ring->dev->stream);
    if (e != cudaSuccess) return _hepa_dev_status(e, "ModUp copy");
    return _hepa_dev_ntt_modup1(ring, count, E - 1, ext, coef, map, aux); // one-limb digits
}

extern "C" hepa_status _hepa_dev_ks_inner_auto(const hepa_ring *ring, size_t level, size_t K,
                                               size_t dnum, uint64_t *t0, uint64_t *t1,
                                               const uint64_t *ext, const unsigned char *key,
                                               size_t comp, uint64_t packed, uint64_t g) {
    const size_t n = ring->n, E = level + K;
    dim3 grid(blocks_for(n / 2), (unsigned)E);
    const cudaStream_t st = (cudaStream_t)ring->dev->stream;
    const unsigned Lq = (unsigned)(ring->num_moduli - K);
    if (g & 1) // (a valid g is odd; 0 means none)
        ks_inner_kernel<true><<<grid, kThreads, 0, st>>>(
            t0, t1, ext, key, ring->dev->limbs, (int)ring->log_n, (unsigned)level, Lq, (unsigned)E,
            (unsigned)dnum, comp, packed, g);
    else
        ks_inner_kernel<false><<<grid, kThreads, 0, st>>>(
            t0, t1, ext, key, ring->dev->limbs, (int)ring->log_n, (unsigned)level, Lq, (unsigned)E,
            (unsigned)dnum, comp, packed, 0);
    return _hepa_dev_status(cudaGetLastError(), "key-switch inner product");
}

extern "C" hepa_status _hepa_dev_ks_inner(const hepa_ring *ring, size_t level, size_t K,
                                          size_t dnum, uint64_t *t0, uint64_t *t1,
                                          const uint64_t *ext, const unsigned char *key,
                                          size_t comp, uint64_t packed) {
    return _hepa_dev_ks_inner_auto(ring, level, K, dnum, t0, t1, ext, key, comp, packed, 0);
}

extern "C" hepa_status _hepa_dev_ksk_pack(const hepa_ring *ring, unsigned char *dst,
                                          const uint64_t *src, uint64_t packed) {
    const size_t n = ring->n;
    dim3 grid(blocks_for(n), (unsigned)ring->num_moduli);
    ksk_pack_kernel<<<grid, kThreads, 0, (cudaStream_t)ring->dev->stream>>>(dst, src, n, packed);
    return _hepa_dev_status(cudaGetLastError(), "switching key packing");
}
