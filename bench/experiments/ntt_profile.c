/* bench/experiments/ntt_profile.c - a minimal driver for profiling the plain NTT passes under
 * Nsight Compute: a ring of L primes of `bits` bits (as hepa-bench --gpu-suite --bits), one
 * polynomial with uniform words, three warm-up round trips, then one forward and one inverse NTT
 * between cudaProfilerStart and cudaProfilerStop (`ncu --profile-from-start off`).
 *
 *   cc -O2 -I include -I/usr/local/cuda/include -o nttprof bench/experiments/ntt_profile.c \
 *      -L build-gpu -lhepa -lcudart -L/usr/local/cuda/lib64 -Wl,-rpath,build-gpu
 *   ncu --profile-from-start off --section InstructionStats ./nttprof 16 34 40
 */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_profiler_api.h>

#include "hepa/primes.h"
#include "hepa/rns.h"
#include "hepa/sample.h"

#include "exp_check.h" /* HK */

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
    uint8_t seed[32] = {5};
    hepa_rng *g;
    HK(hepa_rng_create(&g, seed));
    hepa_poly *p;
    HK(hepa_poly_create(&p, r, L));
    HK(hepa_sample_uniform(g, p, HEPA_DOMAIN_COEFF));
    for (int w = 0; w < 3; ++w) {
        HK(hepa_poly_to_ntt(p));
        HK(hepa_poly_from_ntt(p));
    }
    HK(hepa_ring_sync(r));
    cudaProfilerStart();
    HK(hepa_poly_to_ntt(p));
    HK(hepa_poly_from_ntt(p));
    HK(hepa_ring_sync(r));
    cudaProfilerStop();
    hepa_poly_destroy(p);
    hepa_rng_destroy(g);
    hepa_ring_destroy(r);
    return 0;
}
