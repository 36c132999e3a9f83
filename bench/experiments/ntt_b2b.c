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
#include "hepa/rns.h"

#include "exp_check.h" /* HK, exp_ntt_setup */
static int cmpf(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}
int main(int argc, char **argv) {
    hepa_ring *r;
    hepa_poly *p;
    size_t L;
    if (exp_ntt_setup(argc, argv, &r, &p, &L)) return 2;
    cudaStream_t st = (cudaStream_t)hepa_ring_cuda_stream(r);
    for (int w = 0; w < 10; ++w) {
        HK(hepa_poly_to_ntt(p));
        HK(hepa_poly_from_ntt(p));
    }
    HK(hepa_ring_sync(r));
    enum { R = 60, B = 16 };
    cudaEvent_t ev[3 * R];
    for (int i = 0; i < 3 * R; ++i)
        cudaEventCreate(&ev[i]);
    /* each transform between its own pair of events: e0, forward, e1, inverse, e2 */
    for (int i = 0; i < R; ++i) {
        cudaEventRecord(ev[3 * i], st);
        HK(hepa_poly_to_ntt(p));
        cudaEventRecord(ev[3 * i + 1], st);
        HK(hepa_poly_from_ntt(p));
        cudaEventRecord(ev[3 * i + 2], st);
    }
    cudaStreamSynchronize(st);
    float f[R], iv[R];
    for (int i = 0; i < R; ++i) {
        cudaEventElapsedTime(&f[i], ev[3 * i], ev[3 * i + 1]);
        cudaEventElapsedTime(&iv[i], ev[3 * i + 1], ev[3 * i + 2]);
    }
    qsort(f, R, sizeof *f, cmpf);
    qsort(iv, R, sizeof *iv, cmpf);
    /* B round trips between two events, no events between */
    float rt[R / 4];
    for (int i = 0; i < R / 4; ++i) {
        cudaEventRecord(ev[0], st);
        for (int b = 0; b < B; ++b) {
            HK(hepa_poly_to_ntt(p));
            HK(hepa_poly_from_ntt(p));
        }
        cudaEventRecord(ev[1], st);
        cudaEventSynchronize(ev[1]);
        cudaEventElapsedTime(&rt[i], ev[0], ev[1]);
        rt[i] /= B;
    }
    qsort(rt, R / 4, sizeof *rt, cmpf);
    printf("n %zu, %zu limbs of %s bits, hot: per call fwd %.2f inv %.2f (sum %.2f) us; "
           "back-to-back round trip %.2f us\n",
           hepa_ring_n(r), L, argv[3], 1e3 * f[R / 2], 1e3 * iv[R / 2],
           1e3 * (f[R / 2] + iv[R / 2]), 1e3 * rt[R / 8]);
    for (int i = 0; i < 3 * R; ++i)
        cudaEventDestroy(ev[i]);
    hepa_poly_destroy(p);
    hepa_ring_destroy(r);
    return 0;
}
