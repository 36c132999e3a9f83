/* tests/test_ring.c — ring creation and validation, and hepa_negacyclic_mul.
 *
 * The product is checked three independent ways: against a GMP schoolbook product over Z of the
 * CRT-composed inputs (our own CRT, not hepa_crt) for n <= 1024; against per-limb reference NTTs
 * with a pointwise __int128 product for larger n; and, at every size, against closed forms and
 * O(n) single-coefficient sums that involve no transform at all. */
#include <pthread.h>
#include <string.h>

#include "test_util.h"
#include "hepa/ntt.h"
#include "hepa/primes.h"
#include "hepa/ring.h"

#define POISON_RING ((hepa_ring *)(uintptr_t)0x1234)

static hepa_ring *make_ring(size_t n, const uint64_t *moduli, size_t L) {
    hepa_ring *ring = POISON_RING;
    hepa_status st = hepa_ring_create(&ring, n, moduli, L, HEPA_BACKEND_CPU);
    cr_assert_eq(st, HEPA_OK, "ring_create(n=%zu, L=%zu) -> %d (%s) (seed %" PRIu64 ")", n, L,
                 (int)st, hepa_status_string(st), test_seed());
    cr_assert(ring != NULL && ring != POISON_RING, "ring_create OK but no ring");
    return ring;
}

/* L primes of `bits` bits ≡ 1 mod 2n, largest first, found with GMP. */
static void gmp_moduli(uint64_t *q, size_t L, unsigned bits, size_t n) {
    size_t got = test_primes_1mod_desc(q, L, bits, 2 * (uint64_t)n);
    cr_assert_eq(got, L, "only %zu %u-bit primes = 1 mod %zu", got, bits, 2 * n);
}

/* ---- creation ----------------------------------------------------------------------------- */

Test(ring, create_valid_and_accessors) {
    /* 64 limbs at n = 2^17 (the GPU suite's largest size); the largest n with few limbs: its
     * 64-limb tables alone would take 2 GiB */
    const size_t big_n = test_quick() ? 4096 : (size_t)1 << 17;
    const size_t max_n = test_quick() ? 4096 : HEPA_RING_MAX_N;
    const struct {
        size_t n, L;
        unsigned bits;
    } cases[] = {{16, 1, 62},  {16, 64, 62},  {big_n, 1, 62},         {big_n, 64, 62},
                 {max_n, 3, 62}, {1024, 8, 30}, {HEPA_RING_MIN_N, 2, 20}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const size_t n = cases[c].n, L = cases[c].L;
        uint64_t moduli[64], saved[64];
        T_OK(hepa_primes_ntt(moduli, L, cases[c].bits, n));
        memcpy(saved, moduli, sizeof moduli);
        hepa_ring *ring = make_ring(n, moduli, L);
        /* the ring keeps its own copy of the moduli */
        for (size_t i = 0; i < L; ++i) moduli[i] = 0;
        cr_assert_eq(hepa_ring_n(ring), n);
        cr_assert_eq(hepa_ring_num_moduli(ring), L);
        for (size_t i = 0; i < L; ++i)
            cr_assert_eq(hepa_ring_modulus(ring, i), saved[i],
                         "modulus %zu: %" PRIu64 " != %" PRIu64 " (n=%zu L=%zu)", i,
                         hepa_ring_modulus(ring, i), saved[i], n, L);
        cr_assert_eq(hepa_ring_backend(ring), HEPA_BACKEND_CPU);
        hepa_ring_destroy(ring);
    }
}

/* Moduli in any order and of mixed sizes are fine (distinct primes ≡ 1 mod 2n is all that is
 * required), including the largest allowed prime. */
Test(ring, create_mixed_moduli) {
    const size_t n = 256;
    uint64_t m[6];
    gmp_moduli(m, 2, 62, n);
    gmp_moduli(m + 2, 2, 30, n);
    gmp_moduli(m + 4, 2, 50, n);
    uint64_t order[6] = {m[2], m[0], m[4], m[1], m[5], m[3]};
    hepa_ring *ring = make_ring(n, order, 6);
    for (size_t i = 0; i < 6; ++i) cr_assert_eq(hepa_ring_modulus(ring, i), order[i]);
    hepa_ring_destroy(ring);
}

