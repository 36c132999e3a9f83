// bench/experiments/ntt_cluster.cu - experiment: a ONE-PASS negacyclic NTT of n = 2^16 for
// FP64 limbs (q < 2^47), one limb per thread-block cluster of 16 blocks that exchange through
// distributed shared memory, against the library's two-pass transform (_hepa_dev_ntt_forward /
// _inverse) in the same run: bit-exact check, then hot and cold median µs.
//
// Why: a two-pass transform reads and writes the data twice; the one-pass floor is half the
// bytes. The library's passes are also bound by issue and latency more than by bytes, so the
// question is whether one pass with fewer instructions per element (no global round trip, no
// per-pass load/store index work) runs faster on the same GPU.
//
// Layout (x = 4096·h + l, h = the top 4 bits; block b of a cluster, thread t < 256, 16 values a
// thread; stage on bit B pairs x and x + 2^B with table entry 2^(15-B) + (x >> (B+1)), as in
// ntt_cuda.cu):
//  forward: phase A, block b loads l = 256·b + t for every h (coalesced) and runs bits 15..12
//    (radix 16 in registers, 15 twiddles shared by the block), stores them to its S[256·h + t];
//    cluster barrier; phase B, block b takes h = b: round 1 reads l = 256·s + t from block s
//    (S_s[256·b + t]) and runs bits 11..8, round 2 bits 7..4, round 3 bits 3..0 through the
//    padded local buffer T, then a transpose through T for coalesced stores.
//  inverse: the mirror image (bits 0..11 in block b = h on contiguous data, S[l], barrier,
//    block b takes l = 256·b + t of every h and runs bits 12..15, the last one scaled).
// FP64 arithmetic and bounds as in ntt_cuda.cu (FP64 LIMBS): the 16 forward stages from [0, q)
// stay below 11.82q; the inverse reduces its sums at bits 2, 5, 8, 11 and 14.
//
// Result (H200, 2026-11-28, bench/results/2026-11-28-h200-ntt-cluster-onepass.md): bit-exact
// with the library in and out of place, but SLOWER at every size tried: 2^16/34 40-bit forward
// 29.9-31.7 µs hot against 25.7-26.9 for the library's two passes, inverse 33.3-35.4 against
// 28.3-29.7; L = 1 .. 8 and 64 too. Under ncu (serialised, base clocks) one cluster launch takes
// as long as the library's two passes together (36.0 against 17.7 + 18.7 µs forward): the same
// FP64 work, latency-bound at 4.7 resident warps per scheduler (80 registers: 3 blocks an SM,
// 21 clusters resident, 544 blocks in 1.37 waves), while the library's passes overlap through
// PDL. Kept as the record and as a bit-exact starting point, not used by the library.
//
//   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHEPA_BUILD_TESTS=OFF
//   ninja -C build hepa_static
//   nvcc -O3 -arch=sm_90 -std=c++17 -I include -I src -I bench/experiments -o build/nttcl
//     bench/experiments/ntt_cluster.cu build/libhepa.a -lcudart -lm -lpthread
//   ./build/nttcl 34 40 [reps]      (L BITS: n = 2^16, L primes of BITS < 47 bits)
// (-DCL_MINB=2: 128 registers, 2 blocks an SM; -DTWV=0: 15 scalar twiddle loads a round)
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#include "exp_check.h"
#include "device/internal.h"
#include "rns/internal.h"
#include "ntt/f64_arith.cuh"

namespace cg = cooperative_groups;

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

constexpr int LOGN = 16, N = 1 << LOGN, CL = 16, TPB = 256;
constexpr int TPAD = 4096 + 256;                     // T: index i at i + (i >> 4)
constexpr size_t SMEM = (4096 + TPAD) * sizeof(double); // S, T
__device__ __forceinline__ int pad(int i) { return i + (i >> 4); }

#ifndef CL_MINB
#define CL_MINB 3
#endif

struct LimbK {
    double qd, qi;
    const double *tw; // this direction's n doubles
};
__device__ __forceinline__ LimbK limb_k(const hepa_dev_limb *limbs, const uint64_t *tables,
                                        int limb, bool inv) {
    LimbK k;
    k.qd = limbs[limb].qd;
    k.qi = limbs[limb].qi;
    k.tw = reinterpret_cast<const double *>(tables + limbs[limb].tw64) + (inv ? N : 0);
    return k;
}

