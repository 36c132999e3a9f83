// src/device/dft_cuda.cu — batched complex DFT plans on the device (hepa/dft.h).
//
// Structure. A plan of size n runs one or two passes; each pass is one kernel that reads and
// writes the batch once:
//   - n <= the one-pass size of the mode (see mode_sizes): each block transforms whole vectors.
//     (2^14 ... 2^16 with more than 2^16 elements in the batch, on sm_90: one pass too, a vector
//     per thread-block cluster: FP64 (and FP32 from 2^15) dft_stockham_cc_cluster, FP16X2 and
//     FP16 from 2^15 dft_cluster_tc, a four-step split whose two halves exchange through
//     distributed shared memory.)
//     FP64 2^14 ... 2^16 and FP32 2^15, 2^16: dft_l2sq instead, both passes of a four-step in one
//     launch with the intermediate in L2 (L2 SQUARE below).
//     From 2^4 to 2^13 (FP16, FP32: 2^14) that is a register-resident Stockham kernel
//     (dft_stockham_cc, dft_stockham_tc below: global memory straight into registers, one
//     shared-memory round trip per stage boundary; 2-3x faster than dft_pass, which loads the
//     vectors into shared memory, runs every stage there and writes them back). dft_pass does
//     the other one-pass plans (n < 16, FP16X2 at 2^14 without clusters) and both passes of the
//     four-step split;
//   - otherwise a four-step split n = n1·n2: pass A does the n2 column DFTs of size n1 (elements
//     i1·n2 + i2) and multiplies by w_n^(i2·k1) on the way out; pass B does the n1 row DFTs of
//     size n2 and writes element k1 + n1·k2. Each block takes G adjacent columns (rows) so that
//     global reads and writes come in runs of G elements.
// Inside a dft_pass block, a transform of size m = 2^lm is decimated in frequency in place:
// radix-16 stages of span S = m/16, m/256, ... (outputs multiplied by w_(16S)^(s·j)), then one
// radix-2/4/8 stage of span 1 when lm is not a multiple of 4. The result sits digit-reversed in
// shared memory; the store reads it back in natural order (rev_digits). Latency mode (FP64 plans
// whose whole batch is at most 2^16 elements, e.g. CKKS encode's one vector of 2^15): radix-4
// stages instead (span m/4, m/16, ..., then a radix-2 one when lm is odd), one group of 4 per
// thread. Such a plan has only a warp or two per block and per SM, so its time is the serial
// instruction chain of one thread (ncu: a 2^15 pass took 14 µs on an H100 at 10 cycles per
// instruction, one warp per scheduler); radix-4 gives each thread a quarter of the elements and
// about half the instructions per stage.
//
// The radix-16 butterfly per mode:
//   FP64    on the CUDA cores, 16 = 4·4 with internal twiddles (w_16), in double;
//   FP32    the same kernels (templated on the element type) in float: cuFFT single's accuracy
//           without FP16X2's high/low split of every operand;
//   FP16    on the tensor cores (seed 000, Algorithm 2): eight DFT_16s at once as a 16×16 by 16×8
//           complex matrix product Y = F·X, i.e. four mma.m16n8k16 (FP16 in, FP32 accumulate);
//           between stages the data is stored as FP16;
//   FP16X2  the same product with each operand split into a high and a low FP16 part (the low
//           part scaled by 2^11 so it stays normal) and the cross terms in a separate FP32
//           accumulator: Y = Fh·Xh + 2^-11·(Fh·Xl + Fl·Xh), 12 mma per eight DFT_16s, about 22
//           bits; data between stages stays FP32. Each block first scales its data by a power of
//           two so that max |x| < 1 (the FP16 parts then cannot overflow: a DFT of size m <= 2^14
//           grows values at most m-fold), and undoes it on the way out.
// Twiddles other than the 16th roots come from per-plan tables (double2 for FP64, float2 else).
// The CUDA-core helpers (complex multiply, DFT_2/4/8, stage twiddles) are in device/dft_fp64.cuh,
// written for double2 and float2 alike.
//
// The host reference is src/host/dft.c (hepa_dft_host, hepa_dft_host_ld); the tests compare.
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <type_traits>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device/dft_fp64.cuh"
#include "device/grid_sync.cuh"
#include "device/internal.h"
#include "hepa/dft.h"
#include "host/env.h"
#include "host/roots.h"

namespace hepa_dft_cuda {

// One pass: sub-transform t (of `total`), element e lives at
//   (t >> lT)·n + (t & (2^lT − 1))·2^lts + e·2^les     (for input and output separately).
struct pass_desc {
    unsigned lm;        // log2 of the sub-transform size m
    unsigned lg;        // log2 G: sub-transforms per block
    unsigned lT, logn;  // 2^lT sub-transforms per vector of size 2^logn
    unsigned in_lts, in_les, out_lts, out_les;
    unsigned long long total; // sub-transforms in the batch
    size_t tw_m;        // offset of w_m^e (e < m) in the plan's table
    size_t tw_n;        // offset of w_n^e (e < n) for the four-step twiddle; SIZE_MAX: none
    unsigned threads;
    size_t smem;        // dynamic shared memory in bytes
    unsigned lr;        // log2 of the radix of the stages: 4, or 2 in latency mode (FP64 only).
                        // Last: placed after lm, it made ptxas spill in the FP64 kernel (12 bytes;
                        // --dft FP64 rows 2-16% slower on an H100)
};

} // namespace hepa_dft_cuda
using namespace hepa_dft_cuda;

struct hepa_dft_plan {
    size_t n, batch;
    unsigned logn;
    hepa_dft_mode mode;
    int npass;          // 1 or 2
    pass_desc pass[2];
    void *tw;           // device twiddles: double2 (FP64) or float2, see pass_desc offsets
    void *scratch;      // device: n·batch elements between the two passes (NULL for one pass)
    size_t elem;        // bytes per complex element: 16, 4 or 8
    unsigned stk;       // log2 n when the plan runs a Stockham kernel (dft_stockham_cc/_tc), else 0
    unsigned stk_grid;  // its grid when its blocks are persistent (stk_entry::persist), else 0
    unsigned stk_lead;  // its L2 prefetch lead in blocks (L2 PREFETCH; 0: none)
    unsigned l2sq;      // log2 n when the plan runs dft_l2sq, else 0
    unsigned l2sq_d;    // its lag D in vectors
    unsigned l2sq_r;    // its ring's slots (in-place executions)
    unsigned *ctr;      // its counters (2·batch + 2), zero between executions
    void *ring;         // its ring: l2sq_r vectors
};

namespace hepa_dft_cuda {

__constant__ double2 c_w16d[16]; // e^(-2πi·m/16)
__constant__ float2 c_w16f[16];

template <int MODE> struct mode_types;
template <> struct mode_types<HEPA_DFT_FP64> { using T = double2; using W = double2; };
template <> struct mode_types<HEPA_DFT_FP16> { using T = __half2; using W = float2; };
template <> struct mode_types<HEPA_DFT_FP16X2> { using T = float2; using W = float2; };
template <> struct mode_types<HEPA_DFT_FP32> {
    using T = float2;
    using W = float2;
};
// The modes whose butterflies run on the CUDA cores (the others on the tensor cores).
__host__ __device__ constexpr bool cc_mode(int mode) {
    return mode == HEPA_DFT_FP64 || mode == HEPA_DFT_FP32;
}

// Shared-memory swizzle: XOR the low 5 bits of an element index with bits from above — a
// bijection on each aligned run of 32 that spreads the power-of-two strides of the stages over the
// banks (for 16-byte FP64 elements bits 0-2 decide the bank, for 4-byte FP16 ones bits 0-4). An
// aligned run of VEC elements stays an aligned run, permuted by the low bits of swx.
__device__ __forceinline__ unsigned swx(unsigned p) { return ((p >> 5) ^ (p >> 10) ^ (p >> 15)) & 31u; }
__device__ __forceinline__ unsigned sw(unsigned p) { return p ^ swx(p); }

// Position in shared memory of output element k of a size-2^lm transform (see the header).
// Digits of LR bits (4, or 2 in latency mode); the lm mod LR bits left are the last stage's.
template <unsigned LR> __device__ __forceinline__ unsigned rev_digits(unsigned k, unsigned lm) {
    unsigned p = 0, sh = lm;
    while (sh >= LR) {
        sh -= LR;
        p |= (k & ((1u << LR) - 1)) << sh;
        k >>= LR;
    }
    return p | k;
}

// Conversions between the storage type and the working type (float2 for the FP16 modes).
__device__ __forceinline__ float2 to_w(__half2 v) { return __half22float2(v); }
__device__ __forceinline__ float2 to_w(float2 v) { return v; }
__device__ __forceinline__ double2 to_w(double2 v) { return v; }
__device__ __forceinline__ void from_w(__half2 &d, float2 v) { d = __float22half2_rn(v); }
__device__ __forceinline__ void from_w(float2 &d, float2 v) { d = v; }
__device__ __forceinline__ void from_w(double2 &d, double2 v) { d = v; }

// FP16X2 scaling: the bits of max(|re|, |im|) (ordered like the floats, for atomicMax), and the
// smallest ex with max < 2^ex, clamped to [-126, 127] (0 for NaN / inf).
__device__ __forceinline__ unsigned x2_mag(float2 w) {
    return max(__float_as_uint(fabsf(w.x)), __float_as_uint(fabsf(w.y)));
}
__device__ __forceinline__ int x2_exp(unsigned bits) {
    int ex = 0;
    const float fm = __uint_as_float(bits);
    if (isfinite(fm)) (void)frexpf(fm, &ex); // fm < 2^ex
    return max(-126, min(127, ex));
}
// 2^e as a float, exactly, for e in [-149, 127] (subnormal below -126). A product by it is the
// correctly rounded x·2^e, as ldexpf gives; CUDA's ldexpf costs four FMULs and an exponent split
// (it covers any int e): 10% of the FP16X2 2^13 kernel's instructions when it did the scaling
// (ncu, H100: 578 M -> 520 M warp instructions).
__device__ __forceinline__ float pow2f(int e) {
    return e >= -126 ? __uint_as_float((unsigned)(e + 127) << 23)
                     : __uint_as_float(1u << (e + 149));
}
__device__ __forceinline__ float2 scale2(float2 w, float s) {
    return make_float2(w.x * s, w.y * s);
}

template <typename W> __device__ __forceinline__ W root16(int m);
template <> __device__ __forceinline__ double2 root16<double2>(int m) { return c_w16d[m & 15]; }
template <> __device__ __forceinline__ float2 root16<float2>(int m) { return c_w16f[m & 15]; }

// DFT_16 in registers: v[r] in, X[s] = Σ_r v[r]·w16^(±rs) out in y[s]. 16 = 4·4: with
// r = r0 + 4·r1 and s = s1 + 4·s0, X = DFT_4 over r0 of (w16^(r0·s1) · DFT_4 over r1).
template <bool INV, typename W> __device__ __forceinline__ void dft16(const W *v, W *y) {
    W a[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) a[i] = v[i];
#pragma unroll
    for (int r0 = 0; r0 < 4; ++r0) dft4<INV>(a, r0, 4); // a[r0 + 4·s1]
#pragma unroll
    for (int r0 = 1; r0 < 4; ++r0)
#pragma unroll
        for (int s1 = 1; s1 < 4; ++s1)
            a[r0 + 4 * s1] = cmul(a[r0 + 4 * s1], conj_if<INV>(root16<W>(r0 * s1)));
#pragma unroll
    for (int s1 = 0; s1 < 4; ++s1) dft4<INV>(a, 4 * s1, 1); // a[4·s1 + s0] = X[s1 + 4·s0]
#pragma unroll
    for (int s1 = 0; s1 < 4; ++s1)
#pragma unroll
        for (int s0 = 0; s0 < 4; ++s0) y[s1 + 4 * s0] = a[4 * s1 + s0];
}

// One radix-2^LR stage on the CUDA cores (LR = 4: DFT_16 as 4·4; LR = 2: DFT_4), span S = 2^ls:
// group (tl, h) takes elements base + r·S, r < 2^LR, and multiplies output s by w_(2^LR·S)^(s·j).
template <int LR, bool INV, typename T, typename W>
__device__ void stage_cc(T *sm, const W *tw_m, unsigned lm, unsigned ls, unsigned ngroups) {
    constexpr int R = 1 << LR;
    const unsigned S = 1u << ls, lsub = lm - LR; // groups per sub-transform: m/R
    for (unsigned g = threadIdx.x; g < ngroups; g += blockDim.x) {
        const unsigned tl = g >> lsub, h = g & ((1u << lsub) - 1);
        const unsigned j = h & (S - 1), base = (tl << lm) + ((h >> ls) << (ls + LR)) + j;
        W v[R], y[R];
#pragma unroll
        for (int r = 0; r < R; ++r) v[r] = to_w(sm[sw(base + r * S)]);
        if constexpr (LR == 4) {
            dft16<INV>(v, y);
        } else {
            dft4<INV>(v, 0, 1); // in place, natural order
#pragma unroll
            for (int r = 0; r < R; ++r) y[r] = v[r];
        }
        const unsigned tsh = lm - ls - LR; // w_(R·S)^(s·j) = w_m^(s·j·m/(R·S))
#pragma unroll
        for (int s = 0; s < R; ++s) {
            W o = y[s];
            if (s && j) o = cmul(o, conj_if<INV>(tw_m[(s * j) << tsh]));
            from_w(sm[sw(base + s * S)], o);
        }
    }
}

// Last stage, radix R = 2^LR (1 <= LR <= 3), span 1: contiguous runs of R, no twiddles.
template <int LR, bool INV, typename T, typename W>
__device__ void stage_small(T *sm, unsigned ngroups) {
    constexpr int R = 1 << LR;
    for (unsigned g = threadIdx.x; g < ngroups; g += blockDim.x) {
        const unsigned base = g << LR;
        W v[R], y[R];
#pragma unroll
        for (int r = 0; r < R; ++r) v[r] = to_w(sm[sw(base + r)]);
#pragma unroll
        for (int s = 0; s < R; ++s) {
            W acc = v[0];
#pragma unroll
            for (int r = 1; r < R; ++r) {
                const W t = cmul(v[r], conj_if<INV>(root16<W>(((r * s) & (R - 1)) << (4 - LR))));
                acc.x += t.x;
                acc.y += t.y;
            }
            y[s] = acc;
        }
#pragma unroll
        for (int s = 0; s < R; ++s) from_w(sm[sw(base + s)], y[s]);
    }
}

// ---- tensor-core radix-16 stage (FP16, FP16X2) -------------------------------------------------
//
// mma.m16n8k16, row.col, FP16 in, FP32 accumulate. With g = lane/4 and q = lane%4, the thread
// holds A (16×16) rows g and g+8, columns 2q, 2q+1, 2q+8, 2q+9; B (16×8) rows 2q, 2q+1, 2q+8,
// 2q+9 of column g; C (16×8) rows g and g+8 of columns 2q, 2q+1. Here A = F (the DFT_16 matrix),
// B's column c = the 16 inputs of group c of eight, C's column c = its 16 outputs.

__device__ __forceinline__ uint32_t h2u(__half2 h) {
    uint32_t u;
    memcpy(&u, &h, 4);
    return u;
}

__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                    uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// A fragments of F = (w16^(±rs)): re, im and −im, each as a high FP16 part and (FP16X2) a low
// part scaled by 2^11.
struct ffrag {
    uint32_t re[4], im[4], nim[4];
    uint32_t re_lo[4], im_lo[4], nim_lo[4];
};

template <bool INV> __device__ void make_ffrag(ffrag &f) {
    const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
    const int rows[4] = {g, g + 8, g, g + 8}, cols[4] = {2 * q, 2 * q, 2 * q + 8, 2 * q + 8};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        float v[3][2], lo[3][2];
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            const float2 w = c_w16f[(rows[i] * (cols[i] + c)) & 15];
            const float wi = INV ? -w.y : w.y;
            v[0][c] = w.x, v[1][c] = wi, v[2][c] = -wi;
#pragma unroll
            for (int k = 0; k < 3; ++k)
                lo[k][c] = (v[k][c] - __half2float(__float2half_rn(v[k][c]))) * 2048.0f;
        }
        f.re[i] = h2u(__floats2half2_rn(v[0][0], v[0][1]));
        f.im[i] = h2u(__floats2half2_rn(v[1][0], v[1][1]));
        f.nim[i] = h2u(__floats2half2_rn(v[2][0], v[2][1]));
        f.re_lo[i] = h2u(__floats2half2_rn(lo[0][0], lo[0][1]));
        f.im_lo[i] = h2u(__floats2half2_rn(lo[1][0], lo[1][1]));
        f.nim_lo[i] = h2u(__floats2half2_rn(lo[2][0], lo[2][1]));
    }
}

