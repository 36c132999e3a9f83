/* tests/test_util.h — helpers shared by the hepa Criterion tests.
 *
 * Randomness: every test draws its inputs from its own generator, seeded from one global seed
 * mixed with the test's suite/name, so a test's inputs do not depend on which other tests ran.
 * The global seed comes from HEPA_TEST_SEED (decimal or 0x-hex) or, when unset, from
 * getrandom(); the test runner prints it on stderr before the first test
 * ("hepa tests: HEPA_TEST_SEED=..."), and every failure message repeats it. To reproduce a
 * failure: HEPA_TEST_SEED=<seed> ./test_xxx --filter 'suite/name'.
 *
 * Size: HEPA_TEST_QUICK=1 in the environment (set it for valgrind runs) shrinks the large cases
 * (n = 2^17, 64 limbs, long random sweeps); test_quick() reports it.
 *
 * Ground truth is computed here independently of the library: unsigned __int128 for word
 * arithmetic, GMP for primality, CRT and products over Z. None of these helpers calls hepa. */
#ifndef HEPA_TEST_UTIL_H
#define HEPA_TEST_UTIL_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <gmp.h>
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "hepa/status.h"

typedef unsigned __int128 u128;

/* ---- seeding and random numbers ----------------------------------------------------------- */

typedef struct test_rng {
    uint64_t s[4]; /* xoshiro256** state */
} test_rng;

/* The global seed of this run (see above). */
uint64_t test_seed(void);
/* 1 when HEPA_TEST_QUICK is set to a non-empty value other than "0". */
int test_quick(void);
/* Seeds r from the global seed and the running test's suite/name; logs both (--verbose). */
void test_rng_init(test_rng *r);
/* Seeds r from the global seed and an explicit label (for helpers outside a test body). */
void test_rng_init_label(test_rng *r, const char *label);
uint64_t test_rand64(test_rng *r);
/* Uniform in [0, bound), bound >= 1. */
uint64_t test_rand_below(test_rng *r, uint64_t bound);
/* Uniform in [lo, hi], lo <= hi. */
uint64_t test_rand_range(test_rng *r, uint64_t lo, uint64_t hi);
/* Uniform double in [-1, 1), 52 random bits. */
double test_rand_unit(test_rng *r);
/* IEEE binary16 <-> float, round to nearest even (overflow to infinity, subnormals kept), for
 * the FP16 DFT tests; C has no portable half type. */
uint16_t test_f32_to_f16(float f);
/* n initialised mpz_t (asserts on allocation failure), and their release. */
mpz_t *test_mpz_array(size_t n);
void test_mpz_array_free(mpz_t *z, size_t n);
float test_f16_to_f32(uint16_t h);
/* A "boundary-biased" value in [0, q): 0, 1, 2, q-1, q-2, q/2 or uniform, chosen at random.
 * Random inputs rarely hit the edges; this makes every sweep hit them often. */
uint64_t test_rand_residue_edgy(test_rng *r, uint64_t q);
/* a[0..n) uniform in [0, q). */
void test_fill_residues(test_rng *r, uint64_t *a, size_t n, uint64_t q);
/* L limbs of n residues, limb-major: a[i*n + j] uniform in [0, moduli[i]). */
void test_fill_limbs(test_rng *r, uint64_t *a, size_t n, const uint64_t *moduli, size_t L);

/* ---- small array helpers ------------------------------------------------------------------ */

/* Index of the first difference of a and b over count words, or SIZE_MAX when equal. */
size_t test_first_diff(const uint64_t *a, const uint64_t *b, size_t count);
/* Fills count words with a recognisable poison pattern (never a valid small residue). */
void test_poison(uint64_t *a, size_t count);
/* Allocates count words (aborts the test on failure); free with free(). */
uint64_t *test_alloc(size_t count);

/* ---- word arithmetic ground truth (unsigned __int128) ------------------------------------ */

static inline uint64_t test_mulmod(uint64_t a, uint64_t b, uint64_t q) {
    return (uint64_t)(((u128)a * b) % q);
}
static inline uint64_t test_addmod(uint64_t a, uint64_t b, uint64_t q) {
    return (uint64_t)(((u128)a + b) % q);
}
static inline uint64_t test_submod(uint64_t a, uint64_t b, uint64_t q) {
    return (uint64_t)(((u128)(a % q) + q - (b % q)) % q);
}
uint64_t test_powmod(uint64_t a, uint64_t e, uint64_t q);
/* Inverse mod q by GMP (q need not be prime); 0 if none. */
uint64_t test_invmod(uint64_t a, uint64_t q);
/* Reverse the low `logn` bits of k. */
size_t test_bitrev(size_t k, unsigned logn);
unsigned test_log2(size_t n);

/* ---- primes (GMP) ------------------------------------------------------------------------- */

/* 1 if x is (probably, 50 rounds) prime according to GMP. */
int test_gmp_is_prime(uint64_t x);
/* The largest prime p < limit with p ≡ 1 (mod m), scanning down in steps of m (limit <= 2^64-1,
 * m >= 2); 0 if none is >= floor. */
