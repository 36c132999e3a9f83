/* tests/test_poly.c — RNS polynomials (hepa/poly.h): creation, set/get, limb-wise arithmetic in
 * both domains, products, domain changes, and the ring/level/domain checks.
 *
 * Every operation writes into an output that was first filled with unrelated data in the other
 * domain, so an element the operation forgot to write, or a domain tag it forgot to set, fails. */
#include <string.h>

#include "test_util.h"
#include "hepa/ntt.h"
#include "hepa/poly.h"
#include "hepa/ring.h"

#define POISON_POLY ((hepa_poly *)(uintptr_t)0x1234)
#define L_MAX 4

typedef struct {
    size_t n, L;
    uint64_t q[L_MAX];
    hepa_ring *ring;
} fixture;

static void fixture_init(fixture *f, size_t n, size_t L, unsigned bits) {
    f->n = n;
    f->L = L;
    size_t got = test_primes_1mod_desc(f->q, L, bits, 2 * (uint64_t)n);
    cr_assert_eq(got, L);
    f->ring = NULL;
    hepa_status st = hepa_ring_create(&f->ring, n, f->q, L, HEPA_BACKEND_CPU);
    cr_assert_eq(st, HEPA_OK, "ring_create -> %d", (int)st);
}

static void fixture_fini(fixture *f) { hepa_ring_destroy(f->ring); }

static hepa_poly *make_poly(const hepa_ring *ring, size_t level) {
    hepa_poly *p = POISON_POLY;
    hepa_status st = hepa_poly_create(&p, ring, level);
    cr_assert_eq(st, HEPA_OK, "poly_create(level %zu) -> %d (%s)", level, (int)st,
                 hepa_status_string(st));
    cr_assert(p != NULL && p != POISON_POLY);
    return p;
}

/* Sets p to random residues of its level in `dom`; the host copy goes to `host` (level·n). */
static void set_random(test_rng *r, const fixture *f, hepa_poly *p, uint64_t *host,
                       hepa_domain dom) {
    size_t level = hepa_poly_level(p);
    for (size_t i = 0; i < level; ++i)
        for (size_t j = 0; j < f->n; ++j) host[i * f->n + j] = test_rand_residue_edgy(r, f->q[i]);
    T_OK(hepa_poly_set(p, host, dom));
}

/* Fills `out` with unrelated data tagged with the domain other than `dom`. */
static void poison_poly(test_rng *r, const fixture *f, hepa_poly *out, hepa_domain dom) {
    size_t level = hepa_poly_level(out);
    uint64_t *tmp = test_alloc(level * f->n);
    set_random(r, f, out, tmp, dom == HEPA_DOMAIN_COEFF ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF);
    free(tmp);
}

/* Reads p back (dst poisoned first so a short copy shows). */
static void get_all(const fixture *f, const hepa_poly *p, uint64_t *dst) {
    test_poison(dst, hepa_poly_level(p) * f->n);
    T_OK(hepa_poly_get(p, dst));
}

static const char *dom_name(hepa_domain d) { return d == HEPA_DOMAIN_NTT ? "NTT" : "coeff"; }

/* ---- creation, accessors, set/get ------------------------------------------------------------ */

Test(poly, create_every_level) {
    fixture f;
    fixture_init(&f, 64, 4, 62);
    uint64_t *buf = test_alloc(f.L * f.n), *zero = test_alloc(f.L * f.n);
    memset(zero, 0, f.L * f.n * sizeof *zero);
    for (size_t level = 1; level <= f.L; ++level) {
        hepa_poly *p = make_poly(f.ring, level);
        cr_assert_eq(hepa_poly_ring(p), f.ring);
        cr_assert_eq(hepa_poly_level(p), level);
        cr_assert_eq(hepa_poly_domain(p), HEPA_DOMAIN_COEFF);
        cr_assert(hepa_poly_data(p) != NULL);
        get_all(&f, p, buf);
        T_ARRAY_EQ(buf, zero, level * f.n, "new polynomial not zero, level %zu", level);
        T_ARRAY_EQ(hepa_poly_data(p), zero, level * f.n, "data of a new polynomial, level %zu",
                   level);
        hepa_poly_destroy(p);
    }
    free(buf);
    free(zero);
    fixture_fini(&f);
}