// Complex accumulation (dre, dim) += F·X with F = fre + i·fim (fnim = −fim) and X = bre + i·bim,
// as four real products.
__device__ __forceinline__ void cmma(float (&dre)[4], float (&dim)[4], const uint32_t (&fre)[4],
                                     const uint32_t (&fim)[4], const uint32_t (&fnim)[4],
                                     uint32_t bre0, uint32_t bre1, uint32_t bim0, uint32_t bim1) {
    mma(dre, fre, bre0, bre1);
    mma(dre, fnim, bim0, bim1);
    mma(dim, fre, bim0, bim1);
    mma(dim, fim, bre0, bre1);
}

// Eight DFT_16s on the tensor cores: e[i] = input row 2q, 2q+1, 2q+8, 2q+9 (i = 0..3) of this
// thread's column g (see above); out: dre/dim[2·half + c] = output row g + 8·half of column 2q + c.
template <int MODE>
__device__ __forceinline__ void dft16_tc(const float2 (&e)[4], const ffrag &f, float (&dre)[4],
                                         float (&dim)[4]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) dre[i] = dim[i] = 0;
    if constexpr (MODE == HEPA_DFT_FP16) {
        const uint32_t bre0 = h2u(__floats2half2_rn(e[0].x, e[1].x)), bre1 = h2u(__floats2half2_rn(e[2].x, e[3].x));
        const uint32_t bim0 = h2u(__floats2half2_rn(e[0].y, e[1].y)), bim1 = h2u(__floats2half2_rn(e[2].y, e[3].y));
        cmma(dre, dim, f.re, f.im, f.nim, bre0, bre1, bim0, bim1);
    } else {
        // packed conversions (two values per instruction): hi = fp16(x), lo = fp16((x - hi)·2^11)
        auto split = [](float a, float b, uint32_t &hi, uint32_t &lo) {
            const __half2 h = __floats2half2_rn(a, b);
            const float2 hf = __half22float2(h);
            hi = h2u(h);
            lo = h2u(__floats2half2_rn((a - hf.x) * 2048.0f, (b - hf.y) * 2048.0f));
        };
        uint32_t bre0, bre1, bim0, bim1, lre0, lre1, lim0, lim1;
        split(e[0].x, e[1].x, bre0, lre0);
        split(e[2].x, e[3].x, bre1, lre1);
        split(e[0].y, e[1].y, bim0, lim0);
        split(e[2].y, e[3].y, bim1, lim1);
        float cre[4] = {0, 0, 0, 0}, cim[4] = {0, 0, 0, 0};
        cmma(dre, dim, f.re, f.im, f.nim, bre0, bre1, bim0, bim1);          // Fh·Xh
        cmma(cre, cim, f.re, f.im, f.nim, lre0, lre1, lim0, lim1);          // + Fh·Xl
        cmma(cre, cim, f.re_lo, f.im_lo, f.nim_lo, bre0, bre1, bim0, bim1); // + Fl·Xh
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            dre[i] = fmaf(cre[i], 1.0f / 2048.0f, dre[i]);
            dim[i] = fmaf(cim[i], 1.0f / 2048.0f, dim[i]);
        }
    }
}

template <int MODE, bool INV>
__device__ void stage16_tc(typename mode_types<MODE>::T *sm, const float2 *tw_m, const ffrag &f,
                           unsigned lm, unsigned ls, unsigned ngroups) {
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const unsigned g = lane >> 2, q = lane & 3;
    const unsigned S = 1u << ls, lsub = lm - 4, tsh = lm - ls - 4;
    const unsigned rows[4] = {2 * q, 2 * q + 1, 2 * q + 8, 2 * q + 9};
    for (unsigned tile = warp; tile < (ngroups >> 3); tile += nwarps) {
        // this thread's input column: group tile·8 + g
        unsigned grp = (tile << 3) + g;
        unsigned tl = grp >> lsub, h = grp & ((1u << lsub) - 1);
        unsigned base = (tl << lm) + ((h >> ls) << (ls + 4)) + (h & (S - 1));
        float dre[4], dim[4];
        float2 e[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) e[i] = to_w(sm[sw(base + rows[i] * S)]);
        dft16_tc<MODE>(e, f, dre, dim);
        __syncwarp();
        // outputs: rows s = g, g + 8 of columns (groups) 2q, 2q + 1
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            grp = (tile << 3) + 2 * q + c;
            tl = grp >> lsub, h = grp & ((1u << lsub) - 1);
            const unsigned j = h & (S - 1);
            base = (tl << lm) + ((h >> ls) << (ls + 4)) + j;
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const unsigned s = g + 8 * half;
                float2 o = make_float2(dre[2 * half + c], dim[2 * half + c]);
                if (s && j) o = cmul(o, conj_if<INV>(tw_m[(s * j) << tsh]));
                from_w(sm[sw(base + s * S)], o);
            }
        }
        __syncwarp();
    }
}

// ---- register-resident Stockham pass (one-pass FP64 plans, n = 2^4 ... 2^13; FP32 to 2^14) ----
//
// (Below with 16 values per thread; 2^8 ... 2^10 run 8 per thread and radix-8 stages, stk_vpt.)
// Stage s of radix R (16, then one of 2^(logn mod 4) when logn is not a multiple of 4), Ns = the
// product of the earlier radices: group j < n/R takes elements j + r·(n/R), r < R, multiplies
// element r by w_(Ns·R)^((j mod Ns)·r), does a DFT_R and puts output k at
// (j / Ns)·Ns·R + (j mod Ns) + k·Ns (Stockham autosort: natural order in and out). Thread t of a
// vector does group t (n/16 threads per vector; the last, smaller-radix stage, 16/R groups
// t + u·n/16 each), so the first stage reads global memory and the last writes it, each as runs of
// consecutive elements across the threads; only the stages in between go through shared memory:
// one round trip per stage boundary, against one per stage plus a load and a store in dft_pass.
// Shared-memory positions are swizzled (stk_sw) so that every quarter-warp's 16-byte accesses hit
// 8 different bank groups: the reads j + r·(n/R) are consecutive in j, the writes have
// j mod 8 in their low bits or (first stage) j in bits 4-6.
__device__ __forceinline__ unsigned stk_sw(unsigned p) { return p ^ ((p >> 4) & 7u); }

// In-place DFT_R, natural order, R = 2, 4, 8 or 16 (w_16 from constant memory).
template <int R, bool INV, typename W> __device__ __forceinline__ void dft_r(W *v) {
    if constexpr (R == 16) {
        W y[16];
        dft16<INV>(v, y);
#pragma unroll
        for (int i = 0; i < 16; ++i) v[i] = y[i];
    } else {
        dft_small<R, INV>(v, [](int m) { return root16<W>(m); });
    }
}

// VPT values per thread (16 or 8): radix-VPT stages. Eight values take half the registers, so
// twice the warps fit on an SM (the FP64 kernel is latency-bound: see stk_vpt).
// A/B baselines of STAGE TWIDDLES and LAST-STAGE TWIDDLES (dft_fp64.cuh): HEPA_DFT_TW_LOADS=1
// loads every stage twiddle, =2 only the last stage's (every group its own powers).
#ifndef HEPA_DFT_TW_LOADS
#define HEPA_DFT_TW_LOADS 0
#endif
#if HEPA_DFT_TW_LOADS == 1
#define HEPA_STAGE_TW(R, INV, v, tw, e)                                                            \
    _Pragma("unroll") for (unsigned r_ = 1; r_ < (R); ++r_)(v)[r_] =                               \
        cmul((v)[r_], conj_if<INV>(__ldg((tw) + (e)*r_)))
#else
#define HEPA_STAGE_TW(R, INV, v, tw, e) stage_twiddles<R, INV>((v), (tw), (e))
#endif
// Values per thread of the FP64 Stockham kernel at 2^logn. The kernel is latency-bound (ncu,
// n = 2^13: 0.16 instructions issued per cycle and scheduler, long- and short-scoreboard stalls,
// one 512-thread block per SM); eight values per thread (64 registers) put twice the warps on an
// SM, at the cost of more stages (radix 8). Measured on an H100, same machine, two runs each
// (hepa-bench --dft, FP64, µs, 16 -> 8 values per thread; cuFFT 718-724 in the same runs):
// 2^10 733, 732 -> 728, 725; 2^11 741, 738 -> 778, 771; bench/experiments/dft_profile.c, 2^8 /
// 2^9: 731, 734 / 731, 730 -> 722, 724 / 727, 724. Eight per thread at 2^12 took 889 µs and at
// 2^13 (1024 threads, five stages) 1158 µs, against 748-753 and 1008-1016 µs with sixteen
// (other runs). (A cluster of two 2^12 blocks at 2^13, dft_stockham_cc_cluster: 1199 µs.)
// FP32 keeps sixteen (sixteen float2 take the registers of eight double2): 2^10 ... 2^12 run at
// 0.99-1.00x the copy rate, and eight at 2^13 measured 2126-2129 against 2805-2852 GB/s.
// L2 PREFETCH (dft_stockham_cc, and dft_stockham_tc up to 2^13 without PF: stc_shape::L2PF). A
// block that starts asks L2 for the input of the block `lead` indices later
// (cp.async.bulk.prefetch.L2 in 16 KiB pieces: no registers held, no waiting), so DRAM keeps
// streaming while resident blocks are in their stages. Blocks start in index order, so block
// b + lead starts soon after b. The plan sets lead to HEPA_DFT_L2PF_BYTES of input (2 MiB) rounded
// up to whole blocks (hepa_dft_plan::stk_lead). Where one block fills an SM (FP64 2^13, FP32 2^14)
// nothing else had overlapped a block's loads with its arithmetic.
// Measured on an H100 (dftprof, forward, 1 GiB batches, GB/s):
//  - lead in vectors, FP64 2^13 (128 KiB each): none 2709, 4: 2840, 8: 2942, 16: 2940, 32: 2897,
//    256: 2024 (32 MiB ahead: the lines were evicted before use and read twice); FP32 2^14: none
//    2251, 8: 2475, 16: 2423-2543, 24: 2548, 256: 2011. prefetch.global.L2 per 128-byte line was
//    no better (FP64 2^13, 16 ahead: 2859).
//  - lead in bytes, 1 / 2 / 3 / 4 MiB: FP64 2^13 2919 / 2927 / 2895 / 2878, FP32 2^14 2448 / 2522
//    / 2514 / 2495, FP16 2^13 2147 / 2159 / 2157 / 2142, FP16X2 2^10 2881 / 2899 / 2883 / 2881
//    (these two from a build with the call inlined, see below); FP64 and FP32 2^10 ... 2^12 within
//    1% up to 2 MiB, 1-2.5% slower at 4.
//  - d5bc5d2 -> this, same call, two rounds (bench/results/2026-11-24-h100-dft-l2pf-b9634b7.md):
//    FP64 2^13 2724-2730 -> 2919-2927, FP32 2^13 2840 -> 2944-2952, 2^14 2249 -> 2530-2548,
//    FP16X2 2^10 ... 2^12 +5.6-10.5%, FP16 2^10 ... 2^13 +0.8-5.7%; the rest within 0.5%. FP16 2^14
//    (1737 -> 1701) and the cluster kernels (FP16 2^16 1418 -> 1370, others +-2%) measured slower
//    or mixed with it and do not prefetch.
// Inlined, the call raised the registers of some dft_stockham_tc builds (FP16 2^13 64 -> 74: one
// block per SM instead of two, 2060 -> 1651 GB/s); as a call at the kernel's start it leaves them
// as they were (ptxas, within 2 registers). The instruction takes 16-byte addresses: hepa_dft_exec
// accepts only 16-byte aligned buffers, and vb is a multiple of 16. vb: input bytes per block;
// last_bytes: the last block's.
__device__ __noinline__ void l2_prefetch_ahead(const void *in, unsigned long long lead, size_t vb,
                                               unsigned long long blocks_total, size_t last_bytes) {
#if __CUDA_ARCH__ >= 900
    const unsigned long long b = blockIdx.x + lead;
    if (!lead || b >= blocks_total) return;
    const size_t bytes = b + 1 == blocks_total ? last_bytes : vb;
    const char *base = (const char *)in + b * vb;
    constexpr size_t CH = 16384;
    for (size_t c = threadIdx.x * CH; c < bytes; c += (size_t)blockDim.x * CH) {
        const unsigned sz = (unsigned)(bytes - c < CH ? bytes - c : CH);
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(base + c), "r"(sz));
    }
#endif
}

#ifndef HEPA_DFT_L2PF_BYTES // L2 PREFETCH's lead in input bytes (0: off)
#define HEPA_DFT_L2PF_BYTES (2u << 20)
#endif
constexpr unsigned stk_vpt(int logn, bool fp32) {
    return fp32 ? 16 : logn >= 8 && logn <= 10 ? 8 : 16;
}
template <int LOGN, int VPT = 16> struct stk_shape {
    static_assert(VPT == 8 || VPT == 16, "radix-8 or radix-16 stages");
    static constexpr unsigned N = 1u << LOGN, T = N / VPT; // threads per vector
    static constexpr unsigned V = T >= 256 ? 1 : 256 / T;   // vectors per block
    static constexpr unsigned THREADS = T * V;               // 256, or more at large n
};
// Shared-memory swizzle of the radix-VPT stages: reads j + r·(n/R) are consecutive in j; writes
// have j mod 8 in their low bits (Ns >= 8) or in bits lg(VPT) .. lg(VPT) + 2 (the first stage).
template <int VPT> __device__ __forceinline__ unsigned stk_swv(unsigned p) {
    return VPT == 16 ? stk_sw(p) : p ^ ((p >> 3) & 7u);
}

// One stage of radix R on the thread's groups (v[u·R + r] = input r of group t + u·T), reading
// from shared memory (FIRST: from global), writing to shared memory (LAST: to global).
template <int LOGN, int VPT, int R, unsigned NS, bool INV, bool FIRST, bool LAST, typename T>
__device__ __forceinline__ void stk_stage(T (&v)[VPT], T *sm, const T *src, T *dst, const T *tw,
                                          unsigned t, bool live) {
    constexpr unsigned N = 1u << LOGN, TV = N / VPT, U = VPT / R, NR = N / R;
    if constexpr (FIRST) {
        if (live) {
#pragma unroll
            for (unsigned u = 0; u < U; ++u)
#pragma unroll
                for (unsigned r = 0; r < R; ++r)
                    v[u * R + r] = __ldg(src + t + u * TV + r * NR);
        }
    } else {
#pragma unroll
        for (unsigned u = 0; u < U; ++u)
#pragma unroll
            for (unsigned r = 0; r < R; ++r)
                v[u * R + r] = sm[stk_swv<VPT>(t + u * TV + r * NR)];
    }
    // the last stage's groups t + u·T share their twiddles up to powers of w_(U·R)
    constexpr bool LAST_TW = LAST && NS > 1 && U > 1 && HEPA_DFT_TW_LOADS == 0;
    if constexpr (LAST_TW)
        last_stage_twiddles<R, U, INV>(v, tw, t, [](int m) { return root16<T>(m); });
#pragma unroll
    for (unsigned u = 0; u < U; ++u) {
        const unsigned j = t + u * TV, jm = j & (NS - 1);
        if constexpr (NS > 1 && !LAST_TW) // w_(Ns·R)^(jm·r) = w_N^(jm·r·N/(Ns·R))
            HEPA_STAGE_TW(R, INV, v + u * R, tw, jm * (N / (NS * R)));
        dft_r<R, INV>(v + u * R);
    }
    if constexpr (LAST) {
        // Ns·R = N: output k of group j lands at j + k·Ns
        if (live) {
#pragma unroll
            for (unsigned u = 0; u < U; ++u)
#pragma unroll
                for (unsigned k = 0; k < R; ++k)
                    dst[t + u * TV + k * NS] = v[u * R + k];
        }
    } else {
        __syncthreads(); // every thread has read this stage's inputs
        stockham_put<R, NS, U, TV>(sm, v, t, [](unsigned p) { return stk_swv<VPT>(p); });
        __syncthreads();
    }
}

template <int LOGN, int VPT, bool INV, int S, typename T>
__device__ __forceinline__ void stk_stages(T (&v)[VPT], T *sm, const T *src, T *dst, const T *tw,
                                           unsigned t, bool live) {
    constexpr int LV = VPT == 16 ? 4 : 3; // log2 VPT
    constexpr int SV = LOGN / LV, LR = LOGN % LV, NSTAGE = SV + (LR ? 1 : 0);
    if constexpr (S < NSTAGE) {
        constexpr int R = S < SV ? VPT : 1 << LR;
        constexpr unsigned NS = 1u << (LV * S);
        stk_stage<LOGN, VPT, R, NS, INV, S == 0, S == NSTAGE - 1>(v, sm, src, dst, tw, t, live);
        stk_stages<LOGN, VPT, INV, S + 1>(v, sm, src, dst, tw, t, live);
    }
}