static void expect_create_fails(size_t n, const uint64_t *moduli, size_t L, int backend,
                                hepa_status want, const char *why) {
    hepa_ring *ring = POISON_RING;
    hepa_status st = hepa_ring_create(&ring, n, moduli, L, (hepa_backend)backend);
    T_CHECK(st == want, "ring_create (%s): status %d (%s), expected %d", why, (int)st,
            hepa_status_string(st), (int)want);
    T_CHECK(ring == POISON_RING, "ring_create (%s) wrote *out on failure", why);
    if (st == HEPA_OK && ring != POISON_RING) hepa_ring_destroy(ring);
}

Test(ring, create_bad_arguments) {
    const size_t n = 1024;
    uint64_t good[65];
    gmp_moduli(good, 65, 62, n);
    uint64_t m[4];

    T_STATUS(hepa_ring_create(NULL, n, good, 2, HEPA_BACKEND_CPU), HEPA_ERR_INVALID_ARGUMENT);
    expect_create_fails(n, NULL, 2, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "NULL moduli");
    expect_create_fails(n, good, 0, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "0 moduli");
    expect_create_fails(n, good, 65, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "65 moduli");

    /* n out of range or not a power of two, each with moduli that would suit that n */
    uint64_t m8[2], m18[2], m48[2];
    gmp_moduli(m8, 2, 62, 8);
    gmp_moduli(m18, 2, 62, 2 * HEPA_RING_MAX_N);
    m48[0] = test_prev_prime_1mod(UINT64_C(1) << 62, 96, 3);
    m48[1] = test_prev_prime_1mod(m48[0], 96, 3);
    expect_create_fails(8, m8, 2, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "n = 8");
    expect_create_fails(2 * HEPA_RING_MAX_N, m18, 2, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT,
                        "n = 2^21");
    expect_create_fails(48, m48, 2, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "n = 48");
    expect_create_fails(0, m18, 2, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "n = 0");
    expect_create_fails(1, m18, 2, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "n = 1");
    expect_create_fails(n + 1, good, 2, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "n = 1025");

    /* a composite modulus ≡ 1 mod 2n (product of two such primes is one), last in the list so
     * that validation must look at every modulus */
    uint64_t p1 = test_next_prime_1mod(2 * n + 1, 2 * n), p2 = test_next_prime_1mod(p1 + 1, 2 * n);
    m[0] = good[0];
    m[1] = good[1];
    m[2] = p1 * p2;
    cr_assert(m[2] % (2 * n) == 1);
    expect_create_fails(n, m, 3, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "composite modulus");
    m[2] = 1;
    expect_create_fails(n, m, 3, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "modulus 1");
    m[2] = 0;
    expect_create_fails(n, m, 3, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "modulus 0");

    /* a prime ≡ 1 mod 2n at or above 2^62, and the largest 64-bit prime */
    m[2] = test_next_prime_1mod(UINT64_C(1) << 62, 2 * n);
    cr_assert(m[2] != 0);
    expect_create_fails(n, m, 3, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "modulus >= 2^62");
    m[2] = UINT64_MAX - 58;
    expect_create_fails(n, m, 3, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "modulus 2^64-59");

    /* prime but ≢ 1 mod 2n: ≡ 1 mod n only (the classic off-by-two), and a random-ish prime */
    uint64_t half = test_prev_prime_1mod(UINT64_C(1) << 62, n, 3);
    while (half % (2 * n) == 1) half = test_prev_prime_1mod(half, n, 3);
    m[2] = half;
    expect_create_fails(n, m, 3, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT,
                        "modulus = 1 mod n but not mod 2n");
    m[2] = (UINT64_C(1) << 61) - 1;
    expect_create_fails(n, m, 3, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT,
                        "modulus 2^61-1 (not 1 mod 2n)");

    /* duplicates, adjacent and not */
    m[2] = good[0];
    expect_create_fails(n, m, 3, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "q0, q1, q0");
    m[2] = good[1];
    expect_create_fails(n, m, 3, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT, "q0, q1, q1");
    uint64_t dup64[64];
    memcpy(dup64, good, sizeof dup64);
    dup64[63] = dup64[0];
    expect_create_fails(n, dup64, 64, HEPA_BACKEND_CPU, HEPA_ERR_INVALID_ARGUMENT,
                        "duplicate at both ends of 64");

    /* unknown backend */
    expect_create_fails(n, good, 2, 99, HEPA_ERR_INVALID_ARGUMENT, "backend 99");
    expect_create_fails(n, good, 2, -1, HEPA_ERR_INVALID_ARGUMENT, "backend -1");
}

