// bench/experiments/butterfly_floor.cu — how many 62-bit Cooley-Tukey butterflies per second an
// H100 can do with nothing else in the way (registers only, twiddles from a 1 KiB table in L1),
// for the library's exact Shoup butterfly (hepa_butterfly_ct_lazy) and three alternatives; each
// alternative is first checked against hepa_mod_mul on 2^20 random inputs in [0, 4q) plus the
// extremes. The rate bounds any NTT built from these butterflies: n = 2^16, L = 34 has
// 2^16 * 34 * 16 / 2 = 17.8 M butterflies. Variant E is the 32-bit butterfly of a ring layer with
// ~30-bit primes, timed for the same log Q (twice the limbs). Variant F is an FP64 butterfly for
// primes below 2^50 (issue 6's 40-bit primes), on the FP64 pipe instead of the integer one. Not
// part of the CMake build:
//   nvcc -O3 -arch=sm_90 -std=c++17 -I include -o bfly bench/experiments/butterfly_floor.cu
// Results: bench/results/2026-11-22-h100-ntt-arith-floor.md.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>
#include "hepa/modarith.h"

__device__ __forceinline__ uint64_t mulhi_approx(uint64_t b, uint64_t wp) {
    // floor(b*wp / 2^64) minus at most 2: drops lo32(w1 b0), lo32(w0 b1) and w0 b0
    const uint32_t b0 = (uint32_t)b, b1 = (uint32_t)(b >> 32);
    const uint32_t w0 = (uint32_t)wp, w1 = (uint32_t)(wp >> 32);
    uint64_t t = (uint64_t)__umulhi(w1, b0) + __umulhi(w0, b1);
    return (uint64_t)w1 * b1 + t;
}

// A: exact Shoup (the library's)
__device__ __forceinline__ void bf_A(uint64_t &x, uint64_t &y, uint64_t w, uint64_t wp, uint64_t q) {
    hepa_butterfly_ct_lazy(&x, &y, w, wp, q);
}
// B: approximate quotient: r in [0, 4q) -> one conditional subtraction of 2q
__device__ __forceinline__ void bf_B(uint64_t &x, uint64_t &y, uint64_t w, uint64_t wp, uint64_t q) {
    const uint64_t two_q = 2 * q;
    const uint64_t a = x >= two_q ? x - two_q : x;
    const uint64_t qt = mulhi_approx(y, wp);
    uint64_t t = y * w - qt * q;
    t = t >= two_q ? t - two_q : t;
    x = a + t;
    y = a - t + two_q;
}
// C: Montgomery, R = 2^64, twiddle W = w R mod q, qinv = -q^-1 mod 2^64: t = (yW + m q)/R in [0, 2q)
__device__ __forceinline__ void bf_C(uint64_t &x, uint64_t &y, uint64_t W, uint64_t qinv, uint64_t q) {
    const uint64_t two_q = 2 * q;
    const uint64_t a = x >= two_q ? x - two_q : x;
    const uint64_t lo = y * W, hi = __umul64hi(y, W);
    const uint64_t m = lo * qinv;
    const uint64_t t = hi + __umul64hi(m, q) + (lo != 0);
    x = a + t;
    y = a - t + two_q;
}
// D: approximate quotient, lo product merged with nq = 2^64 - q
__device__ __forceinline__ void bf_D(uint64_t &x, uint64_t &y, uint64_t w, uint64_t wp, uint64_t q) {
    const uint64_t two_q = 2 * q;
    const uint64_t a = x >= two_q ? x - two_q : x;
    const uint64_t qt = mulhi_approx(y, wp);
    const uint32_t y0 = (uint32_t)y, y1 = (uint32_t)(y >> 32), w0 = (uint32_t)w, w1 = (uint32_t)(w >> 32);
    const uint64_t nq = 0 - q;
    const uint32_t q0 = (uint32_t)nq, q1 = (uint32_t)(nq >> 32), t0 = (uint32_t)qt, t1 = (uint32_t)(qt >> 32);
    uint64_t r = (uint64_t)y0 * w0 + (uint64_t)t0 * q0;
    uint32_t h = y0 * w1 + y1 * w0 + t0 * q1 + t1 * q0;
    r += (uint64_t)h << 32;
    r = r >= two_q ? r - two_q : r;
    x = a + r;
    y = a - r + two_q;
}

