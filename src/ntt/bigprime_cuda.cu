// src/ntt/bigprime_cuda.cu — element-wise big prime field arithmetic (p = r^k + 1,
// r = 2^w ± 2^u) on digit-major device vectors, bit-exact with src/host/bigprime.c, plus the
// transfers between host element-major and device digit-major vectors (hepa/bigprime_cuda.h),
// and the FFT (hepa_bp_dev_fft; its design is described above its kernels, further down).
//
// One thread per element, its k digits in registers (k a template parameter: 8 or 16, so the
// digit loops unroll and the digit arrays stay in registers); a grid-stride loop covers any N.
// Thread j reads digit d of element j at x[j + d·N]: a warp's 32 loads of one digit are one
// contiguous 256-byte segment. Every thread loads all digits of its element before it stores
// any, and no two threads touch the same element, so the output may alias an input.
//
// The digit arithmetic (normalization, multiplication) is in bigprime_digits.cuh.
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "device/internal.h"
#include "device/pdl.cuh"
#include "hepa/bigprime.h"
#include "hepa/bigprime_cuda.h"
#include "ntt/bigprime_digits.cuh"

namespace hepa_bigprime_cuda {

using namespace hepa_bp;

// Calls fn(field) with the compile-time field type FieldP3 when df is P3 (and FieldP4 when df is
// P4 and WITH_P4), else with df itself (run-time constants). Measured on an H100 (N = 2^20,
// bench --bp-suite): P3 element-wise multiply 170.8 -> 143.2 µs with FieldP3; P4 element-wise
// multiply 408 -> 584 µs with FieldP4 (so the element-wise kernels keep P4's run-time
// constants); the FFT levels take FieldP4 (see fft_levels).
template <int KD, bool WITH_P4 = false, class Fn>
void with_field(const hepa_bp_dev_field &df, Fn &&fn) {
    if constexpr (KD == 8) {
        if (FieldP3::matches(df)) return fn(FieldP3{});
    } else if constexpr (WITH_P4) {
        if (FieldP4::matches(df)) return fn(FieldP4{});
    }
    fn(df);
}

enum Op { OP_ADD, OP_SUB, OP_NEG, OP_RPOW };

// Element j of z = add, sub, neg or mul_rpow of element j (digit-major vectors of n elements):
// digit sums of magnitude <= 2r, then normalize.
template <int K, Op OP>
HD void elem_linear(const hepa_bp_dev_field &f, uint64_t *z, const uint64_t *x,
                    const uint64_t *y, size_t j, size_t n, unsigned i) {
    i128 t[K];
    if (OP == OP_RPOW) {
        // x·r^i = Σ_{m >= i} x_{m-i} r^m - Σ_{m < i} x_{m+k-i} r^m, negated for i >= k
        // (r^i = -r^(i-k)). The source digit depends on the runtime i: read it from memory (all
        // lanes read the same digit row: still coalesced) rather than index registers.
        const bool negate = i >= (unsigned)K;
        const unsigned s = negate ? i - K : i;
#pragma unroll
        for (int m = 0; m < K; ++m) {
            const bool wrap = (unsigned)m < s;
            const unsigned src = wrap ? m + K - s : m - s;
            const i128 d = (i128)x[j + (size_t)src * n];
            t[m] = wrap != negate ? -d : d;
        }
    } else {
#pragma unroll
        for (int m = 0; m < K; ++m) {
            const i128 a = (i128)x[j + (size_t)m * n];
            if (OP == OP_ADD)
                t[m] = a + (i128)y[j + (size_t)m * n]; // [0, 2r]
            else if (OP == OP_SUB)
                t[m] = a - (i128)y[j + (size_t)m * n]; // [-r, r]
            else
                t[m] = -a;
        }
    }
    uint64_t out[K];
    normalize<K>(f, out, t);
#pragma unroll
    for (int m = 0; m < K; ++m) z[j + (size_t)m * n] = out[m];
}

// Element j of z = x·y.
template <int K, class F>
HD void elem_mul(const F &f, uint64_t *z, const uint64_t *x, const uint64_t *y,
                 size_t j, size_t n) {
    uint64_t b[K];
#pragma unroll
    for (int m = 0; m < K; ++m) b[m] = y[j + (size_t)m * n];
    uint64_t out[K];
    mul_tw<K>(f, out, DigitsAt{x, j, n}, b);
#pragma unroll
    for (int m = 0; m < K; ++m) z[j + (size_t)m * n] = out[m];
}

template <int K, Op OP>
__global__ void bp_linear_kernel(const hepa_bp_dev_field f, uint64_t *z, const uint64_t *x,
                                 const uint64_t *y, size_t n, unsigned i) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        elem_linear<K, OP>(f, z, x, y, j, n, i);
}

template <int K, class F>
__global__ void bp_mul_kernel(const F f, uint64_t *z, const uint64_t *x,
                              const uint64_t *y, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        elem_mul<K>(f, z, x, y, j, n);
}

enum Kind { K_ADD, K_SUB, K_NEG, K_MUL, K_RPOW };

template <int K>
void launch_k(Kind kind, const hepa_bp_dev_field &f, uint64_t *z, const uint64_t *x,
              const uint64_t *y, size_t n, unsigned i, cudaStream_t st) {
    // The multiply keeps 3k words (the digits of y and the 128-bit sums) in registers: smaller
    // blocks leave the register allocator room. Grids are capped; the kernels loop beyond.
    const unsigned threads = kind == K_MUL ? 128 : 256;
    const size_t want = (n + threads - 1) / threads;
    const unsigned blocks = (unsigned)(want < ((size_t)1 << 30) ? want : ((size_t)1 << 30));
    switch (kind) {
    case K_ADD: bp_linear_kernel<K, OP_ADD><<<blocks, threads, 0, st>>>(f, z, x, y, n, 0); break;
    case K_SUB: bp_linear_kernel<K, OP_SUB><<<blocks, threads, 0, st>>>(f, z, x, y, n, 0); break;
    case K_NEG: bp_linear_kernel<K, OP_NEG><<<blocks, threads, 0, st>>>(f, z, x, y, n, 0); break;
    case K_RPOW: bp_linear_kernel<K, OP_RPOW><<<blocks, threads, 0, st>>>(f, z, x, y, n, i); break;
    case K_MUL:
        with_field<K>(f, [&](const auto &ff) {
            bp_mul_kernel<K><<<blocks, threads, 0, st>>>(ff, z, x, y, n);
        });
        break;
    }
}

hepa_status launch(Kind kind, const hepa_bp_dev_field &f, uint64_t *z, const uint64_t *x,
                   const uint64_t *y, size_t n, unsigned i, void *stream) {
    if (f.k != 8 && f.k != 16) return HEPA_ERR_UNSUPPORTED;
    if (n == 0) return HEPA_OK;
    cudaStream_t st = (cudaStream_t)stream;
    if (f.k == 8)
        launch_k<8>(kind, f, z, x, y, n, i, st);
    else
        launch_k<16>(kind, f, z, x, y, n, i, st);
    return _hepa_dev_status(cudaGetLastError(), "big-prime element-wise kernel");
}

// Words in N elements of k digits, or 0 when k·N·8 bytes would overflow a size_t.
int words_of(size_t N, unsigned k, size_t *words) {
    if (k == 0 || N > SIZE_MAX / sizeof(uint64_t) / k) return 0;
    *words = N * k;
    return 1;
}

void CUDART_CB free_host_buffer(void *p) { free(p); }

// The checked tier: f and pointers non-NULL, field supported, sizes possible, then (N > 0) the
// device pointers.
hepa_status checked(Kind kind, const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                    const uint64_t *y, size_t n, unsigned i, void *stream) {
    const int binary = kind == K_ADD || kind == K_SUB || kind == K_MUL;
    if (!f || !z || !x || (binary && !y)) return HEPA_ERR_INVALID_ARGUMENT;
    if (kind == K_RPOW && i >= 2 * hepa_bp_field_k(f)) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_bp_dev_field df;
    hepa_status s = hepa_bp_dev_field_init(f, &df);
    if (s != HEPA_OK) return s;
    size_t words;
    if (!words_of(n, df.k, &words)) return HEPA_ERR_INVALID_ARGUMENT;
    if (n == 0) return HEPA_OK;
    if ((s = _hepa_dev_check_ptr(z, "output")) != HEPA_OK) return s;
    if ((s = _hepa_dev_check_ptr(x, "input x")) != HEPA_OK) return s;
    if (binary && (s = _hepa_dev_check_ptr(y, "input y")) != HEPA_OK) return s;
    return launch(kind, df, z, x, y, n, i, stream);
}

