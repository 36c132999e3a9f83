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

#include "hepa/rns.h"

#include "exp_check.h" /* HK, exp_ntt_setup */

int main(int argc, char **argv) {
    hepa_ring *r;
    hepa_poly *p;
    size_t L;
    if (exp_ntt_setup(argc, argv, &r, &p, &L)) return 2;
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
    hepa_ring_destroy(r);
    return 0;
}