// E: 32-bit words (q < 2^30, values in [0, 4q)), exact Shoup with w' = floor(w·2^32 / q): the
// butterfly of a ring layer with ~30-bit primes (twice the limbs for the same log Q).
__device__ __forceinline__ void bf_E(uint32_t &x, uint32_t &y, uint32_t w, uint32_t wp, uint32_t q) {
    const uint32_t two_q = 2 * q;
    const uint32_t a = x >= two_q ? x - two_q : x;
    const uint32_t t = y * w - __umulhi(y, wp) * q; // [0, 2q)
    x = a + t;
    y = a - t + two_q;
}

// F: FP64 words for q < 2^50 (the 40-bit primes of issue 6's parameters): values are signed
// integers held exactly in doubles, never corrected (|x| grows by at most 0.6q per stage, so a
// 16-stage NTT from [0, q) stays below 11q; the product needs |y·w/q| < 2^51). t = y·w - qt·q
// exactly: h + l = y·w (l from the FMA, exact), qt = round(h/q) by the 1.5·2^52 trick (one FMA and
// one subtraction), fma(-qt, q, h) exact because its result is an integer below 2^41. Then
// |t| < 0.6q. 6 FP64 operations for the product, 2 for the butterfly, no integer instructions.
__device__ __forceinline__ void bf_F(double &x, double &y, double w, double q, double qinv) {
    const double C = 0x1.8p52;
    const double h = __dmul_rn(y, w), l = __fma_rn(y, w, -h);
    const double qt = __dsub_rn(__fma_rn(h, qinv, C), C);
    const double t = __dadd_rn(__fma_rn(-qt, q, h), l);
    const double a = x;
    x = __dadd_rn(a, t);
    y = __dsub_rn(a, t);
}
// F against exact integer arithmetic: inputs |x|, |y| < 2^47 (and the extremes), w < q; outputs
// must be congruent to x ± y·w mod q with |x' - x| = |y' - x| <= 0.6q.
__global__ void check_f(unsigned *bad, const uint64_t *xs, const uint64_t *ws, uint64_t q, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int64_t lim = (int64_t)1 << 47;
    int64_t xi = (int64_t)(xs[2 * i] % (2 * (uint64_t)lim)) - lim, yi = (int64_t)(xs[2 * i + 1] % (2 * (uint64_t)lim)) - lim;
    if (i < 4) { xi = (i & 1) ? lim - 1 : 1 - lim; yi = (i & 2) ? lim - 1 : 1 - lim; }
    const uint64_t w = ws[i & 63];
    double x = (double)xi, y = (double)yi;
    bf_F(x, y, (double)w, (double)q, 1.0 / (double)q);
    const int64_t xo = (int64_t)x, yo = (int64_t)y, t = xo - xi;
    const int64_t ym = ((yi % (int64_t)q) + (int64_t)q) % (int64_t)q;
    const uint64_t e = (uint64_t)((unsigned __int128)ym * w % q);
    const int64_t tm = ((t % (int64_t)q) + (int64_t)q) % (int64_t)q;
    if ((uint64_t)tm != e || yo != xi - t || (double)(t < 0 ? -t : t) > 0.6 * (double)q) atomicAdd(bad, 1u);
}

