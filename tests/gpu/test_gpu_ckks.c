/* tests/gpu/test_gpu_ckks.c — device DFT plans and CKKS encode/decode on the CUDA backend:
 * the DFT against the host reference (and a long double FFT for the error at 2^15), the GPU
 * encoder against the CPU encoder (same rings, same slots), host and device slot buffers,
 * outputs poisoned first, bad input. Without a usable GPU: exit 77 (skipped). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "hepa/ckks.h"
#include "hepa/crt.h"
#include "hepa/dft.h"
#include "hepa/poly.h"
#include "hepa/ring.h"


/* ---- DFT plans, every mode, against hepa_dft_host_ld ------------------------------------------
 * Inputs uniform in [-1, 1) are rounded to the mode's element type first; the reference is the
 * long double DFT of exactly those values, so the error measured is the plan's alone. */

/* FP16X2 and FP32 share the element type (complex float) */
static int mode_float(hepa_dft_mode m) {
    return m == HEPA_DFT_FP16X2 || m == HEPA_DFT_FP32;
}
static size_t mode_bytes(hepa_dft_mode m) {
    return m == HEPA_DFT_FP64 ? 16 : mode_float(m) ? 8 : 4;
}
/* documented relative L2 bounds (hepa/dft.h) */
static double mode_bound(hepa_dft_mode m) {
    return m == HEPA_DFT_FP64 ? 1e-15 : mode_float(m) ? 1e-6 : 2e-3;
}
static const char *mode_name(hepa_dft_mode m) {
    return m == HEPA_DFT_FP64     ? "FP64"
           : m == HEPA_DFT_FP32   ? "FP32"
           : m == HEPA_DFT_FP16X2 ? "FP16X2"
                                  : "FP16";
}
/* store count reals of v in the mode's type, and round v to what was stored */
static void put_reals(void *dst, long double *v, size_t count, hepa_dft_mode m) {
    for (size_t i = 0; i < count; ++i) {
        if (m == HEPA_DFT_FP64) {
            ((double *)dst)[i] = (double)v[i];
            v[i] = ((double *)dst)[i];
        } else if (mode_float(m)) {
            ((float *)dst)[i] = (float)v[i];
            v[i] = ((float *)dst)[i];
        } else {
            ((uint16_t *)dst)[i] = test_f32_to_f16((float)v[i]);
            v[i] = test_f16_to_f32(((uint16_t *)dst)[i]);
        }
    }
}
static long double get_real(const void *src, size_t i, hepa_dft_mode m) {
    if (m == HEPA_DFT_FP64) return ((const double *)src)[i];
    if (mode_float(m)) return ((const float *)src)[i];
    return test_f16_to_f32(((const uint16_t *)src)[i]);
}

/* Run plan p (size n, batch) once on fresh inputs (vector b scaled by scale[b % 3] when scale is
 * given), output poisoned; returns the worst relative L2 error over the vectors. */