// Eight values per thread: at most 64 registers (1024 resident threads per SM). Sixteen: no
// minimum (0); a minimum of 1 let ptxas take up to 168 registers, one block per SM, and made
// 2^11 and 2^12 13% slower on an H100.
// T: double2 (FP64 plans) or float2 (FP32 plans).
template <int LOGN, bool INV, int VPT, typename T>
__global__ void __launch_bounds__(stk_shape<LOGN, VPT>::THREADS,
                                  VPT == 8 ? 1024 / stk_shape<LOGN, VPT>::THREADS : 0)
    dft_stockham_cc(T *out, const T *in, const T *tw, unsigned long long batch,
                    unsigned long long lead) {
    using sh = stk_shape<LOGN, VPT>;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    {
        const unsigned long long blocks = (batch + sh::V - 1) / sh::V;
        l2_prefetch_ahead(in, lead, (size_t)sh::V * sh::N * sizeof(T), blocks,
                          (size_t)(batch - (blocks - 1) * sh::V) * sh::N * sizeof(T));
    }
    const unsigned vl = threadIdx.x / sh::T, t = threadIdx.x % sh::T;
    T *sm = (T *)smem_raw + (size_t)vl * sh::N;
    const unsigned long long vec = (unsigned long long)blockIdx.x * sh::V + vl;
    const bool live = vec < batch; // a partial last block: dead vectors still meet the barriers
    const size_t off = live ? (size_t)vec << LOGN : 0;
    T v[VPT];
    stk_stages<LOGN, VPT, INV, 0>(v, sm, in + off, out + off, tw, t, live);
}

// ---- the same Stockham pass on the tensor cores (one-pass FP16X2 plans of n = 2^4 ... 2^13, FP16
// ones up to 2^14)
//
// A block holds E = V·n elements (V vectors) and E/16 threads. Group G < E/16 of a radix-16 stage
// is group j = G mod (n/16) of vector G / (n/16); a warp runs tiles of eight consecutive groups
// through dft16_tc (thread (g, q) loads inputs 2q, 2q+1, 2q+8, 2q+9 of group 8·tile + g and gets
// back outputs g and g+8 of groups 8·tile + 2q and 2q + 1), four tiles per warp and stage. The
// twiddles w_(Ns·16)^((j mod Ns)·r) are applied in FP32 to the inputs before the split into FP16;
// they come from a table per stage laid out [j mod Ns][r], so that a thread's four are two
// 16-byte loads and a warp's touch 8 lines (from one n-entry table they were 32 scattered words).
// A last stage of radix 2, 4 or 8 runs on the CUDA cores in FP32 as in the FP64 kernel.
// FP16X2 scales each vector by a power of two first (max |component| < 1, as dft_pass does) and
// undoes it on the way out; FP16 stores FP16 between stages, FP16X2 FP32.
//
// Shared-memory layout: element p sits at tc_sw(p) = p XOR the table masks of p's bits >= BB
// (BB = 5 bank bits of 4-byte elements, 4 of 8-byte ones, whose 64-bit accesses go by half-warps).
// The tables were found by search (any masks that work) so that in every stage the five lane bits
// (g, q) of a read or write land on independent bank bits, for every n = 2^7 ... 2^13 (FP16: 2^14;
// below 2^7 a tile spans vectors and some accesses conflict; those sizes are small). A simulation
// of every access of those kernels (lane addresses, banks) found no conflict. tc_sw is linear over
// XOR, and every index below is an XOR of disjoint parts — the thread's, computed once per stage,
// and compile-time ones — so each access costs one XOR.
template <int BB> __host__ __device__ constexpr unsigned tc_sw(unsigned p) {
    constexpr unsigned m5[14] = {0, 0, 0, 0, 0, 13, 21, 31, 22, 25, 10, 17, 26, 31};
    constexpr unsigned m4[14] = {0, 0, 0, 0, 13, 5, 9, 12, 10, 7, 14, 11, 3, 13};
    unsigned x = p;
    for (int b = BB; b < 14; ++b)
        if ((p >> b) & 1u) x ^= BB == 5 ? m5[b] : m4[b];
    return x;
}

// A thread's four stage twiddles w_(16·Ns)^(jm·r), r = 2q, 2q+1, 2q+8, 2q+9, from a stage table
// [jm][r]: two 16-byte loads
__device__ __forceinline__ void stage_tw4(const float4 *tws, unsigned jm, unsigned q, float2 (&w)[4]) {
    const float4 w01 = __ldg(tws + jm * 8 + q), w89 = __ldg(tws + jm * 8 + q + 4);
    w[0] = make_float2(w01.x, w01.y), w[1] = make_float2(w01.z, w01.w);
    w[2] = make_float2(w89.x, w89.y), w[3] = make_float2(w89.z, w89.w);
}
// offset of stage s's twiddle table (16^(s+1) entries) after the n-entry table
__host__ __device__ constexpr size_t stc_tab(size_t n, int s) {
    return s <= 1 ? n : stc_tab(n, s - 1) + ((size_t)1 << (4 * s));
}
#ifndef HEPA_DFT_PF_X2
#define HEPA_DFT_PF_X2 (1 << 13)
#endif
#ifndef HEPA_DFT_PF_H
#define HEPA_DFT_PF_H 0
#endif
template <int MODE, int LOGN> struct stc_shape {
    static constexpr unsigned N = 1u << LOGN;
    static constexpr unsigned E = N >= 4096 ? N : 4096; // elements per block
    static constexpr unsigned V = E / N, THREADS = E / 16, TILES = 4; // tiles per warp and stage
    // two buffers of E elements (stages read one and write the other: one barrier per stage, and
    // no outputs held in registers across it), then FP16X2's max and exponent per vector
    static constexpr size_t SMEM = 2 * (size_t)E * sizeof(typename mode_types<MODE>::T) +
                                   (MODE == HEPA_DFT_FP16X2 ? 8 * V : 0);
    // the stage twiddle tables follow the n-entry table: stage s >= 1 has 16^(s+1) entries
    static __host__ __device__ constexpr size_t tab(int s) { return stc_tab(N, s); }
    // PF: persistent blocks (a grid of what fits the GPU at once, each taking every gridDim.x-th
    // block's work) that load their next vectors into registers while they transform the current
    // ones. It serves where one block fills an SM (FP16X2 2^13: 128 KiB of shared memory, 86
    // registers at 512 threads without PF, 128 with), so that no other block's memory traffic
    // overlaps its stages: there a vector cost the sum of its load and its arithmetic. Where
    // blocks share an SM they overlap each other and PF's registers cost blocks (slower at every
    // other size measured). Bits logn of HEPA_DFT_PF_X2 / HEPA_DFT_PF_H (FP16X2 / FP16) choose
    // where; any grid is correct, the plan launches sms × blocks per SM (hepa_dft_plan::stk_grid).
    static constexpr bool PF =
        ((MODE == HEPA_DFT_FP16X2 ? HEPA_DFT_PF_X2 : HEPA_DFT_PF_H) >> LOGN) & 1;
    // Occupancy is what the registers allow (FP16 2^10 ... 2^13 56-64 registers, 32 warps an SM;
    // FP16X2 2^10 ... 2^12 78-80, 24 warps; ncu at FP16 2^12, 2^13: latency-bound). Capping them
    // with __launch_bounds__' minimum blocks for more warps spilled and was slower: FP16 2^12 at
    // 48 registers 2538 -> 1965 GB/s, FP16X2 2^12 at 64 2626 -> 2019; only FP16 2^10 at 48 (no
    // spill) tied (H100, bench/results/2026-12-06-h100-head-9a8131e.md).
    // L2 PREFETCH (above dft_stockham_cc) where it measured faster: not with PF, not at FP16 2^14
    static constexpr bool L2PF = !PF && LOGN <= 13;
};

template <int MODE, int LOGN, bool INV>
__global__ void __launch_bounds__(stc_shape<MODE, LOGN>::THREADS)
    dft_stockham_tc(void *out_v, const void *in_v, const float2 *tw, unsigned long long batch,
                    unsigned long long lead) {
    using T = typename mode_types<MODE>::T;
    using sh = stc_shape<MODE, LOGN>;
    constexpr unsigned N = sh::N, E = sh::E, V = sh::V, NG = N / 16;
    if constexpr (sh::L2PF)
        l2_prefetch_ahead(in_v, lead, (size_t)E * sizeof(T), (batch + V - 1) / V,
                          (size_t)(batch - (batch - 1) / V * V) * N * sizeof(T));
    constexpr int S16 = LOGN / 4, LR = LOGN % 4, BB = sizeof(T) == 4 ? 5 : 4;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *const buf0 = (T *)smem_raw, *const buf1 = buf0 + E;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, q = lane & 3;
    constexpr unsigned rowc[4] = {0, 1, 8, 9}; // rows 2q + rowc[k]
    const unsigned long long items = (batch + V - 1) / V; // blocks' worth of vectors
    ffrag f;
    make_ffrag<INV>(f);
    // position in the block of group G's element 0 (vector G / NG, group G mod NG)
    auto gpos = [](unsigned G) { return (G / NG) * N + (G % NG); };
    // group G of a stage with span NS writes its output 0 at wpos(G, NS)
    auto wpos = [](unsigned G, unsigned NS) {
        const unsigned j = G % NG;
        return (G / NG) * N + (j / NS) * NS * 16 + (j & (NS - 1));
    };

    // stage 0 inputs of the thread's four tiles for item it (vectors it·V ...), all loaded first
    // (memory-level parallelism); dead vectors of a partial block read zeros
    auto load = [&](unsigned long long it, T(&x)[sh::TILES][4]) {
        const unsigned long long v0 = it * V;
        const unsigned nv = (unsigned)min((unsigned long long)V, batch - v0);
        const T *in = (const T *)in_v + (v0 << LOGN);
#pragma unroll
        for (unsigned i = 0; i < sh::TILES; ++i) {
            const unsigned G = (warp * sh::TILES + i) * 8 + g, b = G / NG;
            const unsigned p = gpos(G) + 2 * q * NG;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                if (b < nv)
                    x[i][k] = in[p + rowc[k] * NG];
                else
                    memset(&x[i][k], 0, sizeof(T));
            }
        }
    };
    // the transform of item it, whose stage 0 inputs the thread holds in x0
    auto item = [&](unsigned long long it, const T(&x0)[sh::TILES][4]) {
        const unsigned long long v0 = it * V;
        const unsigned nv = (unsigned)min((unsigned long long)V, batch - v0); // live vectors
        T *out = (T *)out_v + (v0 << LOGN);
        int *s_exp = (int *)(buf1 + E); // FP16X2: per vector, max |x| bits, then the exponent
        if constexpr (MODE == HEPA_DFT_FP16X2) {
            for (unsigned b = threadIdx.x; b < V; b += blockDim.x)
                s_exp[b] = 0;
            __syncthreads();
            // lanes of a tile that share a vector: q, and the low bits of g below NG
            constexpr unsigned GSPAN = NG < 8 ? NG : 8;
#pragma unroll
            for (unsigned i = 0; i < sh::TILES; ++i) {
                unsigned mx = 0;
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    mx = max(mx, x2_mag(to_w(x0[i][k])));
                }
                for (unsigned o = 1; o < 4 * GSPAN; o <<= 1)
                    mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, o));
                const unsigned G = (warp * sh::TILES + i) * 8 + g;
                if ((lane & (4 * GSPAN - 1)) == 0) atomicMax((unsigned *)&s_exp[G / NG], mx);
            }
            __syncthreads();
            if (threadIdx.x < V) s_exp[V + threadIdx.x] = x2_exp((unsigned)s_exp[threadIdx.x]);
            __syncthreads();
        }
        auto scale_out = [&](float2 w, unsigned b) -> float2 {
            if constexpr (MODE == HEPA_DFT_FP16X2) return scale2(w, pow2f(s_exp[V + b]));
            return w;
        };
#pragma unroll
        for (int s = 0; s < S16; ++s) {
            const unsigned NS = 1u << (4 * s);
            const bool last = s == S16 - 1 && LR == 0;
            const T *src = (s & 1) ? buf0 : buf1; // stage s >= 1 reads what stage s - 1 wrote
            T *dst = (s & 1) ? buf1 : buf0;
            // reads: gpos(G) + (2q + rowc)·NG, G = 32·warp + 8i + g
            const unsigned rt = tc_sw<BB>(gpos(32 * warp + g) ^ (2 * q * NG));
            // writes: wpos(G', NS) + k·NS, G' = 32·warp + 8i + 2q + c, k = g + 8h
            const unsigned wt = wpos(32 * warp + 2 * q, NS) ^ (g * NS), wts = tc_sw<BB>(wt);
            const float4 *tws = (const float4 *)(tw + sh::tab(s));
#pragma unroll
            for (unsigned i = 0; i < sh::TILES; ++i) {
                float2 x[4];
                if (s == 0) {
                    const float sc = MODE == HEPA_DFT_FP16X2
                                         ? pow2f(-s_exp[V + ((warp * sh::TILES + i) * 8 + g) / NG])
                                         : 1.0f;
#pragma unroll
                    for (int k = 0; k < 4; ++k) {
                        x[k] = to_w(x0[i][k]);
                        if (MODE == HEPA_DFT_FP16X2) x[k] = scale2(x[k], sc);
                    }
                } else {
                    const unsigned G = (warp * sh::TILES + i) * 8 + g, jm = (G % NG) & (NS - 1);
                    float2 w[4];
                    stage_tw4(tws, jm, q, w);
#pragma unroll
                    for (int k = 0; k < 4; ++k)
                        x[k] =
                            cmul(to_w(src[rt ^ tc_sw<BB>(gpos(8 * i)) ^ tc_sw<BB>(rowc[k] * NG)]),
                                 conj_if<INV>(w[k]));
                }
                float dre[4], dim[4];
                dft16_tc<MODE>(x, f, dre, dim);
                if (last && NG >= 2) {
                    // NS = n/16: groups 2q and 2q + 1 write adjacent elements of one vector (when
                    // n >= 32), one vector store
                    const unsigned b = ((warp * sh::TILES + i) * 8 + 2 * q) / NG;
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        T pair[2];
#pragma unroll
                        for (int c = 0; c < 2; ++c)
                            from_w(pair[c],
                                   scale_out(make_float2(dre[2 * h + c], dim[2 * h + c]), b));
                        using P = typename std::conditional<sizeof(T) == 4, uint2, uint4>::type;
                        if (b < nv)
                            *(P *)(out + (wt ^ wpos(8 * i, NS) ^ (8 * h * NS))) = *(const P *)pair;
                    }
                    continue;
                }
#pragma unroll
                for (int c = 0; c < 2; ++c)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const float2 o = make_float2(dre[2 * h + c], dim[2 * h + c]);
                        const unsigned pc = wpos(8 * i, NS) ^ wpos(c, NS) ^ (8 * h * NS);
                        if (last) {
                            const unsigned b = ((warp * sh::TILES + i) * 8 + 2 * q + c) / NG;
                            if (b < nv) from_w(out[wt ^ pc], scale_out(o, b));
                        } else {
                            from_w(dst[wts ^ tc_sw<BB>(pc)], o);
                        }
                    }
            }
            if (!last) __syncthreads();
        }
        if constexpr (LR > 0) {
            // last stage, radix R on the CUDA cores: group G = threadIdx.x + u·(E/16), u < 16/R
            constexpr unsigned R = 1u << LR, NR = N / R, U = 16 / R;
            const T *src = ((S16 - 1) & 1) ? buf1 : buf0;
            auto spos = [](unsigned G) { return (G / NR) * N + (G % NR); };
            const unsigned st = tc_sw<BB>(spos(threadIdx.x));
#pragma unroll
            for (unsigned u = 0; u < U; ++u) {
                float2 v[R];
                const unsigned G = threadIdx.x + u * (E / 16), b = G / NR, j = G % NR;
#pragma unroll
                for (unsigned r = 0; r < R; ++r) {
                    float2 w = to_w(src[st ^ tc_sw<BB>(spos(u * (E / 16))) ^ tc_sw<BB>(r * NR)]);
                    if (r && j) w = cmul(w, conj_if<INV>(__ldg(tw + j * r))); // w_N^(j·r)
                    v[r] = w;
                }
                dft_r<R, INV>(v);
                if (b < nv) {
#pragma unroll
                    for (unsigned k = 0; k < R; ++k)
                        from_w(out[b * N + j + k * NR], scale_out(v[k], b));
                }
            }
        }
    };
    T x0[sh::TILES][4];
    load(blockIdx.x, x0);
    if constexpr (!sh::PF) {
        item(blockIdx.x, x0);
    } else {
        for (unsigned long long it = blockIdx.x; it < items; it += gridDim.x) {
            T xc[sh::TILES][4];
#pragma unroll
            for (unsigned i = 0; i < sh::TILES; ++i)
#pragma unroll
                for (int k = 0; k < 4; ++k)
                    xc[i][k] = x0[i][k];
            if (it + gridDim.x < items) load(it + gridDim.x, x0); // in flight during item(it)
            item(it, xc);
            __syncthreads(); // the next item's stage 0 overwrites what this one read last
        }
    }
}

