// src/ntt/bigprime_cuda.cu — element-wise big prime field arithmetic (p = r^k + 1,
// r = 2^w ± 2^u) on digit-major device vectors, bit-exact with src/host/bigprime.c, plus the
// transfers between host element-major and device digit-major vectors (hepa/bigprime_cuda.h).
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

// Element j of z = x·y.
template <int K>
HD void elem_mul(const hepa_bp_dev_field &f, uint64_t *z, const uint64_t *x, const uint64_t *y,
                 size_t j, size_t n) {
    uint64_t b[K];
#pragma unroll
    for (int m = 0; m < K; ++m) b[m] = y[j + (size_t)m * n];
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
        const uint64_t a = x[j + (size_t)i * n];
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
    uint64_t out[K];
    normalize<K>(f, out, t);
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