// A round's 15 twiddles. The stage on round bit j (3 = the highest) of the pair with round index
// k (bit j clear) uses table entry (R << lg) + (k >> (j + 1)), lg = 3 - j, where R is fixed by
// the round and the thread's other index bits (see the kernels); w[2^lg + i] = entry (R << lg) + i,
// so a round is 1 + 2 + 4 + 8 contiguous entries, loaded as 8 loads (TWV) or 15.
#ifndef TWV
#define TWV 1
#endif
__device__ __forceinline__ void load_tw16(double (&w)[16], const double *tw, unsigned R) {
#if TWV
    w[1] = __ldg(tw + R);
    const double2 a = __ldg(reinterpret_cast<const double2 *>(tw + 2 * R));
    w[2] = a.x;
    w[3] = a.y;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const double2 c = __ldg(reinterpret_cast<const double2 *>(tw + 4 * R) + i);
        w[4 + 2 * i] = c.x;
        w[5 + 2 * i] = c.y;
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const double2 c = __ldg(reinterpret_cast<const double2 *>(tw + 8 * R) + i);
        w[8 + 2 * i] = c.x;
        w[9 + 2 * i] = c.y;
    }
#else
#pragma unroll
    for (int lg = 0; lg < 4; ++lg)
#pragma unroll
        for (int i = 0; i < (1 << lg); ++i) w[(1 << lg) + i] = __ldg(tw + (R << lg) + i);
#endif
}
__device__ __forceinline__ double twj(const double (&w)[16], int j, int k) {
    return w[(1 << (3 - j)) + (k >> (j + 1))];
}

// forward radix-16 round over v[16]: stages on round bits 3..0
__device__ __forceinline__ void fwd16(double (&v)[16], const LimbK &K, const double (&w)[16]) {
#pragma unroll
    for (int j = 3; j >= 0; --j) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            if ((k >> j) & 1) continue;
            const double t = f64_mulmod_q(v[k | (1 << j)], twj(w, j, k), K.qd, K.qi);
            const double x = v[k];
            v[k] = __dadd_rn(x, t);
            v[k | (1 << j)] = __dsub_rn(x, t);
        }
    }
}
// inverse radix-16 round, round bits 0..3 (tile bits B0 + j); the sums reduced at tile bits
// 2, 5, 8, 11, 14 (B % 3 == 2); the stage j = 3 scaled when SCALE (the transform's last)
template <bool SCALE>
__device__ __forceinline__ void inv16(double (&v)[16], const LimbK &K, const double (&w)[16],
                                      int B0, double ni, double niw) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            if ((k >> j) & 1) continue;
            const double x = v[k], y = v[k | (1 << j)];
            if (SCALE && j == 3) {
                v[k] = f64_mulmod_q(__dadd_rn(x, y), ni, K.qd, K.qi);
                v[k | (1 << j)] = f64_mulmod_q(__dsub_rn(x, y), niw, K.qd, K.qi);
            } else {
                const double s = __dadd_rn(x, y);
                v[k] = (B0 + j) % 3 == 2 ? f64_reduce_q(s, K.qd, K.qi) : s;
                v[k | (1 << j)] = f64_mulmod_q(__dsub_rn(x, y), twj(w, j, k), K.qd, K.qi);
            }
        }
    }
}