// ---- FFT (hepa_bp_dev_fft) -------------------------------------------------------------------
//
// Stockham autosort, radix K = 2k (plus one smaller power-of-two radix at the first level when
// log2 N is not a multiple of log2 K): level l with radix R, Ns = product of the radices before
// it, M = Ns·R. For each group j < N/R: a_s = x[j + s·N/R] (s < R), k0 = j mod Ns,
//   y[(j div Ns)·Ns·R + k0 + s'·Ns] = Σ_s (a_s·ω_M^(s·k0))·ω_R^(s·s')      (s' < R).
// ω_R = r^(K/R) (ω_N^(N/K) = r), and when Ns > 1 (then R = K), ω_M^e = ω_M^(e mod M/K)·r^(e div
// M/K): the general multiply is by a table entry ω_M^i = ω_N^(i·N/M), i < M/K, and the factor
// r^(e div M/K) joins the powers of r of the DFT_R. One kernel launch per level, one read and one
// write of the vector; the levels ping-pong between d_x and a scratch vector, arranged so that the
// last one ends in d_x (the last level reads and writes the same positions of each group, so it
// may run in place).
//
// One block = J groups of R elements (J·R <= SB = 128 threads; FftBlock says why 128);
// thread t = s·J + jl loads element s of group j0 + jl (a warp reads runs of J consecutive
// elements per digit row), multiplies it by its twiddle (mul_tw_sums, the twiddle's digits read
// from the table), brings the digit sums to BALANCED DIGITS (parallel carry rounds, no carry
// chain; bigprime_digits.cuh) and stores the ROTATION FORM below in shared memory. After a
// barrier each thread computes ONE output X_s' of one group directly, X_s' = Σ_s b_s·r^(E_s):
// digit m of b_s·r^E is one shared-memory word at a compile-time offset from a per-s row
// pointer, added unsigned into a 96-bit column sum (3 instructions), with no negation and no
// select. Threads are assigned to outputs so that a warp writes contiguous runs: runs of J when
// Ns >= J, else the block's J·R outputs, which are then contiguous.
// LAZY LEVELS. Only the last level normalizes its outputs to the canonical form. The others
// write words in [0, 2^64) after one carry round with remainders from 2^(u+5) up (|e| <= 18
// for |X| <= R·B <= 2^w·k·(1 + 1/16), k <= 16, so the lowest result 2^(u+5) - 18·(2^u + 1)
// stays positive): the next level's multiply (mul_cols_sums) accepts any words, and its balance
// step any values. So an element pays one exact carry chain per transform instead of two per
// level. (Fields where mul_cols_ok fails use mul_core_sums, which needs digits <= r: every level
// normalizes there.)
// Inverse: the same with ω^(-1) (table of inverse powers, r^(-E)), and the last level multiplies
// every element by a second table holding N^(-1)·ω_N^(-i) (the scale folded into the twiddles).
//
// ROTATION FORM. b·r^E (0 <= E < K = 2k) is b's digit vector rotated up by E, the digits that
// wrap negated (r^k ≡ -1): digit m of b·r^E is ext_((m - E) mod K), where ext_j = d_j and
// ext_(k+j) = -d_j (j < k). With balanced digits |d_j| <= B = bal_bound(w, u) < 2^62.1, the
// words S_j = ext_j + B lie in [0, 2B]: summing R of them per place gives a column sum below
// R·2B < 2^68, and X = sum - R·B exactly. Shared memory holds rows 1 .. K + k - 1 of the
// doubled sequence S_(j mod K), so that the k words read for any E (rows K - E .. K - E + k - 1)
// are consecutive rows: (K + k - 1) rows of ST = SB + 1 words, 23 KiB for P3 and 47 KiB for P4.
// (An earlier form, commit 4b33361, kept canonical digits and stored the negated ones as r - d
// with a borrow folded into the next word, and normalized every level's outputs: P3 N = 2^20
// forward FFT 802 µs, against 759 µs for this one; ncu: 102.5 -> 94.6 M instructions for a
// level with twiddle multiplies.)
struct FftLevel {
    size_t N;
    unsigned lgR, lgNs, lgJ;
    unsigned lgMK;       // log2(M/K) when Ns > 1 (e = s·k0 splits as i = e mod M/K, q = e div M/K)
    const uint64_t *tw;  // twiddle table, digit-major with digit stride twn
    size_t twn;
    unsigned tw_shift;   // ω_M^i is table entry i << tw_shift (= i·N/M)
    int scaled;          // the table includes N^(-1): multiply every element, even by entry 0
    int inverse;
    int last;            // the last level: its outputs are canonical, the others lazy
    const uint64_t *pre; // first level only, or NULL: multiply input element i by pre[i] first
                         // (digit-major, N elements): the negacyclic twist or, for an inverse,
                         // the other factor of a pointwise product
};

// Threads per block at most (SB) and the row stride of the shared rotation form (ST = SB + 1).
// SB = 128 for both k: for P3 (k = 8) that gives 5 blocks of 4 warps per SM at 96 registers
// without spills (FIVE SMALL BLOCKS below), where 256 gave 2 blocks of 8 warps at 128.
// The odd stride puts a column's rows on different banks, which the first level needs: there a
// half-warp reads one column at rows that differ (with ST = SB that was a 16-way conflict: ncu,
// P3 N = 2^20, SB = 256, 464 µs for that level against 246 µs for a level that also multiplies
// every element; with SB = 128 and an even stride at every level the forward FFT measured 570 µs
// against 506). At the later levels a half-warp reads 2 groups' worth of columns, 16 words
// apart or not, at rows that differ; neither stride is free of conflicts there and the odd one
// measured faster (H100, same call: an even stride where Ns >= J, 513-515 µs against 505-509;
// a phase-2 thread order that makes the even stride conflict-free there, 511-513). At SB = 256
// the even stride was conflict-free at the later levels and kept for them (ncu, level 1: 961
// shared-memory wavefronts per warp with the odd stride against 302).
template <int KD> struct FftBlock {
    static constexpr unsigned lgSB = 7, SB = 1u << lgSB, ST = SB + 1;
    static constexpr unsigned rows = 3 * KD - 1; // rows 1 .. 2k + k - 1
    static constexpr size_t smem = (size_t)rows * ST * sizeof(uint64_t);
    static_assert(smem <= 48 * 1024, "above the default dynamic shared memory limit");
};

// col += v for a 96-bit unsigned column sum (lo, hi).
HD void add96(uint64_t &lo, uint32_t &hi, uint64_t v) {
#ifdef __CUDA_ARCH__
    asm("add.cc.u64 %0, %0, %2;\n\taddc.u32 %1, %1, 0;" : "+l"(lo), "+r"(hi) : "l"(v));
#else
    lo += v;
    hi += lo < v;
#endif
}

// The ROTATION FORM of balanced digits d (|d_m| <= B = bal_bound < 2^62.1 for w <= 63) in a
// shared-memory column: S_m = d_m + B, S_(k+m) = B - d_m, both in [0, 2B], row j at
// col[(j - 1)·ST] for j = 1 .. K + k - 1 (rows K .. K + k - 1 repeat S_0 .. S_(k-1)).
template <int KD, unsigned ST, class F>
HD void store_rot(const F &f, uint64_t *col, const int64_t (&d)[KD]) {
    constexpr unsigned KK = 2 * KD;
    const uint64_t B = (uint64_t)bal_bound(f.w, f.u);
    col[(KK - 1) * ST] = (uint64_t)d[0] + B; // S_0, second copy (row 0 is never read)
    col[(KD - 1) * ST] = B - (uint64_t)d[0]; // S_k
#pragma unroll
    for (unsigned m = 1; m < KD; ++m) {
        const uint64_t pos = (uint64_t)d[m] + B;
        col[(m - 1) * ST] = pos;                     // S_m
        col[(KK + m - 1) * ST] = pos;                // second copy
        col[(KD + m - 1) * ST] = B - (uint64_t)d[m]; // S_(k+m)
    }
}

