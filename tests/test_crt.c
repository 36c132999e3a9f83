/* tests/test_crt.c — CRT between RNS limbs and GMP integers (hepa/crt.h), against a CRT written
 * here and against the defining congruences. */
#include <string.h>

#include "test_util.h"
#include "hepa/crt.h"
#include "hepa/ring.h"

typedef struct {
    size_t n, L;
    uint64_t q[8];
    hepa_ring *ring;
} fixture;

static void fixture_init(fixture *f, size_t n, size_t L, unsigned bits) {
    f->n = n;
    f->L = L;
    cr_assert_eq(test_primes_1mod_desc(f->q, L, bits, 2 * (uint64_t)n), L);
    f->ring = NULL;
    T_OK(hepa_ring_create(&f->ring, n, f->q, L, HEPA_BACKEND_CPU));
}


/* The fixtures: 62-bit primes (Q up to ~500 bits) and 30-bit primes, both with 8 limbs. */
static const struct {
    size_t n;
    unsigned bits;
} configs[] = {{16, 62}, {64, 30}};

Test(crt, modulus_is_product) {
    for (size_t c = 0; c < 2; ++c) {
        fixture f;
        fixture_init(&f, configs[c].n, 8, configs[c].bits);
        mpz_t Q, want;
        mpz_init(Q);
        mpz_init_set_ui(want, 1);
        for (size_t level = 1; level <= f.L; ++level) {
            mpz_mul_ui(want, want, f.q[level - 1]);
            T_OK(hepa_crt_modulus(f.ring, level, Q));
            cr_assert(mpz_cmp(Q, want) == 0, "Q at level %zu is not q_0...q_%zu", level,
                      level - 1);
        }
        mpz_set_ui(Q, 12345);
        T_STATUS(hepa_crt_modulus(f.ring, 0, Q), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_crt_modulus(f.ring, f.L + 1, Q), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_crt_modulus(NULL, 1, Q), HEPA_ERR_INVALID_ARGUMENT);
        cr_assert(mpz_cmp_ui(Q, 12345) == 0, "Q written by a failed call");
        mpz_clear(Q);
        mpz_clear(want);
        hepa_ring_destroy(f.ring);
    }
}

/* A NULL output is refused like everywhere else in the API (hepa_crt_compose checks its out). */
Test(crt, modulus_null_output) {
    fixture f;
    fixture_init(&f, 16, 2, 62);
    T_STATUS(hepa_crt_modulus(f.ring, 1, NULL), HEPA_ERR_INVALID_ARGUMENT);
    hepa_ring_destroy(f.ring);
}

/* compose(uncentered) equals our CRT; decompose(compose(x)) = x; centered is the representative
 * in (-Q/2, Q/2] of the same class. */