Test(ring, backend_cuda_and_auto) {
    const size_t n = 1024;
    uint64_t m[2];
    gmp_moduli(m, 2, 62, n);
    int have_gpu = hepa_cuda_available();
    cr_assert(have_gpu == 0 || have_gpu == 1, "hepa_cuda_available() = %d", have_gpu);
    cr_log_info("hepa_cuda_available() = %d", have_gpu);

    hepa_ring *ring = POISON_RING;
    hepa_status st = hepa_ring_create(&ring, n, m, 2, HEPA_BACKEND_CUDA);
    if (!have_gpu) {
        cr_assert_eq(st, HEPA_ERR_NO_DEVICE, "CUDA backend without a GPU: status %d (%s)", (int)st,
                     hepa_status_string(st));
        cr_assert_eq(ring, POISON_RING, "*out written on failure");
    } else {
        /* this release: the CUDA ring backend may not be implemented yet */
        cr_assert(st == HEPA_OK || st == HEPA_ERR_UNSUPPORTED, "CUDA backend: status %d (%s)",
                  (int)st, hepa_status_string(st));
        if (st == HEPA_OK) {
            cr_assert_eq(hepa_ring_backend(ring), HEPA_BACKEND_CUDA);
            hepa_ring_destroy(ring);
        } else {
            cr_assert_eq(ring, POISON_RING, "*out written on failure");
        }
    }

    ring = POISON_RING;
    T_OK(hepa_ring_create(&ring, n, m, 2, HEPA_BACKEND_AUTO));
    cr_assert(ring != POISON_RING && ring != NULL);
    hepa_backend b = hepa_ring_backend(ring);
    cr_assert(b == HEPA_BACKEND_CPU || b == HEPA_BACKEND_CUDA, "backend %d (never AUTO)", (int)b);
    if (!have_gpu) cr_assert_eq(b, HEPA_BACKEND_CPU, "AUTO without a GPU must pick the CPU");
    hepa_ring_destroy(ring);
}

Test(ring, destroy_null) { hepa_ring_destroy(NULL); }

/* ---- hepa_negacyclic_mul -------------------------------------------------------------------- */

/* Per-limb reference through the library's reference NTT (tables built separately from the
 * ring's) and a pointwise __int128 product. */
static void ntt_ref_product(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n,
                            const uint64_t *moduli, size_t L) {
    uint64_t *fa = test_alloc(n), *fb = test_alloc(n);
    for (size_t i = 0; i < L; ++i) {
        hepa_ntt_tables *t = NULL;
        T_OK(hepa_ntt_tables_create(&t, n, moduli[i]));
        memcpy(fa, a + i * n, n * sizeof *fa);
        memcpy(fb, b + i * n, n * sizeof *fb);
        T_OK(hepa_ntt_forward_ref(t, fa));
        T_OK(hepa_ntt_forward_ref(t, fb));
        for (size_t j = 0; j < n; ++j) fa[j] = test_mulmod(fa[j], fb[j], moduli[i]);
        T_OK(hepa_ntt_inverse_ref(t, fa));
        memcpy(out + i * n, fa, n * sizeof *fa);
        hepa_ntt_tables_destroy(t);
    }
    free(fa);
    free(fb);
}

/* Transform-free spot checks: coefficients 0, n-1 and a few random ones of every limb. */
static void spot_check(test_rng *r, const uint64_t *got, const uint64_t *a, const uint64_t *b,
                       size_t n, const uint64_t *moduli, size_t L, const char *what) {
    for (size_t i = 0; i < L; ++i)
        for (int t = 0; t < 6; ++t) {
            size_t k = t == 0 ? 0 : t == 1 ? n - 1 : test_rand_below(r, n);
            uint64_t want = test_negacyclic_coeff(a + i * n, b + i * n, n, moduli[i], k);
            T_CHECK(got[i * n + k] == want,
                    "%s: n=%zu L=%zu limb %zu (q=%" PRIu64 ") coeff %zu = %" PRIu64
                    ", want %" PRIu64,
                    what, n, L, i, moduli[i], k, got[i * n + k], want);
        }
}

