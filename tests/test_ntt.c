/* tests/test_ntt.c — negacyclic NTT tables and transforms (hepa/ntt.h).
 *
 * The convention NTT(a)[k] = a(ψ^(2·rev(k)+1)) is checked by direct polynomial evaluation (no
 * transform involved), the fast path against the reference bit for bit, the pair against the
 * schoolbook negacyclic product (convolution theorem), and the raw lazy tier against its stated
 * output ranges. Moduli are found with GMP here (not by hepa_primes_ntt), so an NTT failure is
 * never a prime-generation failure in disguise. */
#include <string.h>

#include "test_util.h"
#include "hepa/ntt.h"
#include "hepa/primes.h"

#define POISON_PTR ((hepa_ntt_tables *)(uintptr_t)0x1234)

typedef struct {
    size_t n;
    uint64_t q;
} ntt_case;

#define MAX_CASES 160

/* The (n, q) pairs every sweep runs: n = 2 .. 2^17 (2^12 in quick mode), primes of 30, 50, 60 and
 * 62 bits ≡ 1 mod 2n, the largest of each size first (the 62-bit ones are the tightest for the
 * lazy ranges). Fewer primes per size as n grows, to keep the suite fast. */
static size_t build_cases(ntt_case *c, unsigned min_log, unsigned max_log) {
    static const unsigned bits[] = {30, 50, 60, 62};
    unsigned top = test_quick() ? 12 : 17;
    if (max_log > top) max_log = top;
    size_t k = 0;
    for (unsigned lg = min_log; lg <= max_log; ++lg) {
        size_t n = (size_t)1 << lg;
        for (size_t b = 0; b < 4; ++b) {
            if (lg >= 15 && (bits[b] == 50 || bits[b] == 60)) continue;
            size_t per = lg <= 10 ? 2 : 1;
            uint64_t q[2];
            size_t got = test_primes_1mod_desc(q, per, bits[b], 2 * (uint64_t)n);
            cr_assert_eq(got, per, "no %u-bit prime = 1 mod %zu", bits[b], 2 * n);
            for (size_t i = 0; i < got && k < MAX_CASES; ++i) c[k++] = (ntt_case){n, q[i]};
        }
    }
    return k;
}

static hepa_ntt_tables *make_tables(size_t n, uint64_t q) {
    hepa_ntt_tables *t = POISON_PTR;
    hepa_status st = hepa_ntt_tables_create(&t, n, q);
    cr_assert_eq(st, HEPA_OK, "tables_create(n=%zu, q=%" PRIu64 ") -> %d (seed %" PRIu64 ")", n, q,
                 (int)st, test_seed());
    cr_assert(t != NULL && t != POISON_PTR, "tables_create returned OK but no tables");
    return t;
}

/* a(x) at x = ψ^e by Horner, in __int128 (independent of the library). */
static uint64_t eval_at(const uint64_t *a, size_t n, uint64_t x, uint64_t q) {
    uint64_t acc = 0;
    for (size_t j = n; j-- > 0;) acc = test_addmod(test_mulmod(acc, x, q), a[j], q);
    return acc;
}

/* Checks NTT(a)[k] == a(ψ^(2 rev(k) + 1)) on all k (n <= all_k_max) or on `spot` random k. */
static void check_convention(test_rng *r, const uint64_t *a, const uint64_t *fa, size_t n,
                             uint64_t q, uint64_t psi, size_t all_k_max, const char *what) {
    unsigned lg = test_log2(n);
    size_t count = n <= all_k_max ? n : 12;
    for (size_t t = 0; t < count; ++t) {
        size_t k = n <= all_k_max ? t : t == 0 ? 0 : t == 1 ? n - 1 : test_rand_below(r, n);
        uint64_t x = test_powmod(psi, 2 * (uint64_t)test_bitrev(k, lg) + 1, q);
        uint64_t want = eval_at(a, n, x, q);
        T_CHECK(fa[k] == want,
                "%s: n=%zu q=%" PRIu64 ": NTT(a)[%zu] = %" PRIu64 ", a(psi^(2rev(k)+1)) = %" PRIu64,
                what, n, q, k, fa[k], want);
    }
}