// ---- the FP64 / FP32 Stockham pass over a thread-block cluster (one-pass plans of 2^14 ... 2^16;
// where dft_l2sq cannot run) ---------------------------------------------------------------------
//
// A vector of n = 2^LOGN elements is spread over C = 2^LC blocks of one cluster (sm_90), each with
// n/C elements of shared memory and n/(16C) threads. Position p lives in block owner(p) =
// (p / B) mod C (runs of B, B·C <= 16). Stage 0: thread t of block c takes group j = c·n/(16C) + t
// (contiguous, so global reads are coalesced) and writes its output k to position 16j + k, in
// block (k / B) mod C (distributed shared memory). After the cluster barrier, stages s >= 1 give
// thread t a group j with owner(j) = c: its inputs j + r·n/R and its outputs
// (j / Ns)·R·Ns + j mod Ns + k·Ns (Ns >= 16 >= B·C) all have owner c, so every later exchange stays
// in the block's own shared memory. The last stage writes global memory at j + k·n/R: runs of B
// consecutive elements across the lanes.
// (clu_shape's B and thread_copy below serve only sm_90 code: 177 "declared but never
// referenced" is expected in the sm_80 pass.)
#pragma nv_diag_suppress 177
template <int LOGN, int LC> struct clu_shape {
    static constexpr unsigned N = 1u << LOGN, C = 1u << LC, NL = N / C; // elements per block
    static constexpr unsigned THREADS = NL / 16;
    // Positions are dealt to the blocks in runs of B (B·C <= 16): the last stage's lanes then
    // store runs of B consecutive elements (B = 2: whole 32-byte sectors).
    // (FP32's clusters, 2^15 and 2^16, have C = 8: runs of 2 float2, half sectors)
    static constexpr unsigned B = C <= 8 ? 2 : 1;
    static __device__ __forceinline__ unsigned owner(unsigned p) { return (p / B) % C; }
    static __device__ __forceinline__ unsigned local(unsigned p) { return (p / (B * C)) * B + p % B; }
};
#pragma nv_diag_default 177

// (two blocks per SM when a block has 256 threads; left alone ptxas took 152 registers: one)
template <int LOGN, int LC, bool INV, typename T>
__global__ void __launch_bounds__(clu_shape<LOGN, LC>::THREADS,
                                  clu_shape<LOGN, LC>::THREADS <= 256 ? 2 : 1)
    dft_stockham_cc_cluster(T *out, const T *in, const T *tw, unsigned long long batch) {
#if __CUDA_ARCH__ >= 900
    using sh = clu_shape<LOGN, LC>;
    constexpr unsigned N = sh::N, C = sh::C, TL = sh::THREADS, TV = N / 16;
    constexpr int S16 = LOGN / 4, LR = LOGN % 4;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sm = (T *)smem_raw;
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned c = cluster.block_rank(), t = threadIdx.x;
    const unsigned long long vec = blockIdx.x / C; // grid = batch · C blocks
    const T *src = in + (vec << LOGN);
    T *dst = out + (vec << LOGN);
    (void)batch;
    T v[16];
    // stage 0: radix 16, Ns = 1, group j0 = c·TL + t
    {
        const unsigned j = c * TL + t;
#pragma unroll
        for (unsigned r = 0; r < 16; ++r)
            v[r] = __ldg(src + j + r * TV);
        dft_r<16, INV>(v);
        cluster.sync(); // every block of the cluster runs (its shared memory may be written)
#pragma unroll
        for (unsigned k = 0; k < 16; ++k) {
            T *rsm = cluster.map_shared_rank(sm, sh::owner(16 * j + k));
            rsm[stk_sw(sh::local(16 * j + k))] = v[k];
        }
    }
    cluster.sync(); // every block's part of the stage-0 output has landed
    const unsigned j = (t / sh::B) * sh::B * C + c * sh::B + t % sh::B; // owner(j) = c
    // stages s >= 1: local reads j + r·N/R, local writes, CTA barriers only
    auto stage = [&](auto R_, auto NS_, auto LAST_) {
        constexpr unsigned R = decltype(R_)::value, NS = decltype(NS_)::value;
        constexpr bool LAST = decltype(LAST_)::value;
        constexpr unsigned U = 16 / R, NR = N / R;
        // thread t's groups: j + u·(N/16) for u < U (all = c mod C)
#pragma unroll
        for (unsigned u = 0; u < U; ++u)
#pragma unroll
            for (unsigned r = 0; r < R; ++r)
                v[u * R + r] = sm[stk_sw(sh::local(j + u * TV + r * NR))];
        // the last stage's groups j + u·T share their twiddles up to powers of w_(U·R)
        constexpr bool LAST_TW = LAST && U > 1 && HEPA_DFT_TW_LOADS == 0;
        if constexpr (LAST_TW)
            last_stage_twiddles<R, U, INV>(v, tw, j, [](int m) { return root16<T>(m); });
#pragma unroll
        for (unsigned u = 0; u < U; ++u) {
            const unsigned jj = j + u * TV, jm = jj & (NS - 1);
            if constexpr (!LAST_TW) HEPA_STAGE_TW(R, INV, v + u * R, tw, jm * (N / (NS * R)));
            dft_r<R, INV>(v + u * R);
        }
        if constexpr (LAST) {
#pragma unroll
            for (unsigned u = 0; u < U; ++u)
#pragma unroll
                for (unsigned k = 0; k < R; ++k)
                    dst[j + u * TV + k * NS] = v[u * R + k];
        } else {
            __syncthreads();
#pragma unroll
            for (unsigned u = 0; u < U; ++u) {
                const unsigned jj = j + u * TV, base = (jj / NS) * NS * R + (jj & (NS - 1));
#pragma unroll
                for (unsigned k = 0; k < R; ++k) sm[stk_sw(sh::local(base + k * NS))] = v[u * R + k];
            }
            __syncthreads();
        }
    };
    using I16 = std::integral_constant<unsigned, 16>;
    static_assert(S16 >= 3 && S16 <= 4, "2^14 ... 2^16");
    stage(I16{}, std::integral_constant<unsigned, 16>{}, std::integral_constant<bool, S16 == 2 && LR == 0>{});
    if constexpr (S16 >= 3)
        stage(I16{}, std::integral_constant<unsigned, 256>{}, std::integral_constant<bool, S16 == 3 && LR == 0>{});
    if constexpr (S16 >= 4)
        stage(I16{}, std::integral_constant<unsigned, 4096>{}, std::integral_constant<bool, LR == 0>{});
    if constexpr (LR > 0)
        stage(std::integral_constant<unsigned, (1u << LR)>{}, std::integral_constant<unsigned, (1u << (4 * S16))>{},
              std::integral_constant<bool, true>{});
#endif
}

// ---- FP64 2^14 ... 2^16 (FP32 2^15, 2^16): a four-step in one launch, the intermediate through L2
// (L2 SQUARE)
//
// n = N1·N2 (N1, N2 = 128 or 256: 2^14 = 128·128, 2^15 = 256·128, 2^16 = 256·256), element
// p = N2·i1 + i2, output K = k1 + N1·k2:
//   X[K] = Σ_i2 w_N2^(i2·k2) · w_n^(i2·k1) · Σ_i1 w_N1^(i1·k1) · x[N2·i1 + i2].
// Both item kinds transform 4096 elements, C = 4096/M adjacent columns of size M (l2sq_cols), so
// every global access comes in runs of >= 16 elements (256 bytes); n/4096 items of each kind per
// vector:
//   A (v, b), M = N1: the columns i2 = C·b + c of x (stride N2), times w_n^(i2·k1), stored
//     transposed at i2·N1 + k1 of the intermediate mid(v);
//   B (v, b), M = N2: the columns k1 = C·b + c of mid(v) (stride N1), stored at k1 + N1·k2 of
//     out's vector v.
// mid(v) is out's vector v itself out of place (B then writes the positions it read), and slot
// v mod R of a ring of R vectors in place (A(v) must not overwrite in's vector v while other A
// items of v still read it); see RING below.
// Why: cuFFT's double plans of 2^14 ... 2^16 are two launches of a pass each, about 88% of the
// DRAM rate each (ncu), about 1470-1580 GB/s counted as one read + one write. Here B reads vector
// v's intermediate a short while after A wrote it, so it comes from L2 (50 MiB on an H100), and
// DRAM sees one read and one write of the batch (ncu at 2^16: 1.07 GB each for the 1.07 GB batch).
// Scheduling as in the NTT's TWO PASSES IN ONE LAUNCH (src/ntt/ntt_cuda.cu), with the helpers of
// device/grid_sync.cuh: each block takes the next item from ctr[0] in ITEM ORDER (A items first, B
// items of vector v about D vectors' worth of items after its A items). B(v) waits until ctr[2 + v]
// (v's finished A items) is n/4096; it only ever waits for items handed out before its own, whose
// blocks are running: no deadlock whatever the residency. D (vectors) is about one wave of blocks
// (l2sq_setup; half a wave and two waves measured slower). The last block to finish (ctr[1]) zeroes
// the counters: they are zero when a launch starts (the plan zeroes them at creation), and
// concurrent executions of one plan are not allowed (hepa/dft.h).
// RING: A(v) stores into slot v mod R once B(v - R) has read it (ctr[2 + batch + v - R] = n/4096:
// each B item counts itself done right after its loads, at l2sq_cols's exchange barrier). B(v - R)
// is handed out before A(v) when R > D, so again no deadlock; R = 2D (at most the batch) leaves a
// wave of slack, about 16 MiB at every n. A B item drops the ring lines it has read from L2
// (discard.global.L2, no write-back): without that, DRAM wrote 1.97 GB for the 1.07 GB batch at
// 2^16 (ncu) and in place ran 1978-1997 GB/s at 2^14 ... 2^16, with it 1.06 GB and 2053-2076.
// R = 1.5D: 1678-2148, 3D: 1892-1918 (before the discard). Out of place the ring measured
// 2057-2073 against 2169-2190 with the intermediate in out, so it serves in place only.
// Limit: ncu at 2^16 puts the L2 fabric between the H100's two L2 partitions (lts__throughput,
// ltcfabric2ltc cycles) at 94% busy; the intermediate's store and load double the L2 traffic of a
// one-pass kernel. The kernel is otherwise latency-bound (16 warps per SM at 120-126 registers,
// issue slots 19% busy, barrier stalls first).
// Measured on an H100 (bench/experiments/dft_profile.c, forward, out of place, 1 GiB batches, GB/s
// as one read + one write, same calls), against what ran before: 2^14 1985-1991 (cluster kernel)
// -> 2194-2201, 2^15 1678-1685 (L2 PAIR: n = 16·n1, A a Stockham DFT_n1 on stride-16 columns, B a
// DFT_16 per thread) -> 2192-2193, 2^16 1652-1659 (L2 PAIR) -> 2183-2189; three blocks per SM
// (80 registers, spills) and the other orientation (DFT_16 columns first) measured slower for
// L2 PAIR (bench/results/2026-11-24-h100-dft-fp64-l2pair-910cf5d.md).
//
// l2sq_cols: 256 threads, C = 4096/M columns of M = 2^LM (128 or 256) elements, column c's element
// j at src[j·S + c]. Thread t: c = t mod C, j0 = t / C < M/16; DFT_M = DFT_16 over j1 (j = j0 +
// (M/16)·j1), w_M^(j0·m1), one shared-memory exchange, DFT_(M/16) over j0; output k = m1 + 16·m0.
// Stage 2, MF = false (B items): thread t takes m1 = t / 16 and the H = 16/(M/16) columns c_h =
// t mod 16 + 16·h, so that a warp's stores to k1 + N1·k (16 columns, two adjacent m1) come in
// 256-byte runs; with m1 = t / C at M = 128 each 32-byte sector got its halves from two warps, and
// 2^14 (128·128) measured 1290 GB/s. MF = true (A items): m1 = t mod 16, c_h = t / 16 + 16·h, so
// that the stores to i2·N1 + k (16 consecutive k = m1 + 16·m0) come in 256-byte runs too, and the
// twiddles w_n^(i2·k) are one run or one broadcast per half-warp; with the B mapping each A store
// instruction wrote 16 single sectors (ncu, 2^16: 36 M L2 write requests for 67 M sectors; 2^14
// ... 2^16 measured 2033-2045 -> 2154-2180 GB/s). Shared memory: element (m1, j) at m1·256 +
// (j ^ m1), j = C·j0 + c: stage 1 (a quarter-warp: 8 consecutive j, one m1) and stage 2 (8
// consecutive c, or 8 consecutive m1) both touch 8 different 16-byte bank groups. Afterwards
// x[h·M/16 + m0] = output m1 + 16·m0 of column c_h. At the exchange barrier thread 0 first waits
// until *wait >= need (A items in a ring), and the block then adds 1 to *sig (B items in a ring).
#ifndef HEPA_DFT_L2SQ_DISCARD // 0: ring lines are not discarded (for A/Bs)
#define HEPA_DFT_L2SQ_DISCARD 1
#endif
// L2 ONLY: the data loads (A's input, B's intermediate) are ld.global.cg, past L1, so that the
// streamed vectors leave L1 to the twiddle tables (__ldg); the idea, not confirmed by ncu (its run
// printed nothing). Measured on an H200 (dftprof, 1 GiB batches, same call, three rounds, GB/s;
// bench/experiments/dft_l2sq_cg_twb.patch): FP32 2^16 2484-2485 -> 2502-2536; FP64 2^14 ... 2^16
// within 0.7% either way. On an H100, where ncu had put this kernel at the L2 fabric's limit
// (above), every size within 1% either way, no consistent sign (FP64 2^16 2190-2195 against
// 2176-2193; bench/results/2026-12-06-h100-dft-l2sq-cg-8f8ccf7.md): kept as no slower. A table
// of w_n^(16·i2·2^k) for the A items' per-column twiddles instead of four scattered tw_n
// entries (TWB in that patch) was no faster (FP32 2^16 2467-2475, FP64 the same). B's loads of
// the intermediate, written in this launch, were plain loads before (never the read-only path);
// .cg reads them at L2, where the A items' stores are.
#ifndef HEPA_DFT_L2SQ_CG // 0: the data loads as before L2 ONLY (for A/Bs)
#define HEPA_DFT_L2SQ_CG 1
#endif
template <bool MF> __device__ __forceinline__ unsigned l2sq_m1(unsigned t) {
    return MF ? t & 15 : t >> 4;
}
template <bool MF> __device__ __forceinline__ unsigned l2sq_col(unsigned t, unsigned h) {
    return (MF ? t >> 4 : t & 15) + 16 * h;
}
template <int LM, bool INV, bool LDG, bool MF, typename T>
__device__ __forceinline__ void l2sq_cols(T (&x)[16], T *sm, const T *src, unsigned S,
                                          const T *tw_n, unsigned logn, const unsigned *wait,
                                          unsigned need, unsigned *sig) {
    constexpr unsigned M = 1u << LM, C = 4096 / M, M2 = M / 16, H = 16 / M2;
    static_assert(LM == 7 || LM == 8, "columns of 128 or 256");
    const unsigned t = threadIdx.x, c = t % C, j0 = t / C;
    const T *p = src + (size_t)j0 * S + c;
#pragma unroll
    for (unsigned r = 0; r < 16; ++r)
        x[r] = HEPA_DFT_L2SQ_CG ? __ldcg(p + (size_t)r * M2 * S)
               : LDG            ? __ldg(p + (size_t)r * M2 * S)
                                : p[(size_t)r * M2 * S];
    dft_r<16, INV>(x);                                    // x[m1]
    stage_twiddles<16, INV>(x, tw_n, (j0 << logn) >> LM); // w_M^(j0·m1) = w_n^((n/M)·j0·m1)
    if (HEPA_DFT_L2SQ_DISCARD && sig) {
        // the warp's loads are consumed: the first lane of each 8 drops its 16 128-byte lines
        __syncwarp();
        if (c % 8 == 0)
#pragma unroll
            for (unsigned r = 0; r < 16; ++r)
                asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + (size_t)r * M2 * S)
                             : "memory");
    }
#pragma unroll
    for (unsigned m1 = 0; m1 < 16; ++m1)
        sm[m1 * 256 + (t ^ m1)] = x[m1];
    if (wait && t == 0) wait_count(wait, need);
    if (sig)
        signal_done(sig); // its barrier: every thread's loads are consumed
    else
        __syncthreads();
    const unsigned m1 = l2sq_m1<MF>(t);