__global__ void check32(unsigned *bad, const uint64_t *xs, const uint2 *tw, uint32_t q, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t x = (uint32_t)(xs[2 * i] % (4 * (uint64_t)q)), y = (uint32_t)(xs[2 * i + 1] % (4 * (uint64_t)q));
    if (i < 4) { x = 4 * q - 1; y = 4 * q - 1 - i; }
    const uint2 w = tw[i & 63];
    uint32_t x1 = x, y1 = y;
    bf_E(x1, y1, w.x, w.y, q);
    const uint64_t t = (uint64_t)(y % q) * w.x % q, xm = x % q;
    const uint64_t ex = (xm + t) % q, ey = (xm + q - t) % q;
    if (x1 >= 4 * q || y1 >= 4 * q || x1 % q != ex || y1 % q != ey) atomicAdd(bad, 1u);
}

// The timed loop: 8 values per thread, three stages of butterflies, twiddle pairs from a 64-entry
// table. V = 0 .. 3: 62-bit words (W = uint64_t, pairs ulonglong2); V = 4: variant E (uint32_t,
// uint2). aux: Montgomery's -q^-1 for C.
template <int V, typename W, typename P>
__global__ void __launch_bounds__(256, 4) kern(uint64_t *out, const P *tw, W q, uint64_t aux, int reps) {
    W v[8];
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 8; ++k)
        v[k] = (W)((t * 0x9E3779B97F4A7C15ull + k * 0x632BE59BD9B4E019ull) % (uint64_t)q);
    for (int r = 0; r < reps; ++r) {
#pragma unroll
        for (int s = 0; s < 3; ++s) {
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                if ((k >> s) & 1) continue;
                const P w = tw[(r * 7 + s * 4 + k) & 63];
                if constexpr (V == 0) bf_A(v[k], v[k | (1 << s)], w.x, w.y, q);
                if constexpr (V == 1) bf_B(v[k], v[k | (1 << s)], w.x, w.y, q);
                if constexpr (V == 2) bf_C(v[k], v[k | (1 << s)], w.x, aux, q);
                if constexpr (V == 3) bf_D(v[k], v[k | (1 << s)], w.x, w.y, q);
                if constexpr (V == 4) bf_E(v[k], v[k | (1 << s)], w.x, w.y, q);
                if constexpr (V == 5) bf_F(v[k], v[k | (1 << s)], w.x, q, __longlong_as_double((long long)aux));
            }
        }
    }
    uint64_t acc = 0;
    for (int k = 0; k < 8; ++k) {
        if constexpr (V == 5) acc ^= (uint64_t)__double_as_longlong(v[k]);
        else acc ^= v[k];
    }
    out[t] = acc;
}

template <int V>
__global__ void check(unsigned *bad, const uint64_t *xs, const ulonglong2 *tw, const uint64_t *Ws, uint64_t q, uint64_t qinv, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t x = xs[2 * i] % (4 * q), y = xs[2 * i + 1] % (4 * q);
    if (i < 4) { x = 4 * q - 1; y = 4 * q - 1 - i; }
    const ulonglong2 w = tw[i & 63];
    uint64_t x1 = x, y1 = y;
    if (V == 1) bf_B(x1, y1, w.x, w.y, q);
    if (V == 2) bf_C(x1, y1, Ws[i & 63], qinv, q);
    if (V == 3) bf_D(x1, y1, w.x, w.y, q);
    const hepa_modulus m = hepa_modulus_make(q);
    const uint64_t t = hepa_mod_mul(y % q, w.x, &m);
    const uint64_t ex = hepa_mod_add(x % q, t, q), ey = hepa_mod_sub(x % q, t, q);
    if (x1 >= 4 * q || y1 >= 4 * q || x1 % q != ex || y1 % q != ey) atomicAdd(bad, 1u);
}

