// bench/experiments/dmma_dft16.cu — issue 4 names FP64 tensor cores (mma .f64, sm_80+) for the
// FP64 DFT mode; hepa's FP64 kernels do their radix-16 stages on the CUDA cores. This measures the
// two ways of doing the stage itself, compute only, so the choice rests on a number:
//   cc:   one DFT_16 per thread in registers, 16 = 4·4 with the internal twiddles w_16^(r0·s1)
//         (the shape of dft16 in src/device/dft_cuda.cu);
//   dmma: eight DFT_16s per warp as the complex product Y = F·X (F the 16×16 DFT matrix, X 16×8)
//         on the FP64 tensor cores: Yre = Fre·Xre − Fim·Xim, Yim = Fre·Xim + Fim·Xre, each real
//         16×16·16×8 product 2·4 mma.m8n8k4.f64, 32 mma per eight DFT_16s.
// Both read their inputs from shared memory and write their outputs back (a Stockham stage's
// round trip), scale by 1/4 (so repeated stages keep the values' size) and repeat ITERS times;
// 4 warps (32 KiB of shared memory) per block, 8 blocks per SM launched, as many resident as
// registers and shared memory allow. Reported: DFT_16 points per second and the relative L2
// error of one stage against a long double DFT on the host.
//
//   nvcc -O3 -arch=sm_90 -o dmma_dft16 bench/experiments/dmma_dft16.cu && ./dmma_dft16
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

constexpr int WARPS = 4, PTS = 512;                      // points per warp and stage: 32 DFT_16s
__constant__ double2 c_w16[16];                          // e^(-2πi·m/16)
__constant__ double c_fre[256], c_fim[256], c_fnim[256]; // F[s][r] = w16^(r·s): re, im, -im

__device__ __forceinline__ double2 cadd(double2 a, double2 b) {
    return {a.x + b.x, a.y + b.y};
}
__device__ __forceinline__ double2 csub(double2 a, double2 b) {
    return {a.x - b.x, a.y - b.y};
}
__device__ __forceinline__ double2 cmul(double2 a, double2 b) {
    return {fma(a.x, b.x, -a.y * b.y), fma(a.x, b.y, a.y * b.x)};
}
__device__ __forceinline__ double2 mul_mi(double2 a) {
    return {a.y, -a.x};
} // a·(-i)

// in-place DFT_4 of a[o], a[o + st], a[o + 2st], a[o + 3st] (forward, w = -i)
__device__ __forceinline__ void dft4(double2 *a, int o, int st) {
    const double2 x0 = a[o], x1 = a[o + st], x2 = a[o + 2 * st], x3 = a[o + 3 * st];
    const double2 s02 = cadd(x0, x2), d02 = csub(x0, x2), s13 = cadd(x1, x3),
                  d13 = mul_mi(csub(x1, x3));
    a[o] = cadd(s02, s13);
    a[o + st] = cadd(d02, d13);
    a[o + 2 * st] = csub(s02, s13);
    a[o + 3 * st] = csub(d02, d13);
}

__global__ void __launch_bounds__(WARPS * 32) cc_kernel(double2 *io, int iters, double scale) {
    __shared__ double2 sm[WARPS * PTS];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    double2 *ws = sm + w * PTS;
    const double2 *src = io + (size_t)blockIdx.x * WARPS * PTS + w * PTS;
    for (int r = 0; r < 16; ++r)
        ws[r * 32 + lane] = src[r * 32 + lane];
    __syncwarp();
    for (int it = 0; it < iters; ++it) {
        double2 a[16];
#pragma unroll
        for (int r = 0; r < 16; ++r)
            a[r] = ws[r * 32 + lane]; // input r of this thread's DFT
#pragma unroll
        for (int r0 = 0; r0 < 4; ++r0)
            dft4(a, r0, 4); // a[r0 + 4·s1]
#pragma unroll
        for (int r0 = 1; r0 < 4; ++r0)
#pragma unroll
            for (int s1 = 1; s1 < 4; ++s1)
                a[r0 + 4 * s1] = cmul(a[r0 + 4 * s1], c_w16[r0 * s1]);
#pragma unroll
        for (int s1 = 0; s1 < 4; ++s1)
            dft4(a, 4 * s1, 1); // a[4·s1 + s0] = X[s1 + 4·s0]
        __syncwarp();
#pragma unroll
        for (int s1 = 0; s1 < 4; ++s1)
#pragma unroll
            for (int s0 = 0; s0 < 4; ++s0) {
                const double2 y = a[4 * s1 + s0];
                ws[(s1 + 4 * s0) * 32 + lane] = {y.x * scale, y.y * scale};
            }
        __syncwarp();
    }
    double2 *dst = io + (size_t)blockIdx.x * WARPS * PTS + w * PTS;
    for (int r = 0; r < 16; ++r)
        dst[r * 32 + lane] = ws[r * 32 + lane];
}