Test(crt, compose_decompose_round_trip) {
    test_rng r;
    test_rng_init(&r);
    for (size_t c = 0; c < 2; ++c) {
        fixture f;
        fixture_init(&f, configs[c].n, 8, configs[c].bits);
        const size_t n = f.n, N = f.L * n;
        uint64_t *limbs = test_alloc(N), *back = test_alloc(N);
        mpz_t *x = test_mpz_array(n), *xc = test_mpz_array(n);
        mpz_t Q, want, twice, negQ;
        mpz_init(Q);
        mpz_init(want);
        mpz_init(twice);
        mpz_init(negQ);
        for (size_t level = 1; level <= f.L; ++level) {
            test_crt ref;
            test_crt_init(&ref, f.q, level);
            T_OK(hepa_crt_modulus(f.ring, level, Q));
            mpz_neg(negQ, Q);
            for (size_t i = 0; i < level; ++i)
                for (size_t j = 0; j < n; ++j)
                    limbs[i * n + j] = test_rand_residue_edgy(&r, f.q[i]);
            T_OK(hepa_crt_compose(f.ring, level, x, limbs, 0));
            T_OK(hepa_crt_compose(f.ring, level, xc, limbs, 1));
            for (size_t j = 0; j < n; ++j) {
                test_crt_compose(&ref, want, limbs + j, n);
                T_CHECK(mpz_cmp(x[j], want) == 0, "compose level %zu coeff %zu != reference CRT",
                        level, j);
                T_CHECK(mpz_sgn(x[j]) >= 0 && mpz_cmp(x[j], Q) < 0, "compose out of [0, Q)");
                /* centered: 2x in (-Q, Q], and x ≡ uncentered mod Q */
                mpz_mul_2exp(twice, xc[j], 1);
                T_CHECK(mpz_cmp(twice, negQ) > 0 && mpz_cmp(twice, Q) <= 0,
                        "centered compose out of (-Q/2, Q/2], level %zu coeff %zu", level, j);
                mpz_sub(twice, xc[j], x[j]);
                T_CHECK(mpz_divisible_p(twice, Q), "centered not congruent to uncentered");
                for (size_t i = 0; i < level; ++i)
                    T_CHECK(mpz_fdiv_ui(xc[j], f.q[i]) == limbs[i * n + j],
                            "centered value not ≡ limb %zu", i);
            }
            test_poison(back, N);
            T_OK(hepa_crt_decompose(f.ring, level, back, (const mpz_t *)x));
            T_ARRAY_EQ(back, limbs, level * n, "decompose(compose(x)), level %zu", level);
            test_poison(back, N);
            T_OK(hepa_crt_decompose(f.ring, level, back, (const mpz_t *)xc));
            T_ARRAY_EQ(back, limbs, level * n, "decompose(centered compose(x)), level %zu", level);
            test_crt_clear(&ref);
        }
        mpz_clear(Q);
        mpz_clear(want);
        mpz_clear(twice);
        mpz_clear(negQ);
        test_mpz_array_free(x, n);
        test_mpz_array_free(xc, n);
        free(limbs);
        free(back);
        hepa_ring_destroy(f.ring);
    }
}

/* decompose of any integer: negatives, 0, ±1, Q-1, Q, multiples of Q, values far above Q. */
Test(crt, decompose_any_integer) {
    test_rng r;
    test_rng_init(&r);
    for (size_t c = 0; c < 2; ++c) {
        fixture f;
        fixture_init(&f, configs[c].n, 8, configs[c].bits);
        const size_t n = f.n, N = f.L * n;
        uint64_t *limbs = test_alloc(N);
        mpz_t *in = test_mpz_array(n);
        mpz_t Q, t;
        mpz_init(Q);
        mpz_init(t);
        gmp_randstate_t gr;
        gmp_randinit_default(gr);
        gmp_randseed_ui(gr, test_rand64(&r));
        for (size_t level = 1; level <= f.L; ++level) {
            T_OK(hepa_crt_modulus(f.ring, level, Q));
            for (size_t j = 0; j < n; ++j) {
                switch (j % 16) {
                case 0: mpz_set_ui(in[j], 0); break;
                case 1: mpz_set_si(in[j], 1); break;
                case 2: mpz_set_si(in[j], -1); break;
                case 3: mpz_sub_ui(in[j], Q, 1); break;                 /* Q - 1 */
                case 4: mpz_set(in[j], Q); break;                        /* Q */
                case 5: mpz_neg(in[j], Q); break;                        /* -Q */
                case 6: mpz_add_ui(in[j], Q, 1); break;                  /* Q + 1 */
                case 7: mpz_mul(in[j], Q, Q); mpz_neg(in[j], in[j]); break; /* -Q^2 */
                case 8: mpz_urandomb(in[j], gr, 1000); break;            /* far above Q */
                case 9: mpz_urandomb(in[j], gr, 1000); mpz_neg(in[j], in[j]); break;
                case 10: mpz_set_si(in[j], INT64_MIN); break;
                case 11: mpz_set_ui(in[j], UINT64_MAX); break;
                case 12: mpz_fdiv_q_2exp(in[j], Q, 1); mpz_neg(in[j], in[j]); break; /* -(Q-1)/2 */
                default:
                    mpz_urandomm(in[j], gr, Q);
                    if (j & 1) mpz_neg(in[j], in[j]);
                }
            }
            test_poison(limbs, N);
            T_OK(hepa_crt_decompose(f.ring, level, limbs, (const mpz_t *)in));
            for (size_t i = 0; i < level; ++i)
                for (size_t j = 0; j < n; ++j) {
                    uint64_t want = mpz_fdiv_ui(in[j], f.q[i]); /* floor: in [0, q) */
                    T_CHECK(limbs[i * n + j] == want,
                            "decompose level %zu limb %zu coeff %zu (case %zu): %" PRIu64
                            " != %" PRIu64,
                            level, i, j, j % 16, limbs[i * n + j], want);
                }
            /* words past the level are not written */
            for (size_t k = level * n; k < N; ++k)
                T_CHECK(limbs[k] == (UINT64_C(0xDEADBEEF00000000) | k),
                        "decompose wrote past level %zu at %zu", level, k);
        }
        gmp_randclear(gr);
        mpz_clear(Q);
        mpz_clear(t);
        test_mpz_array_free(in, n);
        free(limbs);
        hepa_ring_destroy(f.ring);
    }
}

