// src/device/dft_fp64.cuh — complex DFT building blocks shared by the DFT plans (dft_cuda.cu) and
// by kernels that fuse a DFT with their own loads and stores (CKKS encode, src/rns/ckks_cuda.cu):
// complex multiply, in-register DFT_2 / DFT_4 / DFT_8 and stage twiddles (for double2, and for
// float2 in the FP32 plans and the tensor-core modes' FP32 parts), and dft64_cluster8, one FP64
// vector of n = 2^12 ... 2^15 over a thread-block cluster with caller-supplied load and store (in
// the manner of cuFFT's load/store callbacks). Forward transforms use w_n = e^(-2πi/n); INV
// conjugates every root. The host reference is src/host/dft.c.
#ifndef HEPA_SRC_DEVICE_DFT_FP64_CUH
#define HEPA_SRC_DEVICE_DFT_FP64_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include "device/internal.h"

namespace hepa_dft_fp64 {

__device__ __forceinline__ double2 cmul(double2 a, double2 b) {
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
template <bool INV> __device__ __forceinline__ double2 conj_if(double2 w) {
    return INV ? make_double2(w.x, -w.y) : w;
}
template <bool INV> __device__ __forceinline__ float2 conj_if(float2 w) {
    return INV ? make_float2(w.x, -w.y) : w;
}

// STAGE TWIDDLES: multiply input r = 1 .. R-1 of a radix-R Stockham group (R = 2, 4, 8, 16) by
// w^(e·r), where tw[i] = w^i (the plan's n-entry table; e·8 < n/2 for every stage's e). Only w^e,
// w^2e, w^4e and w^8e are loaded; the rest are products of two of them or of two such products
// (3 = 1·2, 5 = 1·4, 6 = 2·4, 7 = 3·4, 9 = 1·8, 10 = 2·8, 11 = 3·8, 12 = 4·8, 13 = 5·8, 14 = 6·8,
// 15 = 3·12: at most two roundings deep). Loading all fifteen made the FP64 Stockham kernels'
// twiddles 70% of their global load instructions, with lg_throttle and L1 misses (the table of
// n = 2^13 is 128 KiB) among their main stalls (ncu, H100, n = 2^13: 7.1 M global load
// instructions against cuFFT's 2.5 M for the same batch).
template <int R, bool INV, typename W>
__device__ __forceinline__ void stage_powers(W (&w)[R], const W *tw, unsigned e) {
    static_assert(R == 2 || R == 4 || R == 8 || R == 16, "radix 2 .. 16");
    w[0].x = 1, w[0].y = 0;
    w[1] = conj_if<INV>(__ldg(tw + e));
    if constexpr (R > 2) {
        w[2] = conj_if<INV>(__ldg(tw + 2 * e));
        w[3] = cmul(w[1], w[2]);
    }
    if constexpr (R > 4) {
        w[4] = conj_if<INV>(__ldg(tw + 4 * e));
        w[5] = cmul(w[1], w[4]);
        w[6] = cmul(w[2], w[4]);
        w[7] = cmul(w[3], w[4]);
    }
    if constexpr (R > 8) {
        w[8] = conj_if<INV>(__ldg(tw + 8 * e));
        w[9] = cmul(w[1], w[8]);
        w[10] = cmul(w[2], w[8]);
        w[11] = cmul(w[3], w[8]);
        w[12] = cmul(w[4], w[8]);
        w[13] = cmul(w[5], w[8]);
        w[14] = cmul(w[6], w[8]);
        w[15] = cmul(w[3], w[12]);
    }
}
template <int R, bool INV, typename W>
__device__ __forceinline__ void stage_twiddles(W *v, const W *tw, unsigned e) {
    W w[R];
    stage_powers<R, INV>(w, tw, e);
#pragma unroll
    for (int r = 1; r < R; ++r)
        v[r] = cmul(v[r], w[r]);
}
// LAST-STAGE TWIDDLES: the last stage (Ns·R = n) of a thread whose U groups are j + u·n/(U·R)
// (u < U; its j < n/(U·R)): input r of group u needs w^((j + u·n/(U·R))·r) = w^(j·r) ·
// w_(U·R)^(u·r), so the thread loads the powers of w^j once (STAGE TWIDDLES) and takes the rest
// from w16(m) = e^(-2πi·m/16) (U·R divides 16), one more rounding. Before, each group loaded its
// R - 1 twiddles: 8 loads per thread at n = 2^13 (radix 2, U = 8), 12 at 2^14 (radix 4).
template <int R, int U, bool INV, typename W, class Root>
__device__ __forceinline__ void last_stage_twiddles(W *v, const W *tw, unsigned j, Root w16) {
    static_assert(U * R <= 16 && 16 % (U * R) == 0, "U·R divides 16");
    constexpr int SC = 16 / (U * R); // w_(U·R) = w_16^SC
    W a[R];
    stage_powers<R, INV>(a, tw, j);
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
        for (int r = 1; r < R; ++r) {
            const int m = (u * r * SC) & 15;
            v[u * R + r] = cmul(v[u * R + r], m ? cmul(a[r], conj_if<INV>(w16(m))) : a[r]);
        }
}

// In-register DFT_4 (forward: w_4 = −i; inverse: +i), on elements a[o], a[o+st], ...
template <bool INV, typename W> __device__ __forceinline__ void dft4(W *a, int o, int st) {
    const W x0 = a[o], x1 = a[o + st], x2 = a[o + 2 * st], x3 = a[o + 3 * st];
    W s02, d02, s13, d13;
    s02.x = x0.x + x2.x, s02.y = x0.y + x2.y;
    d02.x = x0.x - x2.x, d02.y = x0.y - x2.y;
    s13.x = x1.x + x3.x, s13.y = x1.y + x3.y;
    d13.x = x1.x - x3.x, d13.y = x1.y - x3.y;
    W t; // (x1 − x3)·w_4 : forward −i·d = (d.y, −d.x), inverse i·d = (−d.y, d.x)
    if (INV) t.x = -d13.y, t.y = d13.x;
    else t.x = d13.y, t.y = -d13.x;
    a[o].x = s02.x + s13.x, a[o].y = s02.y + s13.y;
    a[o + 2 * st].x = s02.x - s13.x, a[o + 2 * st].y = s02.y - s13.y;
    a[o + st].x = d02.x + t.x, a[o + st].y = d02.y + t.y;
    a[o + 3 * st].x = d02.x - t.x, a[o + 3 * st].y = d02.y - t.y;
}

// In-place DFT_R, natural order, R = 2, 4 or 8. w16(m) returns e^(-2πi·m/16) (only m = 2, 4, 6
// are asked for): the DFT plans read it from constant memory, dft64_cluster8 uses w16_exact.
template <int R, bool INV, typename W, typename Root>
__device__ __forceinline__ void dft_small(W *v, Root w16) {
    static_assert(R == 2 || R == 4 || R == 8, "DFT_2, DFT_4 or DFT_8");
    if constexpr (R == 8) {
        // 8 = 2·4: r = r0 + 2·r1, s = s1 + 4·s0: DFT_4 over r1, twiddle w_8^(r0·s1), DFT_2 over r0
        dft4<INV>(v, 0, 2);
        dft4<INV>(v, 1, 2); // v[r0 + 2·s1]
#pragma unroll
        for (int s1 = 1; s1 < 4; ++s1) v[1 + 2 * s1] = cmul(v[1 + 2 * s1], conj_if<INV>(w16(2 * s1)));
        W y[8];
#pragma unroll
        for (int s1 = 0; s1 < 4; ++s1) {
            const W a = v[2 * s1], b = v[2 * s1 + 1];
            y[s1].x = a.x + b.x, y[s1].y = a.y + b.y;
            y[s1 + 4].x = a.x - b.x, y[s1 + 4].y = a.y - b.y;
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = y[i];
    } else if constexpr (R == 4) {
        dft4<INV>(v, 0, 1);
    } else {
        const W a = v[0], b = v[1];
        v[0].x = a.x + b.x, v[0].y = a.y + b.y;
        v[1].x = a.x - b.x, v[1].y = a.y - b.y;
    }
}

// Stockham autosort write of a stage's outputs to shared memory: output k of group
// j = t + u·T (u < U) goes to (j / Ns)·Ns·R + (j mod Ns) + k·Ns, at position sw(that).
template <unsigned R, unsigned NS, unsigned U, unsigned T, typename W, typename Sw>
__device__ __forceinline__ void stockham_put(W *sm, const W *v, unsigned t, Sw sw) {
#pragma unroll
    for (unsigned u = 0; u < U; ++u) {
        const unsigned j = t + u * T, base = (j / NS) * NS * R + (j & (NS - 1));
#pragma unroll
        for (unsigned k = 0; k < R; ++k) sm[sw(base + k * NS)] = v[u * R + k];
    }
}

// e^(-2πi·m/16) for m = 2, 4, 6 as exact double literals (√2/2 correctly rounded), no table.
struct w16_exact {
    __device__ __forceinline__ double2 operator()(int m) const {
        constexpr double c = 0.70710678118654752440;
        return m == 2 ? make_double2(c, -c) : m == 4 ? make_double2(0.0, -1.0) : make_double2(-c, -c);
    }
};

// ---- one FP64 vector over a cluster of 8 blocks (latency: a single vector of 2^12 ... 2^15) ---
//
// Four-step n = n2·8, element p = 8·i2 + i1, output K = k2 + n2·k1:
//   X[K] = Σ_i1 w_8^(i1·k1) · w_n^(i1·k2) · Σ_i2 w_n2^(i2·k2) · x[8·i2 + i1].
// Phase 1: block c (of the cluster's 8) does the DFT of size n2 over i2 of the elements with
// i1 = c (Stockham in shared memory: radix-8 stages, then one of radix 2 or 4 when log2 n2 is not
// a multiple of 3; thread t does group t, or 8/R groups t + u·T in the last stage), multiplies
// output k2 by w_n^(c·k2) and stores it in row c of block k2 / T's second buffer (distributed
// shared memory). Phase 2, after the cluster barrier: thread t of block c does the DFT_8 over i1
// of column k2 = c·T + t, whose outputs K = k2 + n2·k1 are consecutive across a warp.
// Against a single-vector plan (its four-step latency mode, two kernels) the caller's placement and
// rounding kernels and a global round trip disappear; 8 SMs run T = n2/8 threads each.
// tw: w_n^e for e < n (forward roots; INV conjugates them). Twiddles other than the table's come
// from products of at most three of its entries (c8_powers), a few ulps each: CKKS encode, the
// only user (forward), keeps its coefficients within the tolerance of test_gpu_ckks against the
// CPU encoder.
constexpr unsigned kC8Blocks = 8; // the cluster size dft64_cluster8 is written for (its launch)
template <int LOGN> struct c8_shape {
    static_assert(LOGN >= 12 && LOGN <= 15, "n = 2^12 ... 2^15 (2^16 would need 256 KiB)");
    static constexpr unsigned N = 1u << LOGN, N2 = N / 8, T = N2 / 8; // T: 64 ... 512 threads
    static constexpr size_t SMEM = 2 * N2 * sizeof(double2);             // 16 ... 128 KiB
};
// Shared-memory swizzle of phase 1: every quarter-warp's 16-byte accesses hit 8 bank groups —
// reads j + r·n2/R are consecutive in j, writes have j mod 8 in their low bits (Ns >= 8) or in
// bits 3-5 (Ns = 1). (Phase 2's buffer needs none: written and read consecutively.)
__device__ __forceinline__ unsigned c8_sw(unsigned p) { return p ^ ((p >> 3) & 7u); }

// Phase 1's stages: s < S8 radix 8, then radix 2^LR; stage s has Ns = 8^s and U(s) = 8/R groups
// per thread. Stage s >= 1 needs w_(Ns·R)^(jm·r), r < R, for each of its groups (jm = j mod Ns):
// the thread loads w_(Ns·R)^jm once per group at the start of the kernel (pre[off(s) + u]; the
// loads overlap the input gather) and takes the powers by multiplication (c8_powers). Loading the
// R - 1 powers from the table in each stage instead (a global round trip of scattered 16-byte
// loads per stage) made phase 1 of 2^15 take 8.5 µs instead of ~2.4 µs (per-phase timers, H100).
template <int LOGN> struct c8_plan {
    static constexpr int L2 = LOGN - 3, S8 = L2 / 3, LR = L2 % 3, NSTAGE = S8 + (LR ? 1 : 0);
    static __host__ __device__ constexpr int R(int s) { return s < S8 ? 8 : 1 << LR; }
    static __host__ __device__ constexpr int U(int s) { return 8 / R(s); }
    static __host__ __device__ constexpr int off(int s) { return s <= 1 ? 0 : off(s - 1) + U(s - 1); }
    static constexpr int NPRE = off(NSTAGE) + U(NSTAGE - 1) + 1; // + the last stage's four-step bases and g
};
// p[r] = b^r for 1 <= r < R (a product tree of depth 3 for R = 8; each power within a few ulps)
template <int R> __device__ __forceinline__ void c8_powers(double2 b, double2 (&p)[8]) {
    p[1] = b;
    if constexpr (R > 2) {
        p[2] = cmul(b, b);
        p[3] = cmul(p[2], b);
    }
    if constexpr (R > 4) {
        p[4] = cmul(p[2], p[2]);
        p[5] = cmul(p[4], b);
        p[6] = cmul(p[3], p[3]);
        p[7] = cmul(p[4], p[3]);
    }
}

// Phase-1 stage S (radix R, Ns = 8^S, the product of the earlier radices). The first takes its
// inputs from io; the last sends its outputs, times the four-step twiddles, to the other blocks.
template <int LOGN, int S, bool INV, class IO>
__device__ __forceinline__ void c8_stage(double2 (&v)[8], double2 *sm, double2 *sm2, const IO &io,
                                         const double2 *pre, unsigned c, unsigned t) {
    using sh = c8_shape<LOGN>;
    using pl = c8_plan<LOGN>;
    constexpr int R = pl::R(S);
    constexpr unsigned N2 = sh::N2, T = sh::T, U = 8 / R, NR = N2 / R, NS = 1u << (3 * S);
    constexpr bool FIRST = S == 0, LAST = S == pl::NSTAGE - 1;
    if constexpr (FIRST) {
        static_assert(R == 8, "the first stage has radix 8");
        unsigned at[8];
#pragma unroll
        for (unsigned r = 0; r < 8; ++r) at[r] = 8 * (t + r * NR) + c;
        io.load8(at, v);
    } else {
#pragma unroll
        for (unsigned u = 0; u < U; ++u)
#pragma unroll
            for (unsigned r = 0; r < R; ++r) v[u * R + r] = sm[c8_sw(t + u * T + r * NR)];
    }
#pragma unroll
    for (unsigned u = 0; u < U; ++u) {
        if constexpr (NS > 1) {
            double2 pw[8];
            c8_powers<R>(pre[c8_plan<LOGN>::off(S) + u], pw);
#pragma unroll
            for (unsigned r = 1; r < R; ++r) v[u * R + r] = cmul(v[u * R + r], pw[r]);
        }
        dft_small<R, INV>(v + u * R, w16_exact{});
    }
    if constexpr (LAST) {
        // Ns·R = n2: output k of group j is k2 = j + k·Ns; it goes to block k2 / T, row c
        asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory"); // every block runs
        namespace cg = cooperative_groups;
        cg::cluster_group cluster = cg::this_cluster();
        // w_n^(c·k2) = w_n^(c·(t + u·T)) · g^k, g = w_n^(c·Ns)
        constexpr int P = c8_plan<LOGN>::off(S) + U;
        double2 gk[8];
        c8_powers<R>(pre[P + U], gk);
#pragma unroll
        for (unsigned u = 0; u < U; ++u)
#pragma unroll
            for (unsigned k = 0; k < R; ++k) {
                const unsigned k2 = t + u * T + k * NS;
                const double2 w = k ? cmul(pre[P + u], gk[k]) : pre[P + u];
                cluster.map_shared_rank(sm2, k2 / T)[c * T + k2 % T] = cmul(v[u * R + k], w);
            }
    } else {
        __syncthreads(); // every thread has read this stage's inputs
        stockham_put<R, NS, U, T>(sm, v, t, c8_sw);
        __syncthreads();
    }
}

// pre[off(s) + u] = w_n^(jm·n/(Ns·R)) for stages s >= 1 and their groups u; after them the last
// stage's four-step bases w_n^(c·(t + u·T)) and g = w_n^(c·Ns).
template <int LOGN, bool INV, int S>
__device__ __forceinline__ void c8_pre(double2 *pre, const double2 *tw, unsigned c, unsigned t) {
    using pl = c8_plan<LOGN>;
    constexpr unsigned N = c8_shape<LOGN>::N, T = c8_shape<LOGN>::T;
    if constexpr (S < pl::NSTAGE) {
        constexpr unsigned NS = 1u << (3 * S), R = pl::R(S);
#pragma unroll
        for (unsigned u = 0; u < (unsigned)pl::U(S); ++u)
            pre[pl::off(S) + u] = conj_if<INV>(__ldg(tw + ((t + u * T) & (NS - 1)) * (N / (NS * R))));
        c8_pre<LOGN, INV, S + 1>(pre, tw, c, t);
    } else {
        constexpr int L = pl::NSTAGE - 1, P = pl::off(pl::NSTAGE);
        constexpr unsigned NSL = 1u << (3 * L);
#pragma unroll
        for (unsigned u = 0; u < (unsigned)pl::U(L); ++u) pre[P + u] = conj_if<INV>(__ldg(tw + c * (t + u * T)));
        pre[P + pl::U(L)] = conj_if<INV>(__ldg(tw + c * NSL));
    }
}

template <int LOGN, bool INV, int S, class IO>
__device__ __forceinline__ void c8_stages(double2 (&v)[8], double2 *sm, double2 *sm2, const IO &io,
                                          const double2 *pre, unsigned c, unsigned t) {
    if constexpr (S < c8_plan<LOGN>::NSTAGE) {
        c8_stage<LOGN, S, INV>(v, sm, sm2, io, pre, c, t);
        c8_stages<LOGN, INV, S + 1>(v, sm, sm2, io, pre, c, t);
    }
}

// The body of a kernel launched as one cluster of 8 blocks of c8_shape<LOGN>::T threads with
// c8_shape<LOGN>::SMEM bytes of dynamic shared memory. IO: load8(e, v) puts input elements e[r]
// (< n) in v[r], store8(k, v) takes output elements k[r] = v[r], r < 8; each element once. A
// thread's eight at a time, so that IO can issue its memory accesses together: with 4 warps per
// scheduler the kernel is bound by the latency of one thread's chain (ncu, 2^15, an earlier
// version with a load and a store call per element, each waiting on the one before: 38 µs).
// Where the time goes (H100, 2^15, CKKS encode in hepa-bench --ckks, per-phase globaltimer reads
// of each block's thread 0, since removed): input gather ~4 µs (two dependent global loads: the
// slot index, then the slot), phase 1 ~2.4 µs, cluster wait + remote stores ~1.3 µs, cluster
// barrier ~1 µs, phase 2 with the caller's stores ~2.5 µs. Loading the outputs' twist factors
// at the start instead of in store8 measured within noise (75.4 vs 76.4 µs per encode).
template <int LOGN, bool INV, class IO>
__device__ __forceinline__ void dft64_cluster8(const IO &io, const double2 *tw) {
#if __CUDA_ARCH__ >= 900
    using sh = c8_shape<LOGN>;
    constexpr unsigned N2 = sh::N2, T = sh::T;
    extern __shared__ __align__(16) unsigned char c8_smem[];
    double2 *sm = (double2 *)c8_smem, *sm2 = sm + N2;
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned c = cluster.block_rank(), t = threadIdx.x;
    // arrive now, wait (in the last stage) before the first remote store: every block then runs
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
    using pl = c8_plan<LOGN>;
    // the twiddle bases (see c8_plan)
    double2 pre[pl::NPRE];
    c8_pre<LOGN, INV, 1>(pre, tw, c, t);
    double2 v[8];
    c8_stages<LOGN, INV, 0>(v, sm, sm2, io, pre, c, t);
    cluster.sync(); // every block's rows have landed
#pragma unroll
    for (unsigned i1 = 0; i1 < 8; ++i1) v[i1] = sm2[i1 * T + t];
    dft_small<8, INV>(v, w16_exact{});
    const unsigned k2 = c * T + t;
    unsigned at[8];
#pragma unroll
    for (unsigned k1 = 0; k1 < 8; ++k1) at[k1] = k2 + N2 * k1;
    io.store8(at, v);
#else
    (void)io, (void)tw;
#endif
}

// cluster_config: the launch of `clusters` clusters of `cluster` blocks of `threads` threads with
// `smem` bytes of dynamic shared memory each (cfg points at attr).
// cluster_kernel_ok: whether kernel k (compiled for sm_90) launches so on the current device; sets
// the kernel's shared-memory limit (and, above 8 blocks, the non-portable cluster size) on the way.
inline void cluster_config(unsigned clusters, unsigned cluster, unsigned threads, size_t smem,
                           cudaStream_t st, cudaLaunchConfig_t &cfg, cudaLaunchAttribute &attr) {
    cfg = {};
    cfg.gridDim = dim3(clusters * cluster);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
}
inline bool cluster_kernel_ok(const void *k, unsigned cluster, unsigned threads, size_t smem) {
    int dev = 0, ok = 0;
    cudaFuncAttributes a;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&ok, cudaDevAttrClusterLaunch, dev) != cudaSuccess ||
        cudaFuncGetAttributes(&a, k) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    if (!ok || a.ptxVersion < 90) return false;
    if ((cluster > 8 && cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) ||
        _hepa_dev_allow_smem(k, smem) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cluster_config(1, cluster, threads, smem, 0, cfg, attr);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, k, &cfg) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return clusters > 0;
}

} // namespace hepa_dft_fp64
using namespace hepa_dft_fp64;

#endif // HEPA_SRC_DEVICE_DFT_FP64_CUH
