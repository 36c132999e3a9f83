/* tests/test_primes.c — hepa_is_prime, hepa_primes_ntt and hepa_primitive_root against GMP. */
#include <string.h>

#include "test_util.h"
#include "hepa/primes.h"

#define POISON UINT64_C(0x5EED5EED5EED5EED)

static void check_is_prime(uint64_t x) {
    int want = test_gmp_is_prime(x);
    int got = hepa_is_prime(x);
    T_CHECK(got == want, "hepa_is_prime(%" PRIu64 ") = %d, GMP says %d", x, got, want);
}

Test(primes, is_prime_small_exhaustive) {
    for (uint64_t x = 0; x <= 10000; ++x) check_is_prime(x);
}

/* Strong pseudoprimes to the first k prime bases (the smallest ψ_k that fit 64 bits) and other
 * classic traps: a Miller–Rabin with too few or wrong bases, or a bug in one round, says "prime".
 * 3825123056546413051 passes bases 2..31; only base 37 (the twelfth) catches it. */
Test(primes, is_prime_strong_pseudoprimes) {
    static const uint64_t spsp[] = {
        2047,                   /* spsp(2) */
        1373653,                /* 2, 3 */
        25326001,               /* 2, 3, 5 */
        3215031751,             /* 2, 3, 5, 7 */
        2152302898747,          /* 2 .. 11 */
        3474749660383,          /* 2 .. 13 */
        341550071728321,        /* 2 .. 17 (and 19) */
        3825123056546413051ULL, /* 2 .. 31 */
        4759123141,             /* 2, 7, 61 */
        1122004669633,          /* 2, 13, 23, 1662803 */
        9080191,                /* 31, 73 */
    };
    for (size_t i = 0; i < sizeof spsp / sizeof spsp[0]; ++i) {
        cr_assert(!test_gmp_is_prime(spsp[i]), "table error: %" PRIu64 " is prime", spsp[i]);
        cr_assert_eq(hepa_is_prime(spsp[i]), 0, "strong pseudoprime %" PRIu64 " called prime",
                     spsp[i]);
    }
    /* values near 2^64, where the word-size mulmod matters (GMP decides) */
    static const uint64_t extra[] = {UINT64_C(18446744066047760377), UINT64_C(18446744073709551557),
                                     UINT64_C(18446744073709551533)};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; ++i) check_is_prime(extra[i]);
}

/* Carmichael numbers fool every Fermat test; Chernick's (6k+1)(12k+1)(18k+1) gives them near
 * 2^64, where a 64-bit mulmod also has to be right. */
Test(primes, is_prime_carmichael) {
    static const uint64_t small[] = {561,    1105,   1729,   2465,   2821,   6601,   8911,
                                     10585,  15841,  29341,  41041,  46657,  52633,  62745,
                                     63973,  75361,  101101, 115921, 126217, 162401, 172081,
                                     188461, 252601, 278545, 294409, 314821, 334153, 340561,
                                     399001, 410041, 449065, 488881, 512461};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; ++i) {
        cr_assert_eq(hepa_is_prime(small[i]), 0, "Carmichael number %" PRIu64 " called prime",
                     small[i]);
    }
    /* largest k with (6k+1)(12k+1)(18k+1) < 2^64 is about 2.4e5; take the top ones */
    int found = 0;
    for (uint64_t k = 240000; k > 1 && found < 12; --k) {
        u128 p = (u128)(6 * k + 1) * (12 * k + 1) * (18 * k + 1);
        if (p > UINT64_MAX) continue;
        if (test_gmp_is_prime(6 * k + 1) && test_gmp_is_prime(12 * k + 1) &&
            test_gmp_is_prime(18 * k + 1)) {
            check_is_prime((uint64_t)p);
            ++found;
        }
    }
    cr_assert(found >= 4, "found only %d Chernick numbers", found);
}

/* Squares of primes (p^2 passes Fermat to bases b with b^(p-1) ≡ 1 mod p^2), prime powers,
 * semiprimes p(2p-1) (the classic strong-pseudoprime shape), products of two 32-bit primes. */