Test(ring, negacyclic_mul_vs_gmp) {
    test_rng r;
    test_rng_init(&r);
    const size_t ns[] = {16, 32, 64, 256, 1024};
    const size_t Ls[] = {1, 2, 3, 5};
    const unsigned bits[] = {30, 50, 62};
    const size_t max_n = test_quick() ? 64 : 1024;
    for (size_t in = 0; in < 5; ++in)
        for (size_t il = 0; il < 4; ++il)
            for (size_t ib = 0; ib < 3; ++ib) {
                const size_t n = ns[in], L = Ls[il];
                if (n > max_n) continue;
                uint64_t moduli[5];
                gmp_moduli(moduli, L, bits[ib], n);
                hepa_ring *ring = make_ring(n, moduli, L);
                uint64_t *a = test_alloc(L * n), *b = test_alloc(L * n), *out = test_alloc(L * n),
                         *want = test_alloc(L * n);
                test_fill_limbs(&r, a, n, moduli, L);
                test_fill_limbs(&r, b, n, moduli, L);
                test_poison(out, L * n);
                T_OK(hepa_negacyclic_mul(ring, out, a, b));
                test_negacyclic_gmp(want, a, b, n, moduli, L);
                T_ARRAY_EQ(out, want, L * n, "n=%zu L=%zu bits=%u vs GMP", n, L, bits[ib]);
                free(a);
                free(b);
                free(out);
                free(want);
                hepa_ring_destroy(ring);
            }
}

Test(ring, negacyclic_mul_large) {
    test_rng r;
    test_rng_init(&r);
    const size_t max_n = test_quick() ? 4096 : HEPA_RING_MAX_N;
    struct {
        size_t n, L;
        unsigned bits;
    } cases[32];
    size_t nc = 0;
    for (size_t n = 2048; n <= max_n; n *= 2) {
        cases[nc++] = (typeof(cases[0])){n, 1, 62};
        cases[nc++] = (typeof(cases[0])){n, 3, n >= 32768 ? 30 : 50};
    }
    if (!test_quick()) cases[nc++] = (typeof(cases[0])){(size_t)1 << 16, 8, 60};
    for (size_t c = 0; c < nc; ++c) {
        const size_t n = cases[c].n, L = cases[c].L;
        uint64_t moduli[8];
        gmp_moduli(moduli, L, cases[c].bits, n);
        hepa_ring *ring = make_ring(n, moduli, L);
        uint64_t *a = test_alloc(L * n), *b = test_alloc(L * n), *out = test_alloc(L * n),
                 *want = test_alloc(L * n);
        test_fill_limbs(&r, a, n, moduli, L);
        test_fill_limbs(&r, b, n, moduli, L);
        test_poison(out, L * n);
        T_OK(hepa_negacyclic_mul(ring, out, a, b));
        spot_check(&r, out, a, b, n, moduli, L, "large");
        ntt_ref_product(want, a, b, n, moduli, L);
        T_ARRAY_EQ(out, want, L * n, "n=%zu L=%zu vs reference NTT product", n, L);
        free(a);
        free(b);
        free(out);
        free(want);
        hepa_ring_destroy(ring);
    }
}

