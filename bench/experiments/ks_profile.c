/* bench/experiments/ks_profile.c - a minimal driver for profiling one hepa_mul_relin under Nsight
 * Compute: issue 6's ring (N = 2^logn, Q = one 60-bit prime + L - 1 40-bit primes, P = K 60-bit
 * primes, digit size = K, as hepa-bench --ks), a fresh relinearization key, three warm-up calls,
 * then one call between cudaProfilerStart and cudaProfilerStop, so `--profile-from-start off`
 * sees exactly one multiply + relinearize.
 *
 *   cc -O2 -I include -I/usr/local/cuda/include -o ksprof bench/experiments/ks_profile.c \
 *      -L build-gpu -lhepa -lcudart -L/usr/local/cuda/lib64 -Wl,-rpath,build-gpu
 *   ncu --profile-from-start off --metrics gpu__time_duration.sum,dram__bytes_read.sum,... \
 *      --csv ./ksprof 16 33 3
 *
 * With a fourth argument `rescale` the profiled call is one hepa_poly_rescale_pair of a
 * ciphertext in the NTT domain instead (the key is still made, so the ring is the same); with
 * `ntt`, an inverse and a forward NTT of two L-limb polynomials (the plain passes, to compare).
 *
 * KS_WARM=n sets the number of warm-up calls (default 3). Built against a library patched with
 * ks_timeline.patch, every call prints its cudaEvent timeline (see that file).
 *
 * Results: bench/results/2026-11-23-h100-ks-kernels-9715d8f.md,
 * bench/results/2026-12-06-h100-ks-timeline-7c3fac1.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_profiler_api.h>

#include "hepa/rns.h"

#include "exp_check.h" /* HK, exp_ks_setup */

/* the operation profiled (mode 0: multiply + relinearize, 1: rescale, 2: the plain NTTs), the
 * same for the warm-ups */
static void step(int mode, hepa_ks *ks, const hepa_ksk *key, hepa_poly **p, hepa_poly **o) {
    if (mode == 2) {
        for (int i = 0; i < 2; ++i)
            HK(hepa_poly_from_ntt(p[i]));
        for (int i = 0; i < 2; ++i)
            HK(hepa_poly_to_ntt(p[i]));
    } else {
        HK(mode ? hepa_poly_rescale_pair(o[0], o[1], p[0], p[1])
                : hepa_mul_relin(ks, p[4], p[5], p[0], p[1], p[2], p[3], key));
    }
}

int main(int argc, char **argv) {
    const int rescale = argc == 5 && !strcmp(argv[4], "rescale"),
              ntt = argc == 5 && !strcmp(argv[4], "ntt");
    if (argc != 4 && !rescale && !ntt) {
        fprintf(stderr, "usage: %s LOG2_N L K [rescale|ntt]  (e.g. 16 33 3)\n", argv[0]);
        return 2;
    }
    const int mode = ntt ? 2 : rescale;
    const size_t logn = strtoul(argv[1], NULL, 10), L = strtoul(argv[2], NULL, 10),
                 K = strtoul(argv[3], NULL, 10);
    if (logn < 10 || logn > 17 || L < 2 || L > 64 || K < 1 || K > 8) {
        fprintf(stderr, "LOG2_N in [10, 17], L in [2, 64], K in [1, 8]\n");
        return 2;
    }
    exp_ks e;
    exp_ks_setup(&e, logn, L, K);
    hepa_ring *const r = e.r;
    hepa_ks *const ks = e.ks;
    const hepa_ksk *const key = e.key;
    hepa_poly **p = e.p;
    hepa_poly *o[2];
    for (int i = 0; i < 2; ++i)
        HK(hepa_poly_create(&o[i], r, L - 1));
    /* warm-ups: 3, or KS_WARM (ks_timeline.patch prints a line per call) */
    const char *nw_env = getenv("KS_WARM");
    const int nw = nw_env ? atoi(nw_env) : 3;
    for (int w = 0; w < nw; ++w)
        step(mode, ks, key, p, o);
    HK(hepa_ring_sync(r));
    cudaProfilerStart();
    step(mode, ks, key, p, o);
    HK(hepa_ring_sync(r));
    cudaProfilerStop();
    hepa_poly_destroy(o[0]), hepa_poly_destroy(o[1]);
    exp_ks_free(&e);
    return 0;
}