// The first half of a level, for thread t of block `block`: load, twiddle, store the rotation
// form to shared memory (row j at sm[(j - 1)·ST + t]). Then a barrier, then fft_output. (Split
// so that the host can run them.)
template <int KD, unsigned ST, class F>
HD void fft_input(const F &f, const uint64_t *x, const FftLevel &L, uint64_t *sm, size_t block,
                  unsigned t) {
    const unsigned J = 1u << L.lgJ;
    const size_t N = L.N, Ns = (size_t)1 << L.lgNs;
    const size_t j0 = block << L.lgJ;
    const unsigned jl = t & (J - 1), s = t >> L.lgJ;
    const size_t j = j0 + jl;
    const size_t src = j + (size_t)s * (N >> L.lgR);
    uint64_t b[KD];
#pragma unroll
    for (int m = 0; m < KD; ++m) b[m] = x[src + (size_t)m * N];
    if (L.pre) {
        uint64_t t2[KD];
        mul_tw<KD>(f, t2, DigitsAt{L.pre, src, N}, b);
#pragma unroll
        for (int m = 0; m < KD; ++m) b[m] = t2[m];
    }
    const size_t e = (size_t)s * (j & (Ns - 1));
    const size_t i = L.lgNs ? e & (((size_t)1 << L.lgMK) - 1) : 0;
    i128 tt[KD];
    int64_t d[KD];
    // Every element of a level with twiddles (Ns > 1) is multiplied, by T[0] = 1 too: a warp holds
    // elements with i = 0 (s = 0, or k0 = 0) beside others, so skipping those made every warp run
    // both branches (ncu, P3 N = 2^20: 134 of 2376 instructions per element at a twiddle level;
    // H100 plan FFT 655 -> 646 µs, same-call A/B).
    if (L.scaled || L.lgNs != 0) {
        if constexpr (KD == 8 && Bal64<F>::ok) { // P3: the 64-bit form (MUL BAL64)
            mul_bal64(f, d, DigitsAt{L.tw, i << L.tw_shift, L.twn}, b);
        } else {
            mul_tw_sums<KD>(f, tt, DigitsAt{L.tw, i << L.tw_shift, L.twn}, b);
            balance<KD>(f, d, tt, mul_sums_bits(f));
        }
    } else {
#pragma unroll
        for (int m = 0; m < KD; ++m) tt[m] = (i128)b[m];
        balance<KD>(f, d, tt, 64);
    }
    store_rot<KD, ST>(f, sm + t, d);
}

// One carry round on 96-bit column sums (lo, hi) of R rotation-form words, without 128-bit
// arithmetic (P3, Bal64): V_m = sum_m - R·B - C (|V_m| < R·B + |C| < 2^67, a 96-bit two's
// complement word), e_m = floor(V_m / 2^63) (|e_m| < 2^4: one funnel shift of the top bits),
// l_m = V_m mod 2^63, and w_m = l_m + C - e_m·2^u + e_(m-1) (e_(-1) = -e_(k-1)) with
// Σ w_m·r^m ≡ Σ (sum_m - R·B)·r^m, as carry_round(t, C) gives it, in 64-bit words:
//   C = 2^(u+5): fft_output's LAZY LEVELS words, in [C - 16·(2^u + 1), C + 2^63 + 16·(2^u + 1));
//   C = -2^(w-1): balanced digits, |w_m| <= 2^62 + 16·(2^u + 1) < bal_bound (as int64_t).
template <int KD, class F>
HD void carry96(const F &f, uint64_t (&w)[KD], const uint64_t (&lo)[KD], const uint32_t (&hi)[KD],
                unsigned R, int64_t C) {
    static_assert(F::w == 63, "the top-bit split assumes w = 63");
    const u128 sub = (u128)R * bal_bound(f.w, f.u) + (u128)(i128)C;
    const uint64_t slo = (uint64_t)sub;
    const uint32_t shi = (uint32_t)(sub >> 64);
    int32_t e[KD];
    uint64_t l[KD];
#pragma unroll
    for (int m = 0; m < KD; ++m) {
        uint64_t vlo;
        uint32_t vhi;
#ifdef __CUDA_ARCH__
        asm("sub.cc.u64 %0, %2, %3;\n\tsubc.u32 %1, %4, %5;"
            : "=l"(vlo), "=r"(vhi)
            : "l"(lo[m]), "l"(slo), "r"(hi[m]), "r"(shi));
        e[m] = (int32_t)__funnelshift_l((uint32_t)(vlo >> 32), vhi, 1);
#else
        const u128 v = (((u128)hi[m] << 64) | lo[m]) - sub; // mod 2^128; the top 32 bits unused
        vlo = (uint64_t)v;
        vhi = (uint32_t)(v >> 64);
        e[m] = (int32_t)((vhi << 1) | (uint32_t)(vlo >> 63));
#endif
        l[m] = vlo & (((uint64_t)1 << 63) - 1);
    }
#pragma unroll
    for (int m = 0; m < KD; ++m) {
        const int64_t ep = m ? (int64_t)e[m - 1] : -(int64_t)e[KD - 1];
        w[m] = l[m] + (uint64_t)C - ((uint64_t)(int64_t)e[m] << f.u) + (uint64_t)ep;
    }
}

// 96-bit column sums (lo, hi) of rotation-form words, started at zero by zero96 and added to by
// add_rot: += the k words of b·r^E (r^(-E) for the inverse), b's rotation form in the column col
// (row j at col[(j - 1)·ST]; digit m of b·r^E is S_((m - E) mod K) = row K - E + m).
template <int KD> HD void zero96(uint64_t (&lo)[KD], uint32_t (&hi)[KD]) {
#pragma unroll
    for (int m = 0; m < KD; ++m) {
        lo[m] = 0;
        hi[m] = 0;
    }
}
template <int KD, unsigned ST>
HD void add_rot(uint64_t (&lo)[KD], uint32_t (&hi)[KD], const uint64_t *col, unsigned E,
                bool inverse) {
    constexpr unsigned KK = 2 * KD;
    E &= KK - 1;
    if (inverse) E = (KK - E) & (KK - 1);
    const uint64_t *el = col + (KK - E - 1) * ST;
#pragma unroll
    for (unsigned m = 0; m < KD; ++m)
        add96(lo[m], hi[m], el[m * ST]);
}

// Where thread t of a level's block writes its output X_so of group j0 + jl: dst.
HD void out_map(const FftLevel &L, size_t block, unsigned t, unsigned &jl, unsigned &so,
                size_t &dst) {
    const unsigned R = 1u << L.lgR, J = 1u << L.lgJ;
    const size_t Ns = (size_t)1 << L.lgNs;
    const size_t j0 = block << L.lgJ;
    if (Ns >= J) { // a warp writes runs of J
        jl = t & (J - 1);
        so = t >> L.lgJ;
        const size_t j = j0 + jl;
        dst = ((j >> L.lgNs) << (L.lgNs + L.lgR)) + (j & (Ns - 1)) + (size_t)so * Ns;
    } else { // the block's outputs are contiguous: thread t writes the t-th
        jl = ((t >> (L.lgNs + L.lgR)) << L.lgNs) + (t & (unsigned)(Ns - 1));
        so = (t >> L.lgNs) & (R - 1);
        dst = (j0 << L.lgR) + t;
    }
}

// Writes X = Σ (S - B) over the Rs rotation-form words summed in (lo, hi) (|X_m| <= Rs·B < 2^67):
// canonical at the last level, else LAZY LEVELS words.
template <int KD, class F>
HD void fft_finish(const F &f, uint64_t *y, const FftLevel &L, size_t dst, const uint64_t (&lo)[KD],
                   const uint32_t (&hi)[KD], unsigned Rs) {
    const size_t N = L.N;
    if constexpr (Bal64<F>::ok) { // P3's lazy levels: the carry round in 64-bit words
        if (!L.last) {
            uint64_t w[KD];
            carry96<KD>(f, w, lo, hi, Rs, (int64_t)1 << (f.u + 5));
#pragma unroll
            for (int m = 0; m < KD; ++m)
                y[dst + (size_t)m * N] = w[m];
            return;
        }
    }
    const i128 RB = (i128)Rs * (i128)bal_bound(f.w, f.u);
    i128 acc[KD];
#pragma unroll
    for (int m = 0; m < KD; ++m)
        acc[m] = (i128)(((u128)hi[m] << 64) | lo[m]) - RB;
    if (L.last || !mul_cols_ok(f)) { // canonical (mul_core_sums, the fallback, needs digits <= r)
        uint64_t out[KD];
        normalize<KD, 70>(f, out, acc);
#pragma unroll
        for (int m = 0; m < KD; ++m)
            y[dst + (size_t)m * N] = out[m];
    } else { // lazy: one carry round into [2^(u+5) - 18·(2^u + 1), 2^(u+5) + 2^w + 18·(2^u + 1))
        carry_round<KD>(f, acc, (i128)1 << (f.u + 5));
#pragma unroll
        for (int m = 0; m < KD; ++m)
            y[dst + (size_t)m * N] = (uint64_t)acc[m];
    }
}