/* out may alias a, b or both; the result must not depend on it. */
Test(ring, negacyclic_mul_aliasing) {
    test_rng r;
    test_rng_init(&r);
    const size_t cases[][2] = {{64, 3}, {4096, 2}};
    for (size_t c = 0; c < 2; ++c) {
        const size_t n = cases[c][0], L = cases[c][1];
        const size_t N = L * n;
        uint64_t moduli[3];
        gmp_moduli(moduli, L, 62, n);
        hepa_ring *ring = make_ring(n, moduli, L);
        uint64_t *a = test_alloc(N), *b = test_alloc(N), *want = test_alloc(N),
                 *sq = test_alloc(N), *x = test_alloc(N), *y = test_alloc(N);
        test_fill_limbs(&r, a, n, moduli, L);
        test_fill_limbs(&r, b, n, moduli, L);
        T_OK(hepa_negacyclic_mul(ring, want, a, b));
        T_OK(hepa_negacyclic_mul(ring, sq, a, a));
        spot_check(&r, want, a, b, n, moduli, L, "a*b");
        spot_check(&r, sq, a, a, n, moduli, L, "a*a");

        memcpy(x, a, N * sizeof *x); /* out == a */
        T_OK(hepa_negacyclic_mul(ring, x, x, b));
        T_ARRAY_EQ(x, want, N, "out == a, n=%zu", n);
        memcpy(y, b, N * sizeof *y); /* out == b */
        T_OK(hepa_negacyclic_mul(ring, y, a, y));
        T_ARRAY_EQ(y, want, N, "out == b, n=%zu", n);
        memcpy(x, a, N * sizeof *x); /* out == a == b: squaring in place */
        T_OK(hepa_negacyclic_mul(ring, x, x, x));
        T_ARRAY_EQ(x, sq, N, "out == a == b, n=%zu", n);
        memcpy(x, a, N * sizeof *x); /* a == b, out separate */
        test_poison(y, N);
        T_OK(hepa_negacyclic_mul(ring, y, x, x));
        T_ARRAY_EQ(y, sq, N, "a == b, n=%zu", n);
        T_ARRAY_EQ(x, a, N, "input modified, n=%zu", n);
        free(a);
        free(b);
        free(want);
        free(sq);
        free(x);
        free(y);
        hepa_ring_destroy(ring);
    }
}

/* Closed forms, valid at every n, with no transform in the check:
 *   (all q-1)·(all q-1) = (Σx^i)^2 whose coefficient k is (k+1) - (n-1-k) = 2k + 2 - n;
 *   x^(n-1)·x^(n-1) = x^(2n-2) = -x^(n-2);
 *   0·b = 0;  1·b = b;  x·b = the negacyclic shift of b. */
static void check_closed_forms(test_rng *r, size_t n, const uint64_t *moduli, size_t L) {
    const size_t N = L * n;
    hepa_ring *ring = make_ring(n, moduli, L);
    uint64_t *a = test_alloc(N), *b = test_alloc(N), *out = test_alloc(N), *want = test_alloc(N);

    for (size_t i = 0; i < L; ++i)
        for (size_t k = 0; k < n; ++k) {
            a[i * n + k] = moduli[i] - 1;
            int64_t v = 2 * (int64_t)k + 2 - (int64_t)n;
            want[i * n + k] = v >= 0 ? (uint64_t)v % moduli[i]
                                     : moduli[i] - (uint64_t)(-v) % moduli[i];
        }
    test_poison(out, N);
    T_OK(hepa_negacyclic_mul(ring, out, a, a));
    T_ARRAY_EQ(out, want, N, "(all q-1)^2, n=%zu L=%zu q0=%" PRIu64, n, L, moduli[0]);

    memset(a, 0, N * sizeof *a);
    memset(want, 0, N * sizeof *want);
    for (size_t i = 0; i < L; ++i) {
        a[i * n + n - 1] = 1;
        want[i * n + n - 2] = moduli[i] - 1;
    }
    test_poison(out, N);
    T_OK(hepa_negacyclic_mul(ring, out, a, a));
    T_ARRAY_EQ(out, want, N, "x^(n-1) * x^(n-1) != -x^(n-2), n=%zu L=%zu", n, L);

    test_fill_limbs(r, b, n, moduli, L);
    memset(a, 0, N * sizeof *a);
    memset(want, 0, N * sizeof *want);
    test_poison(out, N);
    T_OK(hepa_negacyclic_mul(ring, out, a, b));
    T_ARRAY_EQ(out, want, N, "0 * b != 0, n=%zu L=%zu", n, L);

    for (size_t i = 0; i < L; ++i) a[i * n] = 1;
    test_poison(out, N);
    T_OK(hepa_negacyclic_mul(ring, out, a, b));
    T_ARRAY_EQ(out, b, N, "1 * b != b, n=%zu L=%zu", n, L);

    memset(a, 0, N * sizeof *a);
    for (size_t i = 0; i < L; ++i) {
        a[i * n + 1] = 1;
        want[i * n] = b[i * n + n - 1] ? moduli[i] - b[i * n + n - 1] : 0;
        for (size_t k = 1; k < n; ++k) want[i * n + k] = b[i * n + k - 1];
    }
    test_poison(out, N);
    T_OK(hepa_negacyclic_mul(ring, out, a, b));
    T_ARRAY_EQ(out, want, N, "x * b != shift, n=%zu L=%zu", n, L);

    free(a);
    free(b);
    free(out);
    free(want);
    hepa_ring_destroy(ring);
}