#pragma unroll
    for (unsigned h = 0; h < H; ++h) {
#pragma unroll
        for (unsigned q = 0; q < M2; ++q)
            x[h * M2 + q] = sm[m1 * 256 + ((q * C + l2sq_col<MF>(t, h)) ^ m1)];
        dft_r<M2, INV>(x + h * M2);
    }
}
template <int LA, int LB> struct l2sq_shape { // n = N1·N2, N1 = 2^LA (A's DFT), N2 = 2^LB (B's)
    static constexpr unsigned LOGN = LA + LB, N1 = 1u << LA, N2 = 1u << LB;
    static constexpr unsigned CA = 4096 / N1, CB = 4096 / N2;
    static constexpr unsigned IA = N2 / CA, IB = N1 / CB, I = IA + IB; // items per vector
};
// tw_n: w_n^e (e < n); tw_a[i2·16 + m1] = w_n^(i2·m1) (i2 < N2): a half-warp (16 consecutive m1,
// one i2) reads one 256-byte run, where tw_n + i2·m1 was 16 sectors (2^14 ... 2^16: +1-2%).
// ring: R slots of n elements (R = 0: the intermediate in out); ctr: 2 + 2·batch words.
template <int LA, int LB, bool INV, typename T>
__global__ void __launch_bounds__(256)
    dft_l2sq(T *out, const T *in, const T *tw_n, const T *tw_a, T *ring, unsigned R, unsigned batch,
             unsigned D, unsigned *ctr) {
    using sh = l2sq_shape<LA, LB>;
    constexpr unsigned LOGN = sh::LOGN, N1 = sh::N1, N2 = sh::N2, IA = sh::IA, IB = sh::IB;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sm = (T *)smem_raw;
    const unsigned t = threadIdx.x;
    unsigned v, b, second;
    item_order(take_item(&ctr[0]), batch, D, IA, IB, second, v, b);
    T *mid = R ? ring + ((size_t)(v % R) << LOGN) : out + ((size_t)v << LOGN);
    unsigned *a_done = ctr + 2, *b_read = ctr + 2 + batch;
    T x[16];
    if (!second) {
        constexpr unsigned C = sh::CA, M2 = N1 / 16, H = 16 / M2;
        l2sq_cols<LA, INV, true, true>(x, sm, in + ((size_t)v << LOGN) + C * b, N2, tw_n, LOGN,
                                       R && v >= R ? b_read + (v - R) : nullptr, IB, nullptr);
        const unsigned m1 = l2sq_m1<true>(t);
#pragma unroll
        for (unsigned h = 0; h < H; ++h) {
            const unsigned i2 = C * b + l2sq_col<true>(t, h);
            // w_n^(i2·(m1 + 16·m0)) = w_n^(i2·m1) · (w_n^(16·i2))^m0
            stage_twiddles<M2, INV>(x + h * M2, tw_n, 16 * i2);
            const T base = conj_if<INV>(__ldg(tw_a + i2 * 16 + m1));
            T *dst = mid + (size_t)i2 * N1 + m1;
#pragma unroll
            for (unsigned m0 = 0; m0 < M2; ++m0)
                dst[16 * m0] = cmul(x[h * M2 + m0], base);
        }
        signal_done(a_done + v);
    } else {
        constexpr unsigned C = sh::CB, M2 = N2 / 16, H = 16 / M2;
        if (t == 0) wait_count(a_done + v, IA);
        __syncthreads();
        // written in this launch: not through the read-only path (L2 ONLY: .cg loads)
        l2sq_cols<LB, INV, false, false>(x, sm, mid + C * b, N1, tw_n, LOGN, nullptr, 0,
                                         R ? b_read + v : nullptr);
        const unsigned m1 = l2sq_m1<false>(t);
        T *vec = out + ((size_t)v << LOGN);
#pragma unroll
        for (unsigned h = 0; h < H; ++h) {
            const unsigned k1 = C * b + l2sq_col<false>(t, h);
            T *dst = vec + k1 + (size_t)N1 * m1;
#pragma unroll
            for (unsigned m0 = 0; m0 < M2; ++m0)
                dst[(size_t)N1 * 16 * m0] = x[h * M2 + m0];
        }
    }
    finish_item(ctr, batch * sh::I, R ? 2 * batch + 2 : batch + 2);
}

// ---- the FP16 / FP16X2 four-step pass over a thread-block cluster (one-pass plans of 2^14 ...
// 2^16)
//
// n = n1·n2 with n2 = 256, over a cluster of C = n/2^12 blocks (4, 8, 16: 16 is beyond the portable
// cluster size, see clu_available) of NL = 2^12 elements each.
// Phase 1: block c does the n2/C columns i2 = c·n2/C + v (v < VL1) of size n1 (elements i1·n2 +
// i2), multiplies output k1 by w_n^(i2·k1) and sends it to the block that owns row k1 (k1 / VL2,
// VL2 = n1/C) through distributed shared memory. Phase 2, after one cluster barrier: block c does
// the rows k1 = c·VL2 + v of size n2 and writes output k2 of row k1 to k1 + n1·k2. So global reads
// and writes come in runs of VL1 and VL2 (>= 8) consecutive elements: whole 32-byte sectors (the
// Stockham ownership of dft_stockham_cc_cluster, positions dealt by their low bits, would store
// 8-byte pieces of FP16 sectors from 4 blocks each), and there is one exchange. Inside a phase, VL
// vectors of size m are stored vector-fastest (element e of vector v at e·VL + v) and transformed
// by Stockham stages as in dft_stockham_tc: radix-16 stages on the tensor cores (tile of eight
// groups G = j·VL + v with consecutive v: VL >= 8), then (phase 1 when n1 = 64 or 128) one
// radix-4/8 stage on the CUDA cores. A group's inputs are G + r·NL/16, so the reads of every stage
// have the same lane pattern; ctc_sw (masks found by search like tc_sw's, for every access of the
// five configurations: bank-conflict free with 4-byte FP16 and 8-byte FP16X2 elements; remote
// stores counted per destination block) spreads them over the banks.
// FP16X2 scales phase 1 by a power of two per block (max |x| of the block's columns < 1) and phase
// 2 by one per vector (max of the phase-1 outputs, gathered with remote atomics), undoing each on
// the phase's way out. Twiddles: stage tables as dft_stockham_tc's (only w_256 is used), then
// w_n^(k1·i2) as a table [k1][i2] after them (a warp's 32 reads are 8 runs of 8 entries).
template <int BB> __host__ __device__ constexpr unsigned ctc_sw(unsigned p) {
    constexpr unsigned m5[12] = {0, 0, 0, 0, 0, 12, 25, 24, 23, 23, 28, 5};
    constexpr unsigned m4[12] = {0, 0, 0, 0, 10, 11, 3, 12, 12, 5, 13, 7};
    unsigned x = p;
    for (int b = BB; b < 12; ++b)
        if ((p >> b) & 1u) x ^= BB == 5 ? m5[b] : m4[b];
    return x;
}

template <int MODE, int LOGN> struct ctc_shape {
    using T = typename mode_types<MODE>::T;
    static constexpr int L2 = 8, L1 = LOGN - L2, LC = LOGN - 12; // blocks of 2^12 elements
    static constexpr unsigned N = 1u << LOGN, N1 = 1u << L1, N2 = 1u << L2, C = 1u << LC;
    static constexpr unsigned NL = N / C, THREADS = NL / 16, VL1 = N2 / C, VL2 = N1 / C;
    // two buffers of NL elements (phase 1's stages and phase 2's second stage use A, the exchange
    // lands in B), then FP16X2's two maxima and the exchange's mbarrier
    static constexpr size_t SMEM = 2 * (size_t)NL * sizeof(T) + 16;
    // blocks per SM asked of ptxas: 4 for FP16 (64 registers), 3 for FP16X2, whose 64 KiB of
    // shared memory allow 3 anyway and which spills at 64 registers
    static constexpr unsigned MINB = MODE == HEPA_DFT_FP16X2 ? 3 : 4;
    static_assert(VL1 >= 8 && VL2 >= 8 && L1 >= 6 && L1 <= 8 && NL == 4096, "tile and swizzle shape");
};

// Nonzero: dft_cluster_tc moves the exchange with thread stores instead of bulk copies. Set from
// HEPA_DFT_THREAD_COPY at plan creation, for compute-sanitizer: its memcheck (2025.3.1) reports each
// cp.async.bulk into another block's shared memory as "not located in remote CTA" and drops it,
// though the same addresses pass as thread stores and the copies are right on the hardware (every
// test passes); cf. NVIDIA/cccl#8288, an in-bounds cp.async.bulk reported out of bounds. The
// thread copy moves the same bytes between the same addresses, so memcheck checks those ranges.
__device__ int g_dft_thread_copy;
// The exchange's bytes, 16 at a time from the threads: run d of `bytes` at src + d·bytes to block d
// at dst. Not inlined, so that this path costs the kernel no registers (FP16X2 spilled 4x more).
#pragma nv_diag_suppress 177 // (see clu_shape)
__device__ __noinline__ void thread_copy(uint32_t src, uint32_t dst, unsigned bytes, unsigned blocks) {
    const unsigned pieces = bytes / 16;
    for (unsigned e = threadIdx.x; e < blocks * pieces; e += blockDim.x) {
        const unsigned d = e / pieces, off = (e % pieces) * 16;
        uint4 v;
        uint32_t ra;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(src + d * bytes + off) : "memory");
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(ra) : "r"(dst + off), "r"(d));
        asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(ra), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
    }
}
#pragma nv_diag_default 177

template <int MODE, int LOGN, bool INV>
__global__ void __launch_bounds__(ctc_shape<MODE, LOGN>::THREADS, ctc_shape<MODE, LOGN>::MINB)
    dft_cluster_tc(void *out_v, const void *in_v, const float2 *tw, unsigned long long batch) {
#if __CUDA_ARCH__ >= 900
    using T = typename mode_types<MODE>::T;
    using sh = ctc_shape<MODE, LOGN>;
    constexpr unsigned C = sh::C, NL = sh::NL, T16 = NL / 16;
    constexpr unsigned VL1 = sh::VL1, VL2 = sh::VL2, lV1 = sh::L2 - sh::LC, lV2 = sh::L1 - sh::LC;
    constexpr int L1 = sh::L1, LR1 = L1 % 4, BB = sizeof(T) == 4 ? 5 : 4; // phase 1: radix 16, then 2^LR1
    constexpr bool X2 = MODE == HEPA_DFT_FP16X2;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *const bufA = (T *)smem_raw, *const bufB = bufA + NL;
    unsigned *const s_max = (unsigned *)(bufB + NL); // FP16X2: [0] phase 1 (block), [1] phase 2
    const uint32_t bufA_s = (uint32_t)__cvta_generic_to_shared(bufA), bufB_s = bufA_s + NL * (unsigned)sizeof(T);
    const uint32_t mbar_s = bufB_s + NL * (unsigned)sizeof(T) + 8; // the exchange's mbarrier
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned c = cluster.block_rank();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, q = lane & 3;
    constexpr unsigned rowc[4] = {0, 1, 8, 9}; // a thread's input rows 2q + rowc[k]
    const unsigned long long vec = blockIdx.x / C; // grid = batch · C blocks
    const T *in = (const T *)in_v + (vec << LOGN);
    T *out = (T *)out_v + (vec << LOGN);
    (void)batch;
    if (X2 && threadIdx.x < 2) s_max[threadIdx.x] = 0;
    if (threadIdx.x == 0) // one arrival: thread 0's, expecting all NL elements of the exchange
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n"
                     "fence.mbarrier_init.release.cluster;\n" ::"r"(mbar_s) : "memory");
    // No block may write another's shared memory before that one runs (and has cleared s_max):
    // arrive now, wait just before the exchange.
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    ffrag f;
    make_ffrag<INV>(f);
    const float4 *tw16 = (const float4 *)(tw + sh::N);  // [j < 16][r < 16] = w_256^(j·r)
    const float2 *tw2 = tw + stc_tab(sh::N, LOGN / 4); // [k1][i2] = w_n^(k1·i2)
    auto warp_max = [](unsigned m) {
#pragma unroll
        for (unsigned o = 1; o < 32; o <<= 1) m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
        return m;
    };
    auto scale = [](float2 w, int ex) { return scale2(w, pow2f(ex)); };
    // Every position below is a linear map (over XOR) of the bits of the group G, the output k and
    // c, and so is ctc_sw: each is evaluated once for the thread's part (warp, g, q, c) and once for
    // the compile-time part (tile i, cc, h, u, r), and the two XORed.
    // TC stage inputs, tile i: rows 2q + rowc[k] of group 32·warp + 8i + g at G + row·T16
    const unsigned rd_t = ctc_sw<BB>(32 * warp + g + 2 * q * T16);
    // outputs k = g + 8h of groups 32·warp + 8i + 2q + cc of a span-1 stage over VL = 2^lv vectors:
    // (16·j + k)·VL + v for G = j·VL + v
    auto spread = [](unsigned G, unsigned lv) { return (G & ((1u << lv) - 1)) | ((G >> lv) << (lv + 4)); };
    const unsigned wr1_t = ctc_sw<BB>(spread(32 * warp + 2 * q, lV1) ^ (g << lV1));
    const unsigned wr2_t = ctc_sw<BB>(spread(32 * warp + 2 * q, lV2) ^ (g << lV2));
    // Radix-16 stage on the tensor cores, tile i of this warp: x = inputs of group 8·tile + g (rows
    // 2q + rowc[k]); sink(i, cc, h, value) receives output g + 8h of group 8·tile + 2q + cc.
    auto tc_tile = [&](unsigned i, float2 (&x)[4], auto &&sink) {
        float dre[4], dim[4];
        dft16_tc<MODE>(x, f, dre, dim);
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int cc = 0; cc < 2; ++cc) sink(i, cc, h, make_float2(dre[2 * h + cc], dim[2 * h + cc]));
    };
    // inputs of tile i of a radix-16 stage from shared memory (positions XOR z), raw
    auto tc_raw = [&](const T *src, unsigned i, unsigned z, T (&r)[4]) {
#pragma unroll
        for (int k = 0; k < 4; ++k) r[k] = src[rd_t ^ z ^ ctc_sw<BB>(8 * i) ^ ctc_sw<BB>(rowc[k] * T16)];
    };
    // ... as float2, in a stage of span 16 (TW) times w_256^((j mod 16)·r), j = G / 2^lv
    auto tc_tw = [&](unsigned i, unsigned lv, bool TW, const T (&r)[4], float2 (&x)[4]) {
        float2 w[4];
        if (TW) {
            const unsigned jm = ((32 * warp + 8 * i + g) >> lv) & 15;
            stage_tw4(tw16, jm, q, w);
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) x[k] = TW ? cmul(to_w(r[k]), conj_if<INV>(w[k])) : to_w(r[k]);
    };
    auto tc_load = [&](const T *src, unsigned i, unsigned lv, bool TW, float2 (&x)[4]) {
        T r[4];
        tc_raw(src, i, 0, r);
        tc_tw(i, lv, TW, r, x);
    };

    // ---- phase 1: columns of n1 ---------------------------------------------------------------
    T x0[4][4]; // stage 0 inputs, all loaded first: group G = j·VL1 + v reads rows j + row·n1/16
    {
        const T *src = in + c * VL1 + (((32 * warp + g) >> lV1) << sh::L2) + (((32 * warp + g) & (VL1 - 1)));
#pragma unroll
        for (unsigned i = 0; i < 4; ++i)
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                // 8i stays inside v when VL1 >= 32, else it carries into j: linear either way
                const unsigned Gc = 8 * i, off = (((Gc >> lV1) + (2 * q + rowc[k]) * (sh::N1 / 16)) << sh::L2) + (Gc & (VL1 - 1));
                x0[i][k] = src[off];
            }
    }
    int ex1 = 0;
    if constexpr (X2) {
        unsigned m = 0;
#pragma unroll
        for (unsigned i = 0; i < 4; ++i)
#pragma unroll
            for (int k = 0; k < 4; ++k) m = max(m, x2_mag(to_w(x0[i][k])));
        m = warp_max(m);
        if (lane == 0) atomicMax(&s_max[0], m);
        __syncthreads();
        ex1 = x2_exp(s_max[0]);
    }