// D (8×8) += A (8×4, row) · B (4×8, col): lane holds A[g][q], B[q][g], D[g][2q], D[g][2q + 1]
// with g = lane / 4, q = lane % 4
__device__ __forceinline__ void mma884(double (&d)[2], double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
}

// Layout per warp: tile j (4 per stage, 8 DFT_16s each), element (row k, column c) at
// j·128 + k·8 + c: column c is one DFT_16's 16 points.
__global__ void __launch_bounds__(WARPS * 32) dmma_kernel(double2 *io, int iters, double scale) {
    __shared__ double2 sm[WARPS * PTS];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, q = lane & 3;
    double2 *ws = sm + w * PTS;
    const double2 *src = io + (size_t)blockIdx.x * WARPS * PTS + w * PTS;
    for (int r = 0; r < 16; ++r)
        ws[r * 32 + lane] = src[r * 32 + lane];
    // A fragments of F: row block rb (rows 8rb + g), k block kb (column 4kb + q)
    double fre[2][4], fim[2][4], fnim[2][4];
#pragma unroll
    for (int rb = 0; rb < 2; ++rb)
#pragma unroll
        for (int kb = 0; kb < 4; ++kb) {
            const int e = (8 * rb + g) * 16 + 4 * kb + q;
            fre[rb][kb] = c_fre[e];
            fim[rb][kb] = c_fim[e];
            fnim[rb][kb] = c_fnim[e];
        }
    __syncwarp();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            double2 *t = ws + j * 128;
            double2 x[4]; // B fragments: X[4kb + q][g]
#pragma unroll
            for (int kb = 0; kb < 4; ++kb)
                x[kb] = t[(4 * kb + q) * 8 + g];
            double yre[2][2] = {{0, 0}, {0, 0}}, yim[2][2] = {{0, 0}, {0, 0}};
#pragma unroll
            for (int rb = 0; rb < 2; ++rb)
#pragma unroll
                for (int kb = 0; kb < 4; ++kb) {
                    mma884(yre[rb], fre[rb][kb], x[kb].x);
                    mma884(yre[rb], fnim[rb][kb], x[kb].y);
                    mma884(yim[rb], fre[rb][kb], x[kb].y);
                    mma884(yim[rb], fim[rb][kb], x[kb].x);
                }
            __syncwarp();
#pragma unroll
            for (int rb = 0; rb < 2; ++rb)
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    t[(8 * rb + g) * 8 + 2 * q + h] = {yre[rb][h] * scale, yim[rb][h] * scale};
            __syncwarp();
        }
    }
    double2 *dst = io + (size_t)blockIdx.x * WARPS * PTS + w * PTS;
    for (int r = 0; r < 16; ++r)
        dst[r * 32 + lane] = ws[r * 32 + lane];
}

// index of point r of DFT d (d < 32) of a warp's 512, per kernel
static size_t idx_cc(int d, int r) {
    return (size_t)r * 32 + d;
}
static size_t idx_dmma(int d, int r) {
    return (size_t)(d / 8) * 128 + r * 8 + d % 8;
}