Test(ring, negacyclic_mul_boundary_inputs) {
    test_rng r;
    test_rng_init(&r);
    const size_t max_n = test_quick() ? 4096 : HEPA_RING_MAX_N;
    for (size_t n = HEPA_RING_MIN_N; n <= max_n; n *= 4) {
        uint64_t moduli[3];
        gmp_moduli(moduli, 2, 30, n);
        check_closed_forms(&r, n, moduli, 2);
    }
}

/* The tightest case for the lazy ranges: the largest 62-bit primes ≡ 1 mod 2n, every input q-1
 * (and values just below q), at both ends of the ring's size range. */
Test(ring, negacyclic_mul_largest_primes) {
    test_rng r;
    test_rng_init(&r);
    const size_t sizes[] = {16, 1024, test_quick() ? 4096 : HEPA_RING_MAX_N};
    for (size_t s = 0; s < 3; ++s) {
        const size_t n = sizes[s];
        uint64_t moduli[3];
        gmp_moduli(moduli, 3, 62, n);
        cr_assert(moduli[0] > (UINT64_C(1) << 62) - (UINT64_C(1) << 40),
                  "largest 62-bit prime = 1 mod 2n is %" PRIu64, moduli[0]);
        check_closed_forms(&r, n, moduli, 1); /* L = 1: the largest prime alone */
        check_closed_forms(&r, n, moduli, 3);

        /* values within 2^16 of q - 1 */
        const size_t L = 3, N = L * n;
        hepa_ring *ring = make_ring(n, moduli, L);
        uint64_t *a = test_alloc(N), *b = test_alloc(N), *out = test_alloc(N),
                 *want = test_alloc(N);
        for (size_t i = 0; i < L; ++i)
            for (size_t j = 0; j < n; ++j) {
                a[i * n + j] = moduli[i] - 1 - test_rand_below(&r, 1u << 16);
                b[i * n + j] = moduli[i] - 1 - test_rand_below(&r, 1u << 16);
            }
        test_poison(out, N);
        T_OK(hepa_negacyclic_mul(ring, out, a, b));
        if (n <= 1024)
            test_negacyclic_gmp(want, a, b, n, moduli, L);
        else
            ntt_ref_product(want, a, b, n, moduli, L);
        T_ARRAY_EQ(out, want, N, "near q-1 inputs, n=%zu", n);
        spot_check(&r, out, a, b, n, moduli, L, "near q-1");
        free(a);
        free(b);
        free(out);
        free(want);
        hepa_ring_destroy(ring);
    }
}