Test(poly, create_bad_arguments) {
    fixture f;
    fixture_init(&f, 64, 4, 62);
    const size_t bad_levels[] = {0, f.L + 1, 1000};
    for (size_t i = 0; i < 3; ++i) {
        hepa_poly *p = POISON_POLY;
        T_STATUS(hepa_poly_create(&p, f.ring, bad_levels[i]), HEPA_ERR_INVALID_ARGUMENT);
        cr_assert_eq(p, POISON_POLY, "*out written on failure (level %zu)", bad_levels[i]);
    }
    hepa_poly *p = POISON_POLY;
    T_STATUS(hepa_poly_create(&p, NULL, 1), HEPA_ERR_INVALID_ARGUMENT);
    cr_assert_eq(p, POISON_POLY);
    T_STATUS(hepa_poly_create(NULL, f.ring, 1), HEPA_ERR_INVALID_ARGUMENT);
    fixture_fini(&f);
}

Test(poly, destroy_null) { hepa_poly_destroy(NULL); }

Test(poly, set_get_round_trip) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 64, 4, 62);
    uint64_t *src = test_alloc(f.L * f.n), *dst = test_alloc(f.L * f.n);
    for (size_t level = 1; level <= f.L; ++level) {
        hepa_poly *p = make_poly(f.ring, level);
        for (int d = 0; d < 2; ++d) {
            hepa_domain dom = d ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF;
            set_random(&r, &f, p, src, dom);
            cr_assert_eq(hepa_poly_domain(p), dom, "set did not tag the domain");
            get_all(&f, p, dst);
            T_ARRAY_EQ(dst, src, level * f.n, "get after set, level %zu %s", level, dom_name(dom));
            T_ARRAY_EQ(hepa_poly_data(p), src, level * f.n, "data after set");
        }
        /* writing through the data pointer is allowed and visible to get */
        uint64_t *data = hepa_poly_data(p);
        data[0] = 1;
        data[level * f.n - 1] = f.q[level - 1] - 1;
        get_all(&f, p, dst);
        cr_assert(dst[0] == 1 && dst[level * f.n - 1] == f.q[level - 1] - 1,
                  "writes through hepa_poly_data not seen by get");
        hepa_poly_destroy(p);
    }
    free(src);
    free(dst);
    fixture_fini(&f);
}

Test(poly, set_get_bad_arguments) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 64, 4, 62);
    const size_t N = f.L * f.n;
    uint64_t *orig = test_alloc(N), *src = test_alloc(N), *dst = test_alloc(N);
    hepa_poly *p = make_poly(f.ring, f.L);
    set_random(&r, &f, p, orig, HEPA_DOMAIN_NTT);

    /* a residue >= its own limb's modulus (q_0 is the largest, so q_0 - 1 is out of range in
     * every other limb): rejected, polynomial and its domain unchanged */
    for (size_t limb = 0; limb < f.L; ++limb) {
        const uint64_t vals[] = {f.q[limb], UINT64_MAX, f.q[0] - 1};
        for (size_t v = 0; v < 3; ++v) {
            if (vals[v] < f.q[limb]) continue;
            test_fill_limbs(&r, src, f.n, f.q, f.L);
            size_t at = limb * f.n + test_rand_below(&r, f.n);
            src[at] = vals[v];
            hepa_status st = hepa_poly_set(p, src, HEPA_DOMAIN_COEFF);
            T_CHECK(st == HEPA_ERR_INVALID_ARGUMENT, "set accepted %" PRIu64 " in limb %zu (%d)",
                    vals[v], limb, (int)st);
            get_all(&f, p, dst);
            T_ARRAY_EQ(dst, orig, N, "poly changed by a failed set (limb %zu)", limb);
            cr_assert_eq(hepa_poly_domain(p), HEPA_DOMAIN_NTT, "domain changed by a failed set");
        }
    }
    test_fill_limbs(&r, src, f.n, f.q, f.L);
    T_STATUS(hepa_poly_set(p, src, (hepa_domain)2), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_set(p, src, (hepa_domain)-1), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_set(p, NULL, HEPA_DOMAIN_COEFF), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_set(NULL, src, HEPA_DOMAIN_COEFF), HEPA_ERR_INVALID_ARGUMENT);
    get_all(&f, p, dst);
    T_ARRAY_EQ(dst, orig, N, "poly changed by a failed set");
    cr_assert_eq(hepa_poly_domain(p), HEPA_DOMAIN_NTT);
    T_STATUS(hepa_poly_get(p, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_get(NULL, dst), HEPA_ERR_INVALID_ARGUMENT);
    hepa_poly_destroy(p);
    free(orig);
    free(src);
    free(dst);
    fixture_fini(&f);
}

/* On the CPU backend the asynchronous copies behave exactly like the synchronous ones
 * (hepa/poly.h): the same words and domain, the same argument checks, done on return; pinned
 * memory from hepa_host_alloc (ordinary memory here) works with them. */