// The second half: thread t computes one output X_s' of one group from shared memory and
// writes it. The level kernel was bound by the ALU pipe (ncu, P3 N = 2^20: 71% busy, FMA pipe
// 47%; bench/results/2026-11-22-h100-p3-fft-level-profile.md); since MUL BAL64, mad_wide's carry
// form and DFT_16 AS 4 x 4 the P3 levels are latency-bound instead
// (bench/results/2026-11-24-h100-p3-fft-bal64.md). Dropped there: the column sums
// as two 64-bit sums of 32-bit halves, two terms per 3-input add (P3 FFT 720 -> 738 µs), and
// the high halves as IMAD.WIDE by a run-time 1 to load the FMA pipe (788 µs: ptxas split the
// chains into products and IADD3 trees).
template <int KD, unsigned ST, class F>
HD void fft_output(const F &f, uint64_t *y, const FftLevel &L, const uint64_t *sm, size_t block,
                   unsigned t) {
    constexpr unsigned KK = 2 * KD;
    const unsigned R = 1u << L.lgR;
    const size_t Ns = (size_t)1 << L.lgNs;
    unsigned jl, so;
    size_t dst;
    out_map(L, block, t, jl, so, dst);
    const size_t k0 = ((block << L.lgJ) + jl) & (Ns - 1);
    const unsigned step = KK >> L.lgR; // ω_R = r^step
    uint64_t lo[KD];
    uint32_t hi[KD];
    zero96<KD>(lo, hi);
#pragma unroll 4
    for (unsigned s = 0; s < R; ++s) {
        const unsigned q = L.lgNs ? (unsigned)(((size_t)s * k0) >> L.lgMK) : 0;
        add_rot<KD, ST>(lo, hi, sm + (s << L.lgJ) + jl, q + s * so * step, L.inverse);
    }
    fft_finish<KD>(f, y, L, dst, lo, hi, R);
}

// DFT_16 AS 4 x 4 (P3, levels of radix 16): with s = 4·s1 + s0 and so = o0 + 4·o1,
// s·so ≡ 4·s1·o0 + s0·so (mod 16), so
//   X_so = Σ_s b_s·r^(q_s + s·so) = Σ_(s0) Y_(s0,o0)·r^(s0·so),
//   Y_(s0,o0) = Σ_(s1) b_(4·s1+s0)·r^(q_s + 4·s1·o0)
// (the inverse negates every exponent). Thread t first computes Y_(s0,o0) of group jl (t = (s0 +
// 4·o0)·J + jl) from the rotation form of the b_s, brings it to balanced digits (carry96, one
// round) and, after a barrier, stores its rotation form in its own column; after a second barrier
// it sums the four rotated Y_(s0,o0) of its output. 8 rotated terms per output instead of 16:
// half the shared-memory loads and 96-bit adds, for one carry round and a second store. With
// mad_wide's carry form and the uniform multiply, ncu (P3, N = 2^20) counts 1731 instructions per
// element at a twiddle level against 2376 before the three, but this step gained only 620 -> 615
// µs (H100, same call): the levels are no longer issue-bound (above).
template <int KD, unsigned ST, class F>
__device__ void fft_output44(const F &f, uint64_t *y, const FftLevel &L, uint64_t *sm, size_t block,
                             unsigned t) {
    constexpr unsigned KK = 2 * KD;
    static_assert(KK == 16, "radix 16 as 4 x 4");
    const unsigned J = 1u << L.lgJ;
    const size_t Ns = (size_t)1 << L.lgNs;
    const size_t j0 = block << L.lgJ;
    uint64_t lo[KD];
    uint32_t hi[KD];
    {
        const unsigned jl = t & (J - 1), a = t >> L.lgJ, s0 = a & 3, o0 = a >> 2;
        const size_t k0 = (j0 + jl) & (Ns - 1);
        zero96<KD>(lo, hi);
#pragma unroll
        for (unsigned s1 = 0; s1 < 4; ++s1) {
            const unsigned s = 4 * s1 + s0;
            const unsigned q = L.lgNs ? (unsigned)(((size_t)s * k0) >> L.lgMK) : 0;
            add_rot<KD, ST>(lo, hi, sm + (s << L.lgJ) + jl, q + 4 * s1 * o0, L.inverse);
        }
    }
    uint64_t w[KD];
    carry96<KD>(f, w, lo, hi, 4, -((int64_t)1 << (f.w - 1))); // balanced digits
    int64_t d[KD];
#pragma unroll
    for (int m = 0; m < KD; ++m)
        d[m] = (int64_t)w[m];
    __syncthreads(); // every thread's reads of the b_s are done
    store_rot<KD, ST>(f, sm + t, d);
    __syncthreads();
    unsigned jl, so;
    size_t dst;
    out_map(L, block, t, jl, so, dst);
    const unsigned o0 = so & 3;
    zero96<KD>(lo, hi);
#pragma unroll
    for (unsigned s0 = 0; s0 < 4; ++s0)
        add_rot<KD, ST>(lo, hi, sm + ((s0 + 4 * o0) << L.lgJ) + jl, s0 * so, L.inverse);
    fft_finish<KD>(f, y, L, dst, lo, hi, 4);
}

// FIVE SMALL BLOCKS: for k = 8, 5 blocks of 128 threads per SM (96 registers, no spills): 20
// warps, where 2 blocks of 256 threads at 128 registers gave 16. The P3 levels are latency-bound
// (ncu, P3 N = 2^20, a twiddle level: 1731 instructions per element, 9 cycles between a warp's
// instructions), so the warps count: eligible warps per scheduler 0.89-0.98 -> 1.31-1.35, issue
// 0.42-0.45 -> 0.52-0.53 per cycle (ncu of these blocks with FftBlock's phase-2 thread order);
// forward plan FFT at N = 2^20 613-620 -> 505-509 µs (H100, same calls,
// bench/results/2026-12-07-h100-p3-fft-five-blocks.md). Measured there and not kept: 6 blocks of
// 128 (80 registers, 132 bytes of spill stores) 613-620 µs; 10 blocks of 64 threads (96
// registers) 517-520 µs. Before: left free, the kernel takes 166 registers (one block per SM,
// 1041 µs against 717 at the time); 3 blocks of 256 (80 registers, spills) measured slower
// twice (848 against 825 µs; 646 against 615). P4 (k = 16): left free it takes 255 registers
// (2 blocks of 128 per SM); built for 3 (168 registers, 32-44 bytes of spills) the P4 forward plan
// FFT at N = 2^20 went 1888-1892 -> 1698-1704 µs and 2^16 152 -> 145 µs (H100, same call,
// bench/results/2026-12-07-h100-p3-fft-five-blocks.md, call E).
#ifndef HEPA_BP_P4_MINB
#define HEPA_BP_P4_MINB 3 // P4's blocks per SM (1: left free, for A/Bs)
#endif
template <int KD, class F>
__global__ void __launch_bounds__(FftBlock<KD>::SB, KD == 8 ? 5 : HEPA_BP_P4_MINB)
    bp_fft_level_kernel(const F f, uint64_t *y, const uint64_t *x, const FftLevel L) {
    constexpr unsigned ST = FftBlock<KD>::ST;
    extern __shared__ uint64_t sm[]; // FftBlock<KD>::rows rows of ST words
    pdl_wait(); // LEVELS BY PDL (fft_levels_f): the grid before, and its writes, are done
    pdl_trigger();
    fft_input<KD, ST>(f, x, L, sm, blockIdx.x, threadIdx.x);
    __syncthreads();
    if constexpr (KD == 8 && Bal64<F>::ok) {
        if (L.lgR == 4) {
            fft_output44<KD, ST>(f, y, L, sm, blockIdx.x, threadIdx.x);
            return;
        }
    }
    fft_output<KD, ST>(f, y, L, sm, blockIdx.x, threadIdx.x);
}

