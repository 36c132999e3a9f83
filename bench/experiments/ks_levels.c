/* bench/experiments/ks_levels.c — a CKKS-like chain of key switches whose level changes from
 * call to call (for KS GRAPH, src/rns/keyswitch.c, whose cache was measured only at one level):
 * hepa_mul_relin_rescale (squaring) at levels L, L - 1, ..., 2, then hepa_mul_relin at the same
 * levels, each chain timed whole (CUDA events on the ring's stream) and its host enqueue time
 * (clock_gettime), median of REPS chains after 2 warm-up chains. Run it with HEPA_KS_GRAPH=0
 * and unset (KS GRAPH on) on one GPU. It decided KS GRAPH's default (eighteenth session,
 * bench/results/2026-12-07-h100-ks-graph-levels.md).
 *   cc -O2 -I include -I/usr/local/cuda/include -o kslevels bench/experiments/ks_levels.c \
 *      -L build -lhepa -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,build
 *   ./kslevels 16 33 3 20      (LOG2_N L K REPS; HEPA_KS_GRAPH=0 ./kslevels ... for eager) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime.h>

#include "hepa/rns.h"

#include "exp_check.h" /* HK, CK, exp_ks_setup */

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static int cmp(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s LOG2_N L K REPS  (e.g. 16 33 3 20)\n", argv[0]);
        return 2;
    }
    const size_t logn = strtoul(argv[1], 0, 10), L = strtoul(argv[2], 0, 10);
    const size_t K = strtoul(argv[3], 0, 10);
    const int reps = atoi(argv[4]);
    if (L < 3 || reps < 1 || reps > 1000) return 2;
    exp_ks e;
    exp_ks_setup(&e, logn, L, K);
    uint8_t seed[32] = {5};
    hepa_rng *g;
    HK(hepa_rng_create(&g, seed));
    /* c[l] = (c0, c1) at level l; o[l] = outputs at level l (rescale: l - 1 of the next) */
    hepa_poly **c = calloc(2 * (L + 1), sizeof *c), **o = calloc(2 * (L + 1), sizeof *o);
    for (size_t l = 1; l <= L; ++l)
        for (int k = 0; k < 2; ++k) {
            HK(hepa_poly_create(&c[2 * l + k], e.r, l));
            HK(hepa_sample_uniform(g, c[2 * l + k], HEPA_DOMAIN_NTT));
            HK(hepa_poly_create(&o[2 * l + k], e.r, l));
        }
    cudaStream_t st = (cudaStream_t)hepa_ring_cuda_stream(e.r);
    cudaEvent_t ev[2];
    CK(cudaEventCreate(&ev[0]));
    CK(cudaEventCreate(&ev[1]));
    const char *env = getenv("HEPA_KS_GRAPH");
    printf("n 2^%zu, L %zu, K %zu, HEPA_KS_GRAPH=%s, %d chains of %zu calls\n", logn, L, K,
           env ? env : "(unset)", reps, L - 1);
    double *gpu = malloc(reps * sizeof *gpu), *host = malloc(reps * sizeof *host);
    for (int rescale = 1; rescale >= 0; --rescale) {
        for (int r = -2; r < reps; ++r) {
            HK(hepa_ring_sync(e.r));
            CK(cudaEventRecord(ev[0], st));
            const double t0 = now_us();
            for (size_t l = L; l >= 2; --l) {
                hepa_poly *a0 = c[2 * l], *a1 = c[2 * l + 1];
                if (rescale)
                    HK(hepa_mul_relin_rescale(e.ks, o[2 * (l - 1)], o[2 * (l - 1) + 1], a0, a1, a0,
                                              a1, e.key));
                else
                    HK(hepa_mul_relin(e.ks, o[2 * l], o[2 * l + 1], a0, a1, a0, a1, e.key));
            }
            const double t1 = now_us();
            CK(cudaEventRecord(ev[1], st));
            CK(cudaEventSynchronize(ev[1]));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
            if (r >= 0) gpu[r] = ms * 1e3, host[r] = t1 - t0;
        }
        qsort(gpu, reps, sizeof *gpu, cmp);
        qsort(host, reps, sizeof *host, cmp);
        printf("%-24s chain: GPU %.1f us (min %.1f), host enqueue %.1f us (min %.1f); per call "
               "%.1f / %.1f us\n",
               rescale ? "hepa_mul_relin_rescale" : "hepa_mul_relin", gpu[reps / 2], gpu[0],
               host[reps / 2], host[0], gpu[reps / 2] / (L - 1), host[reps / 2] / (L - 1));
    }
    for (size_t k = 2; k < 2 * (L + 1); ++k)
        hepa_poly_destroy(c[k]), hepa_poly_destroy(o[k]);
    free(c), free(o), free(gpu), free(host);
    hepa_rng_destroy(g);
    exp_ks_free(&e);
    return 0;
}