#pragma unroll
    for (unsigned i = 0; i < 4; ++i) {
        float2 x[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) x[k] = X2 ? scale(to_w(x0[i][k]), -ex1) : to_w(x0[i][k]);
        tc_tile(i, x, [&](unsigned i, int cc, int h, float2 o) {
            from_w(bufA[wr1_t ^ ctc_sw<BB>(spread(8 * i + cc, lV1) ^ ((8 * h) << lV1))], o);
        });
    }
    __syncthreads();
    // ---- the exchange -------------------------------------------------------------------------
    // Phase 1's last stage: output k1 = j + 16k of column i2 = c·VL1 + v (G = j·VL1 + v), times
    // w_n^(k1·i2), belongs to block d = k1 / VL2, at i2·VL2 + k1 mod VL2 of its buffer B. This
    // block's CH = VL1·VL2 outputs for block d fill the aligned run [c·CH, (c+1)·CH) there (ctc_sw
    // maps it onto itself); they are staged in buffer A at [d·CH, (d+1)·CH) in their final order
    // and sent by one bulk copy per destination (cp.async.bulk: the copy engine moves the run and
    // completes the bytes on the receiver's mbarrier). Storing the elements one by one from the
    // threads into remote shared memory cost twice the rest of the kernel (H100, FP16 2^15: 2818 µs,
    // 1428 µs with the same stores made local).
    // zd(d) is XORed into the positions of block d's buffer B, so that the staging writes of lanes
    // bound for different blocks (n1 = 256) fall into different banks.
    auto zd = [](unsigned d) {
        constexpr unsigned z5[4] = {5, 18, 31, 29}, z4[4] = {7, 10, 8, 0};
        unsigned z = 0;
#pragma unroll
        for (int b = 0; b < 4; ++b)
            if ((d >> b) & 1u) z ^= BB == 5 ? z5[b] : z4[b];
        return z;
    };
    constexpr unsigned CH = VL1 * VL2;
    auto dst1 = [](unsigned G, unsigned k, unsigned cv) -> uint2 { // (block d, its position)
        const unsigned k1 = (G >> lV1) ^ (k << 4), i2 = cv ^ (G & (VL1 - 1));
        return make_uint2(k1 >> lV2, ctc_sw<BB>((i2 << lV2) ^ (k1 & (VL2 - 1))));
    };
    auto stg = [&](uint2 d) { return d.x * CH ^ ((d.y ^ zd(d.x)) & (CH - 1)); }; // staging position
    auto tw1 = [](unsigned G, unsigned k, unsigned cv) { // [k1][i2]
        return ((((G >> lV1) ^ (k << 4))) << sh::L2) ^ cv ^ (G & (VL1 - 1));
    };
    unsigned mx = 0;
    auto stage_out = [&](unsigned sp, float2 o, float2 w) {
        o = cmul(o, conj_if<INV>(w));
        if (X2) {
            o = scale(o, ex1);
            mx = max(mx, x2_mag(o));
        }
        from_w(bufA[sp], o);
    };
    if constexpr (LR1 == 0) { // n1 = 256: a second radix-16 stage, span 16
        T r[4][4];
#pragma unroll
        for (unsigned i = 0; i < 4; ++i) tc_raw(bufA, i, 0, r[i]);
        __syncthreads(); // buffer A is read: it becomes the staging area
        const unsigned s_t = stg(dst1(32 * warp + 2 * q, g, c * VL1));
        const unsigned w_t = tw1(32 * warp + 2 * q, g, c * VL1);
#pragma unroll
        for (unsigned i = 0; i < 4; ++i) {
            float2 x[4];
            tc_tw(i, lV1, true, r[i], x);
            float4 w2[2]; // the twiddles of groups 2q and 2q + 1 (adjacent columns), per h
#pragma unroll
            for (int h = 0; h < 2; ++h) w2[h] = __ldg((const float4 *)(tw2 + (w_t ^ tw1(8 * i, 8 * h, 0))));
            tc_tile(i, x, [&](unsigned i, int cc, int h, float2 o) {
                stage_out(s_t ^ stg(dst1(8 * i + cc, 8 * h, 0)), o,
                          cc ? make_float2(w2[h].z, w2[h].w) : make_float2(w2[h].x, w2[h].y));
            });
        }
    } else { // n1 = 16·R: radix R on the CUDA cores, span 16; groups G = t + u·T16, j = G / VL1 < 16
        constexpr unsigned R = 1u << LR1, U = 16 / R;
        const unsigned rl_t = ctc_sw<BB>(threadIdx.x);
        T r[U][R];
#pragma unroll
        for (unsigned u = 0; u < U; ++u)
#pragma unroll
            for (unsigned rr = 0; rr < R; ++rr) r[u][rr] = bufA[rl_t ^ ctc_sw<BB>(u * T16 + rr * (NL / R))];
        __syncthreads(); // buffer A is read: it becomes the staging area
        const unsigned s_t = stg(dst1(threadIdx.x, 0, c * VL1));
        const unsigned w_t = tw1(threadIdx.x, 0, c * VL1);
#pragma unroll
        for (unsigned u = 0; u < U; ++u) {
            const unsigned j = (threadIdx.x + u * T16) >> lV1;
            float2 y[R];
#pragma unroll
            for (unsigned rr = 0; rr < R; ++rr) {
                y[rr] = to_w(r[u][rr]);
                if (rr) y[rr] = cmul(y[rr], conj_if<INV>(__ldg(tw + j * rr * (sh::N / sh::N1)))); // w_n1^(j·r)
            }
            dft_r<R, INV>(y);
#pragma unroll
            for (unsigned k = 0; k < R; ++k)
                stage_out(s_t ^ stg(dst1(u * T16, k, 0)), y[k], __ldg(tw2 + (w_t ^ tw1(u * T16, k, 0))));
        }
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); // staging writes -> copy engine
    __syncthreads();
    // (copies may complete bytes before this arrival: the transaction count may go below zero,
    // and the phase cannot complete before the one arrival)
    const bool tcopy = g_dft_thread_copy != 0; // (uniform)
    if (threadIdx.x == 0)
        asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }\n"
                     ::"r"(mbar_s), "r"(tcopy ? 0u : NL * (unsigned)sizeof(T)) : "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); // every block runs
    if constexpr (X2) {
        mx = warp_max(mx);
        if (lane < C) atomicMax(cluster.map_shared_rank(&s_max[1], lane), mx);
    }
    if (tcopy) {
        thread_copy(bufA_s, bufB_s + c * CH * (unsigned)sizeof(T), CH * (unsigned)sizeof(T), C);
        cluster.sync(); // publishes the thread stores
    } else if (threadIdx.x < C) {
        const unsigned d = threadIdx.x;
        uint32_t dst, bar;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(bufB_s + c * CH * (unsigned)sizeof(T)), "r"(d));
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(bar) : "r"(mbar_s), "r"(d));
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                     ::"r"(dst), "r"(bufA_s + d * CH * (unsigned)sizeof(T)), "r"(CH * (unsigned)sizeof(T)), "r"(bar)
                     : "memory");
    }
    // every byte of buffer B has arrived once the mbarrier's phase 0 completes
    for (uint32_t done = 0; !done;)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }\n"
                     : "=r"(done) : "r"(mbar_s) : "memory");
    // Buffer A (the staging area) is written again below: first every block must have received
    // its copies. The cluster barrier (FP16X2: also the maxima) waits while the inputs are read.
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");

    // ---- phase 2: rows of n2 = 256, two radix-16 stages ---------------------------------------
    T r2[4][4];
#pragma unroll
    for (unsigned i = 0; i < 4; ++i) tc_raw(bufB, i, zd(c), r2[i]);
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
    const int ex2 = X2 ? x2_exp(s_max[1]) : 0;
#pragma unroll
    for (unsigned i = 0; i < 4; ++i) {
        float2 x[4];
        tc_tw(i, lV2, false, r2[i], x);
        if (X2) {
#pragma unroll
            for (int k = 0; k < 4; ++k) x[k] = scale(x[k], -ex2);
        }
        tc_tile(i, x, [&](unsigned i, int cc, int h, float2 o) {
            from_w(bufA[wr2_t ^ ctc_sw<BB>(spread(8 * i + cc, lV2) ^ ((8 * h) << lV2))], o);
        });
    }
    __syncthreads();
    // output k2 = j + 16k of row k1 = c·VL2 + v (G = j·VL2 + v) at k1 + n1·k2; groups 2q, 2q+1 are
    // adjacent rows: one vector store of the pair
    auto opos = [](unsigned G, unsigned k, unsigned cv) {
        return (cv ^ (G & (VL2 - 1))) ^ ((((G >> lV2) ^ (k << 4))) << L1);
    };
    const unsigned o_t = opos(32 * warp + 2 * q, g, c * VL2);
#pragma unroll
    for (unsigned i = 0; i < 4; ++i) {
        float2 x[4];
        tc_load(bufA, i, lV2, true, x);
        T pair[2];
        tc_tile(i, x, [&](unsigned i, int cc, int h, float2 o) {
            from_w(pair[cc], X2 ? scale(o, ex2) : o);
            if (cc == 1) {
                using P = typename std::conditional<sizeof(T) == 4, uint2, uint4>::type;
                *(P *)(out + (o_t ^ opos(8 * i, 8 * h, 0))) = *(const P *)pair;
            }
        });
    }
#endif
}

// ---- the pass kernel --------------------------------------------------------------------------

// LAT: latency mode (d.lr == 2, FP64 only), its own instantiation so that the batched kernels
// keep exactly their code.
template <int MODE, bool INV, bool LAT = false>
__global__ void __launch_bounds__(512) dft_pass(void *out_v, const void *in_v, const void *tw_v,
                                                pass_desc d) {
    static_assert(!LAT || MODE == HEPA_DFT_FP64, "latency mode is FP64 only");
    using T = typename mode_types<MODE>::T;
    using W = typename mode_types<MODE>::W;
    constexpr unsigned VEC = 16 / sizeof(T); // elements per 16-byte access
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sm = (T *)smem_raw;
    const unsigned lm = d.lm, m = 1u << lm, lg = d.lg, G = 1u << lg, E = 1u << (lm + lg);
    // FP16X2: per sub-transform binary exponent, after the E elements
    signed char *s_exp = (signed char *)(sm + E);
    const unsigned long long t0 = (unsigned long long)blockIdx.x << lg;
    const unsigned long long tmask = (1ull << d.lT) - 1;
    // this block's sub-transforms t0 .. t0 + valid − 1, all in one vector (or G whole vectors)
    const unsigned valid = (unsigned)min((unsigned long long)G, d.total - t0);
    const T *in = (const T *)in_v + (((t0 >> d.lT) << d.logn) + ((t0 & tmask) << d.in_lts));
    T *out = (T *)out_v + (((t0 >> d.lT) << d.logn) + ((t0 & tmask) << d.out_lts));

    // load. Contiguous (les = 0): sub-transform tl's element e is at in[tl·m + e] = smem position
    // f. Strided (les > 0, then ts = 1): element (tl, e) is at in[tl + e·2^les], read tl-fastest,
    // VEC sub-transforms per 16-byte access when G allows.
    if (d.in_les == 0) {
        const unsigned cnt = valid << lm;
        for (unsigned f = threadIdx.x * VEC; f < E; f += blockDim.x * VEC) {
            if (f + VEC <= cnt) {
                // element f + k goes to sw(f + k) = (f ^ x_hi) + (k ^ x_lo): one 16-byte store of
                // the run with its components permuted by x_lo
                const uint4 w = __ldg((const uint4 *)(in + f));
                const unsigned x = swx(f), xlo = x & (VEC - 1);
                const T *v = (const T *)&w;
                T pv[VEC];
#pragma unroll
                for (unsigned k = 0; k < VEC; ++k) pv[k] = v[0];
#pragma unroll
                for (unsigned k = 1; k < VEC; ++k)
#pragma unroll
                    for (unsigned k2 = 0; k2 < VEC; ++k2)
                        if ((k2 ^ xlo) == k) pv[k2] = v[k];
                *(uint4 *)(sm + (f ^ (x & ~(VEC - 1)))) = *(const uint4 *)pv;
            } else {
#pragma unroll
                for (unsigned k = 0; k < VEC; ++k) {
                    T v;
                    if (f + k < cnt) v = in[f + k];
                    else memset(&v, 0, sizeof v);
                    sm[sw(f + k)] = v;
                }
            }
        }
    } else if (G >= VEC) {
        const unsigned lgv = lg - (VEC == 4 ? 2 : VEC == 2 ? 1 : 0);
        for (unsigned u = threadIdx.x; u < (E / VEC); u += blockDim.x) {
            const unsigned tl = (u & ((1u << lgv) - 1)) * VEC, e = u >> lgv;
            const uint4 w = __ldg((const uint4 *)(in + tl + ((size_t)e << d.in_les)));
            const T *v = (const T *)&w;
#pragma unroll
            for (unsigned k = 0; k < VEC; ++k) sm[sw(((tl + k) << lm) + e)] = v[k];
        }
    } else {
        for (unsigned f = threadIdx.x; f < E; f += blockDim.x) {
            const unsigned tl = f & (G - 1), e = f >> lg;
            sm[sw((tl << lm) + e)] = in[tl + ((size_t)e << d.in_les)];
        }
    }
    __syncthreads();

    // FP16X2: scale each sub-transform by a power of two so that its max |component| is below 1.
    // Each warp takes runs of 32 positions (one sub-transform, or 32/m whole ones when m < 32),
    // reduces over lanes of the same sub-transform, and merges with atomicMax (max |x| bits: non-
    // negative floats order as integers) into s_max[tl]; then s_exp[tl] = the exponent.
    if constexpr (MODE == HEPA_DFT_FP16X2) {
        unsigned *s_max = (unsigned *)(s_exp + ((G + 3) & ~3u));
        for (unsigned i = threadIdx.x; i < G; i += blockDim.x) s_max[i] = 0;
        __syncthreads();
        const unsigned lgs = lm < 5 ? lm : 5, lane = threadIdx.x & 31;
        for (unsigned p = threadIdx.x; p < E; p += blockDim.x) {
            const float2 v = to_w(sm[sw(p)]);
            unsigned mx = max(__float_as_uint(fabsf(v.x)), __float_as_uint(fabsf(v.y)));
            for (unsigned off = 1; off < (1u << lgs); off <<= 1)
                mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, off));
            if ((lane & ((1u << lgs) - 1)) == 0) atomicMax(&s_max[p >> lm], mx);
        }
        __syncthreads();
        for (unsigned i = threadIdx.x; i < G; i += blockDim.x) s_exp[i] = (signed char)x2_exp(s_max[i]);
        __syncthreads();
        for (unsigned p = threadIdx.x; p < E; p += blockDim.x) {
            const int ex = s_exp[p >> lm];
            float2 v = to_w(sm[sw(p)]);
            from_w(sm[sw(p)], scale2(v, pow2f(-ex)));
        }
        __syncthreads();
    }

    // stages
    const W *tw = (const W *)tw_v;
    const W *tw_m = tw + d.tw_m;
    ffrag f;
    if constexpr (!cc_mode(MODE)) make_ffrag<INV>(f);
    unsigned ls = lm;
    if constexpr (LAT) {
        while (ls >= 2) {
            ls -= 2;
            stage_cc<2, INV, T, W>(sm, tw_m, lm, ls, E >> 2);
            __syncthreads();
        }
    }
    while (ls >= 4) {
        ls -= 4;
        if constexpr (cc_mode(MODE))
            stage_cc<4, INV, T, W>(sm, tw_m, lm, ls, E >> 4);
        else
            stage16_tc<MODE, INV>(sm, tw_m, f, lm, ls, E >> 4);
        __syncthreads();
    }
    if (ls) {
        if (ls == 1) stage_small<1, INV, T, W>(sm, E >> 1);
        else if (ls == 2) stage_small<2, INV, T, W>(sm, E >> 2);
        else stage_small<3, INV, T, W>(sm, E >> 3);
        __syncthreads();
    }

    // store: natural order from the digit-reversed positions; undo the FP16X2 scaling; four-step
    // twiddle w_n^(i2·k1) for pass A (i2 = the column, below 2^20; k1 = e, below 2^10).
    const W *tw_n = d.tw_n == SIZE_MAX ? NULL : tw + d.tw_n;
    const unsigned nmask = (1u << d.logn) - 1, col0 = (unsigned)(t0 & tmask);
    auto fetch = [&](unsigned tl, unsigned e) -> T {
        T v = sm[sw((tl << lm) + rev_digits<LAT ? 2 : 4>(e, lm))];
        if (MODE == HEPA_DFT_FP16X2 || tw_n) {
            W w = to_w(v);
            if constexpr (MODE == HEPA_DFT_FP16X2) {
                w = scale2(w, pow2f(s_exp[tl]));
            }
            if (tw_n) {
                const unsigned idx = ((col0 + tl) * e) & nmask;
                if (idx) w = cmul(w, conj_if<INV>(tw_n[idx]));
            }
            from_w(v, w);
        }
        return v;
    };
    if (d.out_les == 0) {
        const unsigned cnt = valid << lm;
        for (unsigned f2 = threadIdx.x * VEC; f2 < E; f2 += blockDim.x * VEC) {
            T v[VEC];
#pragma unroll
            for (unsigned k = 0; k < VEC; ++k) v[k] = fetch((f2 + k) >> lm, (f2 + k) & (m - 1));
            if (f2 + VEC <= cnt) {
                *(uint4 *)(out + f2) = *(const uint4 *)v;
            } else {
#pragma unroll
                for (unsigned k = 0; k < VEC; ++k)
                    if (f2 + k < cnt) out[f2 + k] = v[k];
            }
        }
    } else if (G >= VEC) {
        const unsigned lgv = lg - (VEC == 4 ? 2 : VEC == 2 ? 1 : 0);
        for (unsigned u = threadIdx.x; u < (E / VEC); u += blockDim.x) {
            const unsigned tl = (u & ((1u << lgv) - 1)) * VEC, e = u >> lgv;
            T v[VEC];
#pragma unroll
            for (unsigned k = 0; k < VEC; ++k) v[k] = fetch(tl + k, e);
            *(uint4 *)(out + tl + ((size_t)e << d.out_les)) = *(const uint4 *)v;
        }
    } else {
        for (unsigned f2 = threadIdx.x; f2 < E; f2 += blockDim.x) {
            const unsigned tl = f2 & (G - 1), e = f2 >> lg;
            out[tl + ((size_t)e << d.out_les)] = fetch(tl, e);
        }
    }
}

template <int MODE, bool INV, bool LAT = false> void *kernel_ptr() {
    return (void *)dft_pass<MODE, INV, LAT>;
}

