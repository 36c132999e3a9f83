// src/device/dft_cuda.cu — batched complex DFT plans on the device (hepa/dft.h), FP64 mode.
//
// Stockham autosort, radix R = 16 passes (the last one 2, 4 or 8 when log2 n is not a multiple
// of 4). Pass with radix R after passes of total span Ns (Ns = 1 first): for each group
// j < n/R of each vector, k = j mod Ns,
//   a_r = x[j + r·n/R]·w^(r·k·n/(Ns·R))   (w = e^(∓2πi/n), r < R)
//   y[(j div Ns)·Ns·R + k + s·Ns] = Σ_r a_r·e^(∓2πi·rs/R)   (s < R),
// one thread per group, the DFT_R done directly from registers with its roots in constant
// memory. Each pass reads and writes the batch once; passes ping-pong between the output and the
// plan's scratch, arranged so that the last pass writes the output. The host reference is
// src/host/dft.c (radix-2); the tests compare the two.
// Not yet: tensor-core modes (FP16, FP16x2) and several passes per kernel through shared
// memory (issue 4).
#include <cuda_runtime.h>
#include <stdlib.h>

#include "device/internal.h"
#include "hepa/dft.h"

struct hepa_dft_plan {
    size_t n, batch;
    unsigned logn;
    int npass;
    int radix[8];      // log2 of each pass's radix, in order
    int radix_even[8]; // the same split so that the number of passes is even (in-place runs)
    int npass_even;
    double2 *roots;    // device: e^(-2πi·m/n), m < n
    double2 *scratch;  // device: n·batch
};

namespace {

__constant__ double2 c_root16[16]; // e^(-2πi·m/16)

__device__ __forceinline__ double2 cmul(double2 a, double2 b) {
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

template <int LR, bool INV>
__global__ void __launch_bounds__(256) stockham_pass(double2 *__restrict__ out,
                                                     const double2 *__restrict__ in,
                                                     const double2 *__restrict__ roots,
                                                     unsigned logn, unsigned lns, size_t total) {
    constexpr int R = 1 << LR;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= total) return;
    const size_t n = (size_t)1 << logn, nR = n >> LR;
    const size_t b = g >> (logn - LR), j = g & (nR - 1);
    const double2 *x = in + b * n;
    double2 *y = out + b * n;
    const size_t Ns = (size_t)1 << lns, k = j & (Ns - 1);
    double2 v[R];
#pragma unroll
    for (int r = 0; r < R; ++r) v[r] = x[j + r * nR];
    // twiddles w^(r·k·n/(Ns·R)); k·n/(Ns·R) < n/R, so r·step < n
    const size_t step = k << (logn - lns - LR);
#pragma unroll
    for (int r = 1; r < R; ++r) {
        double2 w = roots[r * step];
        if (INV) w.y = -w.y;
        v[r] = cmul(v[r], w);
    }
    const size_t base = ((j >> lns) << (lns + LR)) + k;
#pragma unroll
    for (int s = 0; s < R; ++s) {
        double2 acc = v[0];
#pragma unroll
        for (int r = 1; r < R; ++r) {
            double2 w = c_root16[((r * s) % R) * (16 / R)];
            if (INV) w.y = -w.y;
            const double2 t = cmul(v[r], w);
            acc.x += t.x;
            acc.y += t.y;
        }
        y[base + ((size_t)s << lns)] = acc;
    }
}

template <bool INV>
cudaError_t launch_pass(int lr, double2 *out, const double2 *in, const double2 *roots,
                        unsigned logn, unsigned lns, size_t batch, cudaStream_t st) {
    const size_t total = batch << (logn - lr);
    const unsigned threads = 256;
    const unsigned blocks = (unsigned)((total + threads - 1) / threads);
    switch (lr) {
    case 1: stockham_pass<1, INV><<<blocks, threads, 0, st>>>(out, in, roots, logn, lns, total); break;
    case 2: stockham_pass<2, INV><<<blocks, threads, 0, st>>>(out, in, roots, logn, lns, total); break;
    case 3: stockham_pass<3, INV><<<blocks, threads, 0, st>>>(out, in, roots, logn, lns, total); break;
    default: stockham_pass<4, INV><<<blocks, threads, 0, st>>>(out, in, roots, logn, lns, total); break;
    }
    return cudaGetLastError();
}

} // namespace