uint64_t test_prev_prime_1mod(uint64_t limit, uint64_t m, uint64_t floor);
/* The smallest prime p >= start with p ≡ 1 (mod m); 0 if none below 2^64. */
uint64_t test_next_prime_1mod(uint64_t start, uint64_t m);
/* The `count` largest primes with exactly `bits` bits that are ≡ 1 (mod m), by scanning down
 * with GMP; returns how many were found (fewer when the range runs out). */
size_t test_primes_1mod_desc(uint64_t *out, size_t count, unsigned bits, uint64_t m);
/* Moduli of a key-switching ring of degree n (the shape of issue 6's parameter sets): q[0] of 60
 * bits, q[1 .. L) of `bits` bits, then K special primes q[L .. L+K) of 60 bits, all distinct and
 * ≡ 1 (mod 2n). */
void test_ks_moduli(uint64_t *q, size_t n, size_t L, size_t K, unsigned bits);

/* ---- negacyclic products ground truth ------------------------------------------------------ */

/* out = a*b mod (x^n + 1, q), schoolbook with __int128; out must not alias a or b. */
void test_negacyclic_schoolbook(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n,
                                uint64_t q);
/* Coefficient k of a*b mod (x^n + 1, q), O(n) (for spot checks at large n). */
uint64_t test_negacyclic_coeff(const uint64_t *a, const uint64_t *b, size_t n, uint64_t q,
                               size_t k);

/* ---- CRT and products over Z (GMP), independent of hepa_crt ------------------------------- */

typedef struct test_crt {
    size_t L;
    uint64_t *moduli;
    mpz_t Q;
    mpz_t *basis; /* basis[i] = (Q/q_i) * ((Q/q_i)^-1 mod q_i): ≡ 1 mod q_i, ≡ 0 mod q_j (j != i) */
} test_crt;

void test_crt_init(test_crt *c, const uint64_t *moduli, size_t L);
void test_crt_clear(test_crt *c);
/* out = the x in [0, Q) with x ≡ limbs[i*stride] (mod q_i) for i < L. */
void test_crt_compose(const test_crt *c, mpz_t out, const uint64_t *limbs, size_t stride);

/* out[k] = (sum over i+j ≡ k mod n of ±a[i]b[j]) mod Q over Z, the sign - where i+j >= n;
 * result in [0, Q). out must not alias a or b; all initialised. */
void test_negacyclic_mpz(mpz_t *out, const mpz_t *a, const mpz_t *b, size_t n, const mpz_t Q);

/* The whole independent pipeline: compose a and b (L limbs of n residues) into integers mod Q,
 * multiply schoolbook over Z with x^n = -1, reduce mod Q, and write the residues per limb. */
void test_negacyclic_gmp(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n,
                         const uint64_t *moduli, size_t L);

/* ---- assertions ---------------------------------------------------------------------------- */

/* Asserts that `expr` (a hepa call) returns `want`; the message names the call, both statuses,
 * the library's last error message and the seed. */
#define T_STATUS(expr, want)                                                                      \
    do {                                                                                          \
        hepa_status t_got_ = (expr);                                                              \
        hepa_status t_want_ = (want);                                                             \
        cr_assert_eq(t_got_, t_want_,                                                             \
                     "%s:%d: %s returned %d, expected %d (last error: %s; seed %" PRIu64 ")",     \
                     __FILE__, __LINE__, #expr, (int)t_got_, (int)t_want_,                       \
                     hepa_last_error_message(), test_seed());                                     \
    } while (0)
#define T_OK(expr) T_STATUS(expr, HEPA_OK)

/* Cheap check for hot loops: formats its message (printf-style arguments) only on failure, and
 * appends the seed. */
#define T_CHECK(cond, ...)                                                                        \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            char t_ctx_[512];                                                                     \
            snprintf(t_ctx_, sizeof t_ctx_, __VA_ARGS__);                                         \
            cr_assert_fail("%s:%d: check `%s` failed: %s (seed %" PRIu64 ")", __FILE__, __LINE__, \
                           #cond, t_ctx_, test_seed());                                           \
        }                                                                                         \
    } while (0)

/* Asserts two arrays of count words are equal; on failure reports the first differing index,
 * both values, the caller's context (printf-style) and the seed. */
#define T_ARRAY_EQ(got, want, count, ...)                                                         \
    do {                                                                                          \
        const uint64_t *t_g_ = (got), *t_w_ = (want);                                             \
        size_t t_i_ = test_first_diff(t_g_, t_w_, (count));                                       \
        if (t_i_ != SIZE_MAX) {                                                                   \
            char t_ctx_[512];                                                                     \
            snprintf(t_ctx_, sizeof t_ctx_, __VA_ARGS__);                                         \
            cr_assert_fail("%s:%d: %s: %s != %s first at index %zu: got %" PRIu64                 \
                           ", want %" PRIu64 " (seed %" PRIu64 ")",                               \
                           __FILE__, __LINE__, t_ctx_, #got, #want, t_i_, t_g_[t_i_], t_w_[t_i_], \
                           test_seed());                                                          \
        }                                                                                         \
    } while (0)

#endif /* HEPA_TEST_UTIL_H */