/* All limbs q_i - 1 are the class of -1: Q - 1 uncentered, -1 centered. All zero: 0. */
Test(crt, boundary_limbs) {
    for (size_t c = 0; c < 2; ++c) {
        fixture f;
        fixture_init(&f, configs[c].n, 8, configs[c].bits);
        const size_t n = f.n, N = f.L * n;
        uint64_t *limbs = test_alloc(N);
        mpz_t *x = test_mpz_array(n);
        mpz_t Q;
        mpz_init(Q);
        for (size_t level = 1; level <= f.L; ++level) {
            T_OK(hepa_crt_modulus(f.ring, level, Q));
            for (size_t i = 0; i < level; ++i)
                for (size_t j = 0; j < n; ++j) limbs[i * n + j] = f.q[i] - 1;
            T_OK(hepa_crt_compose(f.ring, level, x, limbs, 0));
            mpz_sub_ui(Q, Q, 1);
            for (size_t j = 0; j < n; ++j)
                T_CHECK(mpz_cmp(x[j], Q) == 0, "all q_i-1 must compose to Q-1 (level %zu)", level);
            T_OK(hepa_crt_compose(f.ring, level, x, limbs, 1));
            for (size_t j = 0; j < n; ++j)
                T_CHECK(mpz_cmp_si(x[j], -1) == 0, "all q_i-1 centered must be -1 (level %zu)",
                        level);
            memset(limbs, 0, N * sizeof *limbs);
            for (int centered = 0; centered < 2; ++centered) {
                T_OK(hepa_crt_compose(f.ring, level, x, limbs, centered));
                for (size_t j = 0; j < n; ++j)
                    T_CHECK(mpz_sgn(x[j]) == 0, "zero limbs must compose to 0");
            }
            for (size_t i = 0; i < level; ++i) limbs[i * n] = 1;
            T_OK(hepa_crt_compose(f.ring, level, x, limbs, 1));
            T_CHECK(mpz_cmp_ui(x[0], 1) == 0, "ones must compose to 1");
        }
        mpz_clear(Q);
        test_mpz_array_free(x, n);
        free(limbs);
        hepa_ring_destroy(f.ring);
    }
}

/* The two ends of the centered range: Q is odd, so (-Q/2, Q/2] = [-(Q-1)/2, (Q-1)/2]. The
 * residues of (Q-1)/2 compose to +(Q-1)/2 and those of (Q+1)/2 to -(Q-1)/2. */