int main(void) {
    double2 w16[16];
    double fre[256], fim[256], fnim[256];
    for (int m = 0; m < 16; ++m)
        w16[m] = {cos(-2 * M_PI * m / 16), sin(-2 * M_PI * m / 16)};
    for (int s = 0; s < 16; ++s)
        for (int r = 0; r < 16; ++r) {
            fre[s * 16 + r] = w16[(r * s) & 15].x;
            fim[s * 16 + r] = w16[(r * s) & 15].y;
            fnim[s * 16 + r] = -w16[(r * s) & 15].y;
        }
    CK(cudaMemcpyToSymbol(c_w16, w16, sizeof w16));
    CK(cudaMemcpyToSymbol(c_fre, fre, sizeof fre));
    CK(cudaMemcpyToSymbol(c_fim, fim, sizeof fim));
    CK(cudaMemcpyToSymbol(c_fnim, fnim, sizeof fnim));
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = 8 * sms, iters = 400;
    const size_t npts = (size_t)blocks * WARPS * PTS;
    double2 *h = (double2 *)malloc(npts * sizeof *h), *o = (double2 *)malloc(npts * sizeof *o);
    srand(1);
    for (size_t i = 0; i < npts; ++i)
        h[i] = {2.0 * rand() / RAND_MAX - 1, 2.0 * rand() / RAND_MAX - 1};
    double2 *d;
    CK(cudaMalloc(&d, npts * sizeof *d));
    for (int k = 0; k < 2; ++k) {
        const char *name = k ? "dmma" : "cc";
        auto launch = [&](int it, double sc) {
            if (k)
                dmma_kernel<<<blocks, WARPS * 32>>>(d, it, sc);
            else
                cc_kernel<<<blocks, WARPS * 32>>>(d, it, sc);
        };
        // error of one stage (scale 1) against a long double DFT_16, first 64 warps
        CK(cudaMemcpy(d, h, npts * sizeof *h, cudaMemcpyHostToDevice));
        launch(1, 1.0);
        CK(cudaMemcpy(o, d, npts * sizeof *o, cudaMemcpyDeviceToHost));
        long double en = 0, ed = 0;
        for (int wp = 0; wp < 64; ++wp)
            for (int dft = 0; dft < 32; ++dft)
                for (int s = 0; s < 16; ++s) {
                    long double re = 0, im = 0;
                    for (int r = 0; r < 16; ++r) {
                        const double2 x = h[wp * PTS + (k ? idx_dmma(dft, r) : idx_cc(dft, r))];
                        const long double a =
                            -2 * 3.14159265358979323846264338327950288L * r * s / 16;
                        re += x.x * cosl(a) - x.y * sinl(a);
                        im += x.x * sinl(a) + x.y * cosl(a);
                    }
                    const double2 y = o[wp * PTS + (k ? idx_dmma(dft, s) : idx_cc(dft, s))];
                    en += (y.x - re) * (y.x - re) + (y.y - im) * (y.y - im);
                    ed += re * re + im * im;
                }
        // throughput: median of 9 runs of `iters` stages
        float t[9];
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        launch(iters, 0.25);
        for (int i = 0; i < 9; ++i) {
            CK(cudaEventRecord(e0));
            launch(iters, 0.25);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&t[i], e0, e1));
        }
        CK(cudaGetLastError());
        for (int i = 0; i < 9; ++i)
            for (int j = i + 1; j < 9; ++j)
                if (t[j] < t[i]) {
                    const float x = t[i];
                    t[i] = t[j];
                    t[j] = x;
                }
        const double pts = (double)npts * iters;
        printf("%-4s  %d blocks x %d warps, %d stages: median %.3f ms, %.1f G points/s per stage "
               "(%.2f points per SM-cycle at 1.98 GHz), one-stage error %.2e\n",
               name, blocks, WARPS, iters, t[4], pts / (t[4] * 1e-3) / 1e9,
               pts / (t[4] * 1e-3) / sms / 1.98e9, (double)sqrtl(en / ed));
    }
    return 0;
}
