/* tests/test_bigprime.c — the big prime field p = r^k + 1 (hepa/bigprime.h) against GMP.
 *
 * The ground truth is written here independently of the library: p = r^k + 1 computed by GMP,
 * element values by Horner's rule, the canonical digits of a residue by repeated division, the
 * DFT as an O(N^2) sum, polynomial products by schoolbook. A result is accepted when its digits
 * are canonical (checked here) and its value is the expected residue — the canonical form of a
 * residue being unique, that pins every digit. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "hepa/bigprime.h"

/* ---- fields under test ----------------------------------------------------------------------- */

typedef struct {
    const char *name;
    int named; /* >= 0: a hepa_bp_prime; -1: created from (w, u, sign, k) */
    unsigned w, u, k;
    int sign;
} field_spec;

/* The named fields, then others chosen to reach the corners: sign -1 at full width, r = 3·2^u
 * (w = u + 1), k = 2, and tiny fields (r = 2, r = 6, r = 20) where whole fields can be swept and
 * carries are large compared with r. Each custom p was checked prime with GMP. */
static const field_spec specs[] = {
    {"P3", HEPA_BP_P3, 63, 34, 8, 1},
    {"P4", HEPA_BP_P4, 62, 36, 16, 1},
    {"W59_K8", HEPA_BP_W59_K8, 59, 16, 8, 1},
    {"W58_K16", HEPA_BP_W58_K16, 58, 10, 16, 1},
    {"W56_K32", HEPA_BP_W56_K32, 56, 21, 32, 1},
    {"W47_K64", HEPA_BP_W47_K64, 47, 32, 64, 1},
    {"(2^63-2^45)^4+1", -1, 63, 45, 4, -1},
    {"(2^62-2^59)^2+1", -1, 62, 59, 2, -1},
    {"(2^63+2^53)^2+1", -1, 63, 53, 2, 1},
    {"(2^39+2^38)^4+1", -1, 39, 38, 4, 1},
    {"37=6^2+1", -1, 3, 1, 2, -1},
    {"257=2^8+1", -1, 2, 1, 8, -1},
    {"65537=2^16+1", -1, 2, 1, 16, -1},
    {"401=20^2+1", -1, 4, 2, 2, 1},
    {"1297=6^4+1", -1, 2, 1, 4, 1},
};
#define NSPECS (sizeof specs / sizeof specs[0])
#define NNAMED 6u

typedef struct {
    const char *name;
    hepa_bp_field *f;
    unsigned k, K;
    uint64_t r;
    mpz_t p, rz;
} tfield;

static void tf_init(tfield *t, const field_spec *s) {
    t->name = s->name;
    t->f = NULL;
    if (s->named >= 0)
        T_OK(hepa_bp_field_create_named(&t->f, (hepa_bp_prime)s->named));
    else
        T_OK(hepa_bp_field_create(&t->f, s->w, s->u, s->sign, s->k));
    cr_assert(t->f != NULL);
    t->k = s->k;
    t->K = 2 * s->k;
    mpz_init(t->rz);
    mpz_init(t->p);
    mpz_set_ui(t->rz, 1);
    mpz_mul_2exp(t->rz, t->rz, s->w);
    mpz_t two_u;
    mpz_init_set_ui(two_u, 1);
    mpz_mul_2exp(two_u, two_u, s->u);
    if (s->sign > 0)
        mpz_add(t->rz, t->rz, two_u);
    else
        mpz_sub(t->rz, t->rz, two_u);
    mpz_clear(two_u);
    t->r = mpz_get_ui(t->rz);
    mpz_pow_ui(t->p, t->rz, s->k);
    mpz_add_ui(t->p, t->p, 1);
}

static void tf_clear(tfield *t) {
    hepa_bp_field_destroy(t->f);
    mpz_clear(t->p);
    mpz_clear(t->rz);
}

/* ---- independent element helpers ------------------------------------------------------------- */

/* Canonical (see hepa/bigprime.h): all digits < r, or top digit r and the rest 0. */
static int ref_valid(const tfield *t, const uint64_t *x) {
    int rest_zero = 1, all_below = 1;
    for (unsigned m = 0; m + 1 < t->k; ++m) {
        rest_zero &= x[m] == 0;
        all_below &= x[m] < t->r;
    }
    return (all_below && x[t->k - 1] < t->r) || (rest_zero && x[t->k - 1] == t->r);
}

static void ref_value(const tfield *t, mpz_t out, const uint64_t *x) {
    mpz_set_ui(out, 0);
    for (unsigned m = t->k; m-- > 0;) {
        mpz_mul(out, out, t->rz);
        mpz_add_ui(out, out, x[m]);
    }
}

/* x = the canonical digits of v mod p. */
static void ref_digits(const tfield *t, uint64_t *x, const mpz_t v) {
    mpz_t a;
    mpz_init(a);
    mpz_mod(a, v, t->p);
    mpz_add_ui(a, a, 1);
    if (mpz_cmp(a, t->p) == 0) {
        memset(x, 0, t->k * sizeof *x);
        x[t->k - 1] = t->r;
    } else {
        mpz_sub_ui(a, a, 1);
        for (unsigned m = 0; m < t->k; ++m) x[m] = mpz_fdiv_q_ui(a, a, t->r);
    }
    mpz_clear(a);
}

/* Asserts that z is canonical with value ≡ want (mod p). */
static void check_elem(const tfield *t, const uint64_t *z, const mpz_t want, const char *what,
                       size_t a, size_t b) {
    T_CHECK(ref_valid(t, z), "%s: %s (%zu, %zu): result digits not canonical", t->name, what, a,
            b);
    mpz_t got, w;
    mpz_inits(got, w, NULL);
    ref_value(t, got, z);
    mpz_mod(w, want, t->p);
    if (mpz_cmp(got, w) != 0) {
        char *gs = mpz_get_str(NULL, 16, got), *ws = mpz_get_str(NULL, 16, w);
        T_CHECK(0, "%s: %s (%zu, %zu): got 0x%.200s, want 0x%.200s", t->name, what, a, b, gs, ws);
    }
    mpz_clears(got, w, NULL);
}

/* The boundary values: 0, 1, 2, p-1, p-2 (= r^k - 1: all digits r - 1), p-3, r^i, r^i - 1,
 * p - r^i (i < k), (r-1)·r^(k-1) (top digit r - 1 alone), (p-1)/2, (p+1)/2. Returns the count;
 * out needs 9 + 3k entries, initialised. */
static size_t boundary_values(const tfield *t, mpz_t *out) {
    size_t n = 0;
    mpz_set_ui(out[n++], 0);
    mpz_set_ui(out[n++], 1);
    mpz_set_ui(out[n++], 2);
    mpz_sub_ui(out[n++], t->p, 1);
    mpz_sub_ui(out[n++], t->p, 2);
    mpz_sub_ui(out[n++], t->p, 3);
    for (unsigned i = 0; i < t->k; ++i) {
        mpz_pow_ui(out[n], t->rz, i);
        mpz_sub_ui(out[n + 1], out[n], 1);
        mpz_sub(out[n + 2], t->p, out[n]);
        n += 3;
    }
    mpz_pow_ui(out[n], t->rz, t->k - 1);
    mpz_mul_ui(out[n], out[n], t->r - 1);
    ++n;
    mpz_sub_ui(out[n], t->p, 1);
    mpz_fdiv_q_2exp(out[n], out[n], 1);
    mpz_add_ui(out[n + 1], out[n], 1);
    n += 2;
    for (size_t j = 0; j < n; ++j) mpz_mod(out[j], out[j], t->p); /* tiny p: fold r^i etc. */
    return n;
}