// 2n random 64-bit words (xorshift from seed) on the device: the checks' inputs
static uint64_t *dev_random(int n, uint64_t seed) {
    uint64_t *hx = new uint64_t[2 * (size_t)n], *dx;
    for (size_t i = 0; i < 2 * (size_t)n; ++i) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; hx[i] = seed; }
    cudaMalloc(&dx, 16 * (size_t)n);
    cudaMemcpy(dx, hx, 16 * (size_t)n, cudaMemcpyHostToDevice);
    delete[] hx;
    return dx;
}
// runs check(bad) and prints how many of the n inputs it found wrong
template <typename F> static void run_check(const char *name, int n, F check) {
    unsigned *bad, hb;
    cudaMalloc(&bad, 4);
    cudaMemset(bad, 0, 4);
    check(bad);
    cudaMemcpy(&hb, bad, 4, cudaMemcpyDeviceToHost);
    printf("check variant %s: %u bad of %d\n", name, hb, n);
    cudaFree(bad);
}
// the best of five timed launches, ms
template <typename F> static float best_of5(F launch, cudaEvent_t e0, cudaEvent_t e1) {
    float best = 1e9;
    for (int it = 0; it < 5; ++it) {
        cudaEventRecord(e0);
        launch();
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best) best = ms;
    }
    return best;
}