Test(poly, async_copies_on_cpu) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 64, 3, 50);
    const size_t N = f.L * f.n;
    uint64_t *src = NULL, *dst = NULL;
    T_OK(hepa_host_alloc((void **)&src, N * sizeof *src));
    T_OK(hepa_host_alloc((void **)&dst, N * sizeof *dst));
    hepa_poly *p = make_poly(f.ring, f.L);
    for (int d = 0; d < 2; ++d) {
        const hepa_domain dom = d ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF;
        test_fill_limbs(&r, src, f.n, f.q, f.L);
        T_OK(hepa_poly_set_async(p, src, dom));
        cr_assert_eq(hepa_poly_domain(p), dom);
        for (size_t i = 0; i < N; ++i)
            dst[i] = 0xbadbadbadull; /* poisoned */
        T_OK(hepa_poly_get_async(p, dst));
        T_ARRAY_EQ(dst, src, N, "get_async after set_async (%s)", dom_name(dom));
        T_OK(hepa_ring_sync(f.ring));
    }
    /* the checks of hepa_poly_set: a residue out of range leaves the polynomial as it was */
    uint64_t *keep = test_alloc(N);
    memcpy(keep, src, N * sizeof *src);
    src[f.n + 3] = f.q[1];
    T_STATUS(hepa_poly_set_async(p, src, HEPA_DOMAIN_COEFF), HEPA_ERR_INVALID_ARGUMENT);
    T_ARRAY_EQ(hepa_poly_data(p), keep, N, "poly changed by a failed set_async");
    cr_assert_eq(hepa_poly_domain(p), HEPA_DOMAIN_NTT, "domain changed by a failed set_async");
    T_STATUS(hepa_poly_set_async(NULL, src, HEPA_DOMAIN_COEFF), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_get_async(p, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_get_async(NULL, dst), HEPA_ERR_INVALID_ARGUMENT);
    hepa_poly_destroy(p);
    free(keep);
    hepa_host_free(src);
    hepa_host_free(dst);
    fixture_fini(&f);
}

/* ---- limb-wise arithmetic ------------------------------------------------------------------- */

enum { OP_ADD, OP_SUB, OP_NEG };

static void ref_op(int op, const fixture *f, size_t level, const uint64_t *a, const uint64_t *b,
                   uint64_t *out) {
    for (size_t i = 0; i < level; ++i)
        for (size_t j = 0; j < f->n; ++j) {
            size_t k = i * f->n + j;
            uint64_t q = f->q[i];
            out[k] = op == OP_ADD   ? test_addmod(a[k], b[k], q)
                     : op == OP_SUB ? test_submod(a[k], b[k], q)
                                    : test_submod(0, a[k], q);
        }
}

Test(poly, add_sub_neg_both_domains) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 64, 4, 62);
    const size_t N = f.L * f.n;
    uint64_t *ha = test_alloc(N), *hb = test_alloc(N), *want = test_alloc(N), *got = test_alloc(N);
    static const char *names[] = {"add", "sub", "neg"};
    for (size_t level = 1; level <= f.L; ++level) {
        hepa_poly *a = make_poly(f.ring, level), *b = make_poly(f.ring, level),
                  *out = make_poly(f.ring, level);
        for (int d = 0; d < 2; ++d) {
            hepa_domain dom = d ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF;
            for (int op = OP_ADD; op <= OP_NEG; ++op) {
                set_random(&r, &f, a, ha, dom);
                set_random(&r, &f, b, hb, dom);
                poison_poly(&r, &f, out, dom);
                if (op == OP_ADD)
                    T_OK(hepa_poly_add(out, a, b));
                else if (op == OP_SUB)
                    T_OK(hepa_poly_sub(out, a, b));
                else
                    T_OK(hepa_poly_neg(out, a));
                ref_op(op, &f, level, ha, hb, want);
                get_all(&f, out, got);
                T_ARRAY_EQ(got, want, level * f.n, "%s level %zu %s", names[op], level,
                           dom_name(dom));
                cr_assert_eq(hepa_poly_domain(out), dom, "%s: out not tagged %s", names[op],
                             dom_name(dom));
                /* inputs unchanged */
                get_all(&f, a, got);
                T_ARRAY_EQ(got, ha, level * f.n, "%s modified a", names[op]);
            }
        }
        hepa_poly_destroy(a);
        hepa_poly_destroy(b);
        hepa_poly_destroy(out);
    }
    free(ha);
    free(hb);
    free(want);
    free(got);
    fixture_fini(&f);
}

/* ---- products ---------------------------------------------------------------------------------- */

/* Coefficient-domain mul at level l equals hepa_negacyclic_mul in a ring made of the first l
 * moduli only, and (small n) the GMP product over Z. */