// T[i] = lo[i mod B]·hi[i div B] for i < Tn, and (when Ts) Ts[i] = lo[i mod B]·his[i div B]; the
// seeds are digit-major with S elements: lo at [0, B), hi at [B, B + H), his at [B + H, B + 2H).
template <int KD>
HD void fft_twiddle(const hepa_bp_dev_field &f, uint64_t *T, uint64_t *Ts, const uint64_t *seeds,
                    size_t S, size_t Tn, unsigned lgB, size_t H, size_t i) {
    const size_t B = (size_t)1 << lgB;
    const size_t l = i & (B - 1), h = i >> lgB;
    for (int which = 0; which < (Ts ? 2 : 1); ++which) {
        uint64_t b[KD], out[KD];
        const size_t hj = B + h + (which ? H : 0);
#pragma unroll
        for (int m = 0; m < KD; ++m) b[m] = seeds[hj + (size_t)m * S];
        mul_tw<KD>(f, out, DigitsAt{seeds, l, S}, b);
        uint64_t *dstv = which ? Ts : T;
#pragma unroll
        for (int m = 0; m < KD; ++m) dstv[i + (size_t)m * Tn] = out[m];
    }
}

template <int KD>
__global__ void bp_fft_twiddle_kernel(const hepa_bp_dev_field f, uint64_t *T, uint64_t *Ts,
                                      const uint64_t *seeds, size_t S, size_t Tn, unsigned lgB,
                                      size_t H) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < Tn; i += stride)
        fft_twiddle<KD>(f, T, Ts, seeds, S, Tn, lgB, H, i);
}

unsigned log2_of(size_t n) {
    unsigned l = 0;
    while (((size_t)1 << l) < n) ++l;
    return l;
}

// The levels of an FFT of size N >= 2 (a power of two) for k = KD: radix 2^(lgN mod lgK) first
// when that is not 0, then radix K. Twiddle tables T (ω^(±i), i < Tn) and, for the inverse's last
// level, Ts (N^(-1)·ω^(-i)). Returns the number of levels (<= 64).
template <int KD>
unsigned fft_plan(FftLevel *lv, size_t N, int inverse, const uint64_t *T, const uint64_t *Ts,
                  size_t Tn) {
    const unsigned lgK = KD == 8 ? 4 : 5, lgN = log2_of(N);
    unsigned radix[64], levels = 0;
    if (lgN % lgK) radix[levels++] = lgN % lgK; // the small radix first, where Ns = 1
    for (unsigned e = 0; e < lgN / lgK; ++e) radix[levels++] = lgK;
    unsigned lgNs = 0;
    for (unsigned li = 0; li < levels; ++li) {
        const int last = li + 1 == levels;
        FftLevel &L = lv[li];
        L.N = N;
        L.lgR = radix[li];
        L.lgNs = lgNs;
        const unsigned lgGroups = lgN - L.lgR;                 // N/R groups
        const unsigned lgSB = FftBlock<KD>::lgSB;
        L.lgJ = (lgSB - L.lgR) < lgGroups ? lgSB - L.lgR : lgGroups; // J·R <= SB threads
        const unsigned lgM = lgNs + L.lgR;
        L.lgMK = lgM >= lgK ? lgM - lgK : 0; // Ns > 1 implies R = K, M >= 2K
        L.scaled = last && inverse;
        L.tw = L.scaled ? Ts : T;
        L.twn = Tn;
        L.tw_shift = lgN - lgM;
        L.inverse = inverse;
        L.last = last;
        L.pre = NULL;
        lgNs += L.lgR;
    }
    return levels;
}

// Enqueues the twiddle kernel: T[i] (and Ts[i] when Ts) for i < Tn from the device seeds.
template <int KD>
void tables_enqueue(const hepa_bp_dev_field &df, uint64_t *T, uint64_t *Ts, const uint64_t *seeds,
                    size_t S, size_t Tn, unsigned lgB, size_t H, cudaStream_t st) {
    const unsigned threads = 128;
    const size_t want = (Tn + threads - 1) / threads;
    const unsigned blocks = (unsigned)(want < 65536 ? want : 65536);
    bp_fft_twiddle_kernel<KD><<<blocks, threads, 0, st>>>(df, T, Ts, seeds, S, Tn, lgB, H);
}

// The levels of an FFT of size N >= 2 (a power of two, N <= 2^38 so blocks < 2^31), reading
// src and ending in dst (src == dst: in place), with tables T, Ts of Tn elements and the
// optional first-level factor pre. The levels ping-pong between dst and scratch, arranged so
// that the last one writes dst. Level 0 reads src and writes scratch (dst when it is the only
// level), so src is never written unless src == dst; only the last level may read and write the
// same vector (it touches the same positions of each group). scratch: N elements, unused when
// there is one level.
template <int KD, class F>
void fft_levels_f(const F &f, uint64_t *dst, const uint64_t *src, uint64_t *scratch, size_t N,
                  int inverse, const uint64_t *T, const uint64_t *Ts, size_t Tn,
                  const uint64_t *pre, cudaStream_t st) {
    FftLevel lv[64];
    const unsigned levels = fft_plan<KD>(lv, N, inverse, T, Ts, Tn);
    // LEVELS BY PDL: every level is launched with programmatic stream serialization where the
    // device has it (sm_90+), so each grid is scheduled while the one before it drains and waits
    // for it in its first instruction (pdl_wait): stream order holds, the launch gaps go. H100,
    // P3 forward plan FFT at N = 2^20, same call: 500.3-500.4 -> 495.6-497.2 µs (an experiment
    // build, bench/results/2026-12-07-h100-p3-fft-five-blocks.md). The first level waits for
    // whatever ran before it on the stream (the twiddle tables of a one-shot FFT); what follows
    // the last level is launched without the attribute and waits as usual.
    int dev = 0, pdl = 0;
    if (cudaGetDevice(&dev) == cudaSuccess) _hepa_dev_pdl_capable(dev, &pdl);
    lv[0].pre = pre;
    const uint64_t *cur = src;
    uint64_t *oth = scratch;
    for (unsigned li = 0; li < levels; ++li) {
        const int last = li + 1 == levels;
        uint64_t *to = last ? dst : oth;
        const unsigned threads = 1u << (lv[li].lgJ + lv[li].lgR);
        const size_t blocks = (N >> lv[li].lgR) >> lv[li].lgJ;
        // (an error here stays in cudaGetLastError, which the callers check after the levels)
        launch_attrs(pdl, NULL, bp_fft_level_kernel<KD, F>, dim3((unsigned)blocks), threads,
                     FftBlock<KD>::smem, st, f, to, cur, lv[li]);
        if (!last) {
            oth = to == scratch ? dst : scratch;
            cur = to;
        }
    }
}

// P3 and P4 run with compile-time constants (with_field<KD, true>): the balance rounds then
// unroll. Measured on an H100 (P4 forward plan FFT, N = 2^20): 3996 µs with run-time constants,
// 2674 µs with FieldP4.
template <int KD>
void fft_levels(const hepa_bp_dev_field &df, uint64_t *dst, const uint64_t *src,
                uint64_t *scratch, size_t N, int inverse, const uint64_t *T, const uint64_t *Ts,
                size_t Tn, const uint64_t *pre, cudaStream_t st) {
    with_field<KD, true>(df, [&](const auto &f) {
        fft_levels_f<KD>(f, dst, src, scratch, N, inverse, T, Ts, Tn, pre, st);
    });
}

// The twiddle seeds of an FFT of size N >= 2: T[i] = ω^i (ω^(-i) for the inverse) for
// i < Tn = max(N/K, 1), and for the inverse Ts[i] = N^(-1)·ω^(-i), are built on the device as
// lo[i mod B]·hi[i div B] (his for Ts) from B + H (+ H) seeds computed here by repeated
// multiplication (B·H = Tn, B ~ sqrt(Tn)): hs, digit-major, S elements, lo | hi | his;
// hs is malloc'ed.
struct FftSeeds {
    uint64_t *hs;
    size_t S, Tn, H;
    unsigned lgB;
};

// z = x·y on the host for the seeds: mul_cols_sums (a few times faster here than the host's
// _hepa_bp_mul_digits) where its bounds hold. z may alias x or y.
template <int K>
void seed_mul_k(const hepa_bp_dev_field &df, const hepa_bp_field *f, uint64_t *z,
                const uint64_t *x, const uint64_t *y) {
    if (!mul_cols_ok(df)) {
        _hepa_bp_mul_digits(f, z, x, y);
        return;
    }
    uint64_t b[K], out[K];
    memcpy(b, y, sizeof b);
    mul_tw<K>(df, out, DigitsAt{x, 0, 1}, b); // mul_cols_sums here
    memcpy(z, out, sizeof out);
}