__device__ __forceinline__ void cl_arrive() {
    asm volatile("barrier.cluster.arrive.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cl_wait() {
    asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
}

__global__ void __launch_bounds__(TPB, CL_MINB)
ntt_cl_fwd(uint64_t *out, const uint64_t *in, const hepa_dev_limb *limbs, const uint64_t *tables) {
    extern __shared__ double sm[];
    double *S = sm, *T = sm + 4096;
    cg::cluster_group cl = cg::this_cluster();
    const int b = (int)cl.block_rank(), t = threadIdx.x, limb = blockIdx.x / CL;
    const LimbK K = limb_k(limbs, tables, limb, false);
    const uint64_t *x = in + (size_t)limb * N;
    double v[16], w[16];
    // phase A: bits 15..12 (h), l = 256·b + t
#pragma unroll
    for (int h = 0; h < 16; ++h) v[h] = u2d(__ldcs(x + 4096 * h + 256 * b + t));
    load_tw16(w, K.tw, 1);
    fwd16(v, K, w);
#pragma unroll
    for (int h = 0; h < 16; ++h) S[256 * h + t] = v[h];
    load_tw16(w, K.tw, 16 + b);
    cl.sync();
    // phase B, round 1: bits 11..8 (s), x = 4096·b + 256·s + t
#pragma unroll
    for (int s = 0; s < 16; ++s) v[s] = cl.map_shared_rank(S, s)[256 * b + t];
    cl_arrive(); // S is no longer read by this block; its cluster peers may leave once all arrive
    fwd16(v, K, w);
#pragma unroll
    for (int s = 0; s < 16; ++s) T[pad(256 * s + t)] = v[s];
    load_tw16(w, K.tw, 256 + 16 * b + (t >> 4));
    __syncthreads();
    // round 2: bits 7..4 (m), l = 256·s' + 16·m + c, s' = t >> 4, c = t & 15
    {
        const int s2 = t >> 4, c = t & 15;
#pragma unroll
        for (int m = 0; m < 16; ++m) v[m] = T[pad(256 * s2 + 16 * m + c)];
        fwd16(v, K, w);
#pragma unroll
        for (int m = 0; m < 16; ++m) T[pad(256 * s2 + 16 * m + c)] = v[m];
    }
    load_tw16(w, K.tw, 4096 + 256 * b + t);
    __syncthreads();
    // round 3: bits 3..0 (c), l = 16·t + c
#pragma unroll
    for (int c = 0; c < 16; ++c) v[c] = T[pad(16 * t + c)];
    fwd16(v, K, w);
    __syncthreads(); // round 3's reads of T are done: T takes the outputs
#pragma unroll
    for (int c = 0; c < 16; ++c) T[pad(16 * t + c)] = __longlong_as_double(
        (long long)f64_canonical_q(v[c], K.qd, K.qi));
    __syncthreads();
    uint64_t *y = out + (size_t)limb * N + 4096 * b;
#pragma unroll
    for (int k = 0; k < 16; ++k)
        __stcs(y + 256 * k + t, (uint64_t)__double_as_longlong(T[pad(256 * k + t)]));
    cl_wait();
}

__global__ void __launch_bounds__(TPB, CL_MINB)
ntt_cl_inv(uint64_t *out, const uint64_t *in, const hepa_dev_limb *limbs, const uint64_t *tables) {
    extern __shared__ double sm[];
    double *S = sm, *T = sm + 4096;
    cg::cluster_group cl = cg::this_cluster();
    const int b = (int)cl.block_rank(), t = threadIdx.x, limb = blockIdx.x / CL;
    const LimbK K = limb_k(limbs, tables, limb, true);
    const uint64_t *x = in + (size_t)limb * N + 4096 * b;
    double v[16], w[16];
    // phase A on x = 4096·b + l: coalesced load, transposed through T
#pragma unroll
    for (int k = 0; k < 16; ++k) T[pad(256 * k + t)] = u2d(__ldcs(x + 256 * k + t));
    load_tw16(w, K.tw, 4096 + 256 * b + t);
    __syncthreads();
    // round 1: bits 0..3 (c), l = 16·t + c
#pragma unroll
    for (int c = 0; c < 16; ++c) v[c] = T[pad(16 * t + c)];
    inv16<false>(v, K, w, 0, 0.0, 0.0);
#pragma unroll
    for (int c = 0; c < 16; ++c) T[pad(16 * t + c)] = v[c];
    load_tw16(w, K.tw, 256 + 16 * b + (t >> 4));
    __syncthreads();
    // round 2: bits 4..7 (m)
    {
        const int s2 = t >> 4, c = t & 15;
#pragma unroll
        for (int m = 0; m < 16; ++m) v[m] = T[pad(256 * s2 + 16 * m + c)];
        inv16<false>(v, K, w, 4, 0.0, 0.0);
#pragma unroll
        for (int m = 0; m < 16; ++m) T[pad(256 * s2 + 16 * m + c)] = v[m];
    }
    load_tw16(w, K.tw, 16 + b);
    __syncthreads();
    // round 3: bits 8..11 (s), l = 256·s + t
#pragma unroll
    for (int s = 0; s < 16; ++s) v[s] = T[pad(256 * s + t)];
    inv16<false>(v, K, w, 8, 0.0, 0.0);
#pragma unroll
    for (int s = 0; s < 16; ++s) S[256 * s + t] = v[s];
    load_tw16(w, K.tw, 1);
    cl.sync();
    // phase B: bits 12..15 (h), l = 256·b + t, the last stage scaled
#pragma unroll
    for (int h = 0; h < 16; ++h) v[h] = cl.map_shared_rank(S, h)[256 * b + t];
    cl_arrive();
    const hepa_dev_limb &lc = limbs[limb];
    inv16<true>(v, K, w, 12, u2d(lc.n_inv), u2d(lc.n_inv_w));
    uint64_t *y = out + (size_t)limb * N + 256 * b + t;
#pragma unroll
    for (int h = 0; h < 16; ++h) __stcs(y + 4096 * h, f64_canonical_q(v[h], K.qd, K.qi));
    cl_wait();
}

// the launch configuration of L limbs: L clusters of CL blocks (a: its one attribute)
static cudaLaunchConfig_t cl_config(size_t L, cudaStream_t st, cudaLaunchAttribute *a) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(L * CL));
    cfg.blockDim = dim3(TPB);
    cfg.dynamicSmemBytes = SMEM;
    cfg.stream = st;
    a[0].id = cudaLaunchAttributeClusterDimension;
    a[0].val.clusterDim.x = CL;
    a[0].val.clusterDim.y = 1;
    a[0].val.clusterDim.z = 1;
    cfg.attrs = a;
    cfg.numAttrs = 1;
    return cfg;
}