extern "C" hepa_status hepa_dft_plan_create(hepa_dft_plan **out, size_t n, size_t batch,
                                            hepa_dft_mode mode) {
    if (!out || n < HEPA_DFT_MIN_N || n > HEPA_DFT_MAX_N || (n & (n - 1)) || batch == 0)
        return HEPA_ERR_INVALID_ARGUMENT;
    if (mode == HEPA_DFT_FP16 || mode == HEPA_DFT_FP16X2) {
        _hepa_set_error_message("hepa_dft_plan_create: tensor-core modes are not built yet");
        return HEPA_ERR_UNSUPPORTED;
    }
    if (mode != HEPA_DFT_FP64) return HEPA_ERR_INVALID_ARGUMENT;
    if (batch > ((size_t)1 << 40) / n) return HEPA_ERR_INVALID_ARGUMENT; // size_t products stay sane
    int dev_count = 0;
    if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
        (void)cudaGetLastError();
        return HEPA_ERR_NO_DEVICE;
    }
    hepa_dft_plan *p = (hepa_dft_plan *)calloc(1, sizeof *p);
    if (!p) return HEPA_ERR_OUT_OF_MEMORY;
    p->n = n;
    p->batch = batch;
    unsigned logn = 0;
    while (((size_t)1 << logn) < n) ++logn;
    p->logn = logn;
    // radix schedule: 16s, then the remainder; and a variant with an even number of passes
    int rest = (int)logn;
    while (rest >= 4) p->radix[p->npass++] = 4, rest -= 4;
    if (rest) p->radix[p->npass++] = rest;
    for (int i = 0; i < p->npass; ++i) p->radix_even[i] = p->radix[i];
    p->npass_even = p->npass;
    if (p->npass % 2 && p->npass > 1) { // split one pass in two (a 16 into 4·4, or 8 into 2·4)
        int i = 0;
        while (i < p->npass && p->radix_even[i] < 2) ++i;
        for (int m = p->npass_even; m > i; --m) p->radix_even[m] = p->radix_even[m - 1];
        const int lr = p->radix_even[i];
        p->radix_even[i] = lr / 2;
        p->radix_even[i + 1] = lr - lr / 2;
        ++p->npass_even;
    }
    // roots e^(-2πi·m/n) from long double, and the 16 roots of the DFT_R
    double2 *h = (double2 *)malloc(n * sizeof *h);
    if (!h) {
        free(p);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    const long double two_pi = 6.283185307179586476925286766559005768L;
    for (size_t m = 0; m < n; ++m) {
        const long double a = two_pi * (long double)m / (long double)n;
        h[m] = make_double2((double)cosl(a), (double)-sinl(a));
    }
    double2 r16[16];
    for (int m = 0; m < 16; ++m) {
        const long double a = two_pi * (long double)m / 16.0L;
        r16[m] = make_double2((double)cosl(a), (double)-sinl(a));
    }
    cudaError_t e = cudaMemcpyToSymbol(c_root16, r16, sizeof r16);
    if (e == cudaSuccess) e = cudaMalloc((void **)&p->roots, n * sizeof *h);
    if (e == cudaSuccess) e = cudaMemcpy(p->roots, h, n * sizeof *h, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMalloc((void **)&p->scratch, n * batch * sizeof(double2));
    free(h);
    if (e != cudaSuccess) {
        const hepa_status s = _hepa_dev_status(e, "hepa_dft_plan_create");
        cudaFree(p->roots);
        cudaFree(p->scratch);
        free(p);
        return s;
    }
    *out = p;
    return HEPA_OK;
}

extern "C" void hepa_dft_plan_destroy(hepa_dft_plan *p) {
    if (!p) return;
    cudaFree(p->roots);
    cudaFree(p->scratch);
    free(p);
}

extern "C" hepa_status _hepa_dft_exec(const hepa_dft_plan *p, double *d_out, const double *d_in,
                                      int inverse, void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    double2 *out = (double2 *)d_out, *scratch = p->scratch;
    const double2 *in = (const double2 *)d_in;
    // in place with an odd number (> 1) of passes: the first pass would overwrite its own input
    const bool even = d_out == d_in && p->npass > 1;
    const int np = even ? p->npass_even : p->npass;
    const int *rad = even ? p->radix_even : p->radix;
    unsigned lns = 0;
    for (int i = 0; i < np; ++i) {
        double2 *dst = ((np - 1 - i) % 2 == 0) ? out : scratch;
        const double2 *src = i == 0 ? in : (((np - i) % 2 == 0) ? out : scratch);
        const cudaError_t e =
            inverse ? launch_pass<true>(rad[i], dst, src, p->roots, p->logn, lns, p->batch, st)
                    : launch_pass<false>(rad[i], dst, src, p->roots, p->logn, lns, p->batch, st);
        if (e != cudaSuccess) return _hepa_dev_status(e, "hepa_dft_exec");
        lns += (unsigned)rad[i];
    }
    return HEPA_OK;
}


extern "C" hepa_status hepa_dft_exec(const hepa_dft_plan *p, double *d_out, const double *d_in,
                                     int inverse, void *stream) {
    if (!p || !d_out || !d_in) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_status s = _hepa_dev_check_ptr(d_out, "hepa_dft_exec output");
    if (s == HEPA_OK) s = _hepa_dev_check_ptr(d_in, "hepa_dft_exec input");
    if (s != HEPA_OK) return s;
    return _hepa_dft_exec(p, d_out, d_in, inverse, stream);
}
