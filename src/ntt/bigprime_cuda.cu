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
// Arithmetic, as on the host: each operation first forms k signed digit sums t_m with value
// Σ t_m·r^m ≡ the result, then normalize<K> (the host's bp_normalize, line for line) makes the
// canonical form: a signed carry chain in base r whose divisions by r are shift-and-subtract
// rounds (r = 2^w ± 2^u: v = e·2^w + low = e·r ∓ e·2^u + low), the carry c out of the top
// folded back as -c (r^k ≡ -1), then the last small carry by fold_small (the host's
// bp_fold_small). The canonical form of a residue is unique, so any correct computation of the
// digit sums gives the host's digits exactly.
//
// Multiplication: the negacyclic schoolbook product of the digit vectors (T^k ≡ -1), by Horner
// over the digits of x (bp_mul_kernel). Each 128-bit
// product P = x_i·y_j <= r^2 is split into P = h·r + l by split_rounds fixed rounds of the same
// shift-and-subtract step — a fixed count (computed on the host from w, u, r) instead of the
// host's loop "until l is in [0, r)", so that all threads run the same instructions: l is then
// only bounded, |l| < 2^(w+2), and h <= r + 16. That is all the digit sums need: each t_m
// collects 2k such terms (l at T^(i+j), h at T^(i+j+1), negated past T^k), |t_m| < 2^71, far
// inside the 2^120 that normalize accepts; normalize then does the exact division.
// 128-bit integers are __int128 (supported in device code by nvcc); v >> w on a negative value
// is an arithmetic shift (floor), as with GCC on the host.
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "device/internal.h"
#include "hepa/bigprime.h"
#include "hepa/bigprime_cuda.h"