static void check_mul_coeff(test_rng *r, size_t n, size_t L, unsigned bits) {
    fixture f;
    fixture_init(&f, n, L, bits);
    const size_t N = L * n;
    uint64_t *ha = test_alloc(N), *hb = test_alloc(N), *want = test_alloc(N), *got = test_alloc(N);
    for (size_t level = 1; level <= L; ++level) {
        hepa_ring *sub = NULL;
        T_OK(hepa_ring_create(&sub, n, f.q, level, HEPA_BACKEND_CPU));
        hepa_poly *a = make_poly(f.ring, level), *b = make_poly(f.ring, level),
                  *out = make_poly(f.ring, level);
        set_random(r, &f, a, ha, HEPA_DOMAIN_COEFF);
        set_random(r, &f, b, hb, HEPA_DOMAIN_COEFF);
        poison_poly(r, &f, out, HEPA_DOMAIN_COEFF);
        T_OK(hepa_poly_mul(out, a, b));
        cr_assert_eq(hepa_poly_domain(out), HEPA_DOMAIN_COEFF, "coeff mul must give coeff");
        get_all(&f, out, got);
        test_poison(want, level * n);
        T_OK(hepa_negacyclic_mul(sub, want, ha, hb));
        T_ARRAY_EQ(got, want, level * n, "poly_mul vs negacyclic_mul, n=%zu level %zu", n, level);
        if (n <= 256) {
            test_negacyclic_gmp(want, ha, hb, n, f.q, level);
            T_ARRAY_EQ(got, want, level * n, "poly_mul vs GMP, n=%zu level %zu", n, level);
        }
        /* inputs stay in the coefficient domain, unchanged */
        cr_assert_eq(hepa_poly_domain(a), HEPA_DOMAIN_COEFF);
        get_all(&f, a, got);
        T_ARRAY_EQ(got, ha, level * n, "mul modified a");
        get_all(&f, b, got);
        T_ARRAY_EQ(got, hb, level * n, "mul modified b");
        hepa_poly_destroy(a);
        hepa_poly_destroy(b);
        hepa_poly_destroy(out);
        hepa_ring_destroy(sub);
    }
    free(ha);
    free(hb);
    free(want);
    free(got);
    fixture_fini(&f);
}

Test(poly, mul_coeff_domain) {
    test_rng r;
    test_rng_init(&r);
    check_mul_coeff(&r, 64, 4, 62);
    check_mul_coeff(&r, 16, 3, 30);
    check_mul_coeff(&r, test_quick() ? 1024 : 8192, 3, 50);
}

Test(poly, mul_ntt_domain_pointwise) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 64, 4, 62);
    const size_t N = f.L * f.n;
    uint64_t *ha = test_alloc(N), *hb = test_alloc(N), *want = test_alloc(N), *got = test_alloc(N);
    for (size_t level = 1; level <= f.L; ++level) {
        hepa_poly *a = make_poly(f.ring, level), *b = make_poly(f.ring, level),
                  *out = make_poly(f.ring, level);
        set_random(&r, &f, a, ha, HEPA_DOMAIN_NTT);
        set_random(&r, &f, b, hb, HEPA_DOMAIN_NTT);
        poison_poly(&r, &f, out, HEPA_DOMAIN_NTT);
        T_OK(hepa_poly_mul(out, a, b));
        for (size_t i = 0; i < level; ++i)
            for (size_t j = 0; j < f.n; ++j)
                want[i * f.n + j] = test_mulmod(ha[i * f.n + j], hb[i * f.n + j], f.q[i]);
        get_all(&f, out, got);
        T_ARRAY_EQ(got, want, level * f.n, "NTT-domain mul is not pointwise, level %zu", level);
        cr_assert_eq(hepa_poly_domain(out), HEPA_DOMAIN_NTT);
        hepa_poly_destroy(a);
        hepa_poly_destroy(b);
        hepa_poly_destroy(out);
    }
    free(ha);
    free(hb);
    free(want);
    free(got);
    fixture_fini(&f);
}

/* to_ntt is the ntt.h forward transform limb by limb (same convention), from_ntt undoes it, and
 * multiplying in the NTT domain then coming back equals the coefficient-domain product. */