void seed_mul(const hepa_bp_dev_field &df, const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
              const uint64_t *y) {
    if (df.k == 8)
        seed_mul_k<8>(df, f, z, x, y);
    else
        seed_mul_k<16>(df, f, z, x, y);
}

// Seeds for T[i] = w^i (i < Tn, a power of two) and, when scale is not NULL, Ts[i] = scale·w^i:
// lo[l] = w^l (l < B), hi[h] = w^(B·h), his[h] = scale·w^(B·h) (h < H = Tn/B), B ~ sqrt(Tn).
hepa_status power_seeds(const hepa_bp_field *f, const uint64_t *w, const uint64_t *scale,
                        size_t Tn, FftSeeds *out) {
    const unsigned k = hepa_bp_field_k(f);
    hepa_bp_dev_field df;
    hepa_status s = hepa_bp_dev_field_init(f, &df);
    if (s != HEPA_OK) return s;
    const unsigned lgTn = log2_of(Tn), lgB = (lgTn + 1) / 2;
    const size_t B = (size_t)1 << lgB, H = Tn >> lgB;
    const size_t S = B + H * (scale ? 2 : 1);
    uint64_t *em = (uint64_t *)malloc(S * k * sizeof *em); // element-major seeds
    uint64_t *hs = (uint64_t *)malloc(S * k * sizeof *hs); // digit-major, for the copy
    if (!em || !hs) {
        free(em);
        free(hs);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    uint64_t wB[HEPA_BP_MAX_K];
    uint64_t *lo = em, *hi = em + B * k, *his = em + (B + H) * k;
    memset(lo, 0, k * sizeof *lo);
    lo[0] = 1;
    for (size_t l = 1; l < B; ++l) seed_mul(df, f, lo + l * k, lo + (l - 1) * k, w);
    seed_mul(df, f, wB, lo + (B - 1) * k, w);
    memset(hi, 0, k * sizeof *hi);
    hi[0] = 1;
    for (size_t h = 1; h < H; ++h) seed_mul(df, f, hi + h * k, hi + (h - 1) * k, wB);
    if (scale)
        for (size_t h = 0; h < H; ++h) seed_mul(df, f, his + h * k, hi + h * k, scale);
    for (size_t e = 0; e < S; ++e)
        for (unsigned m = 0; m < k; ++m) hs[e + (size_t)m * S] = em[e * k + m];
    free(em);
    out->hs = hs;
    out->S = S;
    out->Tn = Tn;
    out->H = H;
    out->lgB = lgB;
    return HEPA_OK;
}

// *ninv = N^(-1) (k words).
hepa_status inverse_of_n(const hepa_bp_field *f, size_t N, uint64_t *ninv) {
    mpz_t nz;
    mpz_init(nz);
    mpz_import(nz, 1, -1, sizeof N, 0, 0, &N);
    const hepa_status s = hepa_bp_from_mpz(f, ninv, nz);
    mpz_clear(nz);
    if (s != HEPA_OK) return s;
    _hepa_bp_inv(f, ninv, ninv);
    return HEPA_OK;
}

// The twiddle seeds of an FFT of size N >= 2: T[i] = ω^i (ω^(-i) for the inverse) for
// i < Tn = max(N/K, 1), and for the inverse Ts[i] = N^(-1)·ω^(-i).
hepa_status fft_seeds(const hepa_bp_field *f, size_t N, int inverse, FftSeeds *out) {
    const unsigned k = hepa_bp_field_k(f);
    const unsigned lgN = log2_of(N), lgK = log2_of(2 * (size_t)k);
    const size_t Tn = lgN > lgK ? N >> lgK : 1;
    uint64_t w[HEPA_BP_MAX_K], ninv[HEPA_BP_MAX_K];
    hepa_status s = hepa_bp_root_of_unity(f, w, N);
    if (s != HEPA_OK) return s;
    if (inverse) {
        _hepa_bp_inv(f, w, w);
        if ((s = inverse_of_n(f, N, ninv)) != HEPA_OK) return s;
    }
    return power_seeds(f, w, inverse ? ninv : NULL, Tn, out);
}

} // namespace hepa_bigprime_cuda
using namespace hepa_bigprime_cuda;

extern "C" hepa_status hepa_bp_dev_field_init(const hepa_bp_field *f, hepa_bp_dev_field *out) {
    if (!f || !out) return HEPA_ERR_INVALID_ARGUMENT;
    const unsigned k = hepa_bp_field_k(f);
    if (k != 8 && k != 16) return HEPA_ERR_UNSUPPORTED;
    hepa_bp_dev_field d;
    d.r = hepa_bp_field_r(f);
    d.w = hepa_bp_field_w(f);
    d.u = hepa_bp_field_u(f);
    d.sign = hepa_bp_field_sign(f);
    d.k = k;
    d.split_rounds = split_rounds_of(d.w, d.u, d.r);
    *out = d;
    return HEPA_OK;
}

extern "C" hepa_status hepa_bp_dev_upload(const hepa_bp_field *f, uint64_t *d_x,
                                          const uint64_t *h_x, size_t N, void *stream) {
    if (!f || !d_x || !h_x) return HEPA_ERR_INVALID_ARGUMENT;
    const unsigned k = hepa_bp_field_k(f);
    size_t words;
    if (!words_of(N, k, &words)) return HEPA_ERR_INVALID_ARGUMENT;
    if (N == 0) return HEPA_OK;
    hepa_status s = _hepa_dev_check_ptr(d_x, "upload destination");
    if (s != HEPA_OK) return s;
    uint64_t *tmp = (uint64_t *)malloc(words * sizeof *tmp);
    if (!tmp) return HEPA_ERR_OUT_OF_MEMORY;
    for (size_t j = 0; j < N; ++j) { // check and transpose in one pass
        const uint64_t *e = h_x + j * k;
        if (!hepa_bp_is_valid(f, e)) {
            free(tmp);
            return HEPA_ERR_INVALID_ARGUMENT;
        }
        for (unsigned m = 0; m < k; ++m) tmp[j + (size_t)m * N] = e[m];
    }
    cudaStream_t st = (cudaStream_t)stream;
    cudaError_t e = cudaMemcpyAsync(d_x, tmp, words * sizeof *tmp, cudaMemcpyHostToDevice, st);
    if (e != cudaSuccess) {
        free(tmp);
        return _hepa_dev_status(e, "cudaMemcpyAsync (big-prime upload)");
    }
    // tmp must outlive the copy: free it from the stream once the copy is done, so that the
    // call does not wait for the device.
    e = cudaLaunchHostFunc(st, free_host_buffer, tmp);
    if (e != cudaSuccess) {
        (void)cudaStreamSynchronize(st); // the copy may still read tmp
        free(tmp);
        return _hepa_dev_status(e, "cudaLaunchHostFunc (big-prime upload)");
    }
    return HEPA_OK;
}

extern "C" hepa_status hepa_bp_dev_download(const hepa_bp_field *f, uint64_t *h_x,
                                            const uint64_t *d_x, size_t N, void *stream) {
    if (!f || !h_x || !d_x) return HEPA_ERR_INVALID_ARGUMENT;
    const unsigned k = hepa_bp_field_k(f);
    size_t words;
    if (!words_of(N, k, &words)) return HEPA_ERR_INVALID_ARGUMENT;
    if (N == 0) return HEPA_OK;
    hepa_status s = _hepa_dev_check_ptr(d_x, "download source");
    if (s != HEPA_OK) return s;
    uint64_t *tmp = (uint64_t *)malloc(words * sizeof *tmp);
    if (!tmp) return HEPA_ERR_OUT_OF_MEMORY;
    cudaStream_t st = (cudaStream_t)stream;
    cudaError_t e = cudaMemcpyAsync(tmp, d_x, words * sizeof *tmp, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) {
        free(tmp);
        return _hepa_dev_status(e, "big-prime download");
    }
    for (size_t j = 0; j < N; ++j)
        for (unsigned m = 0; m < k; ++m) h_x[j * k + m] = tmp[j + (size_t)m * N];
    free(tmp);
    return HEPA_OK;
}