cudaError_t launch(const hepa_dft_plan *p, const pass_desc &d, void *out, const void *in,
                   int inverse, cudaStream_t st) {
    const unsigned blocks = (unsigned)((d.total + (1ull << d.lg) - 1) >> d.lg);
    const dim3 grid(blocks), block(d.threads);
#define HEPA_DFT_LAUNCH(M, LAT)                                                                    \
    do {                                                                                           \
        if (inverse) dft_pass<M, true, LAT><<<grid, block, d.smem, st>>>(out, in, p->tw, d);       \
        else dft_pass<M, false, LAT><<<grid, block, d.smem, st>>>(out, in, p->tw, d);              \
    } while (0)
    switch (p->mode) {
    case HEPA_DFT_FP16: HEPA_DFT_LAUNCH(HEPA_DFT_FP16, false); break;
    case HEPA_DFT_FP16X2: HEPA_DFT_LAUNCH(HEPA_DFT_FP16X2, false); break;
    case HEPA_DFT_FP32:
        HEPA_DFT_LAUNCH(HEPA_DFT_FP32, false);
        break;
    default:
        if (d.lr == 2) HEPA_DFT_LAUNCH(HEPA_DFT_FP64, true);
        else HEPA_DFT_LAUNCH(HEPA_DFT_FP64, false);
        break;
    }
#undef HEPA_DFT_LAUNCH
    return cudaGetLastError();
}

// The Stockham kernel of size 2^logn (4 <= logn <= 13): its entry points, block size and shared
// memory; false for other sizes.
struct stk_entry {
    void *fwd, *inv;
    unsigned threads, vecs; // vecs: vectors per block (cluster > 1: blocks per vector)
    size_t smem;
    unsigned cluster;       // blocks per cluster (1: a plain launch)
    bool persist;           // persistent blocks (stc_shape::PF): launch at most what fits at once
    size_t block_bytes;     // input bytes per block (L2 PREFETCH; 0: the kernel takes no lead)
};
template <int L, typename T> stk_entry cc_make() {
    constexpr int VPT = stk_vpt(L, sizeof(T) == sizeof(float2));
    using sh = stk_shape<L, VPT>;
    return {(void *)dft_stockham_cc<L, false, VPT, T>,
            (void *)dft_stockham_cc<L, true, VPT, T>,
            sh::THREADS,
            sh::V,
            (size_t)sh::V * sh::N * sizeof(T),
            1,
            false,
            (size_t)sh::V * sh::N * sizeof(T)};
}
// FP32 2^14: one block of 1024 threads holds the vector (128 KiB). Measured on an H100 (dftprof,
// 1 GiB batches, two rounds): 2245-2255 GB/s, against 1587-1595 over a cluster of two blocks
// (dft_stockham_cc_cluster, 64 registers, 104-112 bytes of stack), 1283-1292 over four, and
// 2191-2198 with dft_l2sq.
// The tensor-core Stockham kernel of (MODE, 2^L)
template <int MODE, int L> stk_entry tc_make() {
    using sh = stc_shape<MODE, L>;
    return {(void *)dft_stockham_tc<MODE, L, false>,
            (void *)dft_stockham_tc<MODE, L, true>,
            sh::THREADS,
            sh::V,
            sh::SMEM,
            1,
            sh::PF,
            sh::L2PF ? (size_t)sh::E * sizeof(typename mode_types<MODE>::T) : 0};
}
template <int L> stk_entry stk_make(hepa_dft_mode mode) {
    if constexpr (L <= 14)
        if (mode == HEPA_DFT_FP32) return cc_make<L, float2>();
    if constexpr (L <= 13) {
        if (mode == HEPA_DFT_FP64) return cc_make<L, double2>();
        if (mode == HEPA_DFT_FP16X2) return tc_make<HEPA_DFT_FP16X2, L>();
    }
    if (mode == HEPA_DFT_FP16) return tc_make<HEPA_DFT_FP16, L>();
    return {nullptr, nullptr, 0, 0, 0, 0};
}
// FP64 2^14 ... 2^16 over a cluster of blocks of 2^12 elements (2^16: 2^13). Measured on an H100
// (--dft, 1 GiB batches, µs, blocks of 2^12 / 2^13 elements): 2^14 1387 / 1452, 2^15 1637 / 1818,
// 2^16 (clusters of 16 / 8) 2310 / 2097; the four-step plans they replace took 2927 / 2916 / 2837.
// FP16 2^15, 2^16 and FP16X2 2^14 ... 2^16: the four-step pass over a cluster (dft_cluster_tc).
// H100, --dft, 1 GiB batches: FP16 2^14 took 1333 µs this way against 1237 µs in one block, so
// FP16 keeps dft_stockham_tc there.
template <int MODE, int L> stk_entry ctc_make() {
    using sh = ctc_shape<MODE, L>;
    return {(void *)dft_cluster_tc<MODE, L, false>, (void *)dft_cluster_tc<MODE, L, true>, sh::THREADS,
            sh::C, sh::SMEM, sh::C};
}
template <int L, typename T> stk_entry clu_make() {
    constexpr int LC = L - (L >= 16 ? 13 : 12);
    using sh = clu_shape<L, LC>;
    return {(void *)dft_stockham_cc_cluster<L, LC, false, T>,
            (void *)dft_stockham_cc_cluster<L, LC, true, T>,
            sh::THREADS,
            sh::C,
            (size_t)sh::NL * sizeof(T),
            sh::C};
}
// The Stockham kernel for (mode, 2^logn): FP64 and FP16X2 2^4 ... 2^13 (a vector in one block's
// shared memory, twice for FP16X2's double buffer), FP16 and FP32 2^4 ... 2^14; above, the
// cluster kernels.
bool stk_lookup(hepa_dft_mode mode, unsigned logn, stk_entry *e) {
    switch (logn) {
    case 4: *e = stk_make<4>(mode); break;
    case 5: *e = stk_make<5>(mode); break;
    case 6: *e = stk_make<6>(mode); break;
    case 7: *e = stk_make<7>(mode); break;
    case 8: *e = stk_make<8>(mode); break;
    case 9: *e = stk_make<9>(mode); break;
    case 10: *e = stk_make<10>(mode); break;
    case 11: *e = stk_make<11>(mode); break;
    case 12: *e = stk_make<12>(mode); break;
    case 13: *e = stk_make<13>(mode); break;
    case 14:
        *e = mode == HEPA_DFT_FP64     ? clu_make<14, double2>()
             : mode == HEPA_DFT_FP16X2 ? ctc_make<HEPA_DFT_FP16X2, 14>()
                                       : stk_make<14>(mode);
        break;
    case 15:
        *e = mode == HEPA_DFT_FP64     ? clu_make<15, double2>()
             : mode == HEPA_DFT_FP32   ? clu_make<15, float2>()
             : mode == HEPA_DFT_FP16X2 ? ctc_make<HEPA_DFT_FP16X2, 15>()
                                       : ctc_make<HEPA_DFT_FP16, 15>();
        break;
    case 16:
        *e = mode == HEPA_DFT_FP64     ? clu_make<16, double2>()
             : mode == HEPA_DFT_FP32   ? clu_make<16, float2>()
             : mode == HEPA_DFT_FP16X2 ? ctc_make<HEPA_DFT_FP16X2, 16>()
                                       : ctc_make<HEPA_DFT_FP16, 16>();
        break;
    default: return false;
    }
    return e->fwd != nullptr;
}

// The launch of `vectors` clusters of kernel e (cfg points at attr).
void clu_config(const stk_entry &e, unsigned vectors, cudaStream_t st, cudaLaunchConfig_t &cfg,
                cudaLaunchAttribute &attr) {
    cluster_config(vectors, e.cluster, e.threads, e.smem, st, cfg, attr);
}

// Whether a one-pass cluster kernel serves (mode, 2^logn) on the current device (sm_90 code and a
// device that launches clusters of this size and shared memory: 16 blocks is beyond the portable
// 8, allowed per kernel and not on every sm_90 part).
bool clu_available(hepa_dft_mode mode, unsigned logn) {
    stk_entry e;
    return stk_lookup(mode, logn, &e) && e.cluster > 1 &&
           cluster_kernel_ok(e.fwd, e.cluster, e.threads, e.smem) &&
           cluster_kernel_ok(e.inv, e.cluster, e.threads, e.smem);
}

cudaError_t launch_stk(const hepa_dft_plan *p, void *out, const void *in, int inverse,
                       cudaStream_t st) {
    stk_entry e;
    if (!stk_lookup(p->mode, p->stk, &e)) return cudaErrorInvalidValue;
    const unsigned long long batch = p->batch;
    unsigned blocks = (unsigned)((batch + e.vecs - 1) / e.vecs);
    if (e.persist && p->stk_grid && p->stk_grid < blocks) blocks = p->stk_grid;
    const void *tw = p->tw;
    unsigned long long lead = p->stk_lead;
    void *args[] = {&out, (void *)&in, (void *)&tw, (void *)&batch, (void *)&lead};
    if (e.cluster > 1) {
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        clu_config(e, (unsigned)batch, st, cfg, attr);
        return cudaLaunchKernelExC(&cfg, inverse ? e.inv : e.fwd, args);
    }
    return cudaLaunchKernel(inverse ? e.inv : e.fwd, dim3(blocks), dim3(e.threads), args, e.smem,
                            st);
}

// How many blocks of kernel k (threads, dynamic shared memory smem, already allowed) the device
// runs at once: SMs × blocks per SM; 0 on any error (cleared).
unsigned blocks_at_once(const void *k, unsigned threads, size_t smem) {
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, (int)threads, smem) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return (unsigned)sms * (unsigned)per_sm;
}

// L2 SQUARE (dft_l2sq): where it serves, the lag D, the ring and the launch.
#ifndef HEPA_DFT_L2SQ // bit logn - 14: L2 SQUARE at 2^logn (a cleared bit: the cluster kernel)
#define HEPA_DFT_L2SQ 7
#endif
#ifndef HEPA_DFT_L2SQ_LAG // D in halves of a wave of blocks (2: one wave)
#define HEPA_DFT_L2SQ_LAG 2
#endif
#ifndef HEPA_DFT_L2SQ_RING // the ring's slots R in quarters of D (8: 2D)
#define HEPA_DFT_L2SQ_RING 8
#endif
#ifndef HEPA_DFT_L2SQ_OOP_RING // 1: out-of-place executions use the ring too (for A/Bs)
#define HEPA_DFT_L2SQ_OOP_RING 0
#endif
#ifndef HEPA_DFT_L2SQ_FP32 // the same for FP32 (2^14 runs one block there: see stk_make)
#define HEPA_DFT_L2SQ_FP32 6
#endif
bool l2sq_at(hepa_dft_mode mode, unsigned logn) {
    const unsigned mask = mode == HEPA_DFT_FP32 ? HEPA_DFT_L2SQ_FP32 : HEPA_DFT_L2SQ;
    return logn >= 14 && logn <= 16 && ((mask >> (logn - 14)) & 1);
}
// log2 N1, the A items' DFT size (N2 = n/N1)
constexpr unsigned l2sq_la(unsigned logn) {
    return logn == 14 ? 7 : 8;
}
template <bool INV, typename T> const void *l2sq_kernel_t(unsigned logn) {
    switch (logn) {
    case 14:
        return (const void *)dft_l2sq<l2sq_la(14), 14 - l2sq_la(14), INV, T>;
    case 15:
        return (const void *)dft_l2sq<l2sq_la(15), 15 - l2sq_la(15), INV, T>;
    case 16:
        return (const void *)dft_l2sq<l2sq_la(16), 16 - l2sq_la(16), INV, T>;
    default:
        return nullptr;
    }
}
// FP64 (double2) or FP32 (float2)
template <bool INV> const void *l2sq_kernel(hepa_dft_mode mode, unsigned logn) {
    return mode == HEPA_DFT_FP32 ? l2sq_kernel_t<INV, float2>(logn)
                                 : l2sq_kernel_t<INV, double2>(logn);
}
constexpr unsigned L2SQ_THREADS = 256;
// shared memory: one item's 4096 elements of elem bytes
size_t l2sq_smem(size_t elem) {
    return 4096 * elem;
}
// items per vector: n/4096 of each kind
unsigned l2sq_items(unsigned logn) {
    return 2u << (logn - 12);
}
static_assert(l2sq_shape<7, 7>::I == 8 && l2sq_shape<8, 7>::I == 16 && l2sq_shape<8, 8>::I == 32,
              "l2sq_items");
// Sets up both directions' kernels; the lag D: about HEPA_DFT_L2SQ_LAG / 2 waves of blocks, in
// vectors, at least 1 and at most batch; the ring's slots R = min(2D, batch). False where the
// device cannot run them.
bool l2sq_setup(hepa_dft_mode mode, size_t elem, unsigned logn, size_t batch, unsigned *lag,
                unsigned *slots) {
    const void *k[2] = {l2sq_kernel<false>(mode, logn), l2sq_kernel<true>(mode, logn)};
    if (!k[0]) return false;
    const size_t smem = l2sq_smem(elem);
    unsigned wave = 0; // blocks at once (the last kernel's; both have the same shape)
    for (int i = 0; i < 2; ++i) {
        if (_hepa_dev_allow_smem(k[i], smem) != cudaSuccess) {
            (void)cudaGetLastError();
            return false;
        }
        if ((wave = blocks_at_once(k[i], L2SQ_THREADS, smem)) == 0) return false;
    }
    size_t d = ((size_t)wave * HEPA_DFT_L2SQ_LAG / 2) / l2sq_items(logn);
    if (d < 1) d = 1;
    if (d > batch) d = batch;
    *lag = (unsigned)d;
    size_t r = d * HEPA_DFT_L2SQ_RING / 4;
    if (r < d + 1) r = d + 1; // R > D: no deadlock (RING)
    *slots = (unsigned)(r < batch ? r : batch);
    return true;
}
cudaError_t launch_l2sq(const hepa_dft_plan *p, void *out, const void *in, int inverse,
                        cudaStream_t st) {
    const unsigned lg = p->l2sq, batch = (unsigned)p->batch, D = p->l2sq_d;
    const unsigned R = out == in || HEPA_DFT_L2SQ_OOP_RING ? p->l2sq_r : 0;
    // tw_a right after w_n (elements of the twiddle type: the element type)
    const void *tw_n = p->tw, *tw_a = (const unsigned char *)p->tw + p->n * p->elem;
    void *ring = p->ring;
    unsigned *ctr = p->ctr;
    void *args[] = {&out,       (void *)&in,    (void *)&tw_n, (void *)&tw_a, &ring,
                    (void *)&R, (void *)&batch, (void *)&D,    (void *)&ctr};
    return cudaLaunchKernel(
        inverse ? l2sq_kernel<true>(p->mode, lg) : l2sq_kernel<false>(p->mode, lg),
        dim3(batch * l2sq_items(lg)), dim3(L2SQ_THREADS), args, l2sq_smem(p->elem), st);
}

// Per-mode sizes (log2 elements per block): `one` = the largest n done in one pass (the whole
// vector in shared memory), `blk` = elements per block otherwise (64 KiB: three blocks per SM).
// Chosen by measurement on an H100 (bench/experiments/dft_split.c, bench/results/*-dft-split-*):
// one pass with a 128 KiB block beats two passes for FP64 at 2^13 (1100 vs 749 GB/s), ties for
// FP16X2 at 2^14 (582 vs 584), and loses for FP16 at 2^15 (422 vs 529), hence FP16's 14.
void mode_sizes(hepa_dft_mode mode, unsigned *one, unsigned *blk, size_t *elem) {
    switch (mode) {
    case HEPA_DFT_FP16: *one = 14, *blk = 14, *elem = 4; break;
    case HEPA_DFT_FP16X2:
    case HEPA_DFT_FP32: // FP16X2's sizes (same element; its four-step blocks not measured apart)
        *one = 14, *blk = 13, *elem = 8;
        break;
    default: *one = 13, *blk = 12, *elem = 16; break;
    }
}

// Block of 2^lblk elements (at least one sub-transform of 2^lm, at least 128 so that the
// tensor-core stages have whole tiles of eight DFT_16s): at most 2^lmax, and smaller when the
// batch holds only 2^ltot elements, so that there are about 256 blocks to spread over the SMs.
// Four-step passes keep a block inside one vector (lmax <= logn).
// lr: 4, or 2 for latency mode (a thread per group of 4, up to 512 threads)
void fill_pass(pass_desc &d, unsigned lm, unsigned lmax, unsigned ltot, size_t elem, unsigned lr,
               bool x2) {
    unsigned lblk = ltot > 8 + 7 ? ltot - 8 : 7;
    if (lblk > lmax) lblk = lmax;
    if (lblk < lm) lblk = lm;
    d.lm = lm;
    d.lg = lblk - lm;
    d.lr = lr;
    const unsigned E = 1u << lblk;
    d.threads = E >= (1u << 13) ? 512 : E >= (1u << 12) ? 256 : 128;
    if (E / 16 < d.threads) d.threads = E / 16 >= 32 ? E / 16 : 32;
    if (lr == 2) d.threads = E / 4 >= 512 ? 512 : E / 4 >= 32 ? E / 4 : 32;
    // FP16X2: + per sub-transform one exponent byte (rounded up to 4) and one max word
    const size_t G = E >> lm;
    d.smem = (size_t)E * elem + (x2 ? ((G + 3) & ~(size_t)3) + 4 * G : 0);
}

} // namespace hepa_dft_cuda