Test(poly, domain_changes) {
    test_rng r;
    test_rng_init(&r);
    const size_t sizes[] = {16, 1024};
    for (size_t s = 0; s < 2; ++s) {
        fixture f;
        fixture_init(&f, sizes[s], 3, 62);
        const size_t n = f.n, N = f.L * n;
        uint64_t *ha = test_alloc(N), *hb = test_alloc(N), *want = test_alloc(N),
                 *got = test_alloc(N);
        for (size_t level = 1; level <= f.L; ++level) {
            hepa_poly *a = make_poly(f.ring, level), *b = make_poly(f.ring, level),
                      *out = make_poly(f.ring, level), *cm = make_poly(f.ring, level);
            set_random(&r, &f, a, ha, HEPA_DOMAIN_COEFF);
            set_random(&r, &f, b, hb, HEPA_DOMAIN_COEFF);
            T_OK(hepa_poly_to_ntt(a));
            cr_assert_eq(hepa_poly_domain(a), HEPA_DOMAIN_NTT);
            memcpy(want, ha, level * n * sizeof *ha);
            for (size_t i = 0; i < level; ++i) {
                hepa_ntt_tables *t = NULL;
                T_OK(hepa_ntt_tables_create(&t, n, f.q[i]));
                T_OK(hepa_ntt_forward_ref(t, want + i * n));
                hepa_ntt_tables_destroy(t);
            }
            get_all(&f, a, got);
            T_ARRAY_EQ(got, want, level * n, "to_ntt != per-limb forward NTT, n=%zu level %zu", n,
                       level);
            T_OK(hepa_poly_from_ntt(a));
            cr_assert_eq(hepa_poly_domain(a), HEPA_DOMAIN_COEFF);
            get_all(&f, a, got);
            T_ARRAY_EQ(got, ha, level * n, "from_ntt(to_ntt(a)) != a, n=%zu level %zu", n, level);

            /* NTT-domain product then back == coefficient-domain product */
            T_OK(hepa_poly_mul(cm, a, b));
            T_OK(hepa_poly_to_ntt(a));
            T_OK(hepa_poly_to_ntt(b));
            poison_poly(&r, &f, out, HEPA_DOMAIN_NTT);
            T_OK(hepa_poly_mul(out, a, b));
            T_OK(hepa_poly_from_ntt(out));
            get_all(&f, out, got);
            get_all(&f, cm, want);
            T_ARRAY_EQ(got, want, level * n, "NTT-domain mul + from_ntt != coeff mul, level %zu",
                       level);
            hepa_poly_destroy(a);
            hepa_poly_destroy(b);
            hepa_poly_destroy(out);
            hepa_poly_destroy(cm);
        }
        free(ha);
        free(hb);
        free(want);
        free(got);
        fixture_fini(&f);
    }
}

/* ---- domain, level and ring checks ---------------------------------------------------------- */

/* Asserts status `want` and that `out` still holds `keep` with domain `keep_dom`. */
static void expect_untouched(const fixture *f, const hepa_poly *out, const uint64_t *keep,
                             hepa_domain keep_dom, const char *what) {
    uint64_t *got = test_alloc(hepa_poly_level(out) * f->n);
    get_all(f, out, got);
    T_ARRAY_EQ(got, keep, hepa_poly_level(out) * f->n, "%s: output written on failure", what);
    T_CHECK(hepa_poly_domain(out) == keep_dom, "%s: output domain changed on failure", what);
    free(got);
}

Test(poly, domain_errors) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 64, 3, 62);
    const size_t N = f.L * f.n;
    uint64_t *ha = test_alloc(N), *hb = test_alloc(N), *ho = test_alloc(N);
    hepa_poly *a = make_poly(f.ring, 3), *b = make_poly(f.ring, 3), *out = make_poly(f.ring, 3);
    set_random(&r, &f, a, ha, HEPA_DOMAIN_COEFF);
    set_random(&r, &f, b, hb, HEPA_DOMAIN_NTT);
    set_random(&r, &f, out, ho, HEPA_DOMAIN_COEFF);

    T_STATUS(hepa_poly_add(out, a, b), HEPA_ERR_DOMAIN);
    expect_untouched(&f, out, ho, HEPA_DOMAIN_COEFF, "add coeff+NTT");
    T_STATUS(hepa_poly_sub(out, b, a), HEPA_ERR_DOMAIN);
    expect_untouched(&f, out, ho, HEPA_DOMAIN_COEFF, "sub NTT-coeff");
    T_STATUS(hepa_poly_mul(out, a, b), HEPA_ERR_DOMAIN);
    expect_untouched(&f, out, ho, HEPA_DOMAIN_COEFF, "mul coeff*NTT");
    T_STATUS(hepa_poly_mul(out, b, a), HEPA_ERR_DOMAIN);
    expect_untouched(&f, out, ho, HEPA_DOMAIN_COEFF, "mul NTT*coeff");

    /* to_ntt on an NTT polynomial, from_ntt on a coefficient one: refused, unchanged */
    T_STATUS(hepa_poly_to_ntt(b), HEPA_ERR_DOMAIN);
    expect_untouched(&f, b, hb, HEPA_DOMAIN_NTT, "to_ntt twice");
    T_STATUS(hepa_poly_from_ntt(a), HEPA_ERR_DOMAIN);
    expect_untouched(&f, a, ha, HEPA_DOMAIN_COEFF, "from_ntt on coeff");
    T_OK(hepa_poly_to_ntt(a));
    T_STATUS(hepa_poly_to_ntt(a), HEPA_ERR_DOMAIN);
    T_OK(hepa_poly_from_ntt(a));
    expect_untouched(&f, a, ha, HEPA_DOMAIN_COEFF, "to_ntt, to_ntt (refused), from_ntt");

    T_STATUS(hepa_poly_to_ntt(NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_from_ntt(NULL), HEPA_ERR_INVALID_ARGUMENT);
    hepa_poly_destroy(a);
    hepa_poly_destroy(b);
    hepa_poly_destroy(out);
    free(ha);
    free(hb);
    free(ho);
    fixture_fini(&f);
}