Test(primes, is_prime_structured_composites) {
    test_rng r;
    test_rng_init(&r);
    uint64_t p32 = test_prev_prime_1mod(UINT64_C(1) << 32, 2, 3); /* 4294967291 */
    check_is_prime(p32);
    cr_assert_eq(hepa_is_prime(p32 * p32), 0, "%" PRIu64 "^2 called prime", p32);
    static const uint64_t sq[] = {4, 9, 25, 49, 121, 169, 1093 * 1093, 3511 * 3511};
    for (size_t i = 0; i < sizeof sq / sizeof sq[0]; ++i) check_is_prime(sq[i]);
    uint64_t pw = 1;
    for (int e = 0; e < 40; ++e, pw *= 3) check_is_prime(pw);
    for (int e = 0; e < 64; ++e) check_is_prime(UINT64_C(1) << e);
    for (int t = 0; t < 200; ++t) {
        uint64_t a = test_next_prime_1mod(test_rand_range(&r, 3, UINT64_C(1) << 32), 2);
        uint64_t b = test_next_prime_1mod(test_rand_range(&r, 3, UINT64_C(1) << 32), 2);
        if ((u128)a * b <= UINT64_MAX) check_is_prime(a * b);
        if ((u128)a * a <= UINT64_MAX) check_is_prime(a * a);
        /* p(2p-1) with both prime */
        uint64_t p = test_rand_range(&r, 1000, UINT64_C(3037000499));
        if (test_gmp_is_prime(p) && test_gmp_is_prime(2 * p - 1)) check_is_prime(p * (2 * p - 1));
    }
}

Test(primes, is_prime_edges_of_the_word) {
    cr_assert_eq(hepa_is_prime(0), 0);
    cr_assert_eq(hepa_is_prime(1), 0);
    cr_assert_eq(hepa_is_prime(2), 1);
    cr_assert_eq(hepa_is_prime(3), 1);
    cr_assert_eq(hepa_is_prime(UINT64_MAX), 0, "2^64-1 is composite");
    cr_assert(test_gmp_is_prime(UINT64_MAX - 58), "2^64-59 is prime (GMP)");
    cr_assert_eq(hepa_is_prime(UINT64_MAX - 58), 1, "2^64-59, the largest 64-bit prime");
    cr_assert(test_gmp_is_prime((UINT64_C(1) << 62) - 57), "2^62-57 is prime (GMP)");
    cr_assert_eq(hepa_is_prime((UINT64_C(1) << 62) - 57), 1, "2^62-57");
    cr_assert_eq(hepa_is_prime((UINT64_C(1) << 61) - 1), 1, "Mersenne prime 2^61-1");
    /* windows around the word-size boundaries where a mulmod may switch method or overflow */
    const size_t w = test_quick() ? 300 : 3000;
    const uint64_t centres[] = {UINT64_C(1) << 32, UINT64_C(1) << 62, UINT64_C(1) << 63};
    for (size_t c = 0; c < 3; ++c)
        for (uint64_t x = centres[c] - w; x < centres[c] + w; ++x) check_is_prime(x);
    for (uint64_t x = UINT64_MAX - 2 * w; x != 0; ++x) check_is_prime(x); /* up to 2^64 - 1 */
}

Test(primes, is_prime_random) {
    test_rng r;
    test_rng_init(&r);
    const int count = test_quick() ? 3000 : 40000;
    for (int t = 0; t < count; ++t) {
        /* random bit length, so small and large inputs are both well represented */
        uint64_t x = test_rand64(&r) >> test_rand_below(&r, 64);
        check_is_prime(x | 1);
    }
    /* random primes: GMP finds the next prime; hepa must agree it is prime */
    mpz_t z;
    mpz_init(z);
    for (int t = 0; t < (test_quick() ? 100 : 1000); ++t) {
        mpz_set_ui(z, test_rand64(&r) >> test_rand_below(&r, 8));
        mpz_nextprime(z, z);
        if (mpz_sizeinbase(z, 2) > 64) continue;
        uint64_t p = mpz_get_ui(z);
        T_CHECK(hepa_is_prime(p) == 1, "prime %" PRIu64 " called composite", p);
    }
    mpz_clear(z);
}

/* ---- hepa_primes_ntt ----------------------------------------------------------------------- */

typedef struct {
    unsigned bits;
    size_t n, count;
} ntt_case;