/* A random residue: uniform, or with every digit drawn from {0, 1, r-1, r-2, uniform}, or p - 1. */
static void random_value(const tfield *t, test_rng *rng, gmp_randstate_t gr, mpz_t v) {
    switch (test_rand_below(rng, 4)) {
    case 0: mpz_urandomm(v, gr, t->p); break;
    case 1: {
        uint64_t x[HEPA_BP_MAX_K];
        for (unsigned m = 0; m < t->k; ++m) {
            switch (test_rand_below(rng, 5)) {
            case 0: x[m] = 0; break;
            case 1: x[m] = 1 % t->r; break;
            case 2: x[m] = t->r - 1; break;
            case 3: x[m] = t->r - 2; break;
            default: x[m] = test_rand_below(rng, t->r);
            }
        }
        ref_value(t, v, x);
        break;
    }
    case 2:
        if (test_rand_below(rng, 8) == 0) {
            mpz_sub_ui(v, t->p, 1);
            break;
        }
        /* fall through */
    default: mpz_urandomm(v, gr, t->p);
    }
}


static void gmp_rand_init(gmp_randstate_t gr, test_rng *rng) {
    gmp_randinit_default(gr);
    gmp_randseed_ui(gr, test_rand64(rng));
}

static unsigned ilog2(size_t n) {
    unsigned l = 0;
    while (((size_t)1 << l) < n) ++l;
    return l;
}

/* ---- fields ---------------------------------------------------------------------------------- */

Test(bigprime_field, parameters_and_primality) {
    mpz_t p, pm1, q;
    mpz_inits(p, pm1, q, NULL);
    for (size_t s = 0; s < NSPECS; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        const hepa_bp_field *f = t.f;
        cr_assert_eq(hepa_bp_field_k(f), specs[s].k, "%s", t.name);
        cr_assert_eq(hepa_bp_field_K(f), 2 * specs[s].k, "%s", t.name);
        cr_assert_eq(hepa_bp_field_w(f), specs[s].w, "%s", t.name);
        cr_assert_eq(hepa_bp_field_u(f), specs[s].u, "%s", t.name);
        cr_assert_eq(hepa_bp_field_sign(f), specs[s].sign, "%s", t.name);
        cr_assert_eq(hepa_bp_field_r(f), t.r, "%s", t.name);
        T_OK(hepa_bp_field_prime(f, p));
        cr_assert(mpz_cmp(p, t.p) == 0, "%s: p != r^k + 1", t.name);
        cr_assert(mpz_probab_prime_p(t.p, 30) > 0, "%s: p is not prime", t.name);
        cr_assert_eq(hepa_bp_field_bits(f), (unsigned)mpz_sizeinbase(t.p, 2), "%s", t.name);
        mpz_sub_ui(pm1, t.p, 1);
        const unsigned v2 = (unsigned)mpz_scan1(pm1, 0);
        cr_assert_eq(hepa_bp_field_v2(f), v2, "%s", t.name);
        cr_assert_eq(v2, specs[s].u * specs[s].k, "%s: v2 != u·k", t.name);
        tf_clear(&t);
    }
    /* the values the issue and FACTS.md quote */
    hepa_bp_field *f = NULL;
    T_OK(hepa_bp_field_create_named(&f, HEPA_BP_P3));
    cr_assert_eq(hepa_bp_field_r(f), UINT64_C(9223372054034644992));
    cr_assert_eq(hepa_bp_field_bits(f), 505);
    cr_assert_eq(hepa_bp_field_v2(f), 272);
    hepa_bp_field_destroy(f);
    T_OK(hepa_bp_field_create_named(&f, HEPA_BP_P4));
    cr_assert_eq(hepa_bp_field_r(f), UINT64_C(4611686087146864640));
    cr_assert_eq(hepa_bp_field_bits(f), 993);
    cr_assert_eq(hepa_bp_field_v2(f), 576);
    hepa_bp_field_destroy(f);
    mpz_clears(p, pm1, q, NULL);
}

/* A named field and the same parameters through hepa_bp_field_create are the same field, down to
 * the roots of unity. */
Test(bigprime_field, named_equals_created) {
    for (size_t s = 0; s < NNAMED; ++s) {
        if (specs[s].k > 32) continue; /* the 3009-bit primality test alone takes 0.2 s */
        hepa_bp_field *a = NULL, *b = NULL;
        T_OK(hepa_bp_field_create_named(&a, (hepa_bp_prime)specs[s].named));
        T_OK(hepa_bp_field_create(&b, specs[s].w, specs[s].u, 1, specs[s].k));
        uint64_t wa[HEPA_BP_MAX_K], wb[HEPA_BP_MAX_K];
        const size_t N = (size_t)1 << 20;
        T_OK(hepa_bp_root_of_unity(a, wa, N));
        T_OK(hepa_bp_root_of_unity(b, wb, N));
        T_ARRAY_EQ(wa, wb, specs[s].k, "%s: root of order 2^20", specs[s].name);
        hepa_bp_field_destroy(a);
        hepa_bp_field_destroy(b);
    }
}