// Create with an explicit four-step split (l1 = log2 n1 of pass A; 0 = one pass). For the bench's
// split measurements; hepa_dft_plan_create picks l1.
extern "C" hepa_status _hepa_dft_plan_create_split(hepa_dft_plan **out, size_t n, size_t batch,
                                                   hepa_dft_mode mode, unsigned l1) {
    if (!out || n < HEPA_DFT_MIN_N || n > HEPA_DFT_MAX_N || (n & (n - 1)) || batch == 0)
        return HEPA_ERR_INVALID_ARGUMENT;
    if (mode != HEPA_DFT_FP64 && mode != HEPA_DFT_FP16 && mode != HEPA_DFT_FP16X2 &&
        mode != HEPA_DFT_FP32)
        return HEPA_ERR_INVALID_ARGUMENT;
    if (batch > ((size_t)1 << 40) / n) return HEPA_ERR_INVALID_ARGUMENT; // size_t products stay sane
    int dev_count = 0, dev = 0;
    if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
        (void)cudaGetLastError();
        return HEPA_ERR_NO_DEVICE;
    }
    unsigned logn = 0;
    while (((size_t)1 << logn) < n) ++logn;
    unsigned one, blk;
    size_t elem;
    mode_sizes(mode, &one, &blk, &elem);
    // a four-step plan needs blocks of >= 128 elements inside one vector: n >= 2^7
    const bool clu = l1 == 0 && logn > one && clu_available(mode, logn); // one pass, a cluster
    if (l1 >= logn || (l1 == 0 && logn > one && !clu) || (l1 && (l1 > blk || logn - l1 > blk)) ||
        (l1 && logn < 7)) {
        _hepa_set_error_message("hepa_dft_plan: no such split for this size and mode");
        return HEPA_ERR_INVALID_ARGUMENT;
    }
    if (!cc_mode(mode)) {
        cudaDeviceProp prop;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
            (void)cudaGetLastError();
            return HEPA_ERR_NO_DEVICE;
        }
        if (prop.major < 8) {
            _hepa_set_error_message("hepa_dft_plan: tensor-core modes need sm_80 or newer");
            return HEPA_ERR_UNSUPPORTED;
        }
    }
    unsigned ltot = logn; // log2 of the batch's element count, rounded down
    while (ltot < 62 && ((size_t)2 << ltot) <= n * batch) ++ltot;
    // latency mode (see the header): FP64 batches of at most 2^16 elements
    const unsigned lr = mode == HEPA_DFT_FP64 && ltot <= 16 ? 2 : 4;
    const bool x2 = mode == HEPA_DFT_FP16X2; // per-block scaling (fill_pass's shared memory)
    hepa_dft_plan *p = (hepa_dft_plan *)calloc(1, sizeof *p);
    if (!p) return HEPA_ERR_OUT_OF_MEMORY;
    p->n = n;
    p->batch = batch;
    p->logn = logn;
    p->mode = mode;
    p->elem = elem;
    // twiddle tables: [w_(n1) | w_(n2) | w_n] (two passes) or [w_n] (one pass)
    size_t sizes[3], ntab = 0;
    if (l1 == 0) {
        p->npass = 1;
        pass_desc &d = p->pass[0];
        fill_pass(d, logn, logn > blk ? logn : blk, ltot, elem, lr, x2);
        d.lT = 0, d.logn = logn, d.in_lts = d.out_lts = 0, d.in_les = d.out_les = 0;
        d.total = batch;
        d.tw_m = 0, d.tw_n = SIZE_MAX;
        sizes[ntab++] = n;
    } else {
        p->npass = 2;
        const unsigned l2 = logn - l1;
        pass_desc &a = p->pass[0], &b = p->pass[1];
        fill_pass(a, l1, blk < logn ? blk : logn, ltot, elem, lr, x2); // columns: e at i1·n2 + i2
        a.lT = l2, a.logn = logn, a.in_lts = a.out_lts = 0, a.in_les = a.out_les = l2;
        a.total = (unsigned long long)batch << l2;
        a.tw_m = 0, a.tw_n = ((size_t)1 << l1) + ((size_t)1 << l2);
        fill_pass(b, l2, blk < logn ? blk : logn, ltot, elem, lr,
                  x2); // rows: read k1·n2 + i2, write k1 + n1·k2
        b.lT = l1, b.logn = logn, b.in_lts = l2, b.in_les = 0, b.out_lts = 0, b.out_les = l1;
        b.total = (unsigned long long)batch << l1;
        b.tw_m = (size_t)1 << l1, b.tw_n = SIZE_MAX;
        sizes[ntab++] = (size_t)1 << l1;
        sizes[ntab++] = (size_t)1 << l2;
        sizes[ntab++] = n;
    }
    const size_t wsz = mode == HEPA_DFT_FP64 ? sizeof(double2) : sizeof(float2);
    // one-pass plans of 2^4 ... 2^13 run a Stockham kernel (see launch_stk), larger ones a cluster
    // kernel where the device has them; the tensor-core ones read their stages' twiddles from
    // tables [j][r] = w_(16·Ns)^(j·r), j < Ns = 16^s, 1 <= s < logn/4, stored after the n-entry
    // table (stc_shape::tab), and dft_cluster_tc its four-step twiddles w_n^(k1·i2) from a table
    // [k1][i2] (i2 < 256) after those
    stk_entry se;
    const bool use_stk = p->npass == 1 && stk_lookup(mode, logn, &se) &&
                         (se.cluster <= 1 || clu_available(mode, logn));
    size_t stage_tw = 0, four_tw = 0;
    if (use_stk && !cc_mode(mode)) {
        for (unsigned s = 1; s < logn / 4; ++s) stage_tw += (size_t)1 << (4 * s + 4);
        if (se.cluster > 1) four_tw = n;
    }
    // L2 SQUARE: FP64 and FP32 one-pass cluster plans of 2^14 ... 2^16 (FP32: 2^15, 2^16; the
    // cluster kernel stays where the device cannot run it, or with HEPA_DFT_NO_L2SQ set: on an
    // H100 that is how the tests reach it). Items per launch must fit an unsigned.
    unsigned l2sq_d = 0, l2sq_r = 0;
    const bool l2sq = !_hepa_env_flag("HEPA_DFT_NO_L2SQ") && use_stk && cc_mode(mode) &&
                      se.cluster > 1 && l2sq_at(mode, logn) &&
                      batch * l2sq_items(logn) < ((size_t)1 << 31) &&
                      l2sq_setup(mode, elem, logn, batch, &l2sq_d, &l2sq_r);
    // its tw_a[i2·16 + m1] = w_n^(i2·m1), i2 < N2 (right after w_n)
    const size_t sq_tw = l2sq ? (n >> l2sq_la(logn)) * 16 : 0;
    size_t total_tw = stage_tw + four_tw + sq_tw;
    for (size_t i = 0; i < ntab; ++i) total_tw += sizes[i];
    unsigned char *h = (unsigned char *)malloc(total_tw * wsz);
    if (!h) {
        free(p);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    long double co, si; // e^(-2πi·num/den) = co - i·si (roots.h)
    size_t at = 0;
    for (size_t i = 0; i < ntab; ++i)
        for (size_t e = 0; e < sizes[i]; ++e, ++at) {
            hepa_root_ld(e, sizes[i], &co, &si);
            if (wsz == sizeof(double2))
                ((double2 *)h)[at] = make_double2((double)co, (double)-si);
            else
                ((float2 *)h)[at] = make_float2((float)co, (float)-si);
        }
    for (size_t e = 0; e < sq_tw; ++e, ++at) {
        hepa_root_ld((e >> 4) * (e & 15), n, &co, &si);
        if (wsz == sizeof(double2))
            ((double2 *)h)[at] = make_double2((double)co, (double)-si);
        else
            ((float2 *)h)[at] = make_float2((float)co, (float)-si);
    }
    for (unsigned s = 1; stage_tw && s < logn / 4; ++s) {
        const size_t ns = (size_t)1 << (4 * s);
        for (size_t j = 0; j < ns; ++j)
            for (size_t r = 0; r < 16; ++r, ++at) {
                hepa_root_ld(j * r, 16 * ns, &co, &si);
                ((float2 *)h)[at] = make_float2((float)co, (float)-si);
            }
    }
    for (size_t e = 0; e < four_tw; ++e, ++at) { // e = k1·256 + i2
        hepa_root_ld(((e >> 8) * (e & 255)) & (n - 1), n, &co, &si);
        ((float2 *)h)[at] = make_float2((float)co, (float)-si);
    }
    double2 r16d[16];
    float2 r16f[16];
    for (int m = 0; m < 16; ++m) {
        hepa_root_ld((uint64_t)m, 16, &co, &si);
        r16d[m] = make_double2((double)co, (double)-si);
        r16f[m] = make_float2((float)co, (float)-si);
    }
    cudaError_t e = cudaMemcpyToSymbol(c_w16d, r16d, sizeof r16d);
    if (e == cudaSuccess) e = cudaMemcpyToSymbol(c_w16f, r16f, sizeof r16f);
    if (e == cudaSuccess) e = cudaMalloc(&p->tw, total_tw * wsz);
    if (e == cudaSuccess) e = cudaMemcpy(p->tw, h, total_tw * wsz, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && p->npass == 2) e = cudaMalloc(&p->scratch, n * batch * elem);
    if (e == cudaSuccess && l2sq) {
        e = cudaMalloc((void **)&p->ctr, (2 * batch + 2) * sizeof(unsigned));
        if (e == cudaSuccess) e = cudaMemset(p->ctr, 0, (2 * batch + 2) * sizeof(unsigned));
        if (e == cudaSuccess) e = cudaMalloc(&p->ring, ((size_t)l2sq_r << logn) * elem);
        p->l2sq = logn, p->l2sq_d = l2sq_d, p->l2sq_r = l2sq_r;
    }
    free(h);
    // allow the big shared-memory blocks (above the default 48 KiB)
    size_t smem = 0;
    for (int i = 0; i < p->npass; ++i) smem = p->pass[i].smem > smem ? p->pass[i].smem : smem;
    void *k[2] = {NULL, NULL};
    const bool lat = p->pass[0].lr == 2;
    switch (mode) {
    case HEPA_DFT_FP16: k[0] = kernel_ptr<HEPA_DFT_FP16, false>(); k[1] = kernel_ptr<HEPA_DFT_FP16, true>(); break;
    case HEPA_DFT_FP16X2: k[0] = kernel_ptr<HEPA_DFT_FP16X2, false>(); k[1] = kernel_ptr<HEPA_DFT_FP16X2, true>(); break;
    case HEPA_DFT_FP32:
        k[0] = kernel_ptr<HEPA_DFT_FP32, false>();
        k[1] = kernel_ptr<HEPA_DFT_FP32, true>();
        break;
    default:
        k[0] = lat ? kernel_ptr<HEPA_DFT_FP64, false, true>() : kernel_ptr<HEPA_DFT_FP64, false>();
        k[1] = lat ? kernel_ptr<HEPA_DFT_FP64, true, true>() : kernel_ptr<HEPA_DFT_FP64, true>();
        break;
    }
    if (use_stk) {
        if (se.cluster > 1 && !cc_mode(mode) && e == cudaSuccess) {
            const int v = _hepa_env_flag("HEPA_DFT_THREAD_COPY"); // see g_dft_thread_copy
            e = cudaMemcpyToSymbol(g_dft_thread_copy, &v, sizeof v);
        }
        p->stk = logn;
        k[0] = se.fwd, k[1] = se.inv, smem = se.smem;
        for (int i = 0; i < 2 && e == cudaSuccess && se.cluster > 8; ++i)
            e = cudaFuncSetAttribute(k[i], cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    }
    for (int i = 0; i < 2 && e == cudaSuccess; ++i)
        e = (cudaError_t)_hepa_dev_allow_smem(k[i], smem);
    if (use_stk && se.persist && e == cudaSuccess) { // all the blocks that fit the GPU at once
        const unsigned fwd = blocks_at_once(k[0], se.threads, smem),
                       inv = blocks_at_once(k[1], se.threads, smem);
        p->stk_grid = fwd < inv ? fwd : inv;
        if (p->stk_grid == 0) e = cudaErrorInvalidConfiguration;
    }
    if (use_stk && se.block_bytes) { // L2 PREFETCH: about L2PF_BYTES ahead, at least one block
        const size_t lb = HEPA_DFT_L2PF_BYTES;
        p->stk_lead = (unsigned)((lb + se.block_bytes - 1) / se.block_bytes);
    }
    if (e != cudaSuccess) {
        const hepa_status s = _hepa_dev_status(e, "hepa_dft_plan_create");
        cudaFree(p->tw);
        cudaFree(p->scratch);
        cudaFree(p->ctr);
        cudaFree(p->ring);
        free(p);
        return s;
    }
    *out = p;
    return HEPA_OK;
}

extern "C" hepa_status hepa_dft_plan_create(hepa_dft_plan **out, size_t n, size_t batch,
                                            hepa_dft_mode mode) {
    if (!out || n < HEPA_DFT_MIN_N || n > HEPA_DFT_MAX_N || (n & (n - 1)) || batch == 0)
        return HEPA_ERR_INVALID_ARGUMENT;
    unsigned one, blk, logn = 0;
    size_t elem;
    mode_sizes(mode, &one, &blk, &elem);
    while (((size_t)1 << logn) < n) ++logn;
    // One pass while a vector fits a block; a vector above the block size in a batch too small to
    // give each SM two blocks goes through the four-step split, whose blocks can be smaller.
    unsigned l1 = 0;
    // Above the one-block size, FP64 runs one pass over a cluster of blocks, except for batches of
    // at most 2^16 elements (CKKS's single vectors), where the four-step latency mode is faster
    // (H100, CKKS encode 2^16: 92 µs with the cluster pass, 85 µs without).
    const bool clu = clu_available(mode, logn) && (size_t)n * batch > ((size_t)1 << 16);
    if ((logn > one && !clu) || (logn > blk && logn <= one && batch < 264)) l1 = logn / 2;
    return _hepa_dft_plan_create_split(out, n, batch, mode, l1);
}

extern "C" void hepa_dft_plan_destroy(hepa_dft_plan *p) {
    if (!p) return;
    cudaFree(p->tw);
    cudaFree(p->scratch);
    cudaFree(p->ctr);
    cudaFree(p->ring);
    free(p);
}

extern "C" hepa_status _hepa_dft_exec(const hepa_dft_plan *p, void *d_out, const void *d_in,
                                      int inverse, void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    cudaError_t e;
    if (p->l2sq) {
        e = launch_l2sq(p, d_out, d_in, inverse, st);
    } else if (p->stk) {
        // each block reads all its input into registers before writing: in place is safe
        e = launch_stk(p, d_out, d_in, inverse, st);
    } else if (p->npass == 1) {
        // each block reads all its input into shared memory before writing: in place is safe
        e = launch(p, p->pass[0], d_out, d_in, inverse, st);
    } else {
        e = launch(p, p->pass[0], p->scratch, d_in, inverse, st);
        if (e == cudaSuccess) e = launch(p, p->pass[1], d_out, p->scratch, inverse, st);
    }
    return e == cudaSuccess ? HEPA_OK : _hepa_dev_status(e, "hepa_dft_exec");
}

extern "C" hepa_status hepa_dft_exec(const hepa_dft_plan *p, void *d_out, const void *d_in,
                                     int inverse, void *stream) {
    if (!p || !d_out || !d_in) return HEPA_ERR_INVALID_ARGUMENT;
    if (((uintptr_t)d_out | (uintptr_t)d_in) & 15) {
        _hepa_set_error_message("hepa_dft_exec: buffers must be 16-byte aligned");
        return HEPA_ERR_INVALID_ARGUMENT;
    }
    hepa_status s = _hepa_dev_check_ptr(d_out, "hepa_dft_exec output");
    if (s == HEPA_OK) s = _hepa_dev_check_ptr(d_in, "hepa_dft_exec input");
    if (s != HEPA_OK) return s;
    return _hepa_dft_exec(p, d_out, d_in, inverse, stream);
}


extern "C" int _hepa_dft_plan_passes(const hepa_dft_plan *p) { return p->npass; }

extern "C" const char *_hepa_dft_plan_kernel(const hepa_dft_plan *p) {
    stk_entry e;
    if (p->l2sq) return "l2sq";
    if (p->stk) return stk_lookup(p->mode, p->stk, &e) && e.cluster > 1 ? "cluster" : "stockham";
    return p->npass == 1 ? "one-pass" : "four-step";
}