extern "C" hepa_status hepa_bp_dev_add(const hepa_bp_field *f, uint64_t *d_z, const uint64_t *d_x,
                                       const uint64_t *d_y, size_t N, void *stream) {
    return checked(K_ADD, f, d_z, d_x, d_y, N, 0, stream);
}
extern "C" hepa_status hepa_bp_dev_sub(const hepa_bp_field *f, uint64_t *d_z, const uint64_t *d_x,
                                       const uint64_t *d_y, size_t N, void *stream) {
    return checked(K_SUB, f, d_z, d_x, d_y, N, 0, stream);
}
extern "C" hepa_status hepa_bp_dev_neg(const hepa_bp_field *f, uint64_t *d_z, const uint64_t *d_x,
                                       size_t N, void *stream) {
    return checked(K_NEG, f, d_z, d_x, NULL, N, 0, stream);
}
extern "C" hepa_status hepa_bp_dev_mul(const hepa_bp_field *f, uint64_t *d_z, const uint64_t *d_x,
                                       const uint64_t *d_y, size_t N, void *stream) {
    return checked(K_MUL, f, d_z, d_x, d_y, N, 0, stream);
}
extern "C" hepa_status hepa_bp_dev_mul_rpow(const hepa_bp_field *f, uint64_t *d_z,
                                            const uint64_t *d_x, size_t N, unsigned i,
                                            void *stream) {
    return checked(K_RPOW, f, d_z, d_x, NULL, N, i, stream);
}

extern "C" hepa_status _hepa_bp_dev_add(hepa_bp_dev_field df, uint64_t *d_z, const uint64_t *d_x,
                                        const uint64_t *d_y, size_t N, void *stream) {
    return launch(K_ADD, df, d_z, d_x, d_y, N, 0, stream);
}
extern "C" hepa_status _hepa_bp_dev_sub(hepa_bp_dev_field df, uint64_t *d_z, const uint64_t *d_x,
                                        const uint64_t *d_y, size_t N, void *stream) {
    return launch(K_SUB, df, d_z, d_x, d_y, N, 0, stream);
}
extern "C" hepa_status _hepa_bp_dev_neg(hepa_bp_dev_field df, uint64_t *d_z, const uint64_t *d_x,
                                        size_t N, void *stream) {
    return launch(K_NEG, df, d_z, d_x, NULL, N, 0, stream);
}
extern "C" hepa_status _hepa_bp_dev_mul(hepa_bp_dev_field df, uint64_t *d_z, const uint64_t *d_x,
                                        const uint64_t *d_y, size_t N, void *stream) {
    return launch(K_MUL, df, d_z, d_x, d_y, N, 0, stream);
}
extern "C" hepa_status _hepa_bp_dev_mul_rpow(hepa_bp_dev_field df, uint64_t *d_z,
                                             const uint64_t *d_x, size_t N, unsigned i,
                                             void *stream) {
    return launch(K_RPOW, df, d_z, d_x, NULL, N, i, stream);
}

// ---- FFT ------------------------------------------------------------------------------------

extern "C" hepa_status hepa_bp_dev_fft(const hepa_bp_field *f, uint64_t *d_x, size_t N,
                                       int inverse, void *stream) {
    if (!f || !d_x) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_bp_dev_field df;
    hepa_status s = hepa_bp_dev_field_init(f, &df);
    if (s != HEPA_OK) return s;
    const unsigned k = df.k;
    if (N == 0 || (N & (N - 1))) return HEPA_ERR_INVALID_ARGUMENT;
    const unsigned lgN = log2_of(N);
    if (lgN > hepa_bp_field_v2(f) || lgN > 38) return HEPA_ERR_UNSUPPORTED;
    size_t words;
    if (!words_of(N, k, &words) || N > SIZE_MAX / 4 / sizeof(uint64_t) / k)
        return HEPA_ERR_INVALID_ARGUMENT;
    if ((s = _hepa_dev_check_ptr(d_x, "FFT vector")) != HEPA_OK) return s;
    if (N == 1) return HEPA_OK; // X_0 = x_0 both ways (N^(-1) = 1)

    FftSeeds sd;
    if ((s = fft_seeds(f, N, inverse, &sd)) != HEPA_OK) return s;
    uint64_t *hs = sd.hs;
    const size_t S = sd.S, Tn = sd.Tn, H = sd.H;
    const unsigned lgB = sd.lgB, lgK = log2_of(2 * (size_t)k);

    // Workspace: scratch vector (when there are two levels or more), T, Ts, seeds.
    const size_t scratch_n = lgN > lgK ? N : 0;
    const size_t ws_n = scratch_n + Tn * (inverse ? 2 : 1) + S;
    cudaStream_t st = (cudaStream_t)stream;
    void *ws = NULL;
    cudaError_t e = cudaMallocAsync(&ws, ws_n * k * sizeof(uint64_t), st);
    if (e != cudaSuccess) {
        free(hs);
        return _hepa_dev_status(e, "cudaMallocAsync (big-prime FFT workspace)");
    }
    uint64_t *scratch = (uint64_t *)ws;
    uint64_t *T = scratch + scratch_n * k;
    uint64_t *Ts = inverse ? T + Tn * k : NULL;
    uint64_t *seeds = T + Tn * (inverse ? 2 : 1) * k;
    e = cudaMemcpyAsync(seeds, hs, S * k * sizeof *hs, cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess) {
        // hs must outlive the copy: freed from the stream (as in hepa_bp_dev_upload).
        e = cudaLaunchHostFunc(st, free_host_buffer, hs);
        if (e != cudaSuccess) {
            (void)cudaStreamSynchronize(st);
            free(hs);
        }
    } else {
        free(hs);
    }
    if (e == cudaSuccess) {
        if (k == 8) {
            tables_enqueue<8>(df, T, Ts, seeds, S, Tn, lgB, H, st);
            fft_levels<8>(df, d_x, d_x, scratch, N, inverse != 0, T, Ts, Tn, NULL, st);
        } else {
            tables_enqueue<16>(df, T, Ts, seeds, S, Tn, lgB, H, st);
            fft_levels<16>(df, d_x, d_x, scratch, N, inverse != 0, T, Ts, Tn, NULL, st);
        }
        e = cudaGetLastError();
    }
    const cudaError_t e2 = cudaFreeAsync(ws, st);
    if (e == cudaSuccess) e = e2;
    return e == cudaSuccess ? HEPA_OK : _hepa_dev_status(e, "big-prime FFT");
}

// ---- FFT plans and polynomial products ------------------------------------------------------

// Everything a size-N transform needs, built once (hepa/bigprime_cuda.h). All device arrays live
// in one allocation, digit-major with their own element count as the digit stride.
struct hepa_bp_dev_plan {
    hepa_bp_dev_field df;
    size_t N;
    unsigned flags;
    size_t Tn;                   // entries of T, Ti, Ts: max(N/K, 1)
    void *ws;                    // the allocation
    uint64_t *scratch;           // N elements (NULL when N <= K: one level)
    uint64_t *A, *B;             // N elements each: the spectra of a product
    uint64_t *T, *Ti, *Ts;       // ω^i, ω^(-i), N^(-1)·ω^(-i)
    uint64_t *tw, *utw;          // ψ^i, ψ^(-i) (i < N, ψ^N = -1): NEGACYCLIC plans only
};

namespace hepa_bigprime_cuda {

// Builds table(s) T[i] = w^i (and Ts[i] = scale·w^i) for i < Tn on stream st, synchronously
// (plan creation only): host seeds, a temporary device copy of them, the twiddle kernel.
hepa_status build_powers(const hepa_bp_field *f, const hepa_bp_dev_field &df, const uint64_t *w,
                         const uint64_t *scale, size_t Tn, uint64_t *T, uint64_t *Ts,
                         cudaStream_t st) {
    FftSeeds sd;
    hepa_status s = power_seeds(f, w, scale, Tn, &sd);
    if (s != HEPA_OK) return s;
    void *d = NULL;
    cudaError_t e = cudaMalloc(&d, sd.S * df.k * sizeof(uint64_t));
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(d, sd.hs, sd.S * df.k * sizeof(uint64_t), cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess) {
        if (df.k == 8)
            tables_enqueue<8>(df, T, Ts, (const uint64_t *)d, sd.S, Tn, sd.lgB, sd.H, st);
        else
            tables_enqueue<16>(df, T, Ts, (const uint64_t *)d, sd.S, Tn, sd.lgB, sd.H, st);
        e = cudaGetLastError();
    }
    const cudaError_t e2 = cudaStreamSynchronize(st);
    if (e == cudaSuccess) e = e2;
    if (d) (void)cudaFree(d);
    free(sd.hs);
    return e == cudaSuccess ? HEPA_OK : _hepa_dev_status(e, "big-prime plan tables");
}

template <int KD>
void plan_transform(const hepa_bp_dev_plan *p, uint64_t *out, const uint64_t *in, int inverse,
                    const uint64_t *pre, cudaStream_t st) {
    fft_levels<KD>(p->df, out, in, p->scratch, p->N, inverse, inverse ? p->Ti : p->T, p->Ts,
                   p->Tn, pre, st);
}

template <int KD>
void plan_poly_mul(const hepa_bp_dev_plan *p, uint64_t *z, const uint64_t *x, const uint64_t *y,
                   int negacyclic, cudaStream_t st) {
    const uint64_t *twist = negacyclic ? p->tw : NULL;
    plan_transform<KD>(p, p->A, x, 0, twist, st); // A = FFT(x ⊙ ψ^i)
    const uint64_t *Bv = p->A;
    if (y != x) {
        plan_transform<KD>(p, p->B, y, 0, twist, st);
        Bv = p->B;
    }
    plan_transform<KD>(p, z, p->A, 1, Bv, st); // z = FFT^(-1)(A ⊙ B), the product in level 0
    if (negacyclic) launch_k<KD>(K_MUL, p->df, z, p->utw, z, p->N, 0, st);
}

hepa_status plan_checks(const hepa_bp_dev_plan *p, const void *a, const void *b, const void *c) {
    if (!p || !a || !b || !c) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_status s;
    if ((s = _hepa_dev_check_ptr(a, "output")) != HEPA_OK) return s;
    if (b != a && (s = _hepa_dev_check_ptr(b, "input")) != HEPA_OK) return s;
    if (c != a && c != b && (s = _hepa_dev_check_ptr(c, "input y")) != HEPA_OK) return s;
    return HEPA_OK;
}

} // namespace hepa_bigprime_cuda