Test(ring, negacyclic_mul_bad_arguments) {
    test_rng r;
    test_rng_init(&r);
    const size_t n = 256, L = 3, N = L * n;
    uint64_t moduli[3];
    gmp_moduli(moduli, L, 62, n);
    hepa_ring *ring = make_ring(n, moduli, L);
    uint64_t *a = test_alloc(N), *b = test_alloc(N), *out = test_alloc(N), *keep = test_alloc(N),
             *ka = test_alloc(N);
    test_fill_limbs(&r, a, n, moduli, L);
    test_fill_limbs(&r, b, n, moduli, L);
    test_poison(out, N);
    memcpy(keep, out, N * sizeof *out);

    T_STATUS(hepa_negacyclic_mul(NULL, out, a, b), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_negacyclic_mul(ring, NULL, a, b), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_negacyclic_mul(ring, out, NULL, b), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_negacyclic_mul(ring, out, a, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_ARRAY_EQ(out, keep, N, "out written by a failed call");

    /* a residue equal to or above its own limb's modulus, in a or in b, in the first and the last
     * limb (a value valid for another limb's larger modulus is still out of range here) */
    const size_t pos[] = {0, n - 1, (L - 1) * n, N - 1, n + test_rand_below(&r, n)};
    for (size_t p = 0; p < 5; ++p) {
        const size_t limb = pos[p] / n;
        const uint64_t vals[] = {moduli[limb], moduli[limb] + 1, UINT64_MAX,
                                 limb ? moduli[0] - 1 : moduli[0]};
        for (size_t v = 0; v < 4; ++v) {
            if (vals[v] < moduli[limb]) continue; /* only when really out of range */
            for (int which = 0; which < 2; ++which) {
                uint64_t *victim = which ? b : a;
                uint64_t saved = victim[pos[p]];
                victim[pos[p]] = vals[v];
                memcpy(ka, victim, N * sizeof *ka);
                hepa_status st = hepa_negacyclic_mul(ring, out, a, b);
                T_CHECK(st == HEPA_ERR_INVALID_ARGUMENT,
                        "%s[%zu] = %" PRIu64 " >= q_%zu accepted (status %d)", which ? "b" : "a",
                        pos[p], vals[v], limb, (int)st);
                T_ARRAY_EQ(out, keep, N, "out written when %s[%zu] is out of range",
                           which ? "b" : "a", pos[p]);
                T_ARRAY_EQ(victim, ka, N, "input modified by a failed call");
                /* out aliasing the bad input: it must stay as it was */
                st = hepa_negacyclic_mul(ring, victim, a, b);
                T_CHECK(st == HEPA_ERR_INVALID_ARGUMENT, "aliased out: bad residue accepted");
                T_ARRAY_EQ(victim, ka, N, "aliased out written on failure");
                victim[pos[p]] = saved;
            }
        }
    }
    free(a);
    free(b);
    free(out);
    free(keep);
    free(ka);
    hepa_ring_destroy(ring);
}

/* ring.h: "A ring is built once ..., is immutable afterwards and may be shared by threads."
 * Several threads multiply on one ring at once (the first calls also race on any lazily
 * initialised state of the library); each result must equal the single-threaded one. */
#define NTHREADS 4
typedef struct {
    const hepa_ring *ring;
    const uint64_t *a, *b;
    uint64_t *out;
    size_t words;
    int reps;
    hepa_status status;
    int mismatch;
} thread_job;

static void *thread_main(void *arg) {
    thread_job *j = arg;
    uint64_t *tmp = malloc(j->words * sizeof *tmp);
    j->status = tmp ? HEPA_OK : HEPA_ERR_OUT_OF_MEMORY;
    for (int r = 0; r < j->reps && tmp && j->status == HEPA_OK; ++r) {
        j->status = hepa_negacyclic_mul(j->ring, tmp, j->a, j->b);
        if (r == 0)
            memcpy(j->out, tmp, j->words * sizeof *tmp);
        else if (memcmp(j->out, tmp, j->words * sizeof *tmp) != 0)
            j->mismatch = 1;
    }
    free(tmp);
    return NULL;
}

Test(ring, negacyclic_mul_shared_ring_threads) {
    test_rng r;
    test_rng_init(&r);
    const size_t n = 4096, L = 3, N = L * n;
    uint64_t moduli[3];
    gmp_moduli(moduli, L, 62, n);
    hepa_ring *ring = make_ring(n, moduli, L);
    uint64_t *in = test_alloc(2 * NTHREADS * N), *out = test_alloc(NTHREADS * N),
             *want = test_alloc(N);
    for (int t = 0; t < 2 * NTHREADS; ++t) test_fill_limbs(&r, in + t * N, n, moduli, L);
    thread_job jobs[NTHREADS];
    pthread_t tid[NTHREADS];
    for (int t = 0; t < NTHREADS; ++t) {
        jobs[t] = (thread_job){ring, in + 2 * t * N, in + (2 * t + 1) * N, out + t * N, N,
                               test_quick() ? 2 : 8, HEPA_OK, 0};
        cr_assert_eq(pthread_create(&tid[t], NULL, thread_main, &jobs[t]), 0);
    }
    for (int t = 0; t < NTHREADS; ++t) pthread_join(tid[t], NULL);
    for (int t = 0; t < NTHREADS; ++t) {
        cr_assert_eq(jobs[t].status, HEPA_OK, "thread %d: status %d", t, (int)jobs[t].status);
        cr_assert_eq(jobs[t].mismatch, 0, "thread %d: results differ between repetitions", t);
        T_OK(hepa_negacyclic_mul(ring, want, jobs[t].a, jobs[t].b));
        T_ARRAY_EQ(out + t * N, want, N, "thread %d result != single-threaded result", t);
        spot_check(&r, out + t * N, jobs[t].a, jobs[t].b, n, moduli, L, "threaded");
    }
    free(in);
    free(out);
    free(want);
    hepa_ring_destroy(ring);
}