static const ntt_case ntt_cases[] = {
    {20, 16, 16},        {20, 1024, 8},       {20, 1u << 17, 1},  {21, 2, 4},
    {30, 2, 4},          {30, 16, 8},         {30, 1u << 17, 8},  {31, 4096, 8},
    {40, 1u << 16, 8},   {50, 4096, 16},      {60, 1u << 16, 16}, {61, 1u << 17, 8},
    {62, 16, 64},        {62, 1u << 17, 64},  {62, 1u << 30, 2},  {22, 1u << 17, 1},
};

static void check_primes_ntt_case(const ntt_case *c, int exact) {
    const uint64_t two_n = 2 * (uint64_t)c->n;
    uint64_t *got = test_alloc(c->count), *want = test_alloc(c->count);
    size_t avail = test_primes_1mod_desc(want, c->count, c->bits, two_n);
    cr_assert_eq(avail, c->count, "test table error: only %zu primes for bits=%u n=%zu", avail,
                 c->bits, c->n);
    T_OK(hepa_primes_ntt(got, c->count, c->bits, c->n));
    for (size_t i = 0; i < c->count; ++i) {
        uint64_t q = got[i];
        T_CHECK(test_gmp_is_prime(q), "bits=%u n=%zu: out[%zu]=%" PRIu64 " not prime", c->bits,
                c->n, i, q);
        T_CHECK(q % two_n == 1, "bits=%u n=%zu: out[%zu]=%" PRIu64 " not 1 mod 2n", c->bits, c->n,
                i, q);
        T_CHECK(q >> (c->bits - 1) == 1, "bits=%u n=%zu: out[%zu]=%" PRIu64 " has wrong bit size",
                c->bits, c->n, i, q);
        if (i) T_CHECK(got[i - 1] > q, "bits=%u n=%zu: not strictly decreasing at %zu", c->bits,
                       c->n, i);
    }
    /* "the largest first": nothing prime and ≡ 1 mod 2n lies above out[0] with `bits` bits */
    T_CHECK(got[0] == want[0], "bits=%u n=%zu: out[0]=%" PRIu64 " but the largest is %" PRIu64,
            c->bits, c->n, got[0], want[0]);
    if (exact) /* and the list is the `count` largest, none skipped (deterministic moduli) */
        T_ARRAY_EQ(got, want, c->count, "bits=%u n=%zu count=%zu: not the largest primes",
                   c->bits, c->n, c->count);
    free(got);
    free(want);
}

Test(primes, primes_ntt_properties) {
    for (size_t i = 0; i < sizeof ntt_cases / sizeof ntt_cases[0]; ++i) {
        if (ntt_cases[i].bits == 22) continue; /* has no primes; see primes_ntt_exhaustion */
        check_primes_ntt_case(&ntt_cases[i], 0);
    }
}

/* The header says "the largest first"; we read it as: the `count` largest such primes in
 * decreasing order (what SEAL-style prime generators return, and what makes a ring's moduli a
 * function of (bits, n, count) only). */
Test(primes, primes_ntt_are_the_largest) {
    for (size_t i = 0; i < sizeof ntt_cases / sizeof ntt_cases[0]; ++i) {
        if (ntt_cases[i].bits == 22) continue;
        check_primes_ntt_case(&ntt_cases[i], 1);
    }
}

/* Asking for more primes than exist: HEPA_ERR_UNSUPPORTED, and out untouched. */
Test(primes, primes_ntt_exhaustion) {
    /* bits=20, n=2^17: the candidates 2^19+1 (= 3 * 174763) and 3*2^18+1 = 786433 (prime) */
    uint64_t out[4];
    T_OK(hepa_primes_ntt(out, 1, 20, 1u << 17));
    cr_assert_eq(out[0], 786433, "bits=20 n=2^17: got %" PRIu64, out[0]);
    for (int i = 0; i < 4; ++i) out[i] = POISON;
    T_STATUS(hepa_primes_ntt(out, 2, 20, 1u << 17), HEPA_ERR_UNSUPPORTED);
    for (int i = 0; i < 4; ++i) cr_assert_eq(out[i], POISON, "out[%d] written on failure", i);

    /* bits=21, n=2^18: both candidates (2^20+1, 3*2^19+1) are composite: zero primes */
    T_STATUS(hepa_primes_ntt(out, 1, 21, 1u << 18), HEPA_ERR_UNSUPPORTED);
    cr_assert_eq(out[0], POISON, "out[0] written on failure");

    /* bits=22, n=2^17: eight candidates, so 1000 cannot be served */
    uint64_t *big = test_alloc(1000);
    for (int i = 0; i < 1000; ++i) big[i] = POISON;
    T_STATUS(hepa_primes_ntt(big, 1000, 22, 1u << 17), HEPA_ERR_UNSUPPORTED);
    for (int i = 0; i < 1000; ++i) cr_assert_eq(big[i], POISON, "big[%d] written on failure", i);

    /* bits=20, n=16: count exactly what exists (OK), then one more (UNSUPPORTED) */
    uint64_t *want = test_alloc(20000);
    size_t avail = test_primes_1mod_desc(want, 20000, 20, 32);
    cr_assert(avail > 100 && avail < 20000, "avail=%zu", avail);
    uint64_t *got = test_alloc(avail + 1);
    T_OK(hepa_primes_ntt(got, avail, 20, 16));
    T_ARRAY_EQ(got, want, avail, "all %zu 20-bit primes = 1 mod 32", avail);
    for (size_t i = 0; i <= avail; ++i) got[i] = POISON;
    T_STATUS(hepa_primes_ntt(got, avail + 1, 20, 16), HEPA_ERR_UNSUPPORTED);
    for (size_t i = 0; i <= avail; ++i)
        T_CHECK(got[i] == POISON, "got[%zu] written on failure", i);
    free(got);
    free(want);
    free(big);
}