extern "C" hepa_status hepa_bp_dev_plan_create(hepa_bp_dev_plan **out, const hepa_bp_field *f,
                                               size_t N, unsigned flags) {
    if (!out || !f) return HEPA_ERR_INVALID_ARGUMENT;
    if (flags & ~(unsigned)HEPA_BP_PLAN_NEGACYCLIC) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_bp_dev_field df;
    hepa_status s = hepa_bp_dev_field_init(f, &df);
    if (s != HEPA_OK) return s;
    if (N == 0 || (N & (N - 1))) return HEPA_ERR_INVALID_ARGUMENT;
    const int neg = (flags & HEPA_BP_PLAN_NEGACYCLIC) != 0;
    const unsigned lgN = log2_of(N), k = df.k, lgK = log2_of(2 * (size_t)k);
    if (lgN + (neg ? 1 : 0) > hepa_bp_field_v2(f) || lgN > 38) return HEPA_ERR_UNSUPPORTED;
    size_t words;
    if (!words_of(N, k, &words) || N > SIZE_MAX / 8 / sizeof(uint64_t) / k)
        return HEPA_ERR_INVALID_ARGUMENT;
    {
        int dev_count = 0;
        if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
            (void)cudaGetLastError();
            return HEPA_ERR_NO_DEVICE;
        }
    }
    hepa_bp_dev_plan *p = (hepa_bp_dev_plan *)calloc(1, sizeof *p);
    if (!p) return HEPA_ERR_OUT_OF_MEMORY;
    p->df = df;
    p->N = N;
    p->flags = flags;
    p->Tn = lgN > lgK ? N >> lgK : 1;
    const size_t scratch_n = lgN > lgK ? N : 0, Tn = p->Tn;
    const size_t total = scratch_n + 2 * N + 3 * Tn + (neg ? 2 * N : 0); // elements
    cudaError_t e = cudaMalloc(&p->ws, total * k * sizeof(uint64_t));
    if (e != cudaSuccess) {
        s = _hepa_dev_status(e, "cudaMalloc (big-prime plan)");
        (void)cudaGetLastError();
        free(p);
        return s;
    }
    uint64_t *cur = (uint64_t *)p->ws;
    auto carve = [&](size_t n) {
        uint64_t *r = n ? cur : NULL;
        cur += n * k;
        return r;
    };
    p->scratch = carve(scratch_n);
    p->A = carve(N);
    p->B = carve(N);
    p->T = carve(Tn);
    p->Ti = carve(Tn);
    p->Ts = carve(Tn);
    p->tw = carve(neg ? N : 0);
    p->utw = carve(neg ? N : 0);

    cudaStream_t st;
    if ((e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)) != cudaSuccess) {
        s = _hepa_dev_status(e, "cudaStreamCreate (big-prime plan)");
        hepa_bp_dev_plan_destroy(p);
        return s;
    }
    uint64_t w[HEPA_BP_MAX_K], wi[HEPA_BP_MAX_K], ninv[HEPA_BP_MAX_K];
    s = hepa_bp_root_of_unity(f, w, N);
    if (s == HEPA_OK) {
        _hepa_bp_inv(f, wi, w);
        s = inverse_of_n(f, N, ninv);
    }
    if (s == HEPA_OK) s = build_powers(f, df, w, NULL, Tn, p->T, NULL, st);
    if (s == HEPA_OK) s = build_powers(f, df, wi, ninv, Tn, p->Ti, p->Ts, st);
    if (s == HEPA_OK && neg) {
        uint64_t psi[HEPA_BP_MAX_K], psii[HEPA_BP_MAX_K];
        s = hepa_bp_root_of_unity(f, psi, 2 * N);
        if (s == HEPA_OK) {
            _hepa_bp_inv(f, psii, psi);
            s = build_powers(f, df, psi, NULL, N, p->tw, NULL, st);
        }
        if (s == HEPA_OK) s = build_powers(f, df, psii, NULL, N, p->utw, NULL, st);
    }
    (void)cudaStreamDestroy(st);
    if (s != HEPA_OK) {
        hepa_bp_dev_plan_destroy(p);
        return s;
    }
    *out = p;
    return HEPA_OK;
}

extern "C" void hepa_bp_dev_plan_destroy(hepa_bp_dev_plan *plan) {
    if (!plan) return;
    if (plan->ws) (void)cudaFree(plan->ws);
    free(plan);
}

extern "C" size_t hepa_bp_dev_plan_size(const hepa_bp_dev_plan *plan) {
    return plan ? plan->N : 0;
}

extern "C" hepa_status hepa_bp_dev_plan_fft(const hepa_bp_dev_plan *plan, uint64_t *d_out,
                                            const uint64_t *d_in, int inverse, void *stream) {
    hepa_status s = plan_checks(plan, d_out, d_in, d_in);
    if (s != HEPA_OK) return s;
    cudaStream_t st = (cudaStream_t)stream;
    const size_t N = plan->N;
    if (N == 1) { // X_0 = x_0 both ways
        if (d_out == d_in) return HEPA_OK;
        return _hepa_dev_status(cudaMemcpyAsync(d_out, d_in, plan->df.k * sizeof(uint64_t),
                                                cudaMemcpyDeviceToDevice, st),
                                "big-prime plan FFT copy");
    }
    if (plan->df.k == 8)
        plan_transform<8>(plan, d_out, d_in, inverse != 0, NULL, st);
    else
        plan_transform<16>(plan, d_out, d_in, inverse != 0, NULL, st);
    return _hepa_dev_status(cudaGetLastError(), "big-prime plan FFT");
}

extern "C" hepa_status hepa_bp_dev_poly_mul(const hepa_bp_dev_plan *plan, uint64_t *d_z,
                                            const uint64_t *d_x, const uint64_t *d_y,
                                            int negacyclic, void *stream) {
    hepa_status s = plan_checks(plan, d_z, d_x, d_y);
    if (s != HEPA_OK) return s;
    if (negacyclic && !(plan->flags & HEPA_BP_PLAN_NEGACYCLIC)) {
        _hepa_set_error_message("negacyclic product on a plan made without "
                                "HEPA_BP_PLAN_NEGACYCLIC");
        return HEPA_ERR_INVALID_ARGUMENT;
    }
    cudaStream_t st = (cudaStream_t)stream;
    if (plan->N == 1) // x^1 - 1 and x^1 + 1 both leave the constant product
        return launch(K_MUL, plan->df, d_z, d_x, d_y, 1, 0, stream);
    if (plan->df.k == 8)
        plan_poly_mul<8>(plan, d_z, d_x, d_y, negacyclic != 0, st);
    else
        plan_poly_mul<16>(plan, d_z, d_x, d_y, negacyclic != 0, st);
    return _hepa_dev_status(cudaGetLastError(), "big-prime polynomial product");
}

// Rejects plain (unregistered) host memory where a device pointer is needed: a kernel touching
// it would fault and leave the context unusable. Device, managed and mapped pinned memory pass.