Test(crt, centered_range_ends) {
    for (size_t c = 0; c < 2; ++c) {
        fixture f;
        fixture_init(&f, configs[c].n, 8, configs[c].bits);
        const size_t n = f.n, N = f.L * n;
        uint64_t *limbs = test_alloc(N);
        mpz_t *x = test_mpz_array(n);
        mpz_t Q, top, v;
        mpz_inits(Q, top, v, NULL);
        for (size_t level = 1; level <= f.L; ++level) {
            T_OK(hepa_crt_modulus(f.ring, level, Q));
            mpz_sub_ui(top, Q, 1);
            mpz_fdiv_q_2exp(top, top, 1); /* (Q-1)/2 */
            for (size_t j = 0; j < n; ++j) {
                mpz_add_ui(v, top, j & 1); /* even j: (Q-1)/2, odd j: (Q+1)/2 */
                for (size_t i = 0; i < level; ++i) limbs[i * n + j] = mpz_fdiv_ui(v, f.q[i]);
            }
            T_OK(hepa_crt_compose(f.ring, level, x, limbs, 1));
            for (size_t j = 0; j < n; ++j) {
                if (j & 1)
                    mpz_neg(v, top);
                else
                    mpz_set(v, top);
                T_CHECK(mpz_cmp(x[j], v) == 0, "centered end %s(Q-1)/2 at level %zu",
                        (j & 1) ? "-" : "+", level);
            }
            T_OK(hepa_crt_compose(f.ring, level, x, limbs, 0));
            T_CHECK(mpz_cmp(x[0], top) == 0 && mpz_cmp(x[1], top) > 0,
                    "uncentered (Q-1)/2 and (Q+1)/2 at level %zu", level);
        }
        mpz_clears(Q, top, v, NULL);
        test_mpz_array_free(x, n);
        free(limbs);
        hepa_ring_destroy(f.ring);
    }
}

Test(crt, bad_arguments) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 16, 4, 62);
    const size_t n = f.n, N = f.L * n;
    uint64_t *limbs = test_alloc(N), *keep = test_alloc(N);
    mpz_t *x = test_mpz_array(n);
    test_fill_limbs(&r, limbs, n, f.q, f.L);
    for (size_t j = 0; j < n; ++j) mpz_set_ui(x[j], 777 + j);

    T_STATUS(hepa_crt_compose(NULL, 1, x, limbs, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_crt_compose(f.ring, 1, NULL, limbs, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_crt_compose(f.ring, 1, x, NULL, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_crt_compose(f.ring, 0, x, limbs, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_crt_compose(f.ring, f.L + 1, x, limbs, 1), HEPA_ERR_INVALID_ARGUMENT);
    /* a residue >= its modulus, in the last live limb (q_0 - 1 is too big for q_1..) */
    for (size_t level = 1; level <= f.L; ++level) {
        const size_t at = (level - 1) * n + test_rand_below(&r, n);
        const uint64_t bad = level == 1 ? f.q[0] : f.q[0] - 1;
        uint64_t saved = limbs[at];
        limbs[at] = bad;
        T_CHECK(hepa_crt_compose(f.ring, level, x, limbs, (int)(level & 1)) ==
                    HEPA_ERR_INVALID_ARGUMENT,
                "compose accepted %" PRIu64 " in limb %zu", bad, level - 1);
        limbs[at] = saved;
    }
    for (size_t j = 0; j < n; ++j)
        T_CHECK(mpz_cmp_ui(x[j], 777 + j) == 0, "compose wrote out[%zu] on failure", j);

    /* decompose */
    test_poison(limbs, N);
    memcpy(keep, limbs, N * sizeof *limbs);
    T_STATUS(hepa_crt_decompose(NULL, 1, limbs, (const mpz_t *)x), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_crt_decompose(f.ring, 1, NULL, (const mpz_t *)x), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_crt_decompose(f.ring, 1, limbs, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_crt_decompose(f.ring, 0, limbs, (const mpz_t *)x), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_crt_decompose(f.ring, f.L + 1, limbs, (const mpz_t *)x),
             HEPA_ERR_INVALID_ARGUMENT);
    T_ARRAY_EQ(limbs, keep, N, "decompose wrote limbs on failure");

    test_mpz_array_free(x, n);
    free(limbs);
    free(keep);
    hepa_ring_destroy(f.ring);
}