int main() {
    const uint64_t q = 0x3fffffffffffffffull - 0x1234567ull * 2; // not prime; arithmetic only
    uint64_t qo = q | 1;
    // -q^-1 mod 2^64
    uint64_t inv = 1;
    for (int i = 0; i < 7; ++i) inv *= 2 - qo * inv;
    const uint64_t qinv = 0 - inv;
    ulonglong2 h[64];
    for (int i = 0; i < 64; ++i) {
        uint64_t w = (0x5DEECE66Dull * (i + 1) * 0x9E3779B97F4A7C15ull) % qo;
        h[i].x = w;
        h[i].y = hepa_shoup_precompute(w, qo);
    }
    ulonglong2 *tw;
    uint64_t *out;
    cudaMalloc(&tw, sizeof h);
    cudaMemcpy(tw, h, sizeof h, cudaMemcpyHostToDevice);
    const int blocks = 132 * 4 * 4, threads = 256, reps = 256;
    cudaMalloc(&out, sizeof(uint64_t) * blocks * threads);
    {
        const int n = 1 << 20;
        uint64_t *hx = new uint64_t[2 * n], Wh[64];
        uint64_t st = 88172645463325252ull;
        for (int i = 0; i < 2 * n; ++i) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; hx[i] = st; }
        for (int i = 0; i < 64; ++i) Wh[i] = (uint64_t)(((unsigned __int128)h[i].x << 64) % qo);
        uint64_t *dx, *dW; unsigned *bad;
        cudaMalloc(&dx, 16 * (size_t)n); cudaMalloc(&dW, sizeof Wh); cudaMalloc(&bad, 4);
        cudaMemcpy(dx, hx, 16 * (size_t)n, cudaMemcpyHostToDevice);
        cudaMemcpy(dW, Wh, sizeof Wh, cudaMemcpyHostToDevice);
        for (int v = 1; v < 4; ++v) {
            cudaMemset(bad, 0, 4);
            if (v == 1) check<1><<<n / 256, 256>>>(bad, dx, tw, dW, qo, qinv, n);
            if (v == 2) check<2><<<n / 256, 256>>>(bad, dx, tw, dW, qo, qinv, n);
            if (v == 3) check<3><<<n / 256, 256>>>(bad, dx, tw, dW, qo, qinv, n);
            unsigned hb; cudaMemcpy(&hb, bad, 4, cudaMemcpyDeviceToHost);
            printf("check variant %d: %u bad of %d\n", v, hb, n);
        }
    }
    const char *names[4] = {"A exact Shoup", "B approx-hi Shoup", "C Montgomery", "D approx + merged lo"};
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int v = 0; v < 4; ++v) {
        float best = 1e9;
        for (int it = 0; it < 5; ++it) {
            cudaEventRecord(e0);
            if (v == 0) kern<0><<<blocks, threads>>>(out, tw, qo, qinv, reps);
            if (v == 1) kern<1><<<blocks, threads>>>(out, tw, qo, qinv, reps);
            if (v == 2) kern<2><<<blocks, threads>>>(out, tw, qo, qinv, reps);
            if (v == 3) kern<3><<<blocks, threads>>>(out, tw, qo, qinv, reps);
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (ms < best) best = ms;
        }
        const double bf = (double)blocks * threads * reps * 12;
        const double rate = bf / (best * 1e-3); // butterflies per second
        printf("%-22s %8.3f ms  %7.2f Gbfly/s  -> n=2^16 L=34 NTT (17.8M bfly): %.1f us\n", names[v],
               best, rate / 1e9, 17825792.0 / rate * 1e6);
    }
    {
        // E: 32-bit words, q = 2^30 - 35 (not prime; arithmetic only); twice the butterflies of
        // the 62-bit NTT for the same log Q (68 limbs of 30 bits for 34 of 60)
        const uint32_t q32 = (1u << 30) - 35;
        uint2 h32[64];
        for (int i = 0; i < 64; ++i) {
            const uint32_t w = (uint32_t)((0x5DEECE66Dull * (i + 1) * 0x9E3779B97F4A7C15ull) % q32);
            h32[i] = make_uint2(w, (uint32_t)(((uint64_t)w << 32) / q32));
        }
        uint2 *tw32;
        cudaMalloc(&tw32, sizeof h32);
        cudaMemcpy(tw32, h32, sizeof h32, cudaMemcpyHostToDevice);
        const int n = 1 << 20;
        uint64_t *dx = dev_random(n, 88172645463325252ull);
        run_check("E", n, [&](unsigned *bad) { check32<<<n / 256, 256>>>(bad, dx, tw32, q32, n); });
        const float best = best_of5([&] { kern<4><<<blocks, threads>>>(out, tw32, q32, (uint64_t)0, reps); }, e0, e1);
        const double rate = (double)blocks * threads * reps * 12 / (best * 1e-3);
        printf("%-22s %8.3f ms  %7.2f Gbfly/s  -> n=2^16 L=68 (30-bit) NTT (35.7M bfly): %.1f us\n",
               "E 32-bit exact Shoup", best, rate / 1e9, 2 * 17825792.0 / rate * 1e6);
    }
    {
        // F: FP64 words, q = 2^40 - 87 (arithmetic only). 256 reps x 3 stages grow |x| to at most
        // ~460q < 2^49, inside the 2^51 the quotient trick needs.
        const uint64_t q40 = (1ull << 40) - 87;
        double2 hf[64];
        uint64_t wf[64];
        for (int i = 0; i < 64; ++i) {
            wf[i] = (0x5DEECE66Dull * (i + 1) * 0x9E3779B97F4A7C15ull) % q40;
            hf[i] = make_double2((double)wf[i], 0.0);
        }
        double2 *twf;
        uint64_t *dwf;
        cudaMalloc(&twf, sizeof hf);
        cudaMalloc(&dwf, sizeof wf);
        cudaMemcpy(twf, hf, sizeof hf, cudaMemcpyHostToDevice);
        cudaMemcpy(dwf, wf, sizeof wf, cudaMemcpyHostToDevice);
        const int n = 1 << 20;
        uint64_t *dx = dev_random(n, 2463534242ull);
        run_check("F", n, [&](unsigned *bad) { check_f<<<n / 256, 256>>>(bad, dx, dwf, q40, n); });
        const double qinv = 1.0 / (double)q40;
        uint64_t qinv_bits;
        memcpy(&qinv_bits, &qinv, 8);
        const float best = best_of5([&] { kern<5><<<blocks, threads>>>(out, twf, (double)q40, qinv_bits, reps); }, e0, e1);
        const double rate = (double)blocks * threads * reps * 12 / (best * 1e-3);
        printf("%-22s %8.3f ms  %7.2f Gbfly/s  -> n=2^16 L=34 NTT (17.8M bfly): %.1f us\n",
               "F FP64, q < 2^50", best, rate / 1e9, 17825792.0 / rate * 1e6);
    }
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
