/* bench/experiments/bp_fft_profile.c — a minimal driver for profiling the big-prime FFT under
 * Nsight Compute: plan FFTs (forward) of one random vector, nothing else on the GPU.
 *
 *   cc -O2 -I include -o bpprof bench/experiments/bp_fft_profile.c -L build-gpu -lhepa -lgmp \
 *      -lcudart -Wl,-rpath,build-gpu
 *   ncu -k regex:bp_fft_level --launch-skip 5 --launch-count 5 --section ... ./bpprof [P3|P4] [lgN]
 *   ./bpprof P3 20 50     (a third argument: also time that many forward FFTs, median and min)
 *
 * The first call (5 level kernels at N = 2^20 for P3) warms up; the next ones are profiled. */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "hepa/bigprime.h"
#include "hepa/bigprime_cuda.h"

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if ((x) != 0) {                                                                            \
            fprintf(stderr, "%s failed\n", #x);                                                    \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    const hepa_bp_prime which = argc > 1 && !strcmp(argv[1], "P4") ? HEPA_BP_P4 : HEPA_BP_P3;
    const unsigned lg = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
    const size_t N = (size_t)1 << lg;
    hepa_bp_field *f;
    CHECK(hepa_bp_field_create_named(&f, which));
    const size_t k = hepa_bp_field_k(f);
    uint64_t *h = malloc(N * k * sizeof *h), *dx, *dy;
    if (!h) return 1;
    mpz_t v, p;
    mpz_inits(v, p, NULL);
    CHECK(hepa_bp_field_prime(f, p));
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    for (size_t j = 0; j < N; ++j) {
        mpz_urandomm(v, rs, p);
        CHECK(hepa_bp_from_mpz(f, h + j * k, v));
    }
    CHECK(cudaMalloc((void **)&dx, N * k * sizeof *dx));
    CHECK(cudaMalloc((void **)&dy, N * k * sizeof *dy));
    CHECK(hepa_bp_dev_upload(f, dx, h, N, NULL));
    hepa_bp_dev_plan *plan;
    CHECK(hepa_bp_dev_plan_create(&plan, f, N, 0));
    for (int rep = 0; rep < 3; ++rep) CHECK(hepa_bp_dev_plan_fft(plan, dy, dx, 0, NULL));
    CHECK(cudaDeviceSynchronize());
    printf("done: %s N = 2^%u\n", which == HEPA_BP_P4 ? "P4" : "P3", lg);
    if (argc > 3) { /* a quick timing for A/B runs: median of reps forward FFTs, CUDA events */
        const int reps = atoi(argv[3]) > 0 ? atoi(argv[3]) : 20;
        float *ms = malloc(reps * sizeof *ms);
        cudaEvent_t a, b;
        CHECK(cudaEventCreate(&a));
        CHECK(cudaEventCreate(&b));
        for (int rep = 0; rep < reps; ++rep) {
            CHECK(cudaEventRecord(a, 0));
            CHECK(hepa_bp_dev_plan_fft(plan, dy, dx, 0, NULL));
            CHECK(cudaEventRecord(b, 0));
            CHECK(cudaEventSynchronize(b));
            CHECK(cudaEventElapsedTime(&ms[rep], a, b));
        }
        for (int i = 1; i < reps; ++i) /* insertion sort */
            for (int j = i; j > 0 && ms[j] < ms[j - 1]; --j) {
                const float t = ms[j];
                ms[j] = ms[j - 1], ms[j - 1] = t;
            }
        printf("forward plan FFT: median %.1f us, min %.1f us (%d runs)\n", 1e3 * ms[reps / 2],
               1e3 * ms[0], reps);
        free(ms);
    }
    hepa_bp_dev_plan_destroy(plan);
    cudaFree(dx);
    cudaFree(dy);
    gmp_randclear(rs);
    mpz_clears(v, p, NULL);
    free(h);
    hepa_bp_field_destroy(f);
    return 0;
}