Test(poly, level_and_ring_mismatch) {
    test_rng r;
    test_rng_init(&r);
    fixture f, g;
    fixture_init(&f, 64, 3, 62);
    fixture_init(&g, 64, 3, 62); /* same parameters, a different ring object */
    const size_t N = f.L * f.n;
    uint64_t *h = test_alloc(N), *ho = test_alloc(N), *ho2 = test_alloc(N);
    hepa_poly *a2 = make_poly(f.ring, 2), *b3 = make_poly(f.ring, 3), *a3 = make_poly(f.ring, 3),
              *out2 = make_poly(f.ring, 2), *out3 = make_poly(f.ring, 3),
              *g3 = make_poly(g.ring, 3), *gout3 = make_poly(g.ring, 3);
    set_random(&r, &f, a2, h, HEPA_DOMAIN_COEFF);
    set_random(&r, &f, b3, h, HEPA_DOMAIN_COEFF);
    set_random(&r, &f, a3, h, HEPA_DOMAIN_COEFF);
    set_random(&r, &g, g3, h, HEPA_DOMAIN_COEFF);
    set_random(&r, &f, out2, ho2, HEPA_DOMAIN_NTT);
    set_random(&r, &f, out3, ho, HEPA_DOMAIN_NTT);
    set_random(&r, &g, gout3, h, HEPA_DOMAIN_NTT);
    const uint64_t scal[3] = {1, 2, 3};

    /* operands at different levels */
    T_STATUS(hepa_poly_add(out3, a2, b3), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_sub(out3, b3, a2), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_mul(out3, a2, b3), HEPA_ERR_MISMATCH);
    expect_untouched(&f, out3, ho, HEPA_DOMAIN_NTT, "level mismatch of inputs");
    /* output at another level than its inputs */
    T_STATUS(hepa_poly_add(out2, a3, b3), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_mul(out2, a3, b3), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_neg(out2, a3), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_mul_scalar(out2, a3, scal), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_copy(out2, a3), HEPA_ERR_MISMATCH);
    expect_untouched(&f, out2, ho2, HEPA_DOMAIN_NTT, "output level mismatch");
    /* same parameters, different ring objects */
    T_STATUS(hepa_poly_add(out3, a3, g3), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_mul(out3, g3, a3), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_neg(out3, g3), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_copy(out3, g3), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_mul_scalar(out3, g3, scal), HEPA_ERR_MISMATCH);
    expect_untouched(&f, out3, ho, HEPA_DOMAIN_NTT, "ring mismatch");
    T_STATUS(hepa_poly_add(gout3, a3, b3), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_mul(gout3, a3, b3), HEPA_ERR_MISMATCH);

    /* NULL operands */
    T_STATUS(hepa_poly_add(NULL, a3, b3), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_add(out3, NULL, b3), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_sub(out3, a3, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_mul(out3, a3, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_neg(out3, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_neg(NULL, a3), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_copy(NULL, a3), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_copy(out3, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_mul_scalar(out3, a3, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_mul_scalar(NULL, a3, scal), HEPA_ERR_INVALID_ARGUMENT);
    expect_untouched(&f, out3, ho, HEPA_DOMAIN_NTT, "NULL operands");

    hepa_poly_destroy(a2);
    hepa_poly_destroy(b3);
    hepa_poly_destroy(a3);
    hepa_poly_destroy(out2);
    hepa_poly_destroy(out3);
    hepa_poly_destroy(g3);
    hepa_poly_destroy(gout3);
    free(h);
    free(ho);
    free(ho2);
    fixture_fini(&f);
    fixture_fini(&g);
}

/* ---- aliasing ---------------------------------------------------------------------------------- */

Test(poly, aliasing) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 256, 3, 62);
    const size_t level = 3, N = level * f.n;
    uint64_t *ha = test_alloc(N), *hb = test_alloc(N), *want = test_alloc(N), *got = test_alloc(N);
    hepa_poly *a = make_poly(f.ring, level), *b = make_poly(f.ring, level),
              *ref = make_poly(f.ring, level);
    for (int d = 0; d < 2; ++d) {
        hepa_domain dom = d ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF;
        /* add: out == a, out == b, out == a == b */
        set_random(&r, &f, a, ha, dom);
        set_random(&r, &f, b, hb, dom);
        ref_op(OP_ADD, &f, level, ha, hb, want);
        T_OK(hepa_poly_add(a, a, b));
        get_all(&f, a, got);
        T_ARRAY_EQ(got, want, N, "add out==a %s", dom_name(dom));
        T_OK(hepa_poly_set(a, ha, dom));
        T_OK(hepa_poly_add(b, a, b));
        get_all(&f, b, got);
        T_ARRAY_EQ(got, want, N, "add out==b %s", dom_name(dom));
        T_OK(hepa_poly_set(a, ha, dom));
        ref_op(OP_ADD, &f, level, ha, ha, want);
        T_OK(hepa_poly_add(a, a, a));
        get_all(&f, a, got);
        T_ARRAY_EQ(got, want, N, "add out==a==b %s", dom_name(dom));
        /* sub a - a = 0 in place; sub out == b */
        T_OK(hepa_poly_set(a, ha, dom));
        T_OK(hepa_poly_sub(a, a, a));
        get_all(&f, a, got);
        memset(want, 0, N * sizeof *want);
        T_ARRAY_EQ(got, want, N, "a - a in place %s", dom_name(dom));
        T_OK(hepa_poly_set(a, ha, dom));
        T_OK(hepa_poly_set(b, hb, dom));
        ref_op(OP_SUB, &f, level, ha, hb, want);
        T_OK(hepa_poly_sub(b, a, b));
        get_all(&f, b, got);
        T_ARRAY_EQ(got, want, N, "sub out==b %s", dom_name(dom));
        /* neg in place */
        T_OK(hepa_poly_set(a, ha, dom));
        ref_op(OP_NEG, &f, level, ha, NULL, want);
        T_OK(hepa_poly_neg(a, a));
        get_all(&f, a, got);
        T_ARRAY_EQ(got, want, N, "neg in place %s", dom_name(dom));
        /* mul: out == a, out == b, square in place, against the non-aliased product */
        T_OK(hepa_poly_set(a, ha, dom));
        T_OK(hepa_poly_set(b, hb, dom));
        T_OK(hepa_poly_mul(ref, a, b));
        get_all(&f, ref, want);
        T_OK(hepa_poly_mul(a, a, b));
        get_all(&f, a, got);
        T_ARRAY_EQ(got, want, N, "mul out==a %s", dom_name(dom));
        T_OK(hepa_poly_set(a, ha, dom));
        T_OK(hepa_poly_mul(b, a, b));
        get_all(&f, b, got);
        T_ARRAY_EQ(got, want, N, "mul out==b %s", dom_name(dom));
        T_OK(hepa_poly_mul(ref, a, a));
        get_all(&f, ref, want);
        T_OK(hepa_poly_mul(a, a, a));
        get_all(&f, a, got);
        T_ARRAY_EQ(got, want, N, "mul out==a==b %s", dom_name(dom));
        if (dom == HEPA_DOMAIN_COEFF) { /* and the square against GMP */
            test_negacyclic_gmp(want, ha, ha, f.n, f.q, level);
            T_ARRAY_EQ(got, want, N, "square in place vs GMP");
        }
        /* copy onto itself is harmless */
        T_OK(hepa_poly_set(a, ha, dom));
        T_OK(hepa_poly_copy(a, a));
        get_all(&f, a, got);
        T_ARRAY_EQ(got, ha, N, "copy(a, a)");
    }
    hepa_poly_destroy(a);
    hepa_poly_destroy(b);
    hepa_poly_destroy(ref);
    free(ha);
    free(hb);
    free(want);
    free(got);
    fixture_fini(&f);
}

/* ---- scalars and copies ------------------------------------------------------------------------ */

Test(poly, mul_scalar) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 64, 4, 62);
    const size_t N = f.L * f.n;
    uint64_t *ha = test_alloc(N), *want = test_alloc(N), *got = test_alloc(N);
    for (size_t level = 1; level <= f.L; ++level) {
        hepa_poly *a = make_poly(f.ring, level), *out = make_poly(f.ring, level);
        for (int d = 0; d < 2; ++d) {
            hepa_domain dom = d ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF;
            for (int kind = 0; kind < 5; ++kind) {
                uint64_t s[L_MAX];
                for (size_t i = 0; i < L_MAX; ++i)
                    s[i] = kind == 0   ? 0
                           : kind == 1 ? 1
                           : kind == 2 ? f.q[i] - 1
                                       : test_rand_below(&r, f.q[i]);
                set_random(&r, &f, a, ha, dom);
                poison_poly(&r, &f, out, dom);
                T_OK(hepa_poly_mul_scalar(out, a, s));
                for (size_t i = 0; i < level; ++i)
                    for (size_t j = 0; j < f.n; ++j)
                        want[i * f.n + j] = test_mulmod(ha[i * f.n + j], s[i], f.q[i]);
                get_all(&f, out, got);
                T_ARRAY_EQ(got, want, level * f.n, "mul_scalar kind %d level %zu %s", kind, level,
                           dom_name(dom));
                cr_assert_eq(hepa_poly_domain(out), dom);
                /* in place */
                T_OK(hepa_poly_mul_scalar(a, a, s));
                get_all(&f, a, got);
                T_ARRAY_EQ(got, want, level * f.n, "mul_scalar in place, level %zu", level);
            }
        }
        hepa_poly_destroy(a);
        hepa_poly_destroy(out);
    }
    free(ha);
    free(want);
    free(got);
    fixture_fini(&f);
}

/* A scalar >= its modulus is outside the documented range [0, q_i); like every other residue
 * input of the API it should be refused with the output untouched. */
Test(poly, mul_scalar_out_of_range) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 64, 3, 62);
    const size_t N = f.L * f.n;
    uint64_t *ha = test_alloc(N), *ho = test_alloc(N);
    hepa_poly *a = make_poly(f.ring, 3), *out = make_poly(f.ring, 3);
    set_random(&r, &f, a, ha, HEPA_DOMAIN_COEFF);
    set_random(&r, &f, out, ho, HEPA_DOMAIN_NTT);
    for (size_t i = 0; i < 3; ++i) {
        uint64_t s[3] = {1, 1, 1};
        s[i] = f.q[i];
        T_STATUS(hepa_poly_mul_scalar(out, a, s), HEPA_ERR_INVALID_ARGUMENT);
        expect_untouched(&f, out, ho, HEPA_DOMAIN_NTT, "scalar >= q");
    }
    hepa_poly_destroy(a);
    hepa_poly_destroy(out);
    free(ha);
    free(ho);
    fixture_fini(&f);
}