static void launch(bool inv, const hepa_ring *r, size_t L, uint64_t *out, const uint64_t *in) {
    cudaLaunchAttribute a[1];
    const cudaLaunchConfig_t cfg = cl_config(L, (cudaStream_t)r->dev->stream, a);
    const hepa_dev_limb *limbs = (const hepa_dev_limb *)r->dev->limbs;
    const uint64_t *tables = (const uint64_t *)r->dev->tables;
    if (inv)
        CK(cudaLaunchKernelEx(&cfg, ntt_cl_inv, out, in, limbs, tables));
    else
        CK(cudaLaunchKernelEx(&cfg, ntt_cl_fwd, out, in, limbs, tables));
}

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s L BITS [reps]\n", argv[0]);
        return 2;
    }
    char a1[] = "16";
    char *av[4] = {argv[0], a1, argv[1], argv[2]};
    hepa_ring *r;
    hepa_poly *p;
    size_t L;
    if (exp_ntt_setup(4, av, &r, &p, &L)) return 2;
    const int reps = argc > 3 ? atoi(argv[3]) : 30;
    for (size_t i = 0; i < L; ++i)
        if (r->moduli[i] >= HEPA_DEV_F64_BELOW) {
            fprintf(stderr, "FP64 limbs only (q < 2^47)\n");
            return 2;
        }
    cudaStream_t st = (cudaStream_t)r->dev->stream;
    CK(cudaFuncSetAttribute(ntt_cl_fwd, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(ntt_cl_inv, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(ntt_cl_fwd, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    CK(cudaFuncSetAttribute(ntt_cl_inv, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    {
        cudaLaunchAttribute a[1];
        const cudaLaunchConfig_t cfg = cl_config(L, st, a);
        int nc = 0;
        CK(cudaOccupancyMaxActiveClusters(&nc, ntt_cl_fwd, &cfg));
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, ntt_cl_fwd));
        printf("fwd: %d regs, %zu local bytes, max active clusters %d\n", fa.numRegs,
               (size_t)fa.localSizeBytes, nc);
        CK(cudaOccupancyMaxActiveClusters(&nc, ntt_cl_inv, &cfg));
        CK(cudaFuncGetAttributes(&fa, ntt_cl_inv));
        printf("inv: %d regs, %zu local bytes, max active clusters %d\n", fa.numRegs,
               (size_t)fa.localSizeBytes, nc);
    }
    const size_t words = L * N, bytes = words * 8;
    // cold: K polynomials over 4x the L2
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    const int K = (int)std::min<size_t>(64, (4 * (size_t)l2 + bytes - 1) / bytes + 1);
    uint64_t *in, *ref, *got, *pool;
    CK(cudaMalloc(&in, bytes));
    CK(cudaMalloc(&ref, bytes));
    CK(cudaMalloc(&got, bytes));
    CK(cudaMalloc(&pool, bytes * K));
    CK(cudaMemcpy(in, p->data, bytes, cudaMemcpyDeviceToDevice));
    for (int k = 0; k < K; ++k)
        CK(cudaMemcpy(pool + k * words, in, bytes, cudaMemcpyDeviceToDevice));
    std::vector<uint64_t> h1(words), h2(words);
    int bad = 0;
    for (int inv = 0; inv < 2; ++inv) {
        // bit-exact check against the library (poisoned output), then in place
        HK(inv ? _hepa_dev_ntt_inverse(r, L, ref, in) : _hepa_dev_ntt_forward(r, L, ref, in));
        CK(cudaMemset(got, 0xA5, bytes));
        launch(inv, r, L, got, in);
        CK(cudaStreamSynchronize(st));
        CK(cudaGetLastError());
        CK(cudaMemcpy(h1.data(), ref, bytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(h2.data(), got, bytes, cudaMemcpyDeviceToHost));
        size_t diff = 0, first = words;
        for (size_t i = 0; i < words; ++i)
            if (h1[i] != h2[i]) {
                if (!diff) first = i;
                ++diff;
            }
        CK(cudaMemcpy(got, in, bytes, cudaMemcpyDeviceToDevice));
        launch(inv, r, L, got, got);
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(h2.data(), got, bytes, cudaMemcpyDeviceToHost));
        size_t diff2 = 0;
        for (size_t i = 0; i < words; ++i) diff2 += h1[i] != h2[i];
        printf("%s: out of place %zu words differ (first %zu: %llx vs %llx), in place %zu\n",
               inv ? "inverse" : "forward", diff, first,
               first < words ? (unsigned long long)h1[first] : 0ull,
               first < words ? (unsigned long long)h2[first] : 0ull, diff2);
        bad |= diff || diff2;
    }
    // timing: alternate library / cluster, hot (one buffer in place) and cold (K buffers)
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const char *nm[2] = {"forward", "inverse"};
    for (int round = 0; round < 2; ++round)
        for (int inv = 0; inv < 2; ++inv)
            for (int cold = 0; cold < 2; ++cold)
                for (int which = 0; which < 2; ++which) {
                    std::vector<float> ts;
                    for (int i = -5; i < reps; ++i) {
                        uint64_t *buf = cold ? pool + (size_t)((i + 5) % K) * words : got;
                        CK(cudaEventRecord(e0, st));
                        if (which)
                            launch(inv, r, L, buf, buf);
                        else
                            HK(inv ? _hepa_dev_ntt_inverse(r, L, buf, buf)
                                   : _hepa_dev_ntt_forward(r, L, buf, buf));
                        CK(cudaEventRecord(e1, st));
                        CK(cudaEventSynchronize(e1));
                        float ms;
                        CK(cudaEventElapsedTime(&ms, e0, e1));
                        if (i >= 0) ts.push_back(ms * 1000);
                    }
                    printf("round %d %s %s %-8s median %.1f us (min %.1f)\n", round, nm[inv],
                           cold ? "cold" : "hot ", which ? "cluster" : "library", median(ts),
                           *std::min_element(ts.begin(), ts.end()));
                }
    // copy roofline in the same run
    {
        std::vector<float> ts;
        for (int i = -3; i < reps; ++i) {
            CK(cudaEventRecord(e0, st));
            CK(cudaMemcpyAsync(pool + (size_t)((i + 3) % (K - 1)) * words,
                               pool + (size_t)((i + 4) % (K - 1)) * words, bytes,
                               cudaMemcpyDeviceToDevice, st));
            CK(cudaEventRecord(e1, st));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (i >= 0) ts.push_back(ms * 1000);
        }
        const float m = median(ts);
        printf("copy of %zu MB: %.1f us, %.0f GB/s (one read + one write)\n", bytes >> 20, m,
               2.0 * bytes / (m * 1e3));
    }
    cudaDeviceProp pr;
    CK(cudaGetDeviceProperties(&pr, 0));
    printf("GPU %s, %d SMs, L2 %d MiB, K = %d cold buffers\n", pr.name, pr.multiProcessorCount,
           l2 >> 20, K);
    hepa_poly_destroy(p);
    hepa_ring_destroy(r);
    return bad;
}