Test(primes, primes_ntt_bad_arguments) {
    uint64_t out[4] = {POISON, POISON, POISON, POISON};
    struct {
        unsigned bits;
        size_t n;
        const char *why;
    } bad[] = {
        {19, 16, "bits below 20"},
        {63, 16, "bits above 62"},
        {0, 16, "bits 0"},
        {64, 16, "bits 64"},
        {30, 0, "n = 0"},
        {30, 1, "n = 1"},
        {30, 3, "n not a power of two"},
        {30, 48, "n not a power of two"},
        {30, 1000, "n not a power of two"},
        {62, (size_t)1 << 31, "n above 2^30"},
        {62, ((size_t)1 << 30) + 1, "n not a power of two"},
        {20, (size_t)1 << 18, "2n = 2^(bits-1)"},
        {30, (size_t)1 << 28, "2n = 2^(bits-1)"},
        {30, (size_t)1 << 29, "2n > 2^(bits-1)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        T_CHECK(hepa_primes_ntt(out, 2, bad[i].bits, bad[i].n) == HEPA_ERR_INVALID_ARGUMENT,
                "bits=%u n=%zu (%s) not rejected", bad[i].bits, bad[i].n, bad[i].why);
        for (int j = 0; j < 4; ++j)
            T_CHECK(out[j] == POISON, "out written on failure (bits=%u n=%zu)", bad[i].bits,
                    bad[i].n);
    }
    T_STATUS(hepa_primes_ntt(NULL, 1, 30, 16), HEPA_ERR_INVALID_ARGUMENT);
}

Test(primes, primes_ntt_count_zero) {
    uint64_t out[2] = {POISON, POISON};
    T_OK(hepa_primes_ntt(out, 0, 30, 16));
    cr_assert(out[0] == POISON && out[1] == POISON, "count 0 wrote to out");
    T_OK(hepa_primes_ntt(NULL, 0, 30, 16));
}

/* ---- hepa_primitive_root ------------------------------------------------------------------- */

static void check_root(uint64_t q, uint64_t m) {
    uint64_t root = POISON;
    hepa_status st = hepa_primitive_root(&root, q, m);
    T_CHECK(st == HEPA_OK, "primitive_root(q=%" PRIu64 ", m=%" PRIu64 ") -> %d", q, m, (int)st);
    T_CHECK(root > 0 && root < q, "root %" PRIu64 " out of [1, q)", root);
    mpz_t b, e, mod, res;
    mpz_init_set_ui(b, root);
    mpz_init_set_ui(e, m);
    mpz_init_set_ui(mod, q);
    mpz_init(res);
    mpz_powm(res, b, e, mod);
    T_CHECK(mpz_cmp_ui(res, 1) == 0, "root^m != 1 (q=%" PRIu64 ", m=%" PRIu64 ", root=%" PRIu64 ")",
            q, m, root);
    /* for m a power of two, primitive <=> root^(m/2) = -1 */
    mpz_set_ui(e, m / 2);
    mpz_powm(res, b, e, mod);
    T_CHECK(mpz_cmp_ui(res, q - 1) == 0,
            "root^(m/2) != q-1 (q=%" PRIu64 ", m=%" PRIu64 ", root=%" PRIu64 ")", q, m, root);
    /* smallest: no x in [2, root) is a primitive m-th root (checked where that is cheap) */
    if (root < 200000) {
        for (uint64_t x = 2; x < root; ++x)
            T_CHECK(test_powmod(x, m / 2, q) != q - 1,
                    "q=%" PRIu64 " m=%" PRIu64 ": %" PRIu64 " is a smaller primitive root than %" PRIu64,
                    q, m, x, root);
    }
    mpz_clear(b);
    mpz_clear(e);
    mpz_clear(mod);
    mpz_clear(res);
}