/* ---- tables --------------------------------------------------------------------------------- */

Test(ntt, tables_accessors_and_view) {
    ntt_case c[MAX_CASES];
    size_t nc = build_cases(c, 1, 17);
    for (size_t i = 0; i < nc; ++i) {
        const size_t n = c[i].n;
        const uint64_t q = c[i].q;
        hepa_ntt_tables *t = make_tables(n, q);
        cr_assert_eq(hepa_ntt_tables_n(t), n);
        cr_assert_eq(hepa_ntt_tables_modulus(t), q);
        uint64_t psi = hepa_ntt_tables_psi(t);
        /* ψ is the smallest primitive 2n-th root (the header defines it through
         * hepa_primitive_root) and is one: ψ^n = -1 */
        uint64_t root = 0;
        T_OK(hepa_primitive_root(&root, q, 2 * (uint64_t)n));
        cr_assert_eq(psi, root, "n=%zu q=%" PRIu64 ": psi %" PRIu64 " != primitive_root %" PRIu64,
                     n, q, psi, root);
        cr_assert_eq(test_powmod(psi, n, q), q - 1, "psi^n != -1");

        hepa_ntt_table_view v = hepa_ntt_tables_view(t);
        cr_assert_eq(v.n, n);
        cr_assert_eq(v.q, q);
        cr_assert(v.fwd && v.fwd_shoup && v.inv && v.inv_shoup, "view has NULL arrays");
        unsigned lg = test_log2(n);
        uint64_t psi_inv = test_invmod(psi, q);
        cr_assert_eq(v.fwd[0], 1, "fwd[0] must hold 1");
        cr_assert_eq(v.inv[0], 1, "inv[0] must hold 1");
        /* powers by repeated multiplication, then permuted: independent of how the library
         * builds them */
        uint64_t *pw = test_alloc(n), *pwi = test_alloc(n);
        pw[0] = pwi[0] = 1;
        for (size_t j = 1; j < n; ++j) {
            pw[j] = test_mulmod(pw[j - 1], psi, q);
            pwi[j] = test_mulmod(pwi[j - 1], psi_inv, q);
        }
        for (size_t k = 1; k < n; ++k) {
            size_t rk = test_bitrev(k, lg);
            T_CHECK(v.fwd[k] == pw[rk], "n=%zu q=%" PRIu64 ": fwd[%zu] != psi^rev(k)", n, q, k);
            T_CHECK(v.inv[k] == pwi[rk], "n=%zu q=%" PRIu64 ": inv[%zu] != psi^-rev(k)", n, q, k);
            T_CHECK(v.fwd_shoup[k] == (uint64_t)(((u128)v.fwd[k] << 64) / q),
                    "n=%zu q=%" PRIu64 ": fwd_shoup[%zu]", n, q, k);
            T_CHECK(v.inv_shoup[k] == (uint64_t)(((u128)v.inv[k] << 64) / q),
                    "n=%zu q=%" PRIu64 ": inv_shoup[%zu]", n, q, k);
        }
        uint64_t n_inv = test_invmod(n % q, q);
        cr_assert_eq(v.n_inv, n_inv, "n_inv");
        cr_assert_eq(v.n_inv_shoup, (uint64_t)(((u128)n_inv << 64) / q), "n_inv_shoup");
        uint64_t w = test_mulmod(n_inv, pwi[test_bitrev(1, lg)], q); /* n^-1 ψ^-rev(1) */
        cr_assert_eq(v.n_inv_w, w, "n=%zu q=%" PRIu64 ": n_inv_w %" PRIu64 " != %" PRIu64, n, q,
                     v.n_inv_w, w);
        cr_assert_eq(v.n_inv_w_shoup, (uint64_t)(((u128)w << 64) / q), "n_inv_w_shoup");
        free(pw);
        free(pwi);
        hepa_ntt_tables_destroy(t);
    }
}