Test(poly, copy) {
    test_rng r;
    test_rng_init(&r);
    fixture f;
    fixture_init(&f, 64, 4, 62);
    const size_t N = f.L * f.n;
    uint64_t *ha = test_alloc(N), *got = test_alloc(N);
    for (size_t level = 1; level <= f.L; ++level) {
        hepa_poly *a = make_poly(f.ring, level), *dst = make_poly(f.ring, level);
        for (int d = 0; d < 2; ++d) {
            hepa_domain dom = d ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF;
            set_random(&r, &f, a, ha, dom);
            poison_poly(&r, &f, dst, dom);
            T_OK(hepa_poly_copy(dst, a));
            get_all(&f, dst, got);
            T_ARRAY_EQ(got, ha, level * f.n, "copy level %zu %s", level, dom_name(dom));
            cr_assert_eq(hepa_poly_domain(dst), dom, "copy did not take the domain");
            /* a deep copy: changing the source afterwards leaves dst alone */
            T_OK(hepa_poly_neg(a, a));
            get_all(&f, dst, got);
            T_ARRAY_EQ(got, ha, level * f.n, "copy shares storage with its source");
        }
        hepa_poly_destroy(a);
        hepa_poly_destroy(dst);
    }
    free(ha);
    free(got);
    fixture_fini(&f);
}

/* hepa_host_alloc gives usable memory on every backend (ordinary memory without a GPU); bad
 * arguments are refused; hepa_host_free(NULL) is a no-op. */
Test(poly, host_alloc) {
    void *p = NULL;
    T_STATUS(hepa_host_alloc(NULL, 64), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_host_alloc(&p, 0), HEPA_ERR_INVALID_ARGUMENT);
    cr_assert_null(p);
    T_OK(hepa_host_alloc(&p, 4096));
    cr_assert_not_null(p);
    memset(p, 0xAB, 4096);
    cr_assert_eq(((unsigned char *)p)[4095], 0xAB);
    hepa_host_free(p);
    hepa_host_free(NULL);
}