Test(bigprime_field, bad_parameters) {
    hepa_bp_field *const sentinel = (hepa_bp_field *)(uintptr_t)0x1234;
    hepa_bp_field *f = sentinel;
    mpz_t p, r;
    mpz_inits(p, r, NULL);
    /* composite p, each asserted composite here first */
    static const struct {
        unsigned w, u;
        int sign;
        unsigned k;
    } composite[] = {
        {63, 0, 1, 8},  /* r odd: p even */
        {63, 34, -1, 8}, {63, 33, 1, 8}, {62, 36, 1, 8}, {62, 36, 1, 32},
    };
    for (size_t c = 0; c < sizeof composite / sizeof composite[0]; ++c) {
        mpz_set_ui(r, 1);
        mpz_mul_2exp(r, r, composite[c].w);
        if (composite[c].sign > 0)
            mpz_add_ui(r, r, UINT64_C(1) << composite[c].u);
        else
            mpz_sub_ui(r, r, UINT64_C(1) << composite[c].u);
        mpz_pow_ui(p, r, composite[c].k);
        mpz_add_ui(p, p, 1);
        cr_assert(!mpz_probab_prime_p(p, 30), "case %zu is prime", c);
        T_STATUS(hepa_bp_field_create(&f, composite[c].w, composite[c].u, composite[c].sign,
                                      composite[c].k),
                 HEPA_ERR_INVALID_ARGUMENT);
        cr_assert_eq(f, sentinel, "out written on failure");
    }
    /* parameters out of range (some around the prime P3 = (2^63 + 2^34)^8 + 1) */
    T_STATUS(hepa_bp_field_create(&f, 63, 34, 1, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create(&f, 63, 34, 1, 1), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create(&f, 63, 34, 1, 3), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create(&f, 63, 34, 1, 6), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create(&f, 63, 34, 1, 12), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create(&f, 63, 34, 1, 2 * HEPA_BP_MAX_K), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create(&f, 34, 34, 1, 8), HEPA_ERR_INVALID_ARGUMENT); /* u = w */
    T_STATUS(hepa_bp_field_create(&f, 34, 63, 1, 8), HEPA_ERR_INVALID_ARGUMENT); /* u > w */
    T_STATUS(hepa_bp_field_create(&f, 64, 34, 1, 8), HEPA_ERR_INVALID_ARGUMENT); /* w > 63 */
    T_STATUS(hepa_bp_field_create(&f, 64, 63, -1, 2), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create(&f, 100, 34, 1, 8), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create(&f, 63, 34, 0, 8), HEPA_ERR_INVALID_ARGUMENT);  /* sign */
    T_STATUS(hepa_bp_field_create(&f, 63, 34, 2, 8), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create(&f, 63, 34, -2, 8), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create(&f, 1, 0, -1, 2), HEPA_ERR_INVALID_ARGUMENT); /* r = 1, p = 2 */
    cr_assert_eq(f, sentinel, "out written on failure");
    T_STATUS(hepa_bp_field_create(NULL, 63, 34, 1, 8), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create_named(NULL, HEPA_BP_P3), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create_named(&f, HEPA_BP_PRIME_COUNT), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_field_create_named(&f, (hepa_bp_prime)-1), HEPA_ERR_INVALID_ARGUMENT);
    cr_assert_eq(f, sentinel, "out written on failure");
    /* destroy(NULL) and the accessors on NULL */
    hepa_bp_field_destroy(NULL);
    cr_assert_eq(hepa_bp_field_k(NULL), 0);
    cr_assert_eq(hepa_bp_field_K(NULL), 0);
    cr_assert_eq(hepa_bp_field_r(NULL), 0);
    cr_assert_eq(hepa_bp_field_w(NULL), 0);
    cr_assert_eq(hepa_bp_field_u(NULL), 0);
    cr_assert_eq(hepa_bp_field_sign(NULL), 0);
    cr_assert_eq(hepa_bp_field_bits(NULL), 0);
    cr_assert_eq(hepa_bp_field_v2(NULL), 0);
    T_STATUS(hepa_bp_field_prime(NULL, p), HEPA_ERR_INVALID_ARGUMENT);
    T_OK(hepa_bp_field_create_named(&f, HEPA_BP_P3));
    T_STATUS(hepa_bp_field_prime(f, NULL), HEPA_ERR_INVALID_ARGUMENT);
    hepa_bp_field_destroy(f);
    mpz_clears(p, r, NULL);
}

/* ---- conversions ----------------------------------------------------------------------------- */

Test(bigprime_convert, from_to_mpz) {
    test_rng rng;
    test_rng_init(&rng);
    gmp_randstate_t gr;
    gmp_rand_init(gr, &rng);
    mpz_t v, got, want;
    mpz_inits(v, got, want, NULL);
    uint64_t x[HEPA_BP_MAX_K], ref[HEPA_BP_MAX_K];
    for (size_t s = 0; s < NSPECS; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        const unsigned k = t.k;
        for (size_t c = 0; c < 64; ++c) {
            switch (c) {
            case 0: mpz_set_ui(v, 0); break;
            case 1: mpz_set_si(v, 1); break;
            case 2: mpz_set_si(v, -1); break;
            case 3: mpz_sub_ui(v, t.p, 1); break;
            case 4: mpz_set(v, t.p); break;
            case 5: mpz_neg(v, t.p); break;
            case 6: mpz_add_ui(v, t.p, 1); break;
            case 7: mpz_mul_2exp(v, t.p, 1); mpz_sub_ui(v, v, 1); break; /* 2p - 1 */
            case 8: mpz_sub_ui(v, t.p, 1); mpz_neg(v, v); break;         /* -(p - 1) ≡ 1 */
            case 9: mpz_mul(v, t.p, t.p); break;
            case 10: mpz_mul(v, t.p, t.p); mpz_sub_ui(v, v, 1); break; /* ≡ -1 */
            case 11: mpz_set(v, t.rz); break;
            case 12: mpz_pow_ui(v, t.rz, k); break; /* r^k = p - 1 */
            case 13: mpz_pow_ui(v, t.rz, k); mpz_neg(v, v); break; /* ≡ 1 */
            case 14: mpz_set_si(v, INT64_MIN); break;
            case 15: mpz_set_ui(v, UINT64_MAX); break;
            default:
                if (c & 1) {
                    mpz_urandomb(v, gr, 2 * mpz_sizeinbase(t.p, 2) + 7);
                    if (c & 2) mpz_neg(v, v);
                } else {
                    random_value(&t, &rng, gr, v);
                }
            }
            test_poison(x, k);
            T_OK(hepa_bp_from_mpz(t.f, x, v));
            ref_digits(&t, ref, v);
            T_ARRAY_EQ(x, ref, k, "%s: from_mpz case %zu", t.name, c);
            cr_assert(hepa_bp_is_valid(t.f, x));
            mpz_set_si(got, -5);
            T_OK(hepa_bp_to_mpz(t.f, got, x));
            mpz_mod(want, v, t.p);
            cr_assert(mpz_cmp(got, want) == 0, "%s: to_mpz(from_mpz(v)) != v mod p, case %zu",
                      t.name, c);
        }
        /* the representation itself: p - 1 = (0, .., 0, r); p - 2 = (r-1, .., r-1); r^i */
        mpz_sub_ui(v, t.p, 1);
        T_OK(hepa_bp_from_mpz(t.f, x, v));
        for (unsigned m = 0; m + 1 < k; ++m) cr_assert_eq(x[m], 0, "%s: p-1 digit %u", t.name, m);
        cr_assert_eq(x[k - 1], t.r, "%s: p-1 top digit", t.name);
        mpz_sub_ui(v, t.p, 2);
        T_OK(hepa_bp_from_mpz(t.f, x, v));
        for (unsigned m = 0; m < k; ++m) cr_assert_eq(x[m], t.r - 1, "%s: p-2 digit %u", t.name, m);
        for (unsigned i = 0; i < k; ++i) {
            mpz_pow_ui(v, t.rz, i);
            T_OK(hepa_bp_from_mpz(t.f, x, v));
            for (unsigned m = 0; m < k; ++m)
                cr_assert_eq(x[m], m == i, "%s: r^%u digit %u", t.name, i, m);
        }
        tf_clear(&t);
    }
    gmp_randclear(gr);
    mpz_clears(v, got, want, NULL);
}

/* Writes invalid pattern `c` (of INVALID_PATTERNS) into x; returns 0 when the pattern does not
 * apply to this field. */
#define INVALID_PATTERNS 11
static int invalid_pattern(const tfield *t, uint64_t *x, size_t c) {
    const unsigned k = t->k;
    memset(x, 0, k * sizeof *x);
    switch (c) {
    case 0: x[0] = t->r; break;                   /* digit r at the bottom */
    case 1: x[k - 2] = t->r; break;               /* digit r just below the top */
    case 2: x[k - 1] = t->r; x[0] = 1; break;     /* p - 1 plus one */
    case 3: x[k - 1] = t->r; x[k - 2] = 1; break;
    case 4: x[k - 1] = t->r + 1; break;           /* top digit above r */
    case 5: x[k / 2] = t->r + 1; break;
    case 6: x[k - 1] = UINT64_MAX; break;
    case 7: test_poison(x, k); break;
    case 8: for (unsigned m = 0; m < k; ++m) x[m] = t->r; break;
    case 9: for (unsigned m = 0; m < k; ++m) x[m] = t->r - 1; x[k - 1] = t->r; break;
    case 10: x[0] = t->r; x[k - 1] = t->r - 1; break;
    default: return 0;
    }
    return 1;
}

/* Every checked entry point rejects a non-canonical element, in any operand position, and
 * leaves its output as it was. */
Test(bigprime_convert, invalid_digits_rejected) {
    uint64_t bad[HEPA_BP_MAX_K], good[HEPA_BP_MAX_K], z[HEPA_BP_MAX_K], z0[HEPA_BP_MAX_K];
    mpz_t out;
    mpz_init(out);
    for (size_t s = 0; s < NSPECS; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        const unsigned k = t.k;
        memset(good, 0, sizeof good);
        good[0] = 1;
        for (size_t c = 0; c < INVALID_PATTERNS; ++c) {
            if (!invalid_pattern(&t, bad, c)) continue;
            cr_assert(!ref_valid(&t, bad), "%s: pattern %zu is valid", t.name, c);
            cr_assert_eq(hepa_bp_is_valid(t.f, bad), 0, "%s: is_valid(pattern %zu)", t.name, c);
            mpz_set_ui(out, 12345);
            T_STATUS(hepa_bp_to_mpz(t.f, out, bad), HEPA_ERR_INVALID_ARGUMENT);
            cr_assert(mpz_cmp_ui(out, 12345) == 0, "%s: to_mpz wrote on failure", t.name);
            test_poison(z0, k);
#define EXPECT_UNTOUCHED(call)                                                                     \
    do {                                                                                           \
        test_poison(z, k);                                                                         \
        T_STATUS(call, HEPA_ERR_INVALID_ARGUMENT);                                                 \
        T_ARRAY_EQ(z, z0, k, "%s: pattern %zu: %s wrote its output", t.name, c, #call);            \
    } while (0)
            EXPECT_UNTOUCHED(hepa_bp_add(t.f, z, bad, good));
            EXPECT_UNTOUCHED(hepa_bp_add(t.f, z, good, bad));
            EXPECT_UNTOUCHED(hepa_bp_sub(t.f, z, bad, good));
            EXPECT_UNTOUCHED(hepa_bp_sub(t.f, z, good, bad));
            EXPECT_UNTOUCHED(hepa_bp_mul(t.f, z, bad, good));
            EXPECT_UNTOUCHED(hepa_bp_mul(t.f, z, good, bad));
            EXPECT_UNTOUCHED(hepa_bp_neg(t.f, z, bad));
            EXPECT_UNTOUCHED(hepa_bp_inv(t.f, z, bad));
            EXPECT_UNTOUCHED(hepa_bp_mul_rpow(t.f, z, bad, 0));
            EXPECT_UNTOUCHED(hepa_bp_mul_rpow(t.f, z, bad, 1));
            /* in place: the invalid input is the output, and must stay as it was */
            memcpy(z, bad, k * sizeof *z);
            T_STATUS(hepa_bp_add(t.f, z, z, good), HEPA_ERR_INVALID_ARGUMENT);
            T_ARRAY_EQ(z, bad, k, "%s: pattern %zu: in-place add wrote", t.name, c);
        }
        /* NULL anywhere */
        test_poison(z, k);
        T_STATUS(hepa_bp_add(NULL, z, good, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_add(t.f, NULL, good, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_add(t.f, z, NULL, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_add(t.f, z, good, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_sub(NULL, z, good, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_sub(t.f, NULL, good, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_sub(t.f, z, NULL, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_sub(t.f, z, good, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_mul(NULL, z, good, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_mul(t.f, NULL, good, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_mul(t.f, z, NULL, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_mul(t.f, z, good, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_neg(NULL, z, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_neg(t.f, NULL, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_neg(t.f, z, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_inv(NULL, z, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_inv(t.f, NULL, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_inv(t.f, z, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_mul_rpow(NULL, z, good, 1), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_mul_rpow(t.f, NULL, good, 1), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_mul_rpow(t.f, z, NULL, 1), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_from_mpz(NULL, z, out), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_from_mpz(t.f, NULL, out), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_from_mpz(t.f, z, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_to_mpz(NULL, out, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_to_mpz(t.f, NULL, good), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_to_mpz(t.f, out, NULL), HEPA_ERR_INVALID_ARGUMENT);
        cr_assert_eq(hepa_bp_is_valid(NULL, good), 0);
        cr_assert_eq(hepa_bp_is_valid(t.f, NULL), 0);
        test_poison(z0, k);
        T_ARRAY_EQ(z, z0, k, "%s: a failed call with a NULL wrote its output", t.name);
        tf_clear(&t);
    }
    mpz_clear(out);
}

/* ---- arithmetic ------------------------------------------------------------------------------ */

enum { OP_ADD, OP_SUB, OP_MUL, OP_MUL_DIGITS, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"add", "sub", "mul", "mul_digits"};

/* Runs every binary op on (x, y) through the checked and the raw entry points and checks each
 * against GMP; then neg and inv on x. */
static void check_ops(const tfield *t, const uint64_t *x, const uint64_t *y, size_t a, size_t b) {
    const unsigned k = t->k;
    uint64_t z[HEPA_BP_MAX_K], z2[HEPA_BP_MAX_K];
    mpz_t vx, vy, want;
    mpz_inits(vx, vy, want, NULL);
    ref_value(t, vx, x);
    ref_value(t, vy, y);
    for (int op = 0; op < OP_COUNT; ++op) {
        test_poison(z, k);
        switch (op) {
        case OP_ADD:
            T_OK(hepa_bp_add(t->f, z, x, y));
            _hepa_bp_add(t->f, z2, x, y);
            mpz_add(want, vx, vy);
            break;
        case OP_SUB:
            T_OK(hepa_bp_sub(t->f, z, x, y));
            _hepa_bp_sub(t->f, z2, x, y);
            mpz_sub(want, vx, vy);
            break;
        case OP_MUL:
            T_OK(hepa_bp_mul(t->f, z, x, y));
            _hepa_bp_mul(t->f, z2, x, y);
            mpz_mul(want, vx, vy);
            break;
        default:
            _hepa_bp_mul_digits(t->f, z, x, y);
            _hepa_bp_mul(t->f, z2, x, y); /* the digit algorithm equals the reference */
            mpz_mul(want, vx, vy);
        }
        check_elem(t, z, want, op_names[op], a, b);
        T_ARRAY_EQ(z2, z, k, "%s: raw/checked or digits/reference %s differ at (%zu, %zu)",
                   t->name, op_names[op], a, b);
    }
    test_poison(z, k);
    T_OK(hepa_bp_neg(t->f, z, x));
    mpz_neg(want, vx);
    check_elem(t, z, want, "neg", a, b);
    if (mpz_sgn(vx) != 0) {
        test_poison(z, k);
        T_OK(hepa_bp_inv(t->f, z, x));
        cr_assert(mpz_invert(want, vx, t->p));
        check_elem(t, z, want, "inv", a, b);
        _hepa_bp_mul(t->f, z2, z, x); /* x · x^(-1) = 1 */
        mpz_set_ui(want, 1);
        check_elem(t, z2, want, "x·inv(x)", a, b);
    }
    mpz_clears(vx, vy, want, NULL);
}

/* Every pair of boundary values (a random sample of the pairs for k > 16), every field. */
Test(bigprime_arith, boundary_pairs) {
    test_rng rng;
    test_rng_init(&rng);
    for (size_t s = 0; s < NSPECS; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        const unsigned k = t.k;
        const size_t cap = 9 + 3 * (size_t)k;
        mpz_t *vals = test_mpz_array(cap);
        const size_t n = boundary_values(&t, vals);
        uint64_t *el = test_alloc(n * k);
        for (size_t j = 0; j < n; ++j) ref_digits(&t, el + j * k, vals[j]);
        if (k <= 16 && !test_quick()) {
            for (size_t a = 0; a < n; ++a)
                for (size_t b = 0; b < n; ++b) check_ops(&t, el + a * k, el + b * k, a, b);
        } else {
            for (size_t a = 0; a < n; ++a) check_ops(&t, el + a * k, el + a * k, a, a);
            const size_t pairs = test_quick() ? 200 : 1500;
            for (size_t c = 0; c < pairs; ++c) {
                const size_t a = test_rand_below(&rng, n), b = test_rand_below(&rng, n);
                check_ops(&t, el + a * k, el + b * k, a, b);
            }
        }
        free(el);
        test_mpz_array_free(vals, cap);
        tf_clear(&t);
    }
}

Test(bigprime_arith, random_pairs) {
    test_rng rng;
    test_rng_init(&rng);
    gmp_randstate_t gr;
    gmp_rand_init(gr, &rng);
    mpz_t v;
    mpz_init(v);
    uint64_t x[HEPA_BP_MAX_K], y[HEPA_BP_MAX_K];
    for (size_t s = 0; s < NSPECS; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        const size_t iters = (test_quick() ? 100 : 1000) / (t.k > 16 ? 4 : 1);
        for (size_t c = 0; c < iters; ++c) {
            random_value(&t, &rng, gr, v);
            ref_digits(&t, x, v);
            random_value(&t, &rng, gr, v);
            ref_digits(&t, y, v);
            check_ops(&t, x, y, c, c);
        }
        tf_clear(&t);
    }
    mpz_clear(v);
    gmp_randclear(gr);
}

/* Whole fields: every pair of 37 = 6^2 + 1, 257 = 2^8 + 1 and 401 = 20^2 + 1 (and every
 * element against every power of r). */
Test(bigprime_arith, exhaustive_small_fields) {
    static const size_t small[] = {10, 11, 13};
    mpz_t v;
    mpz_init(v);
    for (size_t si = 0; si < sizeof small / sizeof small[0]; ++si) {
        tfield t;
        tf_init(&t, &specs[small[si]]);
        const unsigned k = t.k;
        const size_t p = mpz_get_ui(t.p);
        uint64_t *el = test_alloc(p * k);
        for (size_t a = 0; a < p; ++a) {
            mpz_set_ui(v, a);
            ref_digits(&t, el + a * k, v);
        }
        uint64_t z[HEPA_BP_MAX_K];
#define CHECK_SMALL(expr_call, want, what)                                                         \
    do {                                                                                           \
        expr_call;                                                                                 \
        T_ARRAY_EQ(z, el + (size_t)(want) * k, k, "%s: %s(%zu, %zu)", t.name, what, a, b);         \
    } while (0)
        for (size_t a = 0; a < p; ++a) {
            size_t b = 0;
            for (; b < p; ++b) {
                const uint64_t *x = el + a * k, *y = el + b * k;
                CHECK_SMALL(_hepa_bp_add(t.f, z, x, y), (a + b) % p, "add");
                CHECK_SMALL(_hepa_bp_sub(t.f, z, x, y), (a + p - b) % p, "sub");
                CHECK_SMALL(_hepa_bp_mul_digits(t.f, z, x, y), (a * b) % p, "mul_digits");
                if ((a * 31 + b) % 7 == 0) /* the GMP reference: a seventh of the pairs */
                    CHECK_SMALL(_hepa_bp_mul(t.f, z, x, y), (a * b) % p, "mul");
            }
            b = 0;
            CHECK_SMALL(_hepa_bp_neg(t.f, z, el + a * k), (p - a) % p, "neg");
            size_t rp = 1; /* r^i mod p */
            for (unsigned i = 0; i < 2 * k; ++i, rp = rp * (t.r % p) % p) {
                b = i;
                CHECK_SMALL(_hepa_bp_mul_rpow(t.f, z, el + a * k, i), a * rp % p, "mul_rpow");
            }
        }
        free(el);
        tf_clear(&t);
    }
    mpz_clear(v);
}

/* x·r^i for every i in [0, 2k), boundary and random x, every field; i >= 2k is rejected. */
Test(bigprime_arith, mul_rpow_every_i) {
    test_rng rng;
    test_rng_init(&rng);
    gmp_randstate_t gr;
    gmp_rand_init(gr, &rng);
    mpz_t want, ri, vx;
    mpz_inits(want, ri, vx, NULL);
    for (size_t s = 0; s < NSPECS; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        const unsigned k = t.k;
        const size_t cap = 9 + 3 * (size_t)k, nrand = test_quick() ? 4 : 16;
        mpz_t *vals = test_mpz_array(cap + nrand);
        size_t n = boundary_values(&t, vals);
        for (size_t j = 0; j < nrand; ++j) random_value(&t, &rng, gr, vals[n++]);
        uint64_t x[HEPA_BP_MAX_K], z[HEPA_BP_MAX_K], z2[HEPA_BP_MAX_K];
        for (size_t j = 0; j < n; ++j) {
            ref_digits(&t, x, vals[j]);
            mpz_set_ui(ri, 1);
            for (unsigned i = 0; i < 2 * k; ++i) {
                test_poison(z, k);
                T_OK(hepa_bp_mul_rpow(t.f, z, x, i));
                mpz_mul(want, vals[j], ri);
                check_elem(&t, z, want, "mul_rpow", j, i);
                memcpy(z2, x, k * sizeof *z2); /* in place */
                _hepa_bp_mul_rpow(t.f, z2, z2, i);
                T_ARRAY_EQ(z2, z, k, "%s: in-place mul_rpow, value %zu, i %u", t.name, j, i);
                mpz_mul(ri, ri, t.rz);
            }
            test_poison(z, k);
            memcpy(z2, z, sizeof z);
            T_STATUS(hepa_bp_mul_rpow(t.f, z, x, 2 * k), HEPA_ERR_INVALID_ARGUMENT);
            T_STATUS(hepa_bp_mul_rpow(t.f, z, x, 2 * k + 1), HEPA_ERR_INVALID_ARGUMENT);
            T_STATUS(hepa_bp_mul_rpow(t.f, z, x, UINT32_MAX), HEPA_ERR_INVALID_ARGUMENT);
            T_ARRAY_EQ(z, z2, k, "%s: mul_rpow out of range wrote", t.name);
        }
        test_mpz_array_free(vals, cap + nrand);
        tf_clear(&t);
    }
    mpz_clears(want, ri, vx, NULL);
    gmp_randclear(gr);
}

/* z may alias x, y or both, in every raw and checked operation. */
Test(bigprime_arith, aliasing) {
    test_rng rng;
    test_rng_init(&rng);
    gmp_randstate_t gr;
    gmp_rand_init(gr, &rng);
    mpz_t v;
    mpz_init(v);
    for (size_t s = 0; s < NSPECS; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        const unsigned k = t.k;
        uint64_t x[HEPA_BP_MAX_K], y[HEPA_BP_MAX_K], want[HEPA_BP_MAX_K], z[HEPA_BP_MAX_K];
        for (size_t c = 0; c < 20; ++c) {
            random_value(&t, &rng, gr, v);
            ref_digits(&t, x, v);
            random_value(&t, &rng, gr, v);
            ref_digits(&t, y, v);
            if (c == 0) { /* p - 1 in place */
                mpz_sub_ui(v, t.p, 1);
                ref_digits(&t, x, v);
            }
#define ALIAS_BIN(opname, raw, checked)                                                            \
    do {                                                                                           \
        raw(t.f, want, x, y);                                                                      \
        memcpy(z, x, k * sizeof *z);                                                               \
        raw(t.f, z, z, y);                                                                         \
        T_ARRAY_EQ(z, want, k, "%s: raw %s z = x", t.name, opname);                                \
        memcpy(z, y, k * sizeof *z);                                                               \
        raw(t.f, z, x, z);                                                                         \
        T_ARRAY_EQ(z, want, k, "%s: raw %s z = y", t.name, opname);                                \
        memcpy(z, x, k * sizeof *z);                                                               \
        T_OK(checked(t.f, z, z, y));                                                               \
        T_ARRAY_EQ(z, want, k, "%s: checked %s z = x", t.name, opname);                            \
        memcpy(z, y, k * sizeof *z);                                                               \
        T_OK(checked(t.f, z, x, z));                                                               \
        T_ARRAY_EQ(z, want, k, "%s: checked %s z = y", t.name, opname);                            \
        raw(t.f, want, x, x);                                                                      \
        memcpy(z, x, k * sizeof *z);                                                               \
        raw(t.f, z, z, z);                                                                         \
        T_ARRAY_EQ(z, want, k, "%s: raw %s z = x = y", t.name, opname);                            \
        memcpy(z, x, k * sizeof *z);                                                               \
        T_OK(checked(t.f, z, z, z));                                                               \
        T_ARRAY_EQ(z, want, k, "%s: checked %s z = x = y", t.name, opname);                        \
    } while (0)
            ALIAS_BIN("add", _hepa_bp_add, hepa_bp_add);
            ALIAS_BIN("sub", _hepa_bp_sub, hepa_bp_sub);
            ALIAS_BIN("mul", _hepa_bp_mul, hepa_bp_mul);
            ALIAS_BIN("mul_digits", _hepa_bp_mul_digits, hepa_bp_mul); /* same results */
            _hepa_bp_neg(t.f, want, x);
            memcpy(z, x, k * sizeof *z);
            T_OK(hepa_bp_neg(t.f, z, z));
            T_ARRAY_EQ(z, want, k, "%s: neg in place", t.name);
            int nonzero = 0; /* tiny fields: x may be 0 */
            for (unsigned m = 0; m < k; ++m) nonzero |= x[m] != 0;
            if (nonzero) {
                _hepa_bp_inv(t.f, want, x);
                memcpy(z, x, k * sizeof *z);
                T_OK(hepa_bp_inv(t.f, z, z));
                T_ARRAY_EQ(z, want, k, "%s: inv in place", t.name);
            }
            const unsigned i = (unsigned)test_rand_below(&rng, 2 * k);
            _hepa_bp_mul_rpow(t.f, want, x, i);
            memcpy(z, x, k * sizeof *z);
            T_OK(hepa_bp_mul_rpow(t.f, z, z, i));
            T_ARRAY_EQ(z, want, k, "%s: mul_rpow in place", t.name);
        }
        tf_clear(&t);
    }
    mpz_clear(v);
    gmp_randclear(gr);
}

Test(bigprime_arith, inverse_of_zero) {
    for (size_t s = 0; s < NSPECS; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        uint64_t zero[HEPA_BP_MAX_K] = {0}, z[HEPA_BP_MAX_K], z0[HEPA_BP_MAX_K];
        test_poison(z, t.k);
        test_poison(z0, t.k);
        T_STATUS(hepa_bp_inv(t.f, z, zero), HEPA_ERR_INVALID_ARGUMENT);
        T_ARRAY_EQ(z, z0, t.k, "%s: inv(0) wrote its output", t.name);
        _hepa_bp_inv(t.f, z, zero); /* documented: the raw inverse of 0 is 0 */
        T_ARRAY_EQ(z, zero, t.k, "%s: raw inv(0)", t.name);
        tf_clear(&t);
    }
}

/* ---- roots of unity -------------------------------------------------------------------------- */

/* ω_N for N = 1 .. 2^min(v2, 22) (and 2^v2 and 2^63 where size_t reaches): ω^N = 1,
 * ω^(N/2) = -1 (so ω is primitive), ω^(N/K) = r when K | N, ω = r^(K/N) when N < K, and
 * ω_(2N)^2 = ω_N. */
Test(bigprime_roots, properties) {
    mpz_t w, prev, e, t1, t2, pm1;
    mpz_inits(w, prev, e, t1, t2, pm1, NULL);
    for (size_t s = 0; s < NSPECS; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        const unsigned v2 = hepa_bp_field_v2(t.f), K = t.K;
        mpz_sub_ui(pm1, t.p, 1);
        const unsigned top = v2 < 22 ? v2 : 22;
        uint64_t x[HEPA_BP_MAX_K];
        for (unsigned lg = 0; lg <= top + 2; ++lg) {
            unsigned l = lg;
            if (lg == top + 1) l = v2 < 64 ? v2 : 63; /* the largest supported size */
            if (lg == top + 2) {
                if (v2 >= 63) break;
                test_poison(x, t.k);
                T_STATUS(hepa_bp_root_of_unity(t.f, x, (size_t)1 << (v2 + 1)),
                         HEPA_ERR_UNSUPPORTED);
                for (unsigned m = 0; m < t.k; ++m)
                    cr_assert_eq(x[m], (UINT64_C(0xDEADBEEF00000000) | m), "written on failure");
                break;
            }
            const size_t N = (size_t)1 << l;
            test_poison(x, t.k);
            T_OK(hepa_bp_root_of_unity(t.f, x, N));
            cr_assert(ref_valid(&t, x), "%s: root of order 2^%u not canonical", t.name, l);
            ref_value(&t, w, x);
            mpz_set_ui(e, 1);
            mpz_mul_2exp(e, e, l);
            mpz_powm(t1, w, e, t.p);
            cr_assert(mpz_cmp_ui(t1, 1) == 0, "%s: ω^N != 1 for N = 2^%u", t.name, l);
            if (l >= 1) {
                mpz_fdiv_q_2exp(e, e, 1);
                mpz_powm(t1, w, e, t.p);
                cr_assert(mpz_cmp(t1, pm1) == 0, "%s: ω^(N/2) != -1 for N = 2^%u", t.name, l);
            } else {
                cr_assert(mpz_cmp_ui(w, 1) == 0, "%s: ω_1 != 1", t.name);
            }
            if (N >= K) {
                mpz_set_ui(e, 1);
                mpz_mul_2exp(e, e, l - ilog2(K));
                mpz_powm(t1, w, e, t.p);
                cr_assert(mpz_cmp(t1, t.rz) == 0, "%s: ω^(N/K) != r for N = 2^%u", t.name, l);
            } else {
                mpz_powm_ui(t1, t.rz, K / N, t.p);
                cr_assert(mpz_cmp(t1, w) == 0, "%s: ω != r^(K/N) for N = 2^%u", t.name, l);
            }
            if (lg >= 1 && lg <= top) { /* compatibility with the previous size */
                mpz_mul(t2, w, w);
                mpz_mod(t2, t2, t.p);
                cr_assert(mpz_cmp(t2, prev) == 0, "%s: ω_(2N)^2 != ω_N, 2N = 2^%u", t.name, l);
            }
            mpz_set(prev, w);
        }
        /* bad sizes */
        static const size_t bad[] = {0, 3, 6, 12, 17, 48, (size_t)1 << 20 | 1, SIZE_MAX};
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
            test_poison(x, t.k);
            T_STATUS(hepa_bp_root_of_unity(t.f, x, bad[b]), HEPA_ERR_INVALID_ARGUMENT);
            cr_assert_eq(x[0], UINT64_C(0xDEADBEEF00000000), "written on failure");
        }
        T_STATUS(hepa_bp_root_of_unity(NULL, x, 16), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_root_of_unity(t.f, NULL, 16), HEPA_ERR_INVALID_ARGUMENT);
        tf_clear(&t);
    }
    mpz_clears(w, prev, e, t1, t2, pm1, NULL);
}

/* ---- FFT ------------------------------------------------------------------------------------- */

/* out[j] = Σ_i in[i]·ω^(±ij) (· N^(-1) for the inverse) mod p, O(N^2). */
static void ref_dft(const tfield *t, mpz_t *out, const mpz_t *in, size_t N, const mpz_t omega,
                    int inverse) {
    mpz_t *pw = test_mpz_array(N);
    mpz_t om;
    mpz_init(om);
    if (inverse)
        cr_assert(mpz_invert(om, omega, t->p));
    else
        mpz_set(om, omega);
    mpz_set_ui(pw[0], 1);
    for (size_t m = 1; m < N; ++m) {
        mpz_mul(pw[m], pw[m - 1], om);
        mpz_mod(pw[m], pw[m], t->p);
    }
    for (size_t j = 0; j < N; ++j) {
        mpz_set_ui(out[j], 0);
        for (size_t i = 0; i < N; ++i) mpz_addmul(out[j], in[i], pw[(i * j) % N]);
        mpz_mod(out[j], out[j], t->p);
    }
    if (inverse) {
        mpz_set_ui(om, N);
        cr_assert(mpz_invert(om, om, t->p));
        for (size_t j = 0; j < N; ++j) {
            mpz_mul(out[j], out[j], om);
            mpz_mod(out[j], out[j], t->p);
        }
    }
    mpz_clear(om);
    test_mpz_array_free(pw, N);
}

/* A vector of N random elements with boundary values mixed in; vals gets their values. */
static void random_vector(const tfield *t, test_rng *rng, gmp_randstate_t gr, uint64_t *x,
                          mpz_t *vals, size_t N) {
    for (size_t j = 0; j < N; ++j) {
        switch (test_rand_below(rng, 6)) {
        case 0: mpz_sub_ui(vals[j], t->p, 1 + test_rand_below(rng, 2)); break; /* p-1, p-2 */
        case 1: mpz_set_ui(vals[j], test_rand_below(rng, 2)); break;
        default: random_value(t, rng, gr, vals[j]);
        }
        ref_digits(t, x + j * t->k, vals[j]);
    }
}

/* Forward and inverse against the O(N^2) DFT for N = 1 .. 64 and N = K, every field. */
Test(bigprime_fft, against_gmp_dft) {
    test_rng rng;
    test_rng_init(&rng);
    gmp_randstate_t gr;
    gmp_rand_init(gr, &rng);
    mpz_t omega;
    mpz_init(omega);
    for (size_t s = 0; s < NSPECS; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        const unsigned k = t.k, v2 = hepa_bp_field_v2(t.f);
        const unsigned maxlg = test_quick() ? 5 : 6;
        for (unsigned lg = 0; lg <= maxlg + 1; ++lg) {
            size_t N = (size_t)1 << lg;
            if (lg == maxlg + 1) {
                if (t.K <= ((size_t)1 << maxlg)) break;
                N = t.K; /* the multiplication-free size */
            }
            if (ilog2(N) > v2) break;
            uint64_t *x = test_alloc(N * k), *y = test_alloc(N * k), w[HEPA_BP_MAX_K];
            mpz_t *in = test_mpz_array(N), *want = test_mpz_array(N);
            T_OK(hepa_bp_root_of_unity(t.f, w, N));
            ref_value(&t, omega, w);
            for (int inverse = 0; inverse <= 1; ++inverse) {
                random_vector(&t, &rng, gr, x, in, N);
                memcpy(y, x, N * k * sizeof *y);
                T_OK(hepa_bp_fft(t.f, y, N, inverse));
                ref_dft(&t, want, (const mpz_t *)in, N, omega, inverse);
                for (size_t j = 0; j < N; ++j)
                    check_elem(&t, y + j * k, want[j], inverse ? "inverse fft" : "fft", N, j);
            }
            test_mpz_array_free(in, N);
            test_mpz_array_free(want, N);
            free(x);
            free(y);
        }
        tf_clear(&t);
    }
    mpz_clear(omega);
    gmp_randclear(gr);
}

/* inverse(forward(x)) = x up to N = 2^12 for P3 and P4 (2^9 in quick mode), plus spot checks of
 * forward outputs against single O(N) sums. */
Test(bigprime_fft, round_trip) {
    test_rng rng;
    test_rng_init(&rng);
    gmp_randstate_t gr;
    gmp_rand_init(gr, &rng);
    mpz_t omega, acc, pw, step;
    mpz_inits(omega, acc, pw, step, NULL);
    for (size_t s = 0; s < 2; ++s) {
        tfield t;
        tf_init(&t, &specs[s]);
        const unsigned k = t.k, maxlg = test_quick() ? 9 : 12;
        for (unsigned lg = 0; lg <= maxlg; lg += (lg < 4 ? 1 : 2)) {
            const size_t N = (size_t)1 << lg;
            uint64_t *x = test_alloc(N * k), *y = test_alloc(N * k), w[HEPA_BP_MAX_K];
            mpz_t *in = test_mpz_array(N);
            random_vector(&t, &rng, gr, x, in, N);
            memcpy(y, x, N * k * sizeof *y);
            T_OK(hepa_bp_fft(t.f, y, N, 0));
            T_OK(hepa_bp_root_of_unity(t.f, w, N));
            ref_value(&t, omega, w);
            for (int c = 0; c < 3; ++c) { /* X_j = Σ_i x_i ω^(ij) */
                const size_t j = c == 0 ? 0 : c == 1 ? N - 1 : test_rand_below(&rng, N);
                mpz_powm_ui(step, omega, j, t.p);
                mpz_set_ui(pw, 1);
                mpz_set_ui(acc, 0);
                for (size_t i = 0; i < N; ++i) {
                    mpz_addmul(acc, in[i], pw);
                    mpz_mul(pw, pw, step);
                    mpz_mod(pw, pw, t.p);
                }
                check_elem(&t, y + j * k, acc, "fft spot check", N, j);
            }
            T_OK(hepa_bp_fft(t.f, y, N, 1));
            T_ARRAY_EQ(y, x, N * k, "%s: inverse(forward(x)) != x, N = %zu", t.name, N);
            test_mpz_array_free(in, N);
            free(x);
            free(y);
        }
        tf_clear(&t);
    }
    mpz_clears(omega, acc, pw, step, NULL);
    gmp_randclear(gr);
}

Test(bigprime_fft, bad_input) {
    hepa_bp_field *f = NULL;
    T_OK(hepa_bp_field_create_named(&f, HEPA_BP_P3));
    const unsigned k = 8;
    const size_t N = 16;
    uint64_t *x = test_alloc(N * k), *x0 = test_alloc(N * k);
    memset(x, 0, N * k * sizeof *x);
    for (size_t j = 0; j < N; ++j) x[j * k] = j;
    memcpy(x0, x, N * k * sizeof *x);
    static const size_t bad[] = {0, 3, 6, 12, 24, SIZE_MAX};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b)
        T_STATUS(hepa_bp_fft(f, x, bad[b], 0), HEPA_ERR_INVALID_ARGUMENT);
    /* 2^62 passes the root check (v2 = 272) but 2^62·k words cannot exist */
    T_STATUS(hepa_bp_fft(f, x, (size_t)1 << 62, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_fft(NULL, x, N, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_fft(f, NULL, N, 0), HEPA_ERR_INVALID_ARGUMENT);
    /* a non-canonical element anywhere, the last one included: nothing written */
    x[(N - 1) * k + 3] = hepa_bp_field_r(f);
    T_STATUS(hepa_bp_fft(f, x, N, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_fft(f, x, N, 1), HEPA_ERR_INVALID_ARGUMENT);
    x[(N - 1) * k + 3] = 0;
    T_ARRAY_EQ(x, x0, N * k, "fft wrote on failure");
    hepa_bp_field_destroy(f);
    /* a field with v2 = 2 (37 = 6^2 + 1): N = 4 is the largest size */
    T_OK(hepa_bp_field_create(&f, 3, 1, -1, 2));
    cr_assert_eq(hepa_bp_field_v2(f), 2);
    uint64_t y[8 * 2] = {0}, y0[8 * 2] = {0};
    T_OK(hepa_bp_fft(f, y, 4, 0));
    T_STATUS(hepa_bp_fft(f, y, 8, 0), HEPA_ERR_UNSUPPORTED);
    T_STATUS(hepa_bp_fft(f, y, 8, 1), HEPA_ERR_UNSUPPORTED);
    T_ARRAY_EQ(y, y0, 16, "fft wrote on failure");
    hepa_bp_field_destroy(f);
    free(x);
    free(x0);
}

/* ---- polynomial products --------------------------------------------------------------------- */

/* out = a·b mod (x^N ∓ 1, p), schoolbook. */
static void ref_poly_mul(const tfield *t, mpz_t *out, const mpz_t *a, const mpz_t *b, size_t N,
                         int negacyclic) {
    for (size_t j = 0; j < N; ++j) mpz_set_ui(out[j], 0);
    for (size_t i = 0; i < N; ++i)
        for (size_t j = 0; j < N; ++j) {
            if (i + j < N)
                mpz_addmul(out[i + j], a[i], b[j]);
            else if (negacyclic)
                mpz_submul(out[i + j - N], a[i], b[j]);
            else
                mpz_addmul(out[i + j - N], a[i], b[j]);
        }
    for (size_t j = 0; j < N; ++j) mpz_mod(out[j], out[j], t->p);
}

/* Cyclic and negacyclic products for N = 1 .. 256 (64 in quick mode) against schoolbook, for P3,
 * P4, the 252-bit sign -1 field and (N <= 32) the 3009-bit field; then every aliasing pattern. */
Test(bigprime_poly, mul_against_schoolbook) {
    test_rng rng;
    test_rng_init(&rng);
    gmp_randstate_t gr;
    gmp_rand_init(gr, &rng);
    static const size_t which[] = {0, 1, 6, 5};
    for (size_t wi = 0; wi < sizeof which / sizeof which[0]; ++wi) {
        tfield t;
        tf_init(&t, &specs[which[wi]]);
        const unsigned k = t.k;
        const size_t maxN = t.k > 32 ? 32 : test_quick() ? 64 : 256;
        for (size_t N = 1; N <= maxN; N *= 2) {
            uint64_t *a = test_alloc(N * k), *b = test_alloc(N * k), *c = test_alloc(N * k),
                     *d = test_alloc(N * k);
            mpz_t *va = test_mpz_array(N), *vb = test_mpz_array(N), *want = test_mpz_array(N);
            for (int neg = 0; neg <= 1; ++neg) {
                random_vector(&t, &rng, gr, a, va, N);
                random_vector(&t, &rng, gr, b, vb, N);
                test_poison(c, N * k);
                T_OK(hepa_bp_poly_mul(t.f, c, a, b, N, neg));
                ref_poly_mul(&t, want, (const mpz_t *)va, (const mpz_t *)vb, N, neg);
                for (size_t j = 0; j < N; ++j)
                    check_elem(&t, c + j * k, want[j], neg ? "negacyclic" : "cyclic", N, j);
                /* out = a, out = b */
                memcpy(d, a, N * k * sizeof *d);
                T_OK(hepa_bp_poly_mul(t.f, d, d, b, N, neg));
                T_ARRAY_EQ(d, c, N * k, "%s: poly_mul out = a, N = %zu", t.name, N);
                memcpy(d, b, N * k * sizeof *d);
                T_OK(hepa_bp_poly_mul(t.f, d, a, d, N, neg));
                T_ARRAY_EQ(d, c, N * k, "%s: poly_mul out = b, N = %zu", t.name, N);
                if (N <= 16) { /* squaring with out = a = b */
                    ref_poly_mul(&t, want, (const mpz_t *)va, (const mpz_t *)va, N, neg);
                    memcpy(d, a, N * k * sizeof *d);
                    T_OK(hepa_bp_poly_mul(t.f, d, d, d, N, neg));
                    for (size_t j = 0; j < N; ++j)
                        check_elem(&t, d + j * k, want[j], "square in place", N, j);
                }
            }
            test_mpz_array_free(va, N);
            test_mpz_array_free(vb, N);
            test_mpz_array_free(want, N);
            free(a);
            free(b);
            free(c);
            free(d);
        }
        tf_clear(&t);
    }
    gmp_randclear(gr);
}

Test(bigprime_poly, bad_input) {
    hepa_bp_field *f = NULL;
    T_OK(hepa_bp_field_create_named(&f, HEPA_BP_P4));
    const unsigned k = 16;
    const size_t N = 8;
    uint64_t *a = test_alloc(N * k), *b = test_alloc(N * k), *out = test_alloc(N * k),
             *out0 = test_alloc(N * k);
    memset(a, 0, N * k * sizeof *a);
    memset(b, 0, N * k * sizeof *b);
    for (size_t j = 0; j < N; ++j) a[j * k] = b[j * k + 1] = j + 1;
    test_poison(out, N * k);
    memcpy(out0, out, N * k * sizeof *out);
    T_STATUS(hepa_bp_poly_mul(NULL, out, a, b, N, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_poly_mul(f, NULL, a, b, N, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_poly_mul(f, out, NULL, b, N, 1), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_poly_mul(f, out, a, NULL, N, 1), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_poly_mul(f, out, a, b, 0, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_poly_mul(f, out, a, b, 6, 1), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_poly_mul(f, out, a, b, (size_t)1 << 62, 1), HEPA_ERR_INVALID_ARGUMENT);
    b[(N - 1) * k + k - 1] = hepa_bp_field_r(f); /* top digit r with a nonzero digit below */
    T_STATUS(hepa_bp_poly_mul(f, out, a, b, N, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_poly_mul(f, out, b, a, N, 1), HEPA_ERR_INVALID_ARGUMENT);
    T_ARRAY_EQ(out, out0, N * k, "poly_mul wrote on failure");
    hepa_bp_field_destroy(f);
    /* 37 = 6^2 + 1 (v2 = 2): cyclic up to N = 4, negacyclic up to N = 2 */
    T_OK(hepa_bp_field_create(&f, 3, 1, -1, 2));
    uint64_t x[8] = {1, 0, 2, 0, 3, 0, 4, 0}, y[8] = {5, 0, 0, 1, 1, 1, 0, 6}, z[8], z0[8];
    test_poison(z, 8);
    memcpy(z0, z, sizeof z);
    T_STATUS(hepa_bp_poly_mul(f, z, x, y, 4, 1), HEPA_ERR_UNSUPPORTED);
    T_ARRAY_EQ(z, z0, 8, "poly_mul wrote on failure");
    T_OK(hepa_bp_poly_mul(f, z, x, y, 2, 1));
    T_OK(hepa_bp_poly_mul(f, z, x, y, 4, 0));
    hepa_bp_field_destroy(f);
    free(a);
    free(b);
    free(out);
    free(out0);
}