static double check_plan(test_rng *r, const hepa_dft_plan *p, hepa_dft_mode m, size_t n,
                         size_t batch, int inv, int inplace, const double *scale) {
    const size_t reals = 2 * n * batch, bytes = n * batch * mode_bytes(m);
    long double *ref = malloc(reals * sizeof *ref);
    unsigned char *hx = malloc(bytes), *hy = malloc(bytes);
    cr_assert(ref && hx && hy);
    for (size_t i = 0; i < reals; ++i)
        ref[i] = test_rand_unit(r) * (scale ? scale[(i / (2 * n)) % 3] : 1.0);
    put_reals(hx, ref, reals, m);
    T_OK(hepa_dft_host_ld(ref, n, batch, inv));
    void *dx, *dy;
    cr_assert_eq(cudaMalloc(&dx, bytes), cudaSuccess);
    cr_assert_eq(cudaMalloc(&dy, bytes), cudaSuccess);
    cr_assert_eq(cudaMemcpy(dx, hx, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMemset(dy, 0xff, bytes), cudaSuccess); /* NaN poison in every type */
    void *dout = inplace ? dx : dy;
    T_OK(hepa_dft_exec(p, dout, dx, inv, NULL));
    cr_assert_eq(cudaMemcpy(hy, dout, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    double worst = 0;
    for (size_t b = 0; b < batch; ++b) {
        long double num = 0, den = 0;
        for (size_t i = 2 * n * b; i < 2 * n * (b + 1); ++i) {
            const long double d = get_real(hy, i, m) - ref[i];
            num += d * d;
            den += ref[i] * ref[i];
        }
        const double e = den > 0 ? (double)sqrtl(num / den) : (num > 0 ? INFINITY : 0);
        cr_assert(!isnan(e), "%s n=%zu vector %zu: NaN in the output", mode_name(m), n, b);
        if (e > worst) worst = e;
    }
    cudaFree(dx);
    cudaFree(dy);
    free(ref);
    free(hx);
    free(hy);
    return worst;
}

#define NMODES 4
static const hepa_dft_mode all_modes[NMODES] = {HEPA_DFT_FP64, HEPA_DFT_FP32, HEPA_DFT_FP16X2,
                                                HEPA_DFT_FP16};
/* the CUDA-core modes: 2^14 ... 2^16 (FP32 from 2^15) run dft_l2sq */
static int mode_cc(hepa_dft_mode m) {
    return m == HEPA_DFT_FP64 || m == HEPA_DFT_FP32;
}

/* Every mode, n = 2 .. 2^16 and 2^20, both directions, in and out of place, batch 3 (2 from
 * 2^16): within the documented bound. Prints the forward errors (the documentation's table). */
Test(gpu_dft, modes_vs_reference, .timeout = 900) {
    test_rng r;
    test_rng_init(&r);
    const unsigned top = test_quick() ? 12 : 20;
    for (int mi = 0; mi < NMODES; ++mi) {
        const hepa_dft_mode m = all_modes[mi];
        for (unsigned lg = 1; lg <= top; ++lg) {
            if (lg > 16 && lg < 20) continue;
            const size_t n = (size_t)1 << lg, batch = lg >= 16 ? 2 : 3;
            hepa_dft_plan *p;
            T_OK(hepa_dft_plan_create(&p, n, batch, m));
            for (int inv = 0; inv < 2; ++inv)
                for (int inplace = 0; inplace < 2; ++inplace) {
                    const double e = check_plan(&r, p, m, n, batch, inv, inplace, NULL);
                    if (!inv && !inplace)
                        fprintf(stderr, "gpu_dft: %-6s n = 2^%-2u passes %d  rel L2 %.3g\n",
                                mode_name(m), lg, _hepa_dft_plan_passes(p), e);
                    cr_assert(e <= mode_bound(m), "%s n=2^%u inv=%d inplace=%d: error %.3g > %.3g",
                              mode_name(m), lg, inv, inplace, e, mode_bound(m));
                }
            hepa_dft_plan_destroy(p);
        }
    }
}

/* Plans of every size alive at once, made from the largest down, then each run: the plans of one
 * mode share kernels, whose shared-memory limit a smaller plan made later must not lower below
 * what an earlier one needs (_hepa_dev_allow_smem). */
Test(gpu_dft, plans_of_many_sizes, .timeout = 600) {
    test_rng r;
    test_rng_init(&r);
    enum { LO = 4, HI = 16 };
    for (int mi = 0; mi < NMODES; ++mi) {
        const hepa_dft_mode m = all_modes[mi];
        hepa_dft_plan *p[HI + 1] = {NULL};
        for (unsigned lg = HI; lg >= LO; --lg)
            T_OK(hepa_dft_plan_create(&p[lg], (size_t)1 << lg, 2, m));
        for (unsigned lg = HI; lg >= LO; --lg) {
            const double e = check_plan(&r, p[lg], m, (size_t)1 << lg, 2, 0, 0, NULL);
            cr_assert(e <= mode_bound(m), "%s n=2^%u, %u plans alive: error %.3g > %.3g",
                      mode_name(m), lg, HI - LO + 1, e, mode_bound(m));
        }
        for (unsigned lg = LO; lg <= HI; ++lg)
            hepa_dft_plan_destroy(p[lg]);
    }
}

/* Every split the plans can run (one pass with several vectors per block and with one large
 * vector per block; four-step with every pass A size), with batches that leave a partial block. */
Test(gpu_dft, all_splits, .timeout = 900) {
    test_rng r;
    test_rng_init(&r);
    const unsigned top = test_quick() ? 11 : 15;
    for (int mi = 0; mi < NMODES; ++mi) {
        const hepa_dft_mode m = all_modes[mi];
        for (unsigned lg = 2; lg <= top; ++lg)
            for (unsigned l1 = 0; l1 < lg; ++l1) {
                const size_t n = (size_t)1 << lg;
                const size_t batch = l1 == 0 && lg >= 13 ? 300 : 5; /* 300: many big blocks */
                hepa_dft_plan *p;
                const hepa_status st = _hepa_dft_plan_create_split(&p, n, batch, m, l1);
                if (st == HEPA_ERR_INVALID_ARGUMENT) continue; /* split too big for a block */
                T_OK(st);
                cr_assert_eq(_hepa_dft_plan_passes(p), l1 ? 2 : 1);
                const int inv = (int)(lg + l1) & 1;
                const double e = check_plan(&r, p, m, n, batch, inv, (int)l1 & 1, NULL);
                cr_assert(e <= mode_bound(m), "%s n=2^%u l1=%u: error %.3g", mode_name(m), lg, l1,
                          e);
                hepa_dft_plan_destroy(p);
            }
    }
}

/* Plans of 2^14 ... 2^16 whose batch holds more than 2^16 elements run one pass over a
 * thread-block cluster on sm_90 devices (FP64, FP32 from 2^15: dft_stockham_cc_cluster; FP16X2,
 * and FP16 from 2^15: dft_cluster_tc; FP32 and FP16 2^14 one block per vector); FP64 and FP32 run
 * dft_l2sq instead (both passes of a four-step in one launch), whose blocks wait for each other: a
 * batch just above 2^16 elements (lag D = the whole batch, a ring of the whole batch in place) and
 * one of 3·2^20 elements (D below the batch, so every branch of its item order runs, and in place
 * the ring's slots are reused), executed several times (the counters must be back at zero). FP64
 * and FP32 once more with HEPA_DFT_NO_L2SQ=1: the cluster kernel that devices without dft_l2sq get
 * (never reached on an H100 otherwise). Each plan's kernel is asserted (_hepa_dft_plan_kernel).
 * Run here at every test size, so that the quick runs under compute-sanitizer cover those kernels
 * too (the sweeps above reach them only at full size). Both directions, in and out of place. */
static const char *cluster_kernel_expected(hepa_dft_mode m, unsigned lg, size_t batch, int nol2) {
    /* FP32 2^14: one block a vector, or the four-step split below 264 vectors (hepa/dft.h) */
    if (lg == 14 && m == HEPA_DFT_FP32) return batch < 264 ? "four-step" : "stockham";
    if (lg == 14 && m == HEPA_DFT_FP16) return "stockham";
    return mode_cc(m) && !nol2 ? "l2sq" : "cluster";
}
Test(gpu_dft, cluster_plans, .timeout = 600) {
    test_rng r;
    test_rng_init(&r);
    for (int mi = 0; mi < NMODES; ++mi)
        for (unsigned lg = 14; lg <= 16; ++lg)
            for (int big = 0; big < (mode_cc(all_modes[mi]) ? 3 : 1); ++big) {
                const hepa_dft_mode m = all_modes[mi];
                const int nol2 = big == 2; /* the cluster kernel in place of dft_l2sq */
                const size_t n = (size_t)1 << lg;
                /* (FP32 2^14 with 300 vectors: its one-block pass, 1024 threads a vector; FP16X2
                 * 2^14 with 264: below that its plans take the four-step split, hepa/dft.h) */
                const size_t batch =
                    big == 1 ? (m == HEPA_DFT_FP32 && lg == 14 ? 300 : ((size_t)3 << 20) / n)
                    : m == HEPA_DFT_FP16X2 && lg == 14 ? 264
                                                       : ((size_t)1 << 16) / n + 1;
                hepa_dft_plan *p;
                cr_assert_eq(setenv("HEPA_DFT_NO_L2SQ", nol2 ? "1" : "0", 1), 0);
                T_OK(hepa_dft_plan_create(&p, n, batch, m));
                cr_assert_eq(unsetenv("HEPA_DFT_NO_L2SQ"), 0);
                const char *want = cluster_kernel_expected(m, lg, batch, nol2);
                cr_assert_str_eq(_hepa_dft_plan_kernel(p), want, "%s n=2^%u batch %zu: %s, not %s",
                                 mode_name(m), lg, batch, _hepa_dft_plan_kernel(p), want);
                /* FP64, FP32: out of place, in place, then out of place again; the others and the
                 * cluster kernel of FP64, FP32: inverse in place, as before */
                const int runs = mode_cc(m) && !nol2 ? 6 : 2;
                for (int run = 0; run < runs; ++run) {
                    const int inv = run & 1, inplace = runs == 6 ? run / 2 == 1 : inv;
                    const double e = check_plan(&r, p, m, n, batch, inv, inplace, NULL);
                    if (run == 0)
                        fprintf(stderr,
                                "gpu_dft: %-6s n = 2^%-2u batch %zu %-8s passes %d  rel L2 %.3g\n",
                                mode_name(m), lg, batch, want, _hepa_dft_plan_passes(p), e);
                    cr_assert(e <= mode_bound(m),
                              "%s n=2^%u batch %zu %s inv=%d inplace=%d passes %d: error %.3g",
                              mode_name(m), lg, batch, want, inv, inplace, _hepa_dft_plan_passes(p),
                              e);
                }
                hepa_dft_plan_destroy(p);
            }
}

/* CUDA GRAPHS: a plan's forward and inverse captured from a stream in the strictest mode
 * (global) enqueue nothing while captured, and a replay, twice, gives the bytes of the same
 * calls run eagerly. Every mode at one-pass sizes (2^10, 2^13) and the cluster, four-step and L2
 * plans (2^14, 2^16). */
Test(gpu_dft, graph_capture, .timeout = 600) {
    test_rng r;
    test_rng_init(&r);
    cudaStream_t st = NULL;
    cr_assert_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    const unsigned lgs[] = {10, 13, 14, 16};
    for (int mi = 0; mi < NMODES; ++mi)
        for (int li = 0; li < 4; ++li) {
            const hepa_dft_mode m = all_modes[mi];
            const size_t n = (size_t)1 << lgs[li], batch = ((size_t)1 << 16) / n + 1;
            const size_t reals = 2 * n * batch, bytes = n * batch * mode_bytes(m);
            hepa_dft_plan *p;
            T_OK(hepa_dft_plan_create(&p, n, batch, m));
            long double *v = malloc(reals * sizeof *v);
            unsigned char *hx = malloc(bytes), *h1 = malloc(bytes), *h2 = malloc(bytes);
            cr_assert(v && hx && h1 && h2);
            for (size_t i = 0; i < reals; ++i) v[i] = test_rand_unit(&r);
            put_reals(hx, v, reals, m);
            void *d[5]; /* x; eager forward, inverse; graph forward, inverse */
            for (int i = 0; i < 5; ++i) cr_assert_eq(cudaMalloc(&d[i], bytes), cudaSuccess);
            cr_assert_eq(cudaMemcpy(d[0], hx, bytes, cudaMemcpyHostToDevice), cudaSuccess);
            for (int i = 1; i < 5; ++i) cr_assert_eq(cudaMemset(d[i], 0xff, bytes), cudaSuccess);
            cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
            T_OK(hepa_dft_exec(p, d[1], d[0], 0, st));
            T_OK(hepa_dft_exec(p, d[2], d[1], 1, st));
            cr_assert_eq(cudaStreamSynchronize(st), cudaSuccess);
            cr_assert_eq(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
            hepa_status s = hepa_dft_exec(p, d[3], d[0], 0, st);
            if (s == HEPA_OK) s = hepa_dft_exec(p, d[4], d[3], 1, st);
            cudaGraph_t graph = NULL;
            const cudaError_t ce = cudaStreamEndCapture(st, &graph);
            cr_assert_eq(s, HEPA_OK, "%s n=2^%u: a call failed under capture: %s (%s)",
                         mode_name(m), lgs[li], hepa_status_string(s), hepa_last_error_message());
            cr_assert_eq(ce, cudaSuccess, "%s n=2^%u: cudaStreamEndCapture: %s", mode_name(m),
                         lgs[li], cudaGetErrorString(ce));
            cudaGraphExec_t exec = NULL;
            cr_assert_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
            cr_assert_eq(cudaMemcpy(h2, d[4], bytes, cudaMemcpyDeviceToHost), cudaSuccess);
            for (size_t i = 0; i < bytes; ++i)
                T_CHECK(h2[i] == 0xff, "%s n=2^%u: byte %zu written under capture", mode_name(m),
                        lgs[li], i);
            for (int rep = 0; rep < 2; ++rep) {
                if (rep)
                    for (int i = 3; i < 5; ++i)
                        cr_assert_eq(cudaMemsetAsync(d[i], 0xff, bytes, st), cudaSuccess);
                cr_assert_eq(cudaGraphLaunch(exec, st), cudaSuccess);
                cr_assert_eq(cudaStreamSynchronize(st), cudaSuccess);
                for (int k = 0; k < 2; ++k) {
                    cr_assert_eq(cudaMemcpy(h1, d[1 + k], bytes, cudaMemcpyDeviceToHost),
                                 cudaSuccess);
                    cr_assert_eq(cudaMemcpy(h2, d[3 + k], bytes, cudaMemcpyDeviceToHost),
                                 cudaSuccess);
                    cr_assert(memcmp(h1, h2, bytes) == 0,
                              "%s n=2^%u batch %zu: the replayed %s differs from the eager one "
                              "(replay %d)",
                              mode_name(m), lgs[li], batch, k ? "inverse" : "forward", rep);
                }
            }
            cudaGraphExecDestroy(exec);
            cudaGraphDestroy(graph);
            for (int i = 0; i < 5; ++i) cudaFree(d[i]);
            free(v), free(hx), free(h1), free(h2);
            hepa_dft_plan_destroy(p);
        }
    cudaStreamDestroy(st);
}

/* FP16X2 2^13 runs persistent blocks (as many as fit the GPU at once, 132 on an H100), each
 * transforming every gridDim.x-th vector while it loads the next: a batch of 271 vectors gives
 * some blocks three, with the prefetch in flight across the item boundary, in and out of place.
 * At every test size, for compute-sanitizer's quick runs. */
Test(gpu_dft, persistent_plans, .timeout = 600) {
    test_rng r;
    test_rng_init(&r);
    const size_t n = (size_t)1 << 13, batch = 271;
    hepa_dft_plan *p;
    T_OK(hepa_dft_plan_create(&p, n, batch, HEPA_DFT_FP16X2));
    cr_assert_eq(_hepa_dft_plan_passes(p), 1);
    for (int run = 0; run < 2; ++run) {
        const double e = check_plan(&r, p, HEPA_DFT_FP16X2, n, batch, run, run, NULL);
        cr_assert(e <= 1e-6, "FP16X2 n=2^13 batch %zu inv=inplace=%d: error %.3g", batch, run, e);
    }
    hepa_dft_plan_destroy(p);
}

/* The one-pass Stockham kernels of n <= 2^13 (FP32: 2^14) ask L2 for the input of the block about
 * 2 MiB ahead as they start (L2 PREFETCH in dft_cuda.cu). Batches that reach that far, with a
 * partial last block at 2^10 (601 vectors: 150 blocks of 4 and one of 1 where a block holds 4),
 * and 270 vectors at 2^13 (below 264 the plans of 2^13 go through the four-step split), for
 * every mode, both directions, in and out of place; at every test size, for compute-sanitizer's
 * quick runs. */
Test(gpu_dft, prefetch_plans, .timeout = 600) {
    test_rng r;
    test_rng_init(&r);
    for (int mi = 0; mi < NMODES; ++mi)
        for (unsigned lg = 10; lg <= 13; lg += 3) {
            const hepa_dft_mode m = all_modes[mi];
            const size_t n = (size_t)1 << lg, batch = lg == 10 ? 601 : 270; /* 2^13: one pass */
            hepa_dft_plan *p;
            T_OK(hepa_dft_plan_create(&p, n, batch, m));
            cr_assert_eq(_hepa_dft_plan_passes(p), 1);
            for (int run = 0; run < 2; ++run) {
                const double e = check_plan(&r, p, m, n, batch, run, run, NULL);
                cr_assert(e <= mode_bound(m), "%s n=2^%u batch %zu inv=inplace=%d: error %.3g",
                          mode_name(m), lg, batch, run, e);
            }
            hepa_dft_plan_destroy(p);
        }
}

/* FP16X2 scales each block by a power of two: tiny and huge vectors (2^-100, 2^100) next to
 * ordinary ones keep the FP32-level relative error. */
Test(gpu_dft, fp16x2_any_magnitude) {
    test_rng r;
    test_rng_init(&r);
    const double scale[3] = {0x1p-100, 1.0, 0x1p100};
    for (unsigned lg = 4; lg <= 16; lg += 4) {
        const size_t n = (size_t)1 << lg;
        hepa_dft_plan *p;
        T_OK(hepa_dft_plan_create(&p, n, 3, HEPA_DFT_FP16X2));
        const double e = check_plan(&r, p, HEPA_DFT_FP16X2, n, 3, 0, 0, scale);
        cr_assert(e <= 1e-6, "n=2^%u: error %.3g", lg, e);
        hepa_dft_plan_destroy(p);
    }
}

Test(gpu_dft, bad_input) {
    hepa_dft_plan *p = (hepa_dft_plan *)0x1;
    T_STATUS(hepa_dft_plan_create(NULL, 16, 1, HEPA_DFT_FP64), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_dft_plan_create(&p, 24, 1, HEPA_DFT_FP64), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_dft_plan_create(&p, 1, 1, HEPA_DFT_FP64), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_dft_plan_create(&p, (size_t)1 << 21, 1, HEPA_DFT_FP64),
             HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_dft_plan_create(&p, 16, 0, HEPA_DFT_FP64), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_dft_plan_create(&p, 16, 1, (hepa_dft_mode)7), HEPA_ERR_INVALID_ARGUMENT);
    /* a split whose pass does not fit a block, and a split of the whole size */
    T_STATUS(_hepa_dft_plan_create_split(&p, (size_t)1 << 16, 1, HEPA_DFT_FP64, 2),
             HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(_hepa_dft_plan_create_split(&p, 16, 1, HEPA_DFT_FP64, 4), HEPA_ERR_INVALID_ARGUMENT);
    cr_assert_eq(p, (hepa_dft_plan *)0x1, "output touched on error");
    for (int mi = 0; mi < NMODES; ++mi) {
        T_OK(hepa_dft_plan_create(&p, 16, 1, all_modes[mi]));
        double host[32], *d;
        cr_assert_eq(cudaMalloc((void **)&d, sizeof host), cudaSuccess);
        T_STATUS(hepa_dft_exec(NULL, d, d, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_dft_exec(p, NULL, d, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_dft_exec(p, d, host, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_dft_exec(p, host, d, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
        /* buffers must be 16-byte aligned */
        T_STATUS(hepa_dft_exec(p, d, (char *)d + 4, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_dft_exec(p, (char *)d + 8, d, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
        hepa_dft_plan_destroy(p);
        cudaFree(d);
    }
    hepa_dft_plan_destroy(NULL);
}

typedef struct {
    hepa_ring *cpu, *gpu;
    hepa_ckks_encoder *ec, *eg;
    size_t n;
} epair;

static void epair_init_q(epair *e, size_t n, const uint64_t *q, size_t L) {
    e->n = n;
    T_OK(hepa_ring_create(&e->cpu, n, q, L, HEPA_BACKEND_CPU));
    T_OK(hepa_ring_create(&e->gpu, n, q, L, HEPA_BACKEND_CUDA));
    T_OK(hepa_ckks_encoder_create(&e->ec, e->cpu));
    T_OK(hepa_ckks_encoder_create(&e->eg, e->gpu));
}
static void epair_init(epair *e, size_t n, size_t L, unsigned bits) {
    uint64_t q[64];
    cr_assert_eq(test_primes_1mod_desc(q, L, bits, 2 * n), L);
    epair_init_q(e, n, q, L);
}
static void epair_clear(epair *e) {
    hepa_ckks_encoder_destroy(e->ec);
    hepa_ckks_encoder_destroy(e->eg);
    hepa_ring_destroy(e->cpu);
    hepa_ring_destroy(e->gpu);
}

/* GPU and CPU encoders on the same slots: the plaintexts' centred coefficients differ by at most
 * 1 (their DFTs round differently, so a coefficient within ~2^-40 of a half-integer can round
 * either way) and in at most 1% of the coefficients while Δ·|z| <= 2^44, by a relative 2^-44
 * beyond; both decode back to the slots; the GPU
 * decoder reads host and device slot buffers alike. */
static void check_encoders(epair *e, test_rng *r, double scale, size_t level, double mag) {
    const size_t n = e->n, h = n / 2;
    double *z = malloc(2 * h * sizeof *z), *out = malloc(2 * h * sizeof *out),
           *out2 = malloc(2 * h * sizeof *out2);
    for (size_t i = 0; i < 2 * h; ++i) z[i] = mag * test_rand_unit(r);
    hepa_poly *pc, *pg;
    T_OK(hepa_poly_create(&pc, e->cpu, level));
    T_OK(hepa_poly_create(&pg, e->gpu, level));
    /* poison the device output (out-of-range words: hepa_poly_set would refuse them) */
    T_OK(hepa_ring_sync(e->gpu));
    cr_assert_eq(cudaMemset(hepa_poly_data(pg), 0xA5, level * n * sizeof(uint64_t)), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    T_OK(hepa_ckks_encode(e->ec, pc, z, scale));
    T_OK(hepa_ckks_encode(e->eg, pg, z, scale));
    cr_assert_eq(hepa_poly_domain(pg), HEPA_DOMAIN_NTT);
    /* compare centred coefficients */
    uint64_t *a = test_alloc(level * n), *b = test_alloc(level * n);
    T_OK(hepa_poly_get(pg, b));
    hepa_poly *pgc;
    T_OK(hepa_poly_create(&pgc, e->cpu, level));
    T_OK(hepa_poly_set(pgc, b, HEPA_DOMAIN_NTT));
    T_OK(hepa_poly_from_ntt(pgc));
    T_OK(hepa_poly_get(pgc, b));
    T_OK(hepa_poly_from_ntt(pc));
    T_OK(hepa_poly_get(pc, a));
    mpz_t *ma = malloc(n * sizeof *ma), *mb = malloc(n * sizeof *mb);
    for (size_t k = 0; k < n; ++k) mpz_init(ma[k]), mpz_init(mb[k]);
    T_OK(hepa_crt_compose(e->cpu, level, ma, a, 1));
    T_OK(hepa_crt_compose(e->cpu, level, mb, b, 1));
    /* up to Δ·|z| ≈ 2^44 the DFTs' rounding differences stay below 1/16 and the integers agree
     * but for rare ties; beyond, the doubles themselves differ in their last bits */
    const double tol = fmax(1.0, scale * mag * 0x1p-44);
    size_t differ = 0;
    mpz_t d;
    mpz_init(d);
    for (size_t k = 0; k < n; ++k) {
        mpz_sub(d, ma[k], mb[k]);
        mpz_abs(d, d);
        cr_assert(mpz_get_d(d) <= tol, "n=%zu Δ=2^%.0f coefficient %zu differs by %.3g > %.3g", n,
                  log2(scale), k, mpz_get_d(d), tol);
        differ += mpz_sgn(d) != 0;
    }
    if (tol == 1.0) cr_assert(differ <= n / 100 + 1, "n=%zu: %zu coefficients differ", n, differ);
    mpz_clear(d);
    for (size_t k = 0; k < n; ++k) mpz_clear(ma[k]), mpz_clear(mb[k]);
    free(ma);
    free(mb);
    /* GPU decode: host slots, then device slots */
    for (size_t i = 0; i < 2 * h; ++i) out[i] = NAN;
    T_OK(hepa_ckks_decode(e->eg, pg, scale, out));
    const double bound = (double)n / scale + 1e-12 * mag;
    for (size_t i = 0; i < 2 * h; ++i)
        cr_assert(fabs(out[i] - z[i]) <= bound, "n=%zu GPU decode slot %zu: %.17g vs %.17g", n,
                  i / 2, out[i], z[i]);
    double *dz;
    cr_assert_eq(cudaMalloc((void **)&dz, 2 * h * sizeof *dz), cudaSuccess);
    cr_assert_eq(cudaMemset(dz, 0xff, 2 * h * sizeof *dz), cudaSuccess);
    /* the ring's stream is non-blocking: the legacy-stream memset and copies below must be done
     * before it touches dz (a pageable cudaMemcpy may return before its DMA lands) */
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    T_OK(hepa_ckks_decode(e->eg, pg, scale, dz));
    T_OK(hepa_ring_sync(e->gpu));
    cr_assert_eq(cudaMemcpy(out2, dz, 2 * h * sizeof *dz, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert(memcmp(out, out2, 2 * h * sizeof *out) == 0, "device-slot decode differs");
    /* device slots in: the same plaintext as host slots in */
    cr_assert_eq(cudaMemcpy(dz, z, 2 * h * sizeof *dz, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    hepa_poly *pg2;
    T_OK(hepa_poly_create(&pg2, e->gpu, level));
    T_OK(hepa_ckks_encode(e->eg, pg2, dz, scale));
    uint64_t *c2 = test_alloc(level * n);
    T_OK(hepa_poly_get(pg, a));
    T_OK(hepa_poly_get(pg2, c2));
    T_ARRAY_EQ(c2, a, level * n, "device-slot encode n=%zu", n);
    cudaFree(dz);
    free(c2);
    hepa_poly_destroy(pg2);
    hepa_poly_destroy(pgc);
    hepa_poly_destroy(pc);
    hepa_poly_destroy(pg);
    free(a);
    free(b);
    free(z);
    free(out);
    free(out2);
}

Test(gpu_ckks, encoders_agree, .timeout = 600) {
    test_rng r;
    test_rng_init(&r);
    const size_t top = test_quick() ? 4096 : 65536;
    for (size_t n = 16; n <= top; n *= 4) {
        epair e;
        epair_init(&e, n, 4, 60);
        check_encoders(&e, &r, 0x1p40, 3, 1.0);
        check_encoders(&e, &r, 0x1p61, 4, 1.0);  /* coefficients around q: the Barrett step */
        check_encoders(&e, &r, 0x1p100, 4, 1.0); /* coefficients beyond 2^64 */
        epair_clear(&e);
    }
    if (!test_quick()) { /* the size: N = 2^16, 34 limbs */
        epair e;
        epair_init(&e, 65536, 34, 60);
        check_encoders(&e, &r, 0x1p40, 34, 1.0);
        epair_clear(&e);
    }
}

/* Rings with primes below 2^47 run the NTT's FP64 kernels, whose first pass reduces the rounded
 * coefficients (ntt_cuda.cu, XF 3) before it turns them into doubles: Δ = 2^40, 2^61 (coefficients
 * around q and beyond) and 2^100 (beyond 2^64: the exact double route); and the chain a CKKS user
 * picks for Δ = 2^40, one 60-bit prime (integer butterflies in the same launch) and 40-bit ones. */
Test(gpu_ckks, fp64_limbs, .timeout = 600) {
    test_rng r;
    test_rng_init(&r);
    for (size_t n = 1024; n <= 65536; n *= 8) {
        epair e;
        epair_init(&e, n, 4, 40);
        check_encoders(&e, &r, 0x1p40, 4, 1.0);
        check_encoders(&e, &r, 0x1p61, 4, 1.0);
        check_encoders(&e, &r, 0x1p100, 4, 1.0);
        epair_clear(&e);
    }
    const size_t L = test_quick() ? 4 : 34, n = test_quick() ? 8192 : 65536;
    uint64_t q[34];
    cr_assert_eq(test_primes_1mod_desc(q, 1, 60, 2 * n), 1);
    cr_assert_eq(test_primes_1mod_desc(q + 1, L - 1, 40, 2 * n), L - 1);
    epair e;
    epair_init_q(&e, n, q, L);
    check_encoders(&e, &r, 0x1p40, L, 1.0);
    check_encoders(&e, &r, 0x1p100, L, 1.0);
    epair_clear(&e);
}

/* Relative L2 distance of a (2·h doubles) from b. */
static double rel_l2(const double *a, const double *b, size_t m) {
    double num = 0, den = 0;
    for (size_t i = 0; i < m; ++i) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return sqrt(num / den);
}

/* DFT MODE (hepa/ckks.h) on the device: FP16X2 and FP16 forced for encode, then for decode, each
 * against the FP64 path: the slots come back within a few times the mode's documented DFT error
 * (hepa/dft.h: 1e-6, 2e-3) plus the rounding's ~sqrt(N)/Δ; FP16 overflow is HEPA_ERR_RANGE;
 * AUTO resolves to FP64; outputs poisoned before each device run. */
Test(gpu_ckks, dft_modes, .timeout = 600) {
    test_rng r;
    test_rng_init(&r);
    const size_t top = test_quick() ? 8192 : 65536;
    static const int modes[2] = {HEPA_DFT_FP16X2, HEPA_DFT_FP16};
    static const double bound[2] = {1e-6, 2e-3};
    const double scale = 0x1p40;
    for (size_t n = 32; n <= top; n *= 16) {
        epair e;
        epair_init(&e, n, 4, 40);
        const size_t h = n / 2;
        double *z = malloc(2 * h * sizeof *z), *out = malloc(2 * h * sizeof *out);
        for (size_t i = 0; i < 2 * h; ++i)
            z[i] = test_rand_unit(&r);
        hepa_poly *p;
        T_OK(hepa_poly_create(&p, e.gpu, 4));
        const double round_err = 4 * sqrt((double)n) / scale;
        cr_assert_eq(hepa_ckks_dft_mode(e.eg, scale), HEPA_DFT_FP64);
        T_OK(hepa_ckks_encode(e.eg, p, z, scale)); /* the FP64 round trip, for comparison */
        T_OK(hepa_ckks_decode(e.eg, p, scale, out));
        const double err64 = rel_l2(out, z, 2 * h);
        cr_assert(err64 <= 1e-12 + round_err, "n=%zu FP64: rel L2 %.3g", n, err64);
        for (int m = 0; m < 2; ++m) {
            /* encode in the mode, decode in FP64 */
            T_OK(hepa_ckks_encoder_set_dft_mode(e.eg, modes[m]));
            cr_assert_eq(hepa_ckks_dft_mode(e.eg, scale), modes[m]);
            T_OK(hepa_ring_sync(e.gpu));
            cr_assert_eq(cudaMemset(hepa_poly_data(p), 0xA5, 4 * n * sizeof(uint64_t)),
                         cudaSuccess);
            cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
            T_OK(hepa_ckks_encode(e.eg, p, z, scale));
            T_OK(hepa_ckks_encoder_set_dft_mode(e.eg, HEPA_CKKS_DFT_AUTO));
            for (size_t i = 0; i < 2 * h; ++i)
                out[i] = NAN;
            T_OK(hepa_ckks_decode(e.eg, p, scale, out));
            double err = rel_l2(out, z, 2 * h);
            cr_assert(err <= 4 * bound[m] + round_err, "n=%zu mode %d encode: rel L2 %.3g", n,
                      modes[m], err);
            cr_assert(err > 10 * err64, "n=%zu mode %d encode: %.3g, as accurate as FP64 (%.3g)?",
                      n, modes[m], err, err64);
            /* encode in FP64, decode in the mode */
            T_OK(hepa_ckks_encode(e.eg, p, z, scale));
            T_OK(hepa_ckks_encoder_set_dft_mode(e.eg, modes[m]));
            for (size_t i = 0; i < 2 * h; ++i)
                out[i] = NAN;
            T_OK(hepa_ckks_decode(e.eg, p, scale, out));
            err = rel_l2(out, z, 2 * h);
            cr_assert(err <= 4 * bound[m] + round_err, "n=%zu mode %d decode: rel L2 %.3g", n,
                      modes[m], err);
        }
        /* FP16: slots of 10^6 overflow its DFT (beyond about 65504/sqrt(h)): HEPA_ERR_RANGE
         * (FP64 encodes them), then a good call */
        double *big = malloc(2 * h * sizeof *big);
        for (size_t i = 0; i < 2 * h; ++i)
            big[i] = i % 2 ? 0 : 1e6;
        T_OK(hepa_ckks_encoder_set_dft_mode(e.eg, HEPA_DFT_FP64));
        T_OK(hepa_ckks_encode(e.eg, p, big, scale));
        T_OK(hepa_ckks_encoder_set_dft_mode(e.eg, HEPA_DFT_FP16));
        T_STATUS(hepa_ckks_encode(e.eg, p, big, scale), HEPA_ERR_RANGE);
        T_OK(hepa_ckks_encode(e.eg, p, z, scale));
        free(big);
        T_STATUS(hepa_ckks_encoder_set_dft_mode(e.eg, 5), HEPA_ERR_INVALID_ARGUMENT);
        cr_assert_eq(hepa_ckks_dft_mode(e.eg, scale), HEPA_DFT_FP16, "mode changed on error");
        T_OK(hepa_ckks_encoder_set_dft_mode(e.eg, HEPA_CKKS_DFT_AUTO));
        hepa_poly_destroy(p);
        free(z);
        free(out);
        epair_clear(&e);
    }
}

/* n = 2^13 ... 2^16 (h = 2^12 ... 2^15): on sm_90 the placement, DFT and rounding run as one
 * cluster kernel (ckks_cuda.cu, enc_fused), whose last row stage has radix 8, 2, 4, 8 */
Test(gpu_ckks, fused_sizes, .timeout = 600) {
    test_rng r;
    test_rng_init(&r);
    for (size_t n = 8192; n <= 65536; n *= 2) {
        epair e;
        epair_init(&e, n, 4, 60);
        check_encoders(&e, &r, 0x1p40, 3, 1.0);
        if (n == 8192 || n == 32768) {
            check_encoders(&e, &r, 0x1p61, 4, 1.0);
            check_encoders(&e, &r, 0x1p100, 4, 1.0);
        }
        epair_clear(&e);
    }
}

/* On the device encoder at n: slot word `at` set to `bad` gives HEPA_ERR_INVALID_ARGUMENT, Δ = 2^200
 * HEPA_ERR_RANGE, and a good call after each succeeds. */
static void check_bad_slots(size_t n, size_t at, double bad) {
    epair e;
    epair_init(&e, n, 3, 60);
    double *z = calloc(n, sizeof *z);
    z[0] = 1;
    hepa_poly *p;
    T_OK(hepa_poly_create(&p, e.gpu, 3));
    z[at] = bad;
    T_STATUS(hepa_ckks_encode(e.eg, p, z, 0x1p40), HEPA_ERR_INVALID_ARGUMENT);
    z[at] = 0;
    T_OK(hepa_ckks_encode(e.eg, p, z, 0x1p40));
    T_STATUS(hepa_ckks_encode(e.eg, p, z, 0x1p200), HEPA_ERR_RANGE);
    T_OK(hepa_ckks_encode(e.eg, p, z, 0x1p40));
    free(z);
    hepa_poly_destroy(p);
    epair_clear(&e);
}

Test(gpu_ckks, bad_input) {
    epair e;
    epair_init(&e, 64, 3, 60);
    double z[64] = {0}, out[64];
    z[0] = 1;
    hepa_poly *p, *pc;
    T_OK(hepa_poly_create(&p, e.gpu, 3));
    T_OK(hepa_poly_create(&pc, e.cpu, 3));
    T_STATUS(hepa_ckks_encode(e.eg, pc, z, 0x1p40), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_ckks_decode(e.eg, pc, 0x1p40, out), HEPA_ERR_MISMATCH);
    z[5] = NAN;
    T_STATUS(hepa_ckks_encode(e.eg, p, z, 0x1p40), HEPA_ERR_INVALID_ARGUMENT);
    z[5] = INFINITY;
    T_STATUS(hepa_ckks_encode(e.eg, p, z, 0x1p40), HEPA_ERR_INVALID_ARGUMENT);
    z[5] = 0;
    T_STATUS(hepa_ckks_encode(e.eg, p, z, 0x1p200), HEPA_ERR_RANGE);
    T_OK(hepa_ckks_encode(e.eg, p, z, 0x1p40));
    /* device slots on the CPU backend */
    double *d;
    cr_assert_eq(cudaMalloc((void **)&d, sizeof z), cudaSuccess);
    cr_assert_eq(cudaMemcpy(d, z, sizeof z, cudaMemcpyHostToDevice), cudaSuccess);
    T_STATUS(hepa_ckks_encode(e.ec, pc, d, 0x1p40), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ckks_decode(e.ec, pc, 0x1p40, d), HEPA_ERR_INVALID_ARGUMENT);
    cudaFree(d);
    hepa_poly_destroy(p);
    hepa_poly_destroy(pc);
    epair_clear(&e);
    /* the same statuses from the fused paths, and a good call after each (the flags are
     * cleared): n = 2^10, where the NTT reduces as it loads, and n = 2^13, where one kernel also
     * places, transforms and rounds (see fused_sizes) */
    check_bad_slots(1024, 77, NAN);
    check_bad_slots(8192, 4095, -INFINITY);
}
