/* bench/experiments/exp_check.h — the experiment drivers' check of a hepa call: print the call
 * and its status, exit 1. (hepa-bench has its own, with the run's context: bench/bench_gpu.c.) */
#ifndef HEPA_BENCH_EXPERIMENTS_EXP_CHECK_H
#define HEPA_BENCH_EXPERIMENTS_EXP_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "hepa/hepa.h"
#include "hepa/keyswitch.h"
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

#ifdef CUDART_VERSION /* (cuda_runtime.h included before this header) */
/* The same for a CUDA runtime call. */
#define CK(x)                                                                                      \
    do {                                                                                           \
        const cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#endif

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

/* The key-switch drivers' set-up (ks_profile.c, ks_trace.c): issue 6's ring as in hepa-bench
 * --ks (N = 2^logn, Q = one 60-bit prime + L - 1 40-bit primes, P = K 60-bit primes, digit
 * size K; logn <= 17, L + K <= 72, K <= 8) on the CUDA backend, its key-switching context, a
 * relinearization key and six L-limb polynomials of uniform words in the NTT domain (fixed
 * seed). exp_ks_free releases it all. */
typedef struct {
    hepa_ring *r;
    hepa_ks *ks;
    hepa_ksk *key;
    hepa_poly *s, *s2, *p[6];
} exp_ks;
static inline void exp_ks_setup(exp_ks *e, size_t logn, size_t L, size_t K) {
    const size_t n = (size_t)1 << logn, M = L + K;
    uint64_t q[72], big[9];
    HK(hepa_primes_ntt(big, K + 1, 60, n));
    HK(hepa_primes_ntt(q + 1, L - 1, 40, n));
    q[0] = big[0];
    for (size_t k = 0; k < K; ++k)
        q[L + k] = big[1 + k];
    HK(hepa_ring_create(&e->r, n, q, M, HEPA_BACKEND_CUDA));
    HK(hepa_ks_create(&e->ks, e->r, K, 0));
    uint8_t seed[32] = {3};
    hepa_rng *g;
    HK(hepa_rng_create(&g, seed));
    HK(hepa_poly_create(&e->s, e->r, M));
    HK(hepa_poly_create(&e->s2, e->r, M));
    HK(hepa_sample_ternary(g, e->s));
    HK(hepa_poly_to_ntt(e->s));
    HK(hepa_poly_mul(e->s2, e->s, e->s));
    HK(hepa_ksk_create(&e->key, e->ks, e->s2, e->s, g));
    for (int i = 0; i < 6; ++i) {
        HK(hepa_poly_create(&e->p[i], e->r, L));
        HK(hepa_sample_uniform(g, e->p[i], HEPA_DOMAIN_NTT));
    }
    hepa_rng_destroy(g);
}
static inline void exp_ks_free(exp_ks *e) {
    for (int i = 0; i < 6; ++i)
        hepa_poly_destroy(e->p[i]);
    hepa_poly_destroy(e->s), hepa_poly_destroy(e->s2);
    hepa_ksk_destroy(e->key);
    hepa_ks_destroy(e->ks);
    hepa_ring_destroy(e->r);
}

#endif
