/* bench/experiments/exp_check.h — the experiment drivers' check of a hepa call: print the call
 * and its status, exit 1. (hepa-bench has its own, with the run's context: bench/bench_gpu.c.) */
#ifndef HEPA_BENCH_EXPERIMENTS_EXP_CHECK_H
#define HEPA_BENCH_EXPERIMENTS_EXP_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "hepa/hepa.h"
#include "hepa/primes.h"
#include "hepa/sample.h"

#define HK(x)                                                                                      \
    do {                                                                                           \
        const hepa_status s_ = (x);                                                                \
        if (s_ != HEPA_OK) {                                                                       \
            fprintf(stderr, "%s: %s\n", #x, hepa_status_string(s_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The NTT drivers' set-up (ntt_profile.c, ntt_b2b.c): from the arguments LOG2_N L BITS, a CUDA
 * ring of L primes of BITS bits and one polynomial of uniform words in the coefficient domain
 * (fixed seed). Returns 0, or 2 after a usage message. */
static inline int exp_ntt_setup(int argc, char **argv, hepa_ring **r, hepa_poly **p, size_t *L) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s LOG2_N L BITS  (e.g. 16 34 40)\n", argv[0]);
        return 2;
    }
    const size_t logn = strtoul(argv[1], NULL, 10);
    *L = strtoul(argv[2], NULL, 10);
    const unsigned bits = (unsigned)strtoul(argv[3], NULL, 10);
    if (logn < 10 || logn > 17 || *L < 1 || *L > 64 || bits < 20 || bits > 62) {
        fprintf(stderr, "LOG2_N in [10, 17], L in [1, 64], BITS in [20, 62]\n");
        return 2;
    }
    const size_t n = (size_t)1 << logn;
    uint64_t q[64];
    HK(hepa_primes_ntt(q, *L, bits, n));
    HK(hepa_ring_create(r, n, q, *L, HEPA_BACKEND_CUDA));
    uint8_t seed[32] = {5};
    hepa_rng *g;
    HK(hepa_rng_create(&g, seed));
    HK(hepa_poly_create(p, *r, *L));
    HK(hepa_sample_uniform(g, *p, HEPA_DOMAIN_COEFF));
    hepa_rng_destroy(g);
    return 0;
}

#endif