namespace {

typedef __int128 i128;
typedef unsigned __int128 u128;

// The digit arithmetic compiles for the host too (so it can be exercised without a GPU).
#define HD __host__ __device__ __forceinline__

// v · 2^s for a signed v, through unsigned arithmetic (a left shift of a negative value is
// undefined in C++17; the bits are the same).
HD i128 shl(i128 v, unsigned s) { return (i128)((u128)v << s); }

// Floor division by r without dividing: returns q = floor(v / r), *rem = v - q·r in [0, r).
// The host's bp_divrem; requires |v| < 2^127 - 2^(2w+1).
HD i128 divrem(const hepa_bp_dev_field &f, i128 v, uint64_t &rem) {
    const i128 r = (i128)f.r, mask = ((i128)1 << f.w) - 1;
    i128 q = 0;
    if (f.sign > 0) { // r > 2^w: every v in [0, r) is done
        while (v < 0 || v >= r) {
            const i128 e = v >> f.w;
            v = (v & mask) - shl(e, f.u);
            q += e;
        }
    } else { // r < 2^w: stop in [0, 2^w), then at most one r too many
        while (v < 0 || v > mask) {
            const i128 e = v >> f.w;
            v = (v & mask) + shl(e, f.u);
            q += e;
        }
        if (v >= r) {
            v -= r;
            ++q;
        }
    }
    rem = (uint64_t)v;
    return q;
}

// P = h·r + l for P <= r^2 (a digit product), |l| < 2^(w+2) (see the file comment). The first
// round in unsigned arithmetic (P may not fit an i128): e < 2^(w+2), e·2^u < 2^127.
HD void split(const hepa_bp_dev_field &f, u128 P, i128 &h, i128 &l) {
    const u128 e0 = P >> f.w;
    const i128 mask = ((i128)1 << f.w) - 1;
    const i128 eu = (i128)(e0 << f.u);
    i128 v = (i128)P & mask;
    v = f.sign > 0 ? v - eu : v + eu;
    i128 q = (i128)e0;
    for (unsigned round = 1; round < f.split_rounds; ++round) {
        const i128 e = v >> f.w;
        const i128 s = shl(e, f.u);
        v = (v & mask) + (f.sign > 0 ? -s : s);
        q += e;
    }
    h = q;
    l = v;
}

// z = canonical form of L - c (mod p), where z holds k digits in [0, r) with value L and
// c in [-2, 2] is a carry out of the top digit (c·r^k ≡ -c). The host's bp_fold_small.
template <int K>
HD void fold_small(const hepa_bp_dev_field &f, uint64_t (&z)[K], int c) {
    const uint64_t r = f.r;
    if (c > 0) {
        bool small = z[0] < (uint64_t)c; // L < c ?
#pragma unroll
        for (int m = 1; m < K; ++m) small = small && z[m] == 0;
        if (small) { // L - c in {-2, -1}: + p = r^k + 1 gives r^k - 1 or r^k
            if (z[0] + 1 == (uint64_t)c) {
#pragma unroll
                for (int m = 0; m + 1 < K; ++m) z[m] = 0; // r^k = p - 1, the special form
                z[K - 1] = r;
            } else {
#pragma unroll
                for (int m = 0; m < K; ++m) z[m] = r - 1; // r^k - 1 = p - 2
            }
            return;
        }
        uint64_t b = (uint64_t)c; // borrow chain; stops below the top since L >= c
#pragma unroll
        for (int m = 0; m < K; ++m) {
            if (b) {
                if (z[m] >= b) {
                    z[m] -= b;
                    b = 0;
                } else {
                    z[m] = z[m] + (r - b);
                    b = 1;
                }
            }
        }
    } else if (c < 0) {
        uint64_t a = (uint64_t)(-c); // carry chain
#pragma unroll
        for (int m = 0; m < K; ++m) {
            if (a) {
                if (z[m] < r - a) {
                    z[m] += a;
                    a = 0;
                } else {
                    z[m] -= r - a;
                    a = 1;
                }
            }
        }
        if (a) { // carried out: r^k + L' with L' = z[0] in {0, 1}, ≡ L' - 1
            if (z[0] == 0)
                z[K - 1] = r;
            else
                z[0] = 0;
        }
    }
}

// z = canonical form of Σ t_m·r^m (mod p), |t_m| < 2^120 (t is overwritten). The host's
// bp_normalize.
template <int K>
HD void normalize(const hepa_bp_dev_field &f, uint64_t (&z)[K], i128 (&t)[K]) {
    i128 c;
    for (;;) {
        c = 0;
#pragma unroll
        for (int m = 0; m < K; ++m) {
            uint64_t d;
            c = divrem(f, t[m] + c, d);
            t[m] = d;
        }
        if (c >= -2 && c <= 2) break;
        t[0] -= c;
    }
#pragma unroll
    for (int m = 0; m < K; ++m) z[m] = (uint64_t)t[m];
    fold_small<K>(f, z, (int)c);
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

// out = x·y, the digits of y in registers (b), those of x read one at a time through xd(i)
// (a digit loader: global memory for the element-wise kernel, the twiddle table for the FFT).
template <int K, class XDigits>
HD void mul_core(const hepa_bp_dev_field &f, uint64_t (&out)[K], const XDigits &xd,
                 const uint64_t (&b)[K]) {
    // Horner over the digits of x, from the top: t <- t·T + x_i·y (mod T^k + 1), where t·T moves
    // every sum up one place and brings the top one back negated (T^k ≡ -1). The end result is
    // the negacyclic schoolbook sum, term for term; a rolled loop over i (the digit x_i re-read
    // from memory, coalesced) keeps the code k times smaller than unrolling both loops (compile
    // time 6 s instead of 49 s per architecture) at the cost of k register moves per digit.
    i128 t[K];
#pragma unroll
    for (int m = 0; m < K; ++m) t[m] = 0;
#pragma unroll 1
    for (int i = K - 1; i >= 0; --i) {
        const i128 top = t[K - 1];
#pragma unroll
        for (int m = K - 1; m > 0; --m) t[m] = t[m - 1];
        t[0] = -top;
        const uint64_t a = xd(i);
#pragma unroll
        for (int m = 0; m < K; ++m) {
            i128 h, l;
            split(f, (u128)a * b[m], h, l); // l at T^m, h at T^(m+1)
            t[m] += l;
            if (m + 1 < K)
                t[m + 1] += h;
            else
                t[0] -= h;
        }
    }
    normalize<K>(f, out, t);
}

// out = x·y like mul_core, with fewer operations per digit product, for the fields with
// w + u + log2 k <= 115 (mul_cols_ok; all the named ones): each 128-bit product x_i·y_j = ph·2^64
// + pl goes whole into two signed column sums, L_c += ±pl and H_c += ±ph (c = i + j mod k, minus
// past T^k), with no splitting; then 2^64 = 2^(64-w)·(r - sign·2^u) turns each column into digit
// sums, t_c += L_c - sign·H_c·2^(64-w+u) and t_(c+1) += H_c·2^(64-w) (the top one wrapping
// negated), |t_c| < k·2^(w+u+3) <= 2^119, and normalize divides by r exactly once per column.
// Both loops unroll (the column index must be a compile-time register index).
HD bool mul_cols_ok(const hepa_bp_dev_field &f) {
    return f.w + f.u + (f.k == 8 ? 3u : 4u) <= 115u;
}

template <int K, class XDigits>
HD void mul_cols(const hepa_bp_dev_field &f, uint64_t (&out)[K], const XDigits &xd,
                 const uint64_t (&b)[K]) {
    i128 L[K], H[K];
#pragma unroll
    for (int m = 0; m < K; ++m) L[m] = H[m] = 0;
#pragma unroll
    for (int i = 0; i < K; ++i) {
        const uint64_t a = xd(i);
#pragma unroll
        for (int j = 0; j < K; ++j) {
            const u128 P = (u128)a * b[j];
            const i128 pl = (i128)(uint64_t)P, ph = (i128)(uint64_t)(P >> 64);
            if (i + j < K) {
                L[i + j] += pl;
                H[i + j] += ph;
            } else {
                L[i + j - K] -= pl;
                H[i + j - K] -= ph;
            }
        }
    }
    const unsigned s1 = 64 - f.w + f.u, s2 = 64 - f.w;
    i128 t[K];
#pragma unroll
    for (int c = 0; c < K; ++c) t[c] = f.sign > 0 ? L[c] - shl(H[c], s1) : L[c] + shl(H[c], s1);
#pragma unroll
    for (int c = 0; c < K; ++c) {
        const i128 h = shl(H[c], s2);
        if (c + 1 < K)
            t[c + 1] += h;
        else
            t[0] -= h;
    }
    normalize<K>(f, out, t);
}

// The twiddle multiply of the FFT: mul_cols where its bounds hold, else mul_core.
template <int K, class XDigits>
HD void mul_tw(const hepa_bp_dev_field &f, uint64_t (&out)[K], const XDigits &xd,
               const uint64_t (&b)[K]) {
    if (mul_cols_ok(f))
        mul_cols<K>(f, out, xd, b);
    else
        mul_core<K>(f, out, xd, b);
}

// Digit i of element j of a digit-major vector of n elements.
struct DigitsAt {
    const uint64_t *x;
    size_t j, n;
    HD uint64_t operator()(int i) const { return x[j + (size_t)i * n]; }
};

// Element j of z = x·y.
template <int K>
HD void elem_mul(const hepa_bp_dev_field &f, uint64_t *z, const uint64_t *x, const uint64_t *y,
                 size_t j, size_t n) {
    uint64_t b[K];
#pragma unroll
    for (int m = 0; m < K; ++m) b[m] = y[j + (size_t)m * n];
    uint64_t out[K];
    mul_core<K>(f, out, DigitsAt{x, j, n}, b);
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

template <int K>
__global__ void bp_mul_kernel(const hepa_bp_dev_field f, uint64_t *z, const uint64_t *x,
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
    case K_MUL: bp_mul_kernel<K><<<blocks, threads, 0, st>>>(f, z, x, y, n); break;
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

// Rounds of split() for P <= r^2 to reach |l| < 2^(w+2). After the first (unsigned) round
// |v| < 2^w + E·2^u with E = floor(r^2 / 2^w); a signed round takes |v| < M to
// |v| < 2^w + (floor(M / 2^w) + 1)·2^u, which decreases while M >= 2^(w+2) (it tends to about
// 2^w + 2^(u+1) <= 3·2^w). All in u128: E·2^u < 2^(2w+2+u-w) <= 2^127.
unsigned split_rounds(unsigned w, unsigned u, uint64_t r) {
    const u128 E = ((u128)r * r) >> w;
    const u128 target = (u128)1 << (w + 2);
    u128 M = ((u128)1 << w) + (E << u);
    unsigned rounds = 1;
    while (M >= target) {
        M = ((u128)1 << w) + (((M >> w) + 1) << u);
        ++rounds;
    }
    return rounds;
}

// Words in N elements of k digits, or 0 when k·N·8 bytes would overflow a size_t.
int words_of(size_t N, unsigned k, size_t *words) {
    if (k == 0 || N > SIZE_MAX / sizeof(uint64_t) / k) return 0;
    *words = N * k;
    return 1;
}

// Rejects plain (unregistered) host memory where a device pointer is needed: a kernel touching
// it would fault and leave the context unusable. Device, managed and mapped pinned memory pass.
hepa_status check_device_ptr(const void *p, const char *what) {
    cudaPointerAttributes a;
    const cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e == cudaErrorInvalidValue) {
        (void)cudaGetLastError();
        _hepa_set_error_message("%s: not a pointer the CUDA runtime knows", what);
        return HEPA_ERR_INVALID_ARGUMENT;
    }
    if (e != cudaSuccess) {
        const hepa_status s = _hepa_dev_status(e, "cudaPointerGetAttributes");
        (void)cudaGetLastError();
        return s;
    }
    if (a.type == cudaMemoryTypeUnregistered) {
        _hepa_set_error_message("%s: host memory where device memory is needed", what);
        return HEPA_ERR_INVALID_ARGUMENT;
    }
    return HEPA_OK;
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
    if ((s = check_device_ptr(z, "output")) != HEPA_OK) return s;
    if ((s = check_device_ptr(x, "input x")) != HEPA_OK) return s;
    if (binary && (s = check_device_ptr(y, "input y")) != HEPA_OK) return s;
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
// One block = J groups of R elements (J·R = 256 threads, fewer for tiny N); thread t = s·J + jl
// loads element s of group j0 + jl (a warp reads runs of J consecutive elements per digit row),
// multiplies it by its twiddle (mul_tw, the twiddle's digits read from the table), and stores it
// in shared memory (digit-major, k·256 words). After a barrier each thread computes ONE output
// X_s' of one group directly, X_s' = Σ_s b_s·r^(E_s), as k signed 128-bit digit sums: b_s·r^E is
// b_s's digits rotated up by E mod k, those that wrap (and all of them when E >= k) negated —
// read from shared memory at a runtime offset, so nothing is indexed in registers. |sum| < R·r,
// then one normalize<k>. So each thread keeps one element (k digits, plus the 2k-word sums) in
// registers instead of K·k words, and the DFT_K has no general multiplication and one
// normalization per output. Threads are assigned to outputs so that a warp writes contiguous
// runs: runs of J when Ns >= J, else the block's J·R outputs, which are then contiguous.
// Inverse: the same with ω^(-1) (table of inverse powers, r^(-E)), and the last level multiplies
// every element by a second table holding N^(-1)·ω_N^(-i) (the scale folded into the twiddles).
struct FftLevel {
    size_t N;
    unsigned lgR, lgNs, lgJ;
    unsigned lgMK;       // log2(M/K) when Ns > 1 (e = s·k0 splits as i = e mod M/K, q = e div M/K)
    const uint64_t *tw;  // twiddle table, digit-major with digit stride twn
    size_t twn;
    unsigned tw_shift;   // ω_M^i is table entry i << tw_shift (= i·N/M)
    int scaled;          // the table includes N^(-1): multiply every element, even by entry 0
    int inverse;
};

// The first half of a level, for thread t of block `block` (blockDim bt): load, twiddle, store
// to shared memory. Then a barrier, then fft_output. (Split so that the host can run them.)
template <int KD>
HD void fft_input(const hepa_bp_dev_field &f, const uint64_t *x, const FftLevel &L, uint64_t *sm,
                  size_t block, unsigned t, unsigned BT) {
    const unsigned J = 1u << L.lgJ;
    const size_t N = L.N, Ns = (size_t)1 << L.lgNs;
    const size_t j0 = block << L.lgJ;
    const unsigned jl = t & (J - 1), s = t >> L.lgJ;
    const size_t j = j0 + jl;
    const size_t src = j + (size_t)s * (N >> L.lgR);
    uint64_t b[KD];
#pragma unroll
    for (int m = 0; m < KD; ++m) b[m] = x[src + (size_t)m * N];
    const size_t e = (size_t)s * (j & (Ns - 1));
    const size_t i = L.lgNs ? e & (((size_t)1 << L.lgMK) - 1) : 0;
    if (L.scaled || i != 0) {
        uint64_t out[KD];
        mul_tw<KD>(f, out, DigitsAt{L.tw, i << L.tw_shift, L.twn}, b);
#pragma unroll
        for (int m = 0; m < KD; ++m) sm[m * BT + t] = out[m];
    } else {
#pragma unroll
        for (int m = 0; m < KD; ++m) sm[m * BT + t] = b[m];
    }
}

// The second half: thread t computes one output X_s' of one group from shared memory and
// writes it.
template <int KD>
HD void fft_output(const hepa_bp_dev_field &f, uint64_t *y, const FftLevel &L,
                   const uint64_t *sm, size_t block, unsigned t, unsigned BT) {
    const unsigned KK = 2 * KD;
    const unsigned R = 1u << L.lgR, J = 1u << L.lgJ;
    const size_t N = L.N, Ns = (size_t)1 << L.lgNs;
    const size_t j0 = block << L.lgJ;
    unsigned jl, so;
    size_t dst;
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
    const size_t k0 = (j0 + jl) & (Ns - 1);
    const unsigned step = KK >> L.lgR; // ω_R = r^step
    i128 acc[KD];
#pragma unroll
    for (int m = 0; m < KD; ++m) acc[m] = 0;
#pragma unroll 1
    for (unsigned s = 0; s < R; ++s) {
        const unsigned q = L.lgNs ? (unsigned)(((size_t)s * k0) >> L.lgMK) : 0;
        unsigned E = (q + s * so * step) & (KK - 1);
        if (L.inverse) E = (KK - E) & (KK - 1);
        const bool neg = E >= (unsigned)KD;
        const unsigned sh = neg ? E - KD : E;
        const uint64_t *el = sm + (s << L.lgJ) + jl;
#pragma unroll
        for (int m = 0; m < KD; ++m) {
            const bool wrap = (unsigned)m < sh;
            const unsigned d = wrap ? m + KD - sh : m - sh;
            const i128 v = (i128)el[d * BT];
            acc[m] += wrap != neg ? -v : v;
        }
    }
    uint64_t out[KD];
    normalize<KD>(f, out, acc);
#pragma unroll
    for (int m = 0; m < KD; ++m) y[dst + (size_t)m * N] = out[m];
}

template <int KD>
__global__ void __launch_bounds__(256) bp_fft_level_kernel(const hepa_bp_dev_field f, uint64_t *y,
                                                           const uint64_t *x, const FftLevel L) {
    extern __shared__ uint64_t sm[]; // [KD][blockDim.x]
    fft_input<KD>(f, x, L, sm, blockIdx.x, threadIdx.x, blockDim.x);
    __syncthreads();
    fft_output<KD>(f, y, L, sm, blockIdx.x, threadIdx.x, blockDim.x);
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
        L.lgJ = (8 - L.lgR) < lgGroups ? 8 - L.lgR : lgGroups; // J·R <= 256 threads
        const unsigned lgM = lgNs + L.lgR;
        L.lgMK = lgM >= lgK ? lgM - lgK : 0; // Ns > 1 implies R = K, M >= 2K
        L.scaled = last && inverse;
        L.tw = L.scaled ? Ts : T;
        L.twn = Tn;
        L.tw_shift = lgN - lgM;
        L.inverse = inverse;
        lgNs += L.lgR;
    }
    return levels;
}

// The device part of hepa_bp_dev_fft, after the checks: N >= 2 a power of two, seeds uploaded
// on the device, workspace carved (blocks < 2^31: N <= 2^38). Enqueues the twiddle kernel and
// the levels; the levels ping-pong between d_x and scratch so that the last one writes d_x (in
// place when the number of levels is odd).
template <int KD>
void fft_enqueue(const hepa_bp_dev_field &df, uint64_t *d_x, uint64_t *scratch, size_t N,
                 int inverse, uint64_t *T, uint64_t *Ts, const uint64_t *seeds, size_t S,
                 size_t Tn, unsigned lgB, size_t H, cudaStream_t st) {
    {
        const unsigned threads = 128;
        const size_t want = (Tn + threads - 1) / threads;
        const unsigned blocks = (unsigned)(want < 65536 ? want : 65536);
        bp_fft_twiddle_kernel<KD><<<blocks, threads, 0, st>>>(df, T, Ts, seeds, S, Tn, lgB, H);
    }
    FftLevel lv[64];
    const unsigned levels = fft_plan<KD>(lv, N, inverse, T, Ts, Tn);
    uint64_t *cur = d_x, *oth = scratch;
    for (unsigned li = 0; li < levels; ++li) {
        const int last = li + 1 == levels;
        uint64_t *dst = last ? d_x : oth;
        const unsigned threads = 1u << (lv[li].lgJ + lv[li].lgR);
        const size_t blocks = (N >> lv[li].lgR) >> lv[li].lgJ;
        bp_fft_level_kernel<KD><<<(unsigned)blocks, threads, threads * KD * sizeof(uint64_t), st>>>(
            df, dst, cur, lv[li]);
        if (!last) {
            oth = cur;
            cur = dst;
        }
    }
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

// z = x·y on the host for the seeds: mul_cols (a few times faster here than the host's
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
    mul_cols<K>(df, out, DigitsAt{x, 0, 1}, b);
    memcpy(z, out, sizeof out);
}

void seed_mul(const hepa_bp_dev_field &df, const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
              const uint64_t *y) {
    if (df.k == 8)
        seed_mul_k<8>(df, f, z, x, y);
    else
        seed_mul_k<16>(df, f, z, x, y);
}

hepa_status fft_seeds(const hepa_bp_field *f, size_t N, int inverse, FftSeeds *out) {
    const unsigned k = hepa_bp_field_k(f);
    hepa_bp_dev_field df;
    hepa_status s = hepa_bp_dev_field_init(f, &df);
    if (s != HEPA_OK) return s;
    const unsigned lgN = log2_of(N), lgK = log2_of(2 * (size_t)k);
    const size_t Tn = lgN > lgK ? N >> lgK : 1;
    const unsigned lgTn = log2_of(Tn), lgB = (lgTn + 1) / 2;
    const size_t B = (size_t)1 << lgB, H = Tn >> lgB;
    const size_t S = B + H * (inverse ? 2 : 1);
    uint64_t *em = (uint64_t *)malloc(S * k * sizeof *em); // element-major seeds
    uint64_t *hs = (uint64_t *)malloc(S * k * sizeof *hs); // digit-major, for the copy
    if (!em || !hs) {
        free(em);
        free(hs);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    uint64_t w[HEPA_BP_MAX_K], wB[HEPA_BP_MAX_K], ninv[HEPA_BP_MAX_K];
    s = hepa_bp_root_of_unity(f, w, N);
    if (s != HEPA_OK) {
        free(em);
        free(hs);
        return s;
    }
    if (inverse) _hepa_bp_inv(f, w, w);
    uint64_t *lo = em, *hi = em + B * k, *his = em + (B + H) * k;
    memset(lo, 0, k * sizeof *lo);
    lo[0] = 1;
    for (size_t l = 1; l < B; ++l) seed_mul(df, f, lo + l * k, lo + (l - 1) * k, w);
    seed_mul(df, f, wB, lo + (B - 1) * k, w);
    memset(hi, 0, k * sizeof *hi);
    hi[0] = 1;
    for (size_t h = 1; h < H; ++h) seed_mul(df, f, hi + h * k, hi + (h - 1) * k, wB);
    if (inverse) {
        mpz_t nz;
        mpz_init(nz);
        mpz_import(nz, 1, -1, sizeof N, 0, 0, &N);
        s = hepa_bp_from_mpz(f, ninv, nz);
        mpz_clear(nz);
        if (s != HEPA_OK) {
            free(em);
            free(hs);
            return s;
        }
        _hepa_bp_inv(f, ninv, ninv);
        for (size_t h = 0; h < H; ++h) seed_mul(df, f, his + h * k, hi + h * k, ninv);
    }
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

} // namespace

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
    d.split_rounds = split_rounds(d.w, d.u, d.r);
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
    hepa_status s = check_device_ptr(d_x, "upload destination");
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
    hepa_status s = check_device_ptr(d_x, "download source");
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
    if ((s = check_device_ptr(d_x, "FFT vector")) != HEPA_OK) return s;
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
        if (k == 8)
            fft_enqueue<8>(df, d_x, scratch, N, inverse != 0, T, Ts, seeds, S, Tn, lgB, H, st);
        else
            fft_enqueue<16>(df, d_x, scratch, N, inverse != 0, T, Ts, seeds, S, Tn, lgB, H, st);
        e = cudaGetLastError();
    }
    const cudaError_t e2 = cudaFreeAsync(ws, st);
    if (e == cudaSuccess) e = e2;
    return e == cudaSuccess ? HEPA_OK : _hepa_dev_status(e, "big-prime FFT");
}