Test(primes, primitive_root_small) {
    check_root(3, 2);
    uint64_t root;
    T_OK(hepa_primitive_root(&root, 3, 2));
    cr_assert_eq(root, 2, "the primitive square root of 1 mod 3 is 2");
    T_OK(hepa_primitive_root(&root, 5, 4));
    cr_assert_eq(root, 2, "smallest primitive 4th root mod 5 is 2");
    T_OK(hepa_primitive_root(&root, 17, 16));
    cr_assert_eq(root, 3, "smallest primitive 16th root mod 17 is 3");
    check_root(97, 32);
    check_root(12289, 2048);
    check_root(12289, 4096);
    check_root(786433, 1u << 18);
    check_root(786433, 2);
    check_root(786433, 4);
}

Test(primes, primitive_root_large) {
    uint64_t q[8];
    size_t nq = test_primes_1mod_desc(q, 4, 62, UINT64_C(1) << 18);
    nq += test_primes_1mod_desc(q + nq, 4, 50, UINT64_C(1) << 12);
    for (size_t i = 0; i < nq; ++i) {
        uint64_t v2 = q[i] - 1, m2 = 1; /* largest power of two dividing q - 1 */
        while (!(v2 & 1)) v2 >>= 1, m2 <<= 1;
        const uint64_t ms[] = {2, 4, 32, 1u << 12, m2};
        for (size_t j = 0; j < 5; ++j)
            if ((q[i] - 1) % ms[j] == 0) check_root(q[i], ms[j]);
        /* m = 2: the only primitive square root of 1 is -1 */
        uint64_t root;
        T_OK(hepa_primitive_root(&root, q[i], 2));
        cr_assert_eq(root, q[i] - 1);
        /* m = 4: two roots ±i; the smaller one is < q/2 */
        T_OK(hepa_primitive_root(&root, q[i], 4));
        cr_assert(root <= (q[i] - 1) / 2, "m=4: %" PRIu64 " is not the smaller of ±i mod %" PRIu64,
                  root, q[i]);
    }
}

Test(primes, primitive_root_bad_arguments) {
    uint64_t above = test_next_prime_1mod((UINT64_C(1) << 62) + 1, 4); /* prime ≡ 1 mod 4 > 2^62 */
    cr_assert(above != 0);
    struct {
        uint64_t q, m;
        const char *why;
    } bad[] = {
        {15, 2, "q composite"},
        {21, 4, "q composite"},
        {1, 2, "q = 1"},
        {0, 2, "q = 0"},
        {above, 4, "q >= 2^62"},
        {UINT64_MAX - 58, 2, "q prime but >= 2^62"},
        {7, 3, "m not a power of two"},
        {13, 6, "m not a power of two"},
        {13, 12, "m not a power of two"},
        {7, 1, "m = 1"},
        {7, 0, "m = 0"},
        {7, 4, "m does not divide q-1"},
        {2, 2, "m does not divide q-1 (q = 2)"},
        {97, UINT64_C(1) << 63, "m does not divide q-1"},
        {97, 64, "m does not divide q-1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        uint64_t root = POISON;
        hepa_status st = hepa_primitive_root(&root, bad[i].q, bad[i].m);
        T_CHECK(st == HEPA_ERR_INVALID_ARGUMENT,
                "primitive_root(q=%" PRIu64 ", m=%" PRIu64 ") (%s) -> %d", bad[i].q, bad[i].m,
                bad[i].why, (int)st);
        T_CHECK(root == POISON, "root written on failure (%s)", bad[i].why);
    }
    T_STATUS(hepa_primitive_root(NULL, 97, 32), HEPA_ERR_INVALID_ARGUMENT);
}
