/* bench/experiments/ntt_b2b.c - per-call against back-to-back timing of the NTT of one
 * polynomial (hot): the forward and the inverse each between their own pair of CUDA events (as
 * hepa-bench times them), and 16 round trips between one pair of events (what the GPU does when
 * calls follow each other). The difference is the per-call cost that consecutive calls overlap.
 *
 *   cc -O2 -I include -I/usr/local/cuda/include -o b2b bench/experiments/ntt_b2b.c \
 *      -L build-gpu -lhepa -lcudart -L/usr/local/cuda/lib64 -Wl,-rpath,build-gpu
 *   ./b2b 16 34 40      (LOG2_N L BITS) */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include "hepa/primes.h"
#include "hepa/rns.h"
#include "hepa/sample.h"
#include "exp_check.h" /* HK */
static int cmpf(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s LOG2_N L BITS  (e.g. 16 34 40)\n", argv[0]);
        return 2;
    }
    const size_t logn = strtoul(argv[1], NULL, 10), L = strtoul(argv[2], NULL, 10);
    const unsigned bits = (unsigned)strtoul(argv[3], NULL, 10);
    if (logn < 10 || logn > 17 || L < 1 || L > 64 || bits < 20 || bits > 62) {
        fprintf(stderr, "LOG2_N in [10, 17], L in [1, 64], BITS in [20, 62]\n");
        return 2;
    }
    const size_t n = (size_t)1 << logn;
    uint64_t q[64];
    HK(hepa_primes_ntt(q, L, bits, n));
    hepa_ring *r;
    HK(hepa_ring_create(&r, n, q, L, HEPA_BACKEND_CUDA));
    cudaStream_t st = (cudaStream_t)hepa_ring_cuda_stream(r);
    uint8_t seed[32] = {5};
    hepa_rng *g;
    HK(hepa_rng_create(&g, seed));
    hepa_poly *p;
    HK(hepa_poly_create(&p, r, L));
    HK(hepa_sample_uniform(g, p, HEPA_DOMAIN_COEFF));
    for (int w = 0; w < 10; ++w) { HK(hepa_poly_to_ntt(p)); HK(hepa_poly_from_ntt(p)); }
    HK(hepa_ring_sync(r));
    enum { R = 60, B = 16 };
    cudaEvent_t ev[2 * R + 2];
    for (int i = 0; i < 2 * R + 2; ++i) cudaEventCreate(&ev[i]);
    float f[R], iv[R];
    for (int i = 0; i < R; ++i) {
        cudaEventRecord(ev[2 * i], st); HK(hepa_poly_to_ntt(p)); cudaEventRecord(ev[2 * i + 1], st);
        HK(hepa_poly_from_ntt(p));
    }
    cudaStreamSynchronize(st);
    for (int i = 0; i < R; ++i) { cudaEventElapsedTime(&f[i], ev[2 * i], ev[2 * i + 1]); }
    for (int i = 0; i < R; ++i) {
        HK(hepa_poly_to_ntt(p));
        cudaEventRecord(ev[2 * i], st); HK(hepa_poly_from_ntt(p)); cudaEventRecord(ev[2 * i + 1], st);
    }
    cudaStreamSynchronize(st);
    for (int i = 0; i < R; ++i) { cudaEventElapsedTime(&iv[i], ev[2 * i], ev[2 * i + 1]); }
    qsort(f, R, sizeof *f, cmpf); qsort(iv, R, sizeof *iv, cmpf);
    /* B round trips between two events, no events between */
    float rt[R / 4];
    for (int i = 0; i < R / 4; ++i) {
        cudaEventRecord(ev[0], st);
        for (int b = 0; b < B; ++b) { HK(hepa_poly_to_ntt(p)); HK(hepa_poly_from_ntt(p)); }
        cudaEventRecord(ev[1], st); cudaEventSynchronize(ev[1]);
        cudaEventElapsedTime(&rt[i], ev[0], ev[1]); rt[i] /= B;
    }
    qsort(rt, R / 4, sizeof *rt, cmpf);
    printf("2^%zu/%zu %u-bit hot: per call fwd %.2f inv %.2f (sum %.2f) us; back-to-back round trip %.2f us\n",
           logn, L, bits, 1e3 * f[R / 2], 1e3 * iv[R / 2], 1e3 * (f[R / 2] + iv[R / 2]), 1e3 * rt[R / 8]);
    hepa_poly_destroy(p); hepa_rng_destroy(g); hepa_ring_destroy(r);
    return 0;
}