Test(ntt, tables_destroy_null) { hepa_ntt_tables_destroy(NULL); }

Test(ntt, tables_create_bad_arguments) {
    uint64_t q16 = test_prev_prime_1mod(UINT64_C(1) << 62, 32, 3); /* valid for n = 16 */
    uint64_t above = test_next_prime_1mod((UINT64_C(1) << 62) + 1, 32);
    uint64_t q_big_n = test_next_prime_1mod(UINT64_C(1) << 40, UINT64_C(1) << 32);
    uint64_t not_1mod = test_next_prime_1mod(1000000, 2);
    while (not_1mod % 32 == 1) not_1mod = test_next_prime_1mod(not_1mod + 1, 2);
    uint64_t q32only = q16;
    while (q32only % 2048 == 1) q32only = test_prev_prime_1mod(q32only, 32, 3);
    struct {
        size_t n;
        uint64_t q;
        const char *why;
    } bad[] = {
        {0, q16, "n = 0"},
        {1, q16, "n = 1"},
        {3, q16, "n = 3"},
        {24, q16, "n = 24"},
        {1000, q16, "n = 1000"},
        {(size_t)1 << 31, q_big_n, "n = 2^31 > 2^30"},
        {16, 97 * 193, "q = 97*193 composite (but = 1 mod 32)"},
        {16, 1, "q = 1"},
        {16, 0, "q = 0"},
        {16, 2, "q = 2"},
        {32, 97, "q = 97 = 1 mod 32 but not 1 mod 64, n = 32"},
        {16, not_1mod, "q prime, not 1 mod 2n"},
        {16, above, "q prime, = 1 mod 2n, >= 2^62"},
        {16, UINT64_MAX - 58, "q = 2^64-59"},
        {1024, q32only, "q = 1 mod 32 only, n = 1024 needs 1 mod 2048"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        hepa_ntt_tables *t = POISON_PTR;
        hepa_status st = hepa_ntt_tables_create(&t, bad[i].n, bad[i].q);
        T_CHECK(st == HEPA_ERR_INVALID_ARGUMENT, "tables_create(n=%zu, q=%" PRIu64 ") (%s) -> %d",
                bad[i].n, bad[i].q, bad[i].why, (int)st);
        T_CHECK(t == POISON_PTR, "*out written on failure (%s)", bad[i].why);
        if (st == HEPA_OK && t != POISON_PTR) hepa_ntt_tables_destroy(t);
    }
    T_STATUS(hepa_ntt_tables_create(NULL, 16, q16), HEPA_ERR_INVALID_ARGUMENT);
}

/* The smallest sizes the tables accept (n = 2, 4, 8 — below the ring's minimum). */
Test(ntt, tiny_sizes) {
    test_rng r;
    test_rng_init(&r);
    for (unsigned lg = 1; lg <= 3; ++lg) {
        size_t n = (size_t)1 << lg;
        uint64_t q = test_prev_prime_1mod(UINT64_C(1) << 62, 2 * n, 3);
        hepa_ntt_tables *t = make_tables(n, q);
        uint64_t a[8], fa[8];
        test_fill_residues(&r, a, n, q);
        memcpy(fa, a, sizeof a);
        T_OK(hepa_ntt_forward(t, fa));
        check_convention(&r, a, fa, n, q, hepa_ntt_tables_psi(t), 8, "tiny");
        T_OK(hepa_ntt_inverse(t, fa));
        T_ARRAY_EQ(fa, a, n, "tiny round trip n=%zu", n);
        hepa_ntt_tables_destroy(t);
    }
}

/* ---- the convention ------------------------------------------------------------------------- */

Test(ntt, forward_convention_direct_evaluation) {
    test_rng r;
    test_rng_init(&r);
    ntt_case c[MAX_CASES];
    size_t nc = build_cases(c, 4, 17);
    const size_t all_k = test_quick() ? 256 : 1024;
    for (size_t i = 0; i < nc; ++i) {
        const size_t n = c[i].n;
        const uint64_t q = c[i].q;
        hepa_ntt_tables *t = make_tables(n, q);
        uint64_t *a = test_alloc(n), *fa = test_alloc(n);
        test_fill_residues(&r, a, n, q);
        memcpy(fa, a, n * sizeof *a);
        T_OK(hepa_ntt_forward(t, fa));
        check_convention(&r, a, fa, n, q, hepa_ntt_tables_psi(t), all_k, "forward");
        if (n <= 256) { /* the reference on its own too, so a fast/ref mismatch is attributable */
            memcpy(fa, a, n * sizeof *a);
            T_OK(hepa_ntt_forward_ref(t, fa));
            check_convention(&r, a, fa, n, q, hepa_ntt_tables_psi(t), all_k, "forward_ref");
        }
        free(a);
        free(fa);
        hepa_ntt_tables_destroy(t);
    }
}

/* ---- fast vs reference, round trips ---------------------------------------------------------- */

Test(ntt, fast_equals_reference) {
    test_rng r;
    test_rng_init(&r);
    ntt_case c[MAX_CASES];
    size_t nc = build_cases(c, 1, 17);
    for (size_t i = 0; i < nc; ++i) {
        const size_t n = c[i].n;
        const uint64_t q = c[i].q;
        hepa_ntt_tables *t = make_tables(n, q);
        uint64_t *a = test_alloc(n), *x = test_alloc(n), *y = test_alloc(n);
        for (int rep = 0; rep < 2; ++rep) {
            /* second round: boundary-heavy values */
            for (size_t j = 0; j < n; ++j)
                a[j] = rep ? test_rand_residue_edgy(&r, q) : test_rand_below(&r, q);
            memcpy(x, a, n * sizeof *a);
            memcpy(y, a, n * sizeof *a);
            T_OK(hepa_ntt_forward(t, x));
            T_OK(hepa_ntt_forward_ref(t, y));
            T_ARRAY_EQ(x, y, n, "forward fast vs ref, n=%zu q=%" PRIu64, n, q);
            memcpy(x, a, n * sizeof *a);
            memcpy(y, a, n * sizeof *a);
            T_OK(hepa_ntt_inverse(t, x));
            T_OK(hepa_ntt_inverse_ref(t, y));
            T_ARRAY_EQ(x, y, n, "inverse fast vs ref, n=%zu q=%" PRIu64, n, q);
        }
        free(a);
        free(x);
        free(y);
        hepa_ntt_tables_destroy(t);
    }
}

Test(ntt, round_trips) {
    test_rng r;
    test_rng_init(&r);
    ntt_case c[MAX_CASES];
    size_t nc = build_cases(c, 1, 17);
    for (size_t i = 0; i < nc; ++i) {
        const size_t n = c[i].n;
        const uint64_t q = c[i].q;
        hepa_ntt_tables *t = make_tables(n, q);
        uint64_t *a = test_alloc(n), *x = test_alloc(n);
        test_fill_residues(&r, a, n, q);
        /* fast/fast, ref/ref, and both mixes */
        hepa_status (*fwd[2])(const hepa_ntt_tables *, uint64_t *) = {hepa_ntt_forward,
                                                                       hepa_ntt_forward_ref};
        hepa_status (*inv[2])(const hepa_ntt_tables *, uint64_t *) = {hepa_ntt_inverse,
                                                                       hepa_ntt_inverse_ref};
        for (int f = 0; f < 2; ++f)
            for (int g = 0; g < 2; ++g) {
                memcpy(x, a, n * sizeof *a);
                T_OK(fwd[f](t, x));
                T_OK(inv[g](t, x));
                T_ARRAY_EQ(x, a, n, "inverse%s(forward%s(a)) != a, n=%zu q=%" PRIu64,
                           g ? "_ref" : "", f ? "_ref" : "", n, q);
                /* and the other order: forward(inverse(a)) == a */
                memcpy(x, a, n * sizeof *a);
                T_OK(inv[g](t, x));
                T_OK(fwd[f](t, x));
                T_ARRAY_EQ(x, a, n, "forward(inverse(a)) != a, n=%zu q=%" PRIu64, n, q);
            }
        free(a);
        free(x);
        hepa_ntt_tables_destroy(t);
    }
}

/* inverse(forward(a) ⊙ forward(b)) = a*b mod (x^n+1): the reason the transforms exist, and it
 * needs no permutation between them. */
Test(ntt, convolution_theorem) {
    test_rng r;
    test_rng_init(&r);
    ntt_case c[MAX_CASES];
    size_t nc = build_cases(c, 4, test_quick() ? 8 : 10);
    for (size_t i = 0; i < nc; ++i) {
        const size_t n = c[i].n;
        const uint64_t q = c[i].q;
        hepa_ntt_tables *t = make_tables(n, q);
        uint64_t *a = test_alloc(n), *b = test_alloc(n), *fa = test_alloc(n), *fb = test_alloc(n),
                 *want = test_alloc(n);
        test_fill_residues(&r, a, n, q);
        test_fill_residues(&r, b, n, q);
        test_negacyclic_schoolbook(want, a, b, n, q);
        for (int ref = 0; ref < 2; ++ref) {
            memcpy(fa, a, n * sizeof *a);
            memcpy(fb, b, n * sizeof *b);
            T_OK((ref ? hepa_ntt_forward_ref : hepa_ntt_forward)(t, fa));
            T_OK((ref ? hepa_ntt_forward_ref : hepa_ntt_forward)(t, fb));
            for (size_t j = 0; j < n; ++j) fa[j] = test_mulmod(fa[j], fb[j], q);
            T_OK((ref ? hepa_ntt_inverse_ref : hepa_ntt_inverse)(t, fa));
            T_ARRAY_EQ(fa, want, n, "%s: NTT product != schoolbook, n=%zu q=%" PRIu64,
                       ref ? "ref" : "fast", n, q);
        }
        free(a);
        free(b);
        free(fa);
        free(fb);
        free(want);
        hepa_ntt_tables_destroy(t);
    }
}

/* ---- boundary inputs -------------------------------------------------------------------------- */

Test(ntt, boundary_inputs) {
    test_rng r;
    test_rng_init(&r);
    ntt_case c[MAX_CASES];
    size_t nc = build_cases(c, 4, 17);
    for (size_t i = 0; i < nc; ++i) {
        const size_t n = c[i].n;
        const uint64_t q = c[i].q;
        const unsigned lg = test_log2(n);
        hepa_ntt_tables *t = make_tables(n, q);
        const uint64_t psi = hepa_ntt_tables_psi(t);
        uint64_t *a = test_alloc(n), *x = test_alloc(n), *y = test_alloc(n), *w = test_alloc(n);

        /* zeros stay zeros both ways */
        memset(a, 0, n * sizeof *a);
        memset(w, 0, n * sizeof *w);
        memcpy(x, a, n * sizeof *a);
        T_OK(hepa_ntt_forward(t, x));
        T_ARRAY_EQ(x, w, n, "forward(0), n=%zu q=%" PRIu64, n, q);
        T_OK(hepa_ntt_inverse(t, x));
        T_ARRAY_EQ(x, w, n, "inverse(0), n=%zu q=%" PRIu64, n, q);

        /* all q-1: the largest values every butterfly can see; against the reference and the
         * direct evaluation, then round trip */
        for (size_t j = 0; j < n; ++j) a[j] = q - 1;
        memcpy(x, a, n * sizeof *a);
        memcpy(y, a, n * sizeof *a);
        T_OK(hepa_ntt_forward(t, x));
        T_OK(hepa_ntt_forward_ref(t, y));
        T_ARRAY_EQ(x, y, n, "forward(all q-1) fast vs ref, n=%zu q=%" PRIu64, n, q);
        check_convention(&r, a, x, n, q, psi, 256, "forward(all q-1)");
        T_OK(hepa_ntt_inverse(t, x));
        T_ARRAY_EQ(x, a, n, "round trip of all q-1, n=%zu q=%" PRIu64, n, q);
        memcpy(x, a, n * sizeof *a);
        memcpy(y, a, n * sizeof *a);
        T_OK(hepa_ntt_inverse(t, x));
        T_OK(hepa_ntt_inverse_ref(t, y));
        T_ARRAY_EQ(x, y, n, "inverse(all q-1) fast vs ref, n=%zu q=%" PRIu64, n, q);

        /* δ_0 = 1: every evaluation is 1; and inverse(all ones) = δ_0 */
        memset(a, 0, n * sizeof *a);
        a[0] = 1;
        for (size_t j = 0; j < n; ++j) w[j] = 1;
        memcpy(x, a, n * sizeof *a);
        T_OK(hepa_ntt_forward(t, x));
        T_ARRAY_EQ(x, w, n, "forward(1) != all ones, n=%zu q=%" PRIu64, n, q);
        T_OK(hepa_ntt_inverse(t, x));
        T_ARRAY_EQ(x, a, n, "inverse(all ones) != 1, n=%zu q=%" PRIu64, n, q);

        /* x^(n-1): NTT[k] = ψ^((2 rev(k) + 1)(n-1)) */
        memset(a, 0, n * sizeof *a);
        a[n - 1] = 1;
        memcpy(x, a, n * sizeof *a);
        T_OK(hepa_ntt_forward(t, x));
        for (size_t k = 0; k < n; ++k) {
            uint64_t e = ((2 * (uint64_t)test_bitrev(k, lg) + 1) * (n - 1)) % (2 * n);
            w[k] = test_powmod(psi, e, q);
        }
        T_ARRAY_EQ(x, w, n, "forward(x^(n-1)), n=%zu q=%" PRIu64, n, q);
        T_OK(hepa_ntt_inverse(t, x));
        T_ARRAY_EQ(x, a, n, "round trip of x^(n-1), n=%zu q=%" PRIu64, n, q);

        free(a);
        free(x);
        free(y);
        free(w);
        hepa_ntt_tables_destroy(t);
    }
}

/* ---- raw tier: stated input and output ranges ----------------------------------------------- */

Test(ntt, raw_tier_ranges) {
    test_rng r;
    test_rng_init(&r);
    ntt_case c[MAX_CASES];
    size_t nc = build_cases(c, 1, 17);
    for (size_t i = 0; i < nc; ++i) {
        const size_t n = c[i].n;
        const uint64_t q = c[i].q;
        hepa_ntt_tables *t = make_tables(n, q);
        uint64_t *a = test_alloc(n), *red = test_alloc(n), *x = test_alloc(n), *want = test_alloc(n);
        for (int rep = 0; rep < 3; ++rep) {
            /* rep 0: strict input; rep 1: random lazy input in [0, 4q); rep 2: all 4q-1 */
            for (size_t j = 0; j < n; ++j) {
                if (rep == 0)
                    a[j] = test_rand_below(&r, q);
                else if (rep == 1)
                    a[j] = test_rand_below(&r, 4 * q);
                else
                    a[j] = 4 * q - 1;
                red[j] = a[j] % q;
            }
            memcpy(want, red, n * sizeof *red);
            T_OK(hepa_ntt_forward_ref(t, want));

            memcpy(x, a, n * sizeof *a);
            _hepa_ntt_forward_lazy(t, x);
            for (size_t j = 0; j < n; ++j)
                T_CHECK(x[j] < 4 * q && x[j] % q == want[j],
                        "_hepa_ntt_forward_lazy rep %d n=%zu q=%" PRIu64 ": out[%zu] = %" PRIu64
                        " (want %" PRIu64 " mod q, < 4q)",
                        rep, n, q, j, x[j], want[j]);
            memcpy(x, a, n * sizeof *a);
            _hepa_ntt_forward(t, x);
            T_ARRAY_EQ(x, want, n, "_hepa_ntt_forward rep %d n=%zu q=%" PRIu64, rep, n, q);
        }
        for (int rep = 0; rep < 3; ++rep) {
            /* inverse: input in [0, 2q) */
            for (size_t j = 0; j < n; ++j) {
                if (rep == 0)
                    a[j] = test_rand_below(&r, q);
                else if (rep == 1)
                    a[j] = test_rand_below(&r, 2 * q);
                else
                    a[j] = 2 * q - 1;
                red[j] = a[j] % q;
            }
            memcpy(want, red, n * sizeof *red);
            T_OK(hepa_ntt_inverse_ref(t, want));
            memcpy(x, a, n * sizeof *a);
            _hepa_ntt_inverse_lazy(t, x);
            for (size_t j = 0; j < n; ++j)
                T_CHECK(x[j] < 2 * q && x[j] % q == want[j],
                        "_hepa_ntt_inverse_lazy rep %d n=%zu q=%" PRIu64 ": out[%zu] = %" PRIu64
                        " (want %" PRIu64 " mod q, < 2q)",
                        rep, n, q, j, x[j], want[j]);
            memcpy(x, a, n * sizeof *a);
            _hepa_ntt_inverse(t, x);
            T_ARRAY_EQ(x, want, n, "_hepa_ntt_inverse rep %d n=%zu q=%" PRIu64, rep, n, q);
        }
        free(a);
        free(red);
        free(x);
        free(want);
        hepa_ntt_tables_destroy(t);
    }
}

/* ---- argument checking of the checked tier --------------------------------------------------- */

Test(ntt, transforms_bad_arguments) {
    test_rng r;
    test_rng_init(&r);
    hepa_status (*fn[4])(const hepa_ntt_tables *, uint64_t *) = {
        hepa_ntt_forward, hepa_ntt_inverse, hepa_ntt_forward_ref, hepa_ntt_inverse_ref};
    const char *name[4] = {"forward", "inverse", "forward_ref", "inverse_ref"};
    const size_t sizes[] = {16, 1024};
    for (size_t s = 0; s < 2; ++s) {
        const size_t n = sizes[s];
        const uint64_t q = test_prev_prime_1mod(UINT64_C(1) << 62, 2 * n, 3);
        hepa_ntt_tables *t = make_tables(n, q);
        uint64_t *a = test_alloc(n), *x = test_alloc(n);
        for (int f = 0; f < 4; ++f) {
            test_fill_residues(&r, a, n, q);
            memcpy(x, a, n * sizeof *a);
            T_CHECK(fn[f](NULL, x) == HEPA_ERR_INVALID_ARGUMENT, "%s(NULL tables)", name[f]);
            T_ARRAY_EQ(x, a, n, "%s(NULL tables) touched the array", name[f]);
            T_CHECK(fn[f](t, NULL) == HEPA_ERR_INVALID_ARGUMENT, "%s(NULL array)", name[f]);
            /* a residue >= q anywhere: rejected, array untouched */
            const uint64_t bad_vals[] = {q, q + 1, 2 * q, UINT64_MAX};
            const size_t where[] = {0, n - 1, 1 + test_rand_below(&r, n - 2)};
            for (size_t v = 0; v < 4; ++v)
                for (size_t w = 0; w < 3; ++w) {
                    memcpy(x, a, n * sizeof *a);
                    x[where[w]] = bad_vals[v];
                    memcpy(a, x, n * sizeof *a);
                    hepa_status st = fn[f](t, x);
                    T_CHECK(st == HEPA_ERR_INVALID_ARGUMENT,
                            "%s: residue %" PRIu64 " >= q at %zu accepted (status %d), n=%zu",
                            name[f], bad_vals[v], where[w], (int)st, n);
                    T_ARRAY_EQ(x, a, n, "%s: array modified on failure", name[f]);
                    a[where[w]] = 0;
                }
        }
        free(a);
        free(x);
        hepa_ntt_tables_destroy(t);
    }
}
