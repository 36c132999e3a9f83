/* tests/test_rns.c — ciphertext building blocks on the CPU backend (hepa/rns.h, hepa/sample.h,
 * hepa/keyswitch.h): the generator against a known ChaCha20 keystream, sampler statistics, base
 * conversion and rescale against GMP, tensor against products, automorphisms against their
 * definition, key switching against its noise bound, and the bad-input statuses.
 * (The device versions are checked bit-exact against these in tests/gpu/test_gpu_rns.c.) */
#include <math.h>
#include <string.h>

#include "test_util.h"
#include "hepa/crt.h"
#include "hepa/keyswitch.h"
#include "hepa/poly.h"
#include "hepa/ring.h"
#include "hepa/rns.h"
#include "hepa/sample.h"
#include "rns/ksk_layout.h"

static hepa_ring *ring_of(size_t n, const uint64_t *q, size_t M) {
    hepa_ring *r = NULL;
    T_OK(hepa_ring_create(&r, n, q, M, HEPA_BACKEND_CPU));
    return r;
}

static hepa_poly *poly_of(const hepa_ring *r, size_t level) {
    hepa_poly *p = NULL;
    T_OK(hepa_poly_create(&p, r, level));
    return p;
}

static void rand_poly(test_rng *t, hepa_poly *p, hepa_domain d) {
    const hepa_ring *r = hepa_poly_ring(p);
    const size_t n = hepa_ring_n(r), l = hepa_poly_level(p);
    uint64_t *h = test_alloc(l * n);
    for (size_t i = 0; i < l; ++i)
        for (size_t j = 0; j < n; ++j) h[i * n + j] = test_rand_residue_edgy(t, hepa_ring_modulus(r, i));
    T_OK(hepa_poly_set(p, h, d));
    free(h);
}

static uint64_t *get_poly(const hepa_poly *p) {
    const size_t w = hepa_poly_level(p) * hepa_ring_n(hepa_poly_ring(p));
    uint64_t *h = test_alloc(w);
    test_poison(h, w);
    T_OK(hepa_poly_get(p, h));
    return h;
}

/* Same level, domain tag and words (host polynomials). */
static int polys_equal(const hepa_poly *a, const hepa_poly *b) {
    const size_t w = hepa_poly_level(a) * hepa_ring_n(hepa_poly_ring(a));
    if (hepa_poly_level(a) != hepa_poly_level(b) || hepa_poly_domain(a) != hepa_poly_domain(b))
        return 0;
    uint64_t *x = get_poly(a), *y = get_poly(b);
    const int eq = memcmp(x, y, w * sizeof *x) == 0;
    free(x), free(y);
    return eq;
}

/* ---- generator and samplers ----------------------------------------------------------------- */

Test(rng, chacha20_keystream) {
    /* key 00 01 .. 1f, counter 0 and 1, nonce 0 (RFC 8439 block function; from an independent
     * implementation, Python's cryptography package) */
    static const char *want =
        "39fd2b7dd9c5196a8dbd0377b8dc4a498a35d86fbcde6accb2cc7d4cd8ea24922b23cce7a26023ab3f0eef693a"
        "c87f64258235eab1f7a32dc22762a0485b410c18b84231ade6a6d113615c61af434e27f8b1f3f5e1ad5b5cecf8"
        "fc122a35755c7208086dd1ee3c5d9d815824640e003c9ba0f65ede5d59ce0d2a4a7f31955acd";
    uint8_t seed[32], got[128];
    for (int i = 0; i < 32; ++i) seed[i] = (uint8_t)i;
    hepa_rng *g = NULL;
    T_OK(hepa_rng_create(&g, seed));
    T_OK(hepa_rng_bytes(g, got, 5)); /* odd-sized pieces must join into one stream */
    T_OK(hepa_rng_bytes(g, got + 5, 123));
    for (int i = 0; i < 128; ++i) {
        unsigned w;
        sscanf(want + 2 * i, "%2x", &w);
        cr_assert_eq(got[i], w, "keystream byte %d: %02x, want %02x", i, got[i], w);
    }
    hepa_rng_destroy(g);
    /* the OS-seeded generator: two of them differ */
    hepa_rng *a = NULL, *b = NULL;
    T_OK(hepa_rng_create(&a, NULL));
    T_OK(hepa_rng_create(&b, NULL));
    uint8_t x[32], y[32];
    T_OK(hepa_rng_bytes(a, x, 32));
    T_OK(hepa_rng_bytes(b, y, 32));
    cr_assert(memcmp(x, y, 32) != 0, "two getrandom-seeded generators gave the same bytes");
    hepa_rng_destroy(a), hepa_rng_destroy(b), hepa_rng_destroy(NULL);
}

/* The signed integer of coefficient j, checking it is the same in every limb. */
static int64_t signed_coeff(const hepa_ring *r, const uint64_t *h, size_t l, size_t j) {
    const size_t n = hepa_ring_n(r);
    const uint64_t q0 = hepa_ring_modulus(r, 0);
    const int64_t v = h[j] > q0 / 2 ? -(int64_t)(q0 - h[j]) : (int64_t)h[j];
    for (size_t i = 1; i < l; ++i) {
        const uint64_t q = hepa_ring_modulus(r, i);
        const uint64_t want = v < 0 ? q - (uint64_t)(-v) : (uint64_t)v;
        T_CHECK(h[i * n + j] == want, "coefficient %zu differs between limbs 0 and %zu", j, i);
    }
    return v;
}

Test(rng, sampler_statistics) {
    const size_t n = 4096, L = 3;
    uint64_t q[3];
    test_ks_moduli(q, n, 2, 1, 50);
    hepa_ring *r = ring_of(n, q, L);
    hepa_poly *p = poly_of(r, L);
    hepa_rng *g = NULL;
    T_OK(hepa_rng_create(&g, NULL));

    T_OK(hepa_sample_ternary(g, p));
    cr_assert_eq(hepa_poly_domain(p), HEPA_DOMAIN_COEFF);
    uint64_t *h = get_poly(p);
    size_t cnt[3] = {0, 0, 0};
    for (size_t j = 0; j < n; ++j) {
        const int64_t v = signed_coeff(r, h, L, j);
        T_CHECK(v >= -1 && v <= 1, "ternary coefficient %" PRId64, v);
        cnt[v + 1]++;
    }
    for (int k = 0; k < 3; ++k) /* 1365 expected, standard deviation 30 */
        cr_assert(cnt[k] > 1200 && cnt[k] < 1530, "ternary value %d drawn %zu times", k - 1, cnt[k]);
    free(h);

    T_OK(hepa_sample_gaussian(g, p, 3.2));
    h = get_poly(p);
    double sum = 0, sq = 0;
    for (size_t j = 0; j < n; ++j) {
        const int64_t v = signed_coeff(r, h, L, j);
        T_CHECK(v >= -20 && v <= 20, "Gaussian coefficient %" PRId64 " beyond 6 sigma", v);
        sum += (double)v, sq += (double)v * (double)v;
    }
    const double mean = sum / n, var = sq / n - mean * mean;
    cr_assert(fabs(mean) < 0.25, "Gaussian mean %f", mean);
    cr_assert(var > 3.2 * 3.2 * 0.88 && var < 3.2 * 3.2 * 1.12, "Gaussian variance %f", var);
    free(h);

    T_OK(hepa_sample_uniform(g, p, HEPA_DOMAIN_NTT));
    cr_assert_eq(hepa_poly_domain(p), HEPA_DOMAIN_NTT);
    h = get_poly(p);
    for (size_t i = 0; i < L; ++i) {
        double m = 0;
        for (size_t j = 0; j < n; ++j) {
            T_CHECK(h[i * n + j] < q[i], "uniform residue out of range");
            m += (double)h[i * n + j] / (double)q[i];
        }
        m /= n; /* 0.5, standard deviation 0.0045 */
        cr_assert(m > 0.47 && m < 0.53, "uniform limb %zu mean %f of q", i, m);
    }
    free(h);

    T_STATUS(hepa_sample_gaussian(g, p, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_sample_gaussian(g, p, NAN), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_sample_gaussian(g, p, 17), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_sample_ternary(NULL, p), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_sample_uniform(g, NULL, HEPA_DOMAIN_NTT), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_sample_uniform(g, p, (hepa_domain)7), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_rng_create(NULL, NULL), HEPA_ERR_INVALID_ARGUMENT);
    hepa_rng_destroy(g);
    hepa_poly_destroy(p);
    hepa_ring_destroy(r);
}

/* ---- base conversion against GMP ------------------------------------------------------------- */

/* Checks hepa_rns_convert(src -> dst) on n coefficients of `in` against GMP. */
static void check_conv(const hepa_ring *r, const size_t *src, size_t ns, const size_t *dst,
                       size_t nt, const uint64_t *in, int exact) {
    const size_t n = hepa_ring_n(r);
    uint64_t *out = test_alloc(nt * n);
    test_poison(out, nt * n);
    T_OK(hepa_rns_convert(r, out, dst, nt, in, src, ns, exact));
    mpz_t S, X, sum, hat, v, half;
    mpz_inits(S, X, sum, hat, v, half, NULL);
    mpz_set_ui(S, 1);
    for (size_t k = 0; k < ns; ++k) mpz_mul_ui(S, S, hepa_ring_modulus(r, src[k]));
    mpz_fdiv_q_2exp(half, S, 1);
    for (size_t x = 0; x < n; ++x) {
        mpz_set_ui(X, 0), mpz_set_ui(sum, 0);
        for (size_t k = 0; k < ns; ++k) { /* CRT by hand: X = Σ x_k·hat_k·(hat_k^-1 mod s_k) */
            const uint64_t s = hepa_ring_modulus(r, src[k]);
            mpz_divexact_ui(hat, S, s);
            mpz_set_ui(v, mpz_fdiv_ui(hat, s));
            mpz_t sk;
            mpz_init_set_ui(sk, s);
            cr_assert(mpz_invert(v, v, sk));
            mpz_clear(sk);
            mpz_mul_ui(v, v, in[k * n + x]);
            mpz_mod_ui(v, v, s); /* v_k */
            mpz_addmul(sum, v, hat);
        }
        mpz_mod(X, sum, S);
        if (exact) { /* outside the documented window |X/S - 1/2| > ns^2·2^-51 the result may
                      * be either representative: skip it (edgy inputs do land there) */
            mpz_mul_2exp(v, X, 1);
            mpz_sub(v, v, S);
            mpz_abs(v, v); /* |2X - S| vs S·ns^2·2^-50 */
            mpz_mul_2exp(v, v, 50);
            mpz_set(hat, S);
            mpz_mul_ui(hat, hat, ns * ns);
            if (mpz_cmp(v, hat) <= 0) continue;
        }
        if (exact && mpz_cmp(X, half) > 0) mpz_sub(X, X, S);
        for (size_t t = 0; t < nt; ++t) {
            const uint64_t qt = hepa_ring_modulus(r, dst[t]);
            const uint64_t want = mpz_fdiv_ui(exact ? X : sum, qt);
            T_CHECK(out[t * n + x] == want,
                    "conv (ns %zu, exact %d) coefficient %zu target %zu: %" PRIu64 " != %" PRIu64,
                    ns, exact, x, t, out[t * n + x], want);
        }
    }
    mpz_clears(S, X, sum, hat, v, half, NULL);
    free(out);
}

Test(rns, convert_vs_gmp) {
    test_rng t;
    test_rng_init(&t);
    const size_t n = 32, M = 40;
    uint64_t q[40];
    cr_assert_eq(test_primes_1mod_desc(q, 20, 61, 2 * n), 20);
    cr_assert_eq(test_primes_1mod_desc(q + 20, 20, 40, 2 * n), 20);
    hepa_ring *r = ring_of(n, q, M);
    uint64_t *in = test_alloc(M * n);
    size_t src[40], dst[40];
    /* ns = 1, 3, 17 (past one 16-term fold), 20; targets a disjoint set, plus one overlap */
    const size_t sizes[] = {1, 3, 17, 20};
    for (int si = 0; si < 4; ++si) {
        const size_t ns = sizes[si];
        for (size_t k = 0; k < ns; ++k) src[k] = (3 * k + si) % M; /* a mixed set */
        size_t nt = 0;
        for (size_t i = 0; i < M && nt < 12; ++i) {
            int used = 0;
            for (size_t k = 0; k < ns; ++k) used |= src[k] == i;
            if (!used) dst[nt++] = i;
        }
        dst[nt++] = src[0]; /* converting onto a source modulus gives x mod s_0 back */
        for (int rep = 0; rep < 3; ++rep) {
            for (size_t k = 0; k < ns; ++k) {
                const uint64_t s = q[src[k]];
                for (size_t x = 0; x < n; ++x) in[k * n + x] = test_rand_residue_edgy(&t, s);
                /* boundaries: x = 0, x = S - 1, x = 1 */
                in[k * n + 0] = 0, in[k * n + 1] = s - 1, in[k * n + 2] = 1;
            }
            check_conv(r, src, ns, dst, nt, in, 0);
            check_conv(r, src, ns, dst, nt, in, 1);
        }
    }
    /* bad input */
    uint64_t out[64];
    size_t bad[2] = {0, 0};
    T_STATUS(hepa_rns_convert(r, out, dst, 1, in, bad, 2, 0), HEPA_ERR_INVALID_ARGUMENT);
    bad[1] = M;
    T_STATUS(hepa_rns_convert(r, out, dst, 1, in, bad, 2, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_rns_convert(r, out, bad + 1, 1, in, src, 1, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_rns_convert(r, out, dst, 1, in, src, 0, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_rns_convert(r, out, dst, 0, in, src, 1, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_rns_convert(NULL, out, dst, 1, in, src, 1, 0), HEPA_ERR_INVALID_ARGUMENT);
    free(in);
    hepa_ring_destroy(r);
}

/* ---- tensor, rescale, drop, automorphisms --------------------------------------------------- */

Test(rns, tensor_vs_products) {
    test_rng t;
    test_rng_init(&t);
    const size_t n = 256, L = 3;
    uint64_t q[3];
    test_ks_moduli(q, n, 2, 1, 45);
    hepa_ring *r = ring_of(n, q, L);
    hepa_poly *a0 = poly_of(r, L), *a1 = poly_of(r, L), *b0 = poly_of(r, L), *b1 = poly_of(r, L);
    hepa_poly *d[3] = {poly_of(r, L), poly_of(r, L), poly_of(r, L)};
    hepa_poly *w = poly_of(r, L), *u = poly_of(r, L);
    rand_poly(&t, a0, HEPA_DOMAIN_NTT), rand_poly(&t, a1, HEPA_DOMAIN_NTT);
    rand_poly(&t, b0, HEPA_DOMAIN_NTT), rand_poly(&t, b1, HEPA_DOMAIN_NTT);
    for (int k = 0; k < 3; ++k) rand_poly(&t, d[k], HEPA_DOMAIN_COEFF); /* poison */
    T_OK(hepa_poly_tensor(d[0], d[1], d[2], a0, a1, b0, b1));
    const hepa_poly *x[3][2][2] = {{{a0, b0}, {NULL, NULL}}, {{a0, b1}, {a1, b0}}, {{a1, b1}, {NULL, NULL}}};
    for (int k = 0; k < 3; ++k) {
        cr_assert_eq(hepa_poly_domain(d[k]), HEPA_DOMAIN_NTT);
        T_OK(hepa_poly_mul(w, x[k][0][0], x[k][0][1]));
        if (x[k][1][0]) {
            T_OK(hepa_poly_mul(u, x[k][1][0], x[k][1][1]));
            T_OK(hepa_poly_add(w, w, u));
        }
        uint64_t *got = get_poly(d[k]), *want = get_poly(w);
        T_ARRAY_EQ(got, want, L * n, "tensor output d%d", k);
        free(got), free(want);
    }
    /* aliasing: outputs on top of inputs, squaring */
    uint64_t *want1 = get_poly(d[1]);
    T_OK(hepa_poly_tensor(a0, a1, d[2], a0, a1, b0, b1));
    uint64_t *got1 = get_poly(a1);
    T_ARRAY_EQ(got1, want1, L * n, "tensor with outputs aliasing inputs");
    free(got1), free(want1);
    /* bad input */
    hepa_poly *low = poly_of(r, L - 1), *coeff = poly_of(r, L);
    T_STATUS(hepa_poly_tensor(d[0], d[0], d[2], a0, a1, b0, b1), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_tensor(d[0], d[1], d[2], a0, a1, b0, low), HEPA_ERR_MISMATCH);
    /* an output at another level, in each position (d0 was once not checked: written past) */
    T_STATUS(hepa_poly_tensor(low, d[1], d[2], a0, a1, b0, b1), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_tensor(d[0], low, d[2], a0, a1, b0, b1), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_tensor(d[0], d[1], low, a0, a1, b0, b1), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_tensor(d[0], d[1], d[2], low, low, low, low), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_tensor(d[0], d[1], d[2], a0, a1, b0, coeff), HEPA_ERR_DOMAIN);
    T_STATUS(hepa_poly_tensor(d[0], d[1], NULL, a0, a1, b0, b1), HEPA_ERR_INVALID_ARGUMENT);
    hepa_poly *all[] = {a0, a1, b0, b1, d[0], d[1], d[2], w, u, low, coeff};
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k) hepa_poly_destroy(all[k]);
    hepa_ring_destroy(r);
}

Test(rns, rescale_vs_gmp) {
    test_rng t;
    test_rng_init(&t);
    const size_t n = 64, L = 5;
    uint64_t q[5];
    test_ks_moduli(q, n, 5, 0, 50);
    hepa_ring *r = ring_of(n, q, L);
    test_crt c;
    for (size_t l = 2; l <= L; ++l) {
        test_crt_init(&c, q, l);
        hepa_poly *a = poly_of(r, l), *o = poly_of(r, l - 1), *o2 = poly_of(r, l - 1);
        uint64_t *h = test_alloc(l * n);
        for (size_t i = 0; i < l; ++i)
            for (size_t j = 0; j < n; ++j) h[i * n + j] = test_rand_residue_edgy(&t, q[i]);
        /* boundaries: A = 0, Q - 1, and A ≡ ±(q_l - 1)/2 around the rounding point */
        for (size_t i = 0; i < l; ++i) h[i * n] = 0, h[i * n + 1] = q[i] - 1;
        for (size_t i = 0; i < l; ++i) h[i * n + 2] = ((q[l - 1] - 1) / 2) % q[i];
        for (size_t i = 0; i < l; ++i) h[i * n + 3] = ((q[l - 1] + 1) / 2) % q[i];
        T_OK(hepa_poly_set(a, h, HEPA_DOMAIN_COEFF));
        rand_poly(&t, o, HEPA_DOMAIN_NTT); /* poison */
        T_OK(hepa_poly_rescale(o, a));
        cr_assert_eq(hepa_poly_domain(o), HEPA_DOMAIN_COEFF);
        uint64_t *got = get_poly(o);
        mpz_t A;
        mpz_init(A);
        for (size_t j = 0; j < n; ++j) {
            test_crt_compose(&c, A, h + j, n);
            mpz_mul_2exp(A, A, 1); /* round(A / q) = floor((2A + q) / 2q) */
            mpz_add_ui(A, A, q[l - 1]);
            mpz_fdiv_q_ui(A, A, 2 * q[l - 1]);
            for (size_t i = 0; i + 1 < l; ++i)
                T_CHECK(got[i * n + j] == mpz_fdiv_ui(A, q[i]), "rescale level %zu coefficient %zu limb %zu", l, j, i);
        }
        mpz_clear(A);
        /* NTT domain: rescale(NTT(a)) = NTT(rescale(a)) */
        T_OK(hepa_poly_to_ntt(a));
        rand_poly(&t, o2, HEPA_DOMAIN_COEFF);
        T_OK(hepa_poly_rescale(o2, a));
        cr_assert_eq(hepa_poly_domain(o2), HEPA_DOMAIN_NTT);
        T_OK(hepa_poly_to_ntt(o));
        uint64_t *g2 = get_poly(o2), *w2 = get_poly(o);
        T_ARRAY_EQ(g2, w2, (l - 1) * n, "NTT-domain rescale, level %zu", l);
        free(g2), free(w2), free(got), free(h);
        /* drop keeps the first limbs */
        hepa_poly *dr = poly_of(r, 1);
        T_OK(hepa_poly_drop(dr, a));
        uint64_t *gd = get_poly(dr), *ga = get_poly(a);
        T_ARRAY_EQ(gd, ga, n, "drop");
        cr_assert_eq(hepa_poly_domain(dr), HEPA_DOMAIN_NTT);
        T_STATUS(hepa_poly_drop(a, dr), HEPA_ERR_MISMATCH);
        free(gd), free(ga);
        hepa_poly_destroy(dr);
        /* the pair: the two rescales, bit for bit, in either domain (inputs a, now in the NTT
         * domain, and u; u twice in the coefficient round) */
        {
            hepa_poly *u = poly_of(r, l), *p0 = poly_of(r, l - 1), *p1 = poly_of(r, l - 1);
            hepa_poly *s0 = poly_of(r, l - 1), *s1 = poly_of(r, l - 1);
            for (int dom = 0; dom < 2; ++dom) {
                rand_poly(&t, u, dom ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF);
                hepa_poly *x = dom ? a : u;
                T_OK(hepa_poly_rescale_pair(p0, p1, x, u));
                T_OK(hepa_poly_rescale(s0, x));
                T_OK(hepa_poly_rescale(s1, u));
                uint64_t *g0 = get_poly(p0), *g1 = get_poly(p1), *w0 = get_poly(s0),
                         *w1 = get_poly(s1);
                T_ARRAY_EQ(g0, w0, (l - 1) * n, "rescale pair 0, level %zu", l);
                T_ARRAY_EQ(g1, w1, (l - 1) * n, "rescale pair 1, level %zu", l);
                cr_assert_eq(hepa_poly_domain(p0), hepa_poly_domain(x));
                cr_assert_eq(hepa_poly_domain(p1), hepa_poly_domain(u));
                free(g0), free(g1), free(w0), free(w1);
            }
            T_STATUS(hepa_poly_rescale_pair(p0, p0, a, u), HEPA_ERR_INVALID_ARGUMENT);
            T_STATUS(hepa_poly_rescale_pair(NULL, p1, a, u), HEPA_ERR_INVALID_ARGUMENT);
            T_STATUS(hepa_poly_rescale_pair(p0, p1, a, NULL), HEPA_ERR_INVALID_ARGUMENT);
            T_STATUS(hepa_poly_rescale_pair(p0, p1, a, p0), HEPA_ERR_MISMATCH); /* levels */
            T_STATUS(hepa_poly_rescale_pair(p0, u, a, u), HEPA_ERR_MISMATCH);   /* out level */
            rand_poly(&t, u, HEPA_DOMAIN_COEFF);
            T_STATUS(hepa_poly_rescale_pair(p0, p1, a, u), HEPA_ERR_DOMAIN);
            hepa_poly_destroy(u), hepa_poly_destroy(p0), hepa_poly_destroy(p1);
            hepa_poly_destroy(s0), hepa_poly_destroy(s1);
        }
        T_STATUS(hepa_poly_rescale(o, o2), l > 2 ? HEPA_ERR_MISMATCH : HEPA_ERR_RANGE);
        hepa_poly_destroy(a), hepa_poly_destroy(o), hepa_poly_destroy(o2);
        test_crt_clear(&c);
    }
    hepa_poly *one = poly_of(r, 1), *one2 = poly_of(r, 1);
    T_STATUS(hepa_poly_rescale(one2, one), HEPA_ERR_RANGE); /* nothing would be left */
    T_STATUS(hepa_poly_rescale(NULL, one), HEPA_ERR_INVALID_ARGUMENT);
    {
        hepa_poly *one3 = poly_of(r, 1);
        T_STATUS(hepa_poly_rescale_pair(one2, one3, one, one), HEPA_ERR_RANGE);
        hepa_poly_destroy(one3);
    }
    hepa_poly_destroy(one), hepa_poly_destroy(one2);
    hepa_ring_destroy(r);
}

Test(rns, automorphism_definition) {
    test_rng t;
    test_rng_init(&t);
    const size_t n = 128, L = 2;
    uint64_t q[2];
    test_ks_moduli(q, n, 2, 0, 50);
    hepa_ring *r = ring_of(n, q, L);
    hepa_poly *a = poly_of(r, L), *o = poly_of(r, L), *an = poly_of(r, L);
    const uint64_t gs[] = {1, 3, 5, 25, 5 * 5 * 5 * 5 * 5 % 256, 2 * 128 - 1, 2 * 128 + 5, 77};
    for (size_t gi = 0; gi < sizeof gs / sizeof *gs; ++gi) {
        const uint64_t g = gs[gi];
        rand_poly(&t, a, HEPA_DOMAIN_COEFF);
        uint64_t *h = get_poly(a);
        rand_poly(&t, o, HEPA_DOMAIN_NTT);
        T_OK(hepa_poly_automorphism(o, a, g));
        cr_assert_eq(hepa_poly_domain(o), HEPA_DOMAIN_COEFF);
        uint64_t *got = get_poly(o), *want = test_alloc(L * n);
        for (size_t i = 0; i < L; ++i)
            for (size_t j = 0; j < n; ++j) { /* x^j -> x^(jg) = ±x^(jg mod n) */
                const uint64_t e = (j * g) % (2 * n);
                want[i * n + e % n] = e < n ? h[i * n + j] : (h[i * n + j] ? q[i] - h[i * n + j] : 0);
            }
        T_ARRAY_EQ(got, want, L * n, "coefficient automorphism g = %" PRIu64, g);
        /* NTT domain: σ(NTT(a)) = NTT(σ(a)), also in place */
        T_OK(hepa_poly_copy(an, a));
        T_OK(hepa_poly_to_ntt(an));
        T_OK(hepa_poly_automorphism(an, an, g));
        cr_assert_eq(hepa_poly_domain(an), HEPA_DOMAIN_NTT);
        T_OK(hepa_poly_to_ntt(o));
        uint64_t *g2 = get_poly(an), *w2 = get_poly(o);
        T_ARRAY_EQ(g2, w2, L * n, "NTT-domain automorphism g = %" PRIu64, g);
        free(h), free(got), free(want), free(g2), free(w2);
        /* the NTT-domain source map (slot k reads src(k)), from words a[k] = k: it takes every
         * aligned block of 2^b slots onto an aligned block of 2^b, which the hoisted inner
         * product's paired (and the device's coalesced) reads rely on (_hepa_auto_ntt_src) */
        uint64_t *id = test_alloc(L * n);
        for (size_t k = 0; k < L * n; ++k)
            id[k] = k % n;
        T_OK(hepa_poly_set(a, id, HEPA_DOMAIN_NTT));
        T_OK(hepa_poly_automorphism(o, a, g));
        uint64_t *src = get_poly(o);
        for (size_t b = 1; b < 8; ++b)
            for (size_t k = 0; k < n; ++k)
                cr_assert_eq(src[k] >> b, src[k & ~(((size_t)1 << b) - 1)] >> b,
                             "g %" PRIu64 ": slot %zu leaves its block of 2^%zu", g, k, b);
        free(id), free(src);
    }
    T_STATUS(hepa_poly_automorphism(o, a, 4), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_poly_automorphism(o, a, 0), HEPA_ERR_INVALID_ARGUMENT);
    hepa_poly *low = poly_of(r, 1);
    T_STATUS(hepa_poly_automorphism(low, a, 3), HEPA_ERR_MISMATCH);
    hepa_poly_destroy(low), hepa_poly_destroy(a), hepa_poly_destroy(o), hepa_poly_destroy(an);
    hepa_ring_destroy(r);
}

/* ---- key switching ---------------------------------------------------------------------------- */

/* log2 of the largest |coefficient| of p (level l, NTT domain), centred mod Q_l. */
static double max_log2(hepa_poly *p) {
    const hepa_ring *r = hepa_poly_ring(p);
    const size_t n = hepa_ring_n(r), l = hepa_poly_level(p);
    T_OK(hepa_poly_from_ntt(p));
    uint64_t *h = get_poly(p);
    mpz_t *z = test_mpz_array(n);
    T_OK(hepa_crt_compose(r, l, z, h, 1));
    double m = 0;
    for (size_t j = 0; j < n; ++j) {
        const double b = mpz_sgn(z[j]) ? (double)mpz_sizeinbase(z[j], 2) : 0;
        if (b > m) m = b;
    }
    test_mpz_array_free(z, n);
    free(h);
    return m;
}

/* HOISTING: hepa_automorphism_hoisted == hepa_poly_automorphism of c0 and c1, then
 * hepa_keyswitch_add, word for word (the identity holds for any keys), for five Galois elements
 * (a rotation, conjugation, g = 1, one above 2n) and two keys used alternately, at level l;
 * the outputs are poisoned first. */
static void check_hoisted(test_rng *t, const hepa_ring *r, const hepa_ks *ks, size_t l,
                          const hepa_ksk *ka, const hepa_ksk *kb) {
    const size_t n = hepa_ring_n(r), cnt = 5;
    const uint64_t g[5] = {5, 2 * n - 1, 1, 25, 2 * n * 7 + 3};
    const hepa_ksk *keys[5] = {ka, kb, ka, kb, ka};
    hepa_poly *c0 = poly_of(r, l), *c1 = poly_of(r, l), *a0 = poly_of(r, l), *a1 = poly_of(r, l);
    hepa_poly *w0 = poly_of(r, l), *w1 = poly_of(r, l), *o0[5], *o1[5];
    rand_poly(t, c0, HEPA_DOMAIN_NTT), rand_poly(t, c1, HEPA_DOMAIN_NTT);
    for (size_t k = 0; k < cnt; ++k) {
        o0[k] = poly_of(r, l), o1[k] = poly_of(r, l);
        rand_poly(t, o0[k], HEPA_DOMAIN_COEFF), rand_poly(t, o1[k], HEPA_DOMAIN_COEFF);
    }
    T_OK(hepa_automorphism_hoisted(ks, o0, o1, c0, c1, g, keys, cnt));
    for (size_t k = 0; k < cnt; ++k) {
        T_OK(hepa_poly_automorphism(a0, c0, g[k]));
        T_OK(hepa_poly_automorphism(a1, c1, g[k]));
        T_OK(hepa_keyswitch_add(ks, w0, w1, a1, keys[k], a0, NULL));
        cr_assert(polys_equal(o0[k], w0) && polys_equal(o1[k], w1),
                  "hoisted automorphism g = %" PRIu64 " (rotation %zu of %zu), level %zu", g[k], k,
                  cnt, l);
    }
    /* one rotation alone, and the same ciphertext again: the words do not depend on the batch */
    T_OK(hepa_automorphism_hoisted(ks, &w0, &w1, c0, c1, g + 3, keys + 3, 1));
    cr_assert(polys_equal(o0[3], w0) && polys_equal(o1[3], w1), "hoisted, one rotation");
    for (size_t k = 0; k < cnt; ++k)
        hepa_poly_destroy(o0[k]), hepa_poly_destroy(o1[k]);
    hepa_poly_destroy(c0), hepa_poly_destroy(c1), hepa_poly_destroy(a0), hepa_poly_destroy(a1);
    hepa_poly_destroy(w0), hepa_poly_destroy(w1);
}

/* Switches a random c from s' to s at every level; the error o0 + o1·s - c·s' must stay below
 * the bound of hepa/keyswitch.h: (Σ_j c~_j e_j)/P + rounding, |c~_j| <= Q_j/2, |e| <= 20 (the
 * bound below is looser, alpha·Q_j: it guards against gross errors, which would be ~Q). */
static void check_keyswitch(size_t n, size_t L, size_t K, size_t alpha, unsigned bits) {
    test_rng t;
    test_rng_init(&t);
    uint64_t q[HEPA_RING_MAX_MODULI];
    test_ks_moduli(q, n, L, K, bits);
    const size_t M = L + K;
    hepa_ring *r = ring_of(n, q, M);
    hepa_ks *ks = NULL;
    T_OK(hepa_ks_create(&ks, r, K, alpha));
    const size_t A = hepa_ks_digit_size(ks);
    cr_assert_eq(hepa_ks_max_level(ks), L);
    hepa_rng *g = NULL;
    T_OK(hepa_rng_create(&g, NULL));
    hepa_poly *s = poly_of(r, M), *s2 = poly_of(r, M);
    T_OK(hepa_sample_ternary(g, s));
    T_OK(hepa_sample_ternary(g, s2));
    T_OK(hepa_poly_to_ntt(s));
    T_OK(hepa_poly_to_ntt(s2));
    /* shapes with an odd L switch with a seeded key (SEEDED KEYS, keyswitch.c) */
    const int seeded = (int)(L & 1);
    uint8_t seed[32];
    for (int i = 0; i < 32; ++i)
        seed[i] = (uint8_t)test_rand64(&t);
    hepa_ksk *key = NULL;
    if (seeded)
        T_OK(hepa_ksk_create_seeded(&key, ks, s2, s, g, seed));
    else
        T_OK(hepa_ksk_create(&key, ks, s2, s, g));
    { /* the host backend keeps 8-byte words; the export is in the documented order */
        const size_t kw = hepa_ks_num_digits(ks, L) * 2 * M * n;
        cr_assert_eq(hepa_ksk_bytes(key), kw * sizeof(uint64_t));
        uint64_t *w = malloc(kw * sizeof *w);
        cr_assert(w);
        T_OK(hepa_ksk_export(key, w));
        for (size_t i = 0; i < kw; ++i)
            cr_assert(w[i] < q[i / n % M], "key word %zu not below its modulus", i);
        /* import gives the words back, and the switches below run with the imported key */
        cr_assert_eq(hepa_ks_key_words(ks), kw);
        hepa_ksk *imp = NULL;
        T_OK(hepa_ksk_import(&imp, ks, w, kw));
        cr_assert_eq(hepa_ksk_bytes(imp), hepa_ksk_bytes(key));
        uint64_t *w2 = malloc(kw * sizeof *w2);
        cr_assert(w2);
        memset(w2, 0xA5, kw * sizeof *w2);
        T_OK(hepa_ksk_export(imp, w2));
        T_ARRAY_EQ(w2, w, kw, "imported key words");
        /* a seeded key: its seed and b_j, and the key they import to (a_j drawn again) */
        uint8_t sd[32];
        uint64_t *bw = malloc(kw / 2 * sizeof *bw);
        cr_assert(bw);
        memset(bw, 0xA5, kw / 2 * sizeof *bw);
        if (!seeded) {
            T_STATUS(hepa_ksk_export_seeded(key, sd, bw), HEPA_ERR_UNSUPPORTED);
        } else {
            T_OK(hepa_ksk_export_seeded(key, sd, bw));
            cr_assert(memcmp(sd, seed, 32) == 0, "exported seed");
            for (size_t j = 0; j < kw / (2 * M * n); ++j) /* digit j's b */
                T_ARRAY_EQ(bw + j * M * n, w + 2 * j * M * n, M * n, "b of digit %zu", j);
            hepa_ksk *imps = NULL;
            T_OK(hepa_ksk_import_seeded(&imps, ks, sd, bw, kw / 2));
            memset(w2, 0xA5, kw * sizeof *w2);
            T_OK(hepa_ksk_export(imps, w2));
            T_ARRAY_EQ(w2, w, kw, "seeded import's words");
            T_OK(hepa_ksk_export_seeded(imps, sd, bw)); /* still seeded */
            hepa_ksk_destroy(imps);
        }
        hepa_ksk_destroy(key);
        key = imp;
        free(w), free(w2), free(bw);
    }
    /* HOISTING: a second key for check_hoisted, and a rotation key from σ_5(s) to s */
    hepa_ksk *key2 = NULL, *rot = NULL;
    hepa_poly *s5 = poly_of(r, M);
    T_OK(hepa_poly_automorphism(s5, s, 5));
    T_OK(hepa_ksk_create(&key2, ks, s, s2, g));
    T_OK(hepa_ksk_create(&rot, ks, s5, s, g));
    double logP = 0;
    for (size_t k = 0; k < K; ++k) logP += log2((double)q[L + k]);
    const size_t levels[] = {L, L > 2 ? L - 1 : 1, 1};
    for (int li = 0; li < 3; ++li) {
        const size_t l = levels[li], dn = hepa_ks_num_digits(ks, l);
        cr_assert_eq(dn, (l + A - 1) / A);
        double logQj = 0; /* the largest digit at this level */
        for (size_t j = 0; j < dn; ++j) {
            double lq = 0;
            for (size_t i = j * A; i < l && i < (j + 1) * A; ++i) lq += log2((double)q[i]);
            if (lq > logQj) logQj = lq;
        }
        hepa_poly *c = poly_of(r, l), *o0 = poly_of(r, l), *o1 = poly_of(r, l);
        hepa_poly *sl = poly_of(r, l), *s2l = poly_of(r, l), *e = poly_of(r, l);
        rand_poly(&t, c, HEPA_DOMAIN_NTT);
        rand_poly(&t, o0, HEPA_DOMAIN_COEFF), rand_poly(&t, o1, HEPA_DOMAIN_COEFF);
        T_OK(hepa_keyswitch(ks, o0, o1, c, key));
        cr_assert(hepa_poly_domain(o0) == HEPA_DOMAIN_NTT && hepa_poly_domain(o1) == HEPA_DOMAIN_NTT);
        { /* hepa_keyswitch_add == key switch then hepa_poly_add, in place on the adds too */
            hepa_poly *a0 = poly_of(r, l), *a1 = poly_of(r, l), *w0 = poly_of(r, l);
            hepa_poly *w1 = poly_of(r, l), *g0 = poly_of(r, l), *g1 = poly_of(r, l);
            rand_poly(&t, a0, HEPA_DOMAIN_NTT), rand_poly(&t, a1, HEPA_DOMAIN_NTT);
            T_OK(hepa_poly_add(w0, o0, a0));
            T_OK(hepa_poly_add(w1, o1, a1));
            T_OK(hepa_keyswitch_add(ks, g0, g1, c, key, a0, NULL));
            cr_assert(polys_equal(g0, w0), "keyswitch_add out0, level %zu", l);
            cr_assert(polys_equal(g1, o1), "keyswitch_add out1 (nothing added), level %zu", l);
            T_OK(hepa_keyswitch_add(ks, a0, a1, c, key, a0, a1));
            cr_assert(polys_equal(a0, w0) && polys_equal(a1, w1), "keyswitch_add in place");
            hepa_poly_destroy(a0), hepa_poly_destroy(a1), hepa_poly_destroy(w0);
            hepa_poly_destroy(w1), hepa_poly_destroy(g0), hepa_poly_destroy(g1);
        }
        { /* hepa_mul_relin == hepa_poly_tensor then hepa_keyswitch_add(d0, d1): into fresh
           * outputs, in place on a (out = a), and squaring (b = a) */
            hepa_poly *x[4], *d[3], *g0 = poly_of(r, l), *g1 = poly_of(r, l);
            for (int k = 0; k < 4; ++k)
                x[k] = poly_of(r, l), rand_poly(&t, x[k], HEPA_DOMAIN_NTT);
            for (int k = 0; k < 3; ++k)
                d[k] = poly_of(r, l);
            T_OK(hepa_poly_tensor(d[0], d[1], d[2], x[0], x[1], x[2], x[3]));
            T_OK(hepa_keyswitch_add(ks, d[0], d[1], d[2], key, d[0], d[1]));
            rand_poly(&t, g0, HEPA_DOMAIN_COEFF), rand_poly(&t, g1, HEPA_DOMAIN_COEFF);
            T_OK(hepa_mul_relin(ks, g0, g1, x[0], x[1], x[2], x[3], key));
            cr_assert(hepa_poly_domain(g0) == HEPA_DOMAIN_NTT &&
                      hepa_poly_domain(g1) == HEPA_DOMAIN_NTT);
            cr_assert(polys_equal(g0, d[0]) && polys_equal(g1, d[1]), "mul_relin, level %zu", l);
            T_OK(hepa_mul_relin(ks, x[0], x[1], x[0], x[1], x[2], x[3], key));
            cr_assert(polys_equal(x[0], d[0]) && polys_equal(x[1], d[1]), "mul_relin in place");
            T_OK(hepa_poly_tensor(d[0], d[1], d[2], x[2], x[3], x[2], x[3]));
            T_OK(hepa_keyswitch_add(ks, d[0], d[1], d[2], key, d[0], d[1]));
            T_OK(hepa_mul_relin(ks, x[3], x[2], x[2], x[3], x[2], x[3], key)); /* swapped */
            cr_assert(polys_equal(x[3], d[0]) && polys_equal(x[2], d[1]), "mul_relin squaring");
            if (l >= 2) { /* hepa_mul_relin_rescale == hepa_mul_relin then rescale_pair */
                hepa_poly *h0 = poly_of(r, l - 1), *h1 = poly_of(r, l - 1);
                hepa_poly *w0 = poly_of(r, l - 1), *w1 = poly_of(r, l - 1);
                T_OK(hepa_mul_relin(ks, d[0], d[1], x[0], x[1], x[2], x[3], key));
                T_OK(hepa_poly_rescale_pair(w0, w1, d[0], d[1]));
                rand_poly(&t, h0, HEPA_DOMAIN_COEFF), rand_poly(&t, h1, HEPA_DOMAIN_COEFF);
                T_OK(hepa_mul_relin_rescale(ks, h0, h1, x[0], x[1], x[2], x[3], key));
                cr_assert(hepa_poly_domain(h0) == HEPA_DOMAIN_NTT &&
                          hepa_poly_domain(h1) == HEPA_DOMAIN_NTT);
                cr_assert(polys_equal(h0, w0) && polys_equal(h1, w1), "mul_relin_rescale, %zu", l);
                hepa_poly_destroy(h0), hepa_poly_destroy(h1);
                hepa_poly_destroy(w0), hepa_poly_destroy(w1);
            }
            for (int k = 0; k < 4; ++k)
                hepa_poly_destroy(x[k]);
            for (int k = 0; k < 3; ++k)
                hepa_poly_destroy(d[k]);
            hepa_poly_destroy(g0), hepa_poly_destroy(g1);
        }
        T_OK(hepa_poly_drop(sl, s));
        T_OK(hepa_poly_drop(s2l, s2));
        T_OK(hepa_poly_mul(e, o1, sl));
        T_OK(hepa_poly_add(e, e, o0));
        T_OK(hepa_poly_mul(o1, c, s2l));
        T_OK(hepa_poly_sub(e, e, o1)); /* o0 + o1·s - c·s' */
        const double got = max_log2(e);
        /* the digit noise, plus ModDown's rounding of o1 (1/2 per coefficient) times s */
        const double bound =
            log2(exp2(log2((double)n * dn * A * 20.0) + logQj - logP) + (double)n) + 2;
        cr_assert(got <= bound,
                  "key switch n %zu L %zu K %zu alpha %zu level %zu: error 2^%.1f above bound 2^%.1f",
                  n, L, K, A, l, got, bound);
        check_hoisted(&t, r, ks, l, key, key2);
        { /* a rotation by one slot, hoisted: o0 + o1·s - σ_5(c0 + c1·s) within the same bound */
            hepa_poly *c0 = poly_of(r, l), *s5l = poly_of(r, l), *x = poly_of(r, l);
            const uint64_t g5 = 5;
            const hepa_ksk *kr = rot;
            rand_poly(&t, c0, HEPA_DOMAIN_NTT);
            T_OK(hepa_automorphism_hoisted(ks, &o0, &o1, c0, c, &g5, &kr, 1));
            T_OK(hepa_poly_drop(s5l, s5));
            T_OK(hepa_poly_mul(e, o1, sl));
            T_OK(hepa_poly_add(e, e, o0));
            T_OK(hepa_poly_automorphism(x, c0, 5));
            T_OK(hepa_poly_sub(e, e, x));
            T_OK(hepa_poly_automorphism(x, c, 5));
            T_OK(hepa_poly_mul(x, x, s5l));
            T_OK(hepa_poly_sub(e, e, x));
            const double gr = max_log2(e);
            cr_assert(gr <= bound, "hoisted rotation, level %zu: error 2^%.1f above 2^%.1f", l, gr,
                      bound);
            hepa_poly_destroy(c0), hepa_poly_destroy(s5l), hepa_poly_destroy(x);
        }
        /* and c itself is of full size, so the check is not vacuous */
        hepa_poly_destroy(c), hepa_poly_destroy(o0), hepa_poly_destroy(o1);
        hepa_poly_destroy(sl), hepa_poly_destroy(s2l), hepa_poly_destroy(e);
    }
    hepa_ksk_destroy(key), hepa_ksk_destroy(key2), hepa_ksk_destroy(rot);
    hepa_poly_destroy(s), hepa_poly_destroy(s2), hepa_poly_destroy(s5);
    hepa_rng_destroy(g);
    hepa_ks_destroy(ks);
    hepa_ring_destroy(r);
}

Test(keyswitch, noise_bound_digits_equal_special) {
    check_keyswitch(1024, 5, 1, 0, 40);
    check_keyswitch(8192, 3, 1, 0, 40); /* the CKKS example's shape */
    check_keyswitch(1024, 5, 2, 0, 40); /* 5 not a multiple of 2: the last digit is short */
    check_keyswitch(1024, 6, 3, 0, 40);
}

Test(keyswitch, noise_bound_other_digit_sizes) {
    check_keyswitch(512, 7, 2, 1, 40);
    check_keyswitch(512, 7, 1, 2, 30);
    check_keyswitch(256, 20, 1, 0, 40);  /* 20 digits: the inner product folds past 16 terms */
    check_keyswitch(256, 3, 4, 3, 50);   /* one digit holding all of Q */
}

Test(keyswitch, bad_input) {
    const size_t n = 256, L = 3, K = 2, M = 5;
    uint64_t q[5];
    test_ks_moduli(q, n, L, K, 40);
    hepa_ring *r = ring_of(n, q, M), *r2 = ring_of(n, q, M);
    hepa_ks *ks = NULL, *ks2 = NULL;
    T_STATUS(hepa_ks_create(&ks, r, 0, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ks_create(&ks, r, M, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ks_create(&ks, r, K, L + 1), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ks_create(&ks, NULL, K, 0), HEPA_ERR_INVALID_ARGUMENT);
    cr_assert_null(ks);
    T_OK(hepa_ks_create(&ks, r, K, 0));
    T_OK(hepa_ks_create(&ks2, r, K, 1));
    cr_assert_eq(hepa_ks_num_digits(ks, 0), 0);
    cr_assert_eq(hepa_ks_num_digits(ks, L + 1), 0);
    cr_assert_eq(hepa_ks_num_digits(ks, L), 2);
    hepa_rng *g = NULL;
    T_OK(hepa_rng_create(&g, NULL));
    hepa_poly *s = poly_of(r, M), *sl = poly_of(r, L), *sx = poly_of(r2, M);
    hepa_ksk *key = NULL;
    T_STATUS(hepa_ksk_create(&key, ks, s, s, g), HEPA_ERR_DOMAIN); /* coefficient domain */
    T_OK(hepa_sample_ternary(g, s));
    T_OK(hepa_poly_to_ntt(s));
    T_OK(hepa_poly_to_ntt(sl));
    T_OK(hepa_poly_to_ntt(sx));
    T_STATUS(hepa_ksk_create(&key, ks, sl, s, g), HEPA_ERR_MISMATCH); /* not the full level */
    T_STATUS(hepa_ksk_create(&key, ks, sx, s, g), HEPA_ERR_MISMATCH); /* another ring */
    T_STATUS(hepa_ksk_create(&key, ks, s, s, NULL), HEPA_ERR_INVALID_ARGUMENT);
    cr_assert_null(key);
    hepa_ksk *key2 = NULL;
    T_OK(hepa_ksk_create(&key, ks, s, s, g));
    T_OK(hepa_ksk_create(&key2, ks2, s, s, g));
    { /* hepa_ksk_import: NULLs, a length of another context, a word not below its modulus in
       * the first and in the last component (*out untouched, nothing leaked) */
        const size_t kw = hepa_ks_key_words(ks);
        cr_assert_eq(kw, 2 * 2 * M * n);
        cr_assert_eq(hepa_ks_key_words(NULL), 0);
        uint64_t *w = malloc(kw * sizeof *w);
        cr_assert(w);
        T_OK(hepa_ksk_export(key, w));
        hepa_ksk *imp = NULL;
        T_STATUS(hepa_ksk_import(NULL, ks, w, kw), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ksk_import(&imp, NULL, w, kw), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ksk_import(&imp, ks, NULL, kw), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ksk_import(&imp, ks, w, kw - 1), HEPA_ERR_MISMATCH);
        T_STATUS(hepa_ksk_import(&imp, ks2, w, kw), HEPA_ERR_MISMATCH); /* 3 digits, not 2 */
        const uint64_t w0 = w[5], wl = w[kw - 1];
        w[5] = q[0];
        T_STATUS(hepa_ksk_import(&imp, ks, w, kw), HEPA_ERR_INVALID_ARGUMENT);
        w[5] = w0;
        w[kw - 1] = ~(uint64_t)0;
        T_STATUS(hepa_ksk_import(&imp, ks, w, kw), HEPA_ERR_INVALID_ARGUMENT);
        cr_assert_null(imp);
        w[kw - 1] = wl;
        T_OK(hepa_ksk_import(&imp, ks, w, kw));
        hepa_ksk_destroy(imp);
        imp = NULL;
        /* seeded keys: NULLs, a seed-less key's export, lengths, a bad b word */
        uint8_t seed[32] = {1, 2, 3};
        T_STATUS(hepa_ksk_create_seeded(&imp, ks, s, s, g, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ksk_create_seeded(&imp, ks, sl, s, g, seed), HEPA_ERR_MISMATCH);
        T_STATUS(hepa_ksk_create_seeded(&imp, ks, s, s, NULL, seed), HEPA_ERR_INVALID_ARGUMENT);
        cr_assert_null(imp);
        T_STATUS(hepa_ksk_export_seeded(key, seed, w), HEPA_ERR_UNSUPPORTED);
        T_OK(hepa_ksk_create_seeded(&imp, ks, s, s, g, seed));
        T_STATUS(hepa_ksk_export_seeded(NULL, seed, w), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ksk_export_seeded(imp, NULL, w), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ksk_export_seeded(imp, seed, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_OK(hepa_ksk_export_seeded(imp, seed, w));
        hepa_ksk_destroy(imp);
        imp = NULL;
        T_STATUS(hepa_ksk_import_seeded(NULL, ks, seed, w, kw / 2), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ksk_import_seeded(&imp, NULL, seed, w, kw / 2), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ksk_import_seeded(&imp, ks, NULL, w, kw / 2), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ksk_import_seeded(&imp, ks, seed, NULL, kw / 2), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ksk_import_seeded(&imp, ks, seed, w, kw), HEPA_ERR_MISMATCH);
        w[kw / 2 - 1] = ~(uint64_t)0; /* the last b_j's last word */
        T_STATUS(hepa_ksk_import_seeded(&imp, ks, seed, w, kw / 2), HEPA_ERR_INVALID_ARGUMENT);
        cr_assert_null(imp);
        free(w);
    }
    hepa_poly *c = poly_of(r, L), *o0 = poly_of(r, L), *o1 = poly_of(r, L), *top = poly_of(r, M);
    hepa_poly *o1low = poly_of(r, L - 1);
    T_STATUS(hepa_keyswitch(ks, o0, o1, c, key), HEPA_ERR_DOMAIN);
    T_OK(hepa_poly_to_ntt(c));
    T_OK(hepa_poly_to_ntt(top));
    T_STATUS(hepa_keyswitch(ks, o0, o0, c, key), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_keyswitch(ks, o0, o1, c, key2), HEPA_ERR_MISMATCH);   /* key of another context */
    T_STATUS(hepa_keyswitch(ks, o0, o1low, c, key), HEPA_ERR_MISMATCH); /* levels differ */
    T_STATUS(hepa_keyswitch(ks, o0, o1, top, key), HEPA_ERR_MISMATCH);  /* above L */
    T_STATUS(hepa_keyswitch(NULL, o0, o1, c, key), HEPA_ERR_INVALID_ARGUMENT);
    T_OK(hepa_keyswitch(ks, o0, o1, c, key));
    /* hepa_keyswitch_add's adds: an add that is the other output, of another level or ring, or
     * in the coefficient domain */
    hepa_poly *ac = poly_of(r, L), *ax = poly_of(r2, L);
    T_OK(hepa_poly_to_ntt(ax));
    T_STATUS(hepa_keyswitch_add(ks, o0, o1, c, key, o1, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_keyswitch_add(ks, o0, o1, c, key, NULL, o0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_keyswitch_add(ks, o0, o1, c, key, o1low, NULL), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_keyswitch_add(ks, o0, o1, c, key, NULL, ax), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_keyswitch_add(ks, o0, o1, c, key, ac, NULL), HEPA_ERR_DOMAIN);
    T_STATUS(hepa_keyswitch_add(ks, o0, o1, c, key, NULL, ac), HEPA_ERR_DOMAIN);
    T_OK(hepa_keyswitch_add(ks, o0, o1, c, key, NULL, NULL));
    /* hepa_mul_relin: NULLs, the same output twice, another ring / context / level, above L,
     * an input in the coefficient domain */
    T_STATUS(hepa_mul_relin(NULL, o0, o1, c, c, c, c, key), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_mul_relin(ks, NULL, o1, c, c, c, c, key), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_mul_relin(ks, o0, o1, c, NULL, c, c, key), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_mul_relin(ks, o0, o1, c, c, c, c, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_mul_relin(ks, o0, o0, c, c, c, c, key), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_mul_relin(ks, o0, o1, c, c, ax, c, key), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_mul_relin(ks, o0, o1, c, c, c, c, key2), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_mul_relin(ks, o0, o1low, c, c, c, c, key), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_mul_relin(ks, o0, o1, c, o1low, c, c, key), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_mul_relin(ks, o0, o1, top, top, top, top, key), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_mul_relin(ks, o0, o1, c, c, c, ac, key), HEPA_ERR_DOMAIN);
    T_OK(hepa_mul_relin(ks, o0, o1, c, c, c, c, key));
    /* hepa_mul_relin_rescale: the same checks, outputs one level down, level 1 */
    hepa_poly *o0low = poly_of(r, L - 1), *c1 = poly_of(r, 1), *z0 = poly_of(r, 1);
    hepa_poly *z1 = poly_of(r, 1);
    T_OK(hepa_poly_to_ntt(c1));
    T_STATUS(hepa_mul_relin_rescale(NULL, o0low, o1low, c, c, c, c, key),
             HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_mul_relin_rescale(ks, o0low, NULL, c, c, c, c, key), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_mul_relin_rescale(ks, o0low, o1low, c, c, NULL, c, key),
             HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_mul_relin_rescale(ks, o0low, o0low, c, c, c, c, key), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_mul_relin_rescale(ks, o0low, o1low, c, c, c, c, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_mul_relin_rescale(ks, o0, o1, c, c, c, c, key), HEPA_ERR_MISMATCH); /* level l */
    T_STATUS(hepa_mul_relin_rescale(ks, o0low, o1, c, c, c, c, key), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_mul_relin_rescale(ks, o0low, o1low, c, ax, c, c, key), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_mul_relin_rescale(ks, o0low, o1low, c, c, c, c, key2), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_mul_relin_rescale(ks, o0low, o1low, c, o1low, c, c, key), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_mul_relin_rescale(ks, o0, o1, top, top, top, top, key), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_mul_relin_rescale(ks, o0low, o1low, c, c, ac, c, key), HEPA_ERR_DOMAIN);
    T_STATUS(hepa_mul_relin_rescale(ks, z0, z1, c1, c1, c1, c1, key), HEPA_ERR_RANGE);
    T_OK(hepa_mul_relin_rescale(ks, o0low, o1low, c, c, c, c, key));
    { /* hepa_automorphism_hoisted: NULLs (the arrays and their entries), count 0, an even g,
       * outputs aliasing c0, c1 or each other; another ring / context / level, above L; an input
       * in the coefficient domain. Outputs untouched on each. */
        hepa_poly *p0 = poly_of(r, L), *p1 = poly_of(r, L), *xl = poly_of(r2, L);
        T_OK(hepa_poly_to_ntt(xl));
        hepa_poly *h0[2] = {o0, p0}, *h1[2] = {o1, p1};
        const uint64_t gg[2] = {5, 3}, ge[2] = {5, 4};
        const hepa_ksk *kk[2] = {key, key}, *kn[2] = {key, NULL}, *kx[2] = {key, key2};
        uint64_t *was = get_poly(o0);
        T_STATUS(hepa_automorphism_hoisted(NULL, h0, h1, c, c, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_automorphism_hoisted(ks, NULL, h1, c, c, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, NULL, c, c, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, NULL, c, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, c, NULL, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, c, c, NULL, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, c, c, gg, NULL, 2),
                 HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, c, c, gg, kn, 2), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, c, c, gg, kk, 0), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, c, c, ge, kk, 2), HEPA_ERR_INVALID_ARGUMENT);
        hepa_poly *n0[2] = {o0, NULL}, *a0[2] = {o0, c}, *a1[2] = {ac, o1}, *d0[2] = {o0, o1};
        hepa_poly *d1[2] = {o1, p0}, *e0[2] = {o0, o0}, *e1[2] = {o1, p1}, *f1[2] = {o1, o0};
        T_STATUS(hepa_automorphism_hoisted(ks, n0, h1, c, c, gg, kk, 2), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_automorphism_hoisted(ks, a0, h1, c, ac, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT); /* an output is c0 */
        T_STATUS(hepa_automorphism_hoisted(ks, h0, a1, c, ac, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT); /* an output is c1 */
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h0, c, c, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT); /* out0[k] == out1[k] */
        T_STATUS(hepa_automorphism_hoisted(ks, d0, d1, c, c, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT); /* out0[1] is out1[0] */
        T_STATUS(hepa_automorphism_hoisted(ks, e0, e1, c, c, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT); /* out0[1] is out0[0] */
        T_STATUS(hepa_automorphism_hoisted(ks, h0, f1, c, c, gg, kk, 2),
                 HEPA_ERR_INVALID_ARGUMENT); /* out1[1] is out0[0] */
        hepa_poly *l0[2] = {o0, o0low}, *l1[2] = {o1, o1low};
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, c, c, gg, kx, 2), HEPA_ERR_MISMATCH);
        T_STATUS(hepa_automorphism_hoisted(ks, l0, h1, c, c, gg, kk, 2), HEPA_ERR_MISMATCH);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, l1, c, c, gg, kk, 2), HEPA_ERR_MISMATCH);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, c, o1low, gg, kk, 2), HEPA_ERR_MISMATCH);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, xl, c, gg, kk, 2), HEPA_ERR_MISMATCH);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, c, xl, gg, kk, 2), HEPA_ERR_MISMATCH);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, top, top, gg, kk, 2), HEPA_ERR_MISMATCH);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, ac, c, gg, kk, 2), HEPA_ERR_DOMAIN);
        T_STATUS(hepa_automorphism_hoisted(ks, h0, h1, c, ac, gg, kk, 2), HEPA_ERR_DOMAIN);
        uint64_t *now = get_poly(o0);
        T_ARRAY_EQ(now, was, L * n, "out0[0] untouched by the failed calls");
        free(was), free(now);
        T_OK(hepa_automorphism_hoisted(ks, h0, h1, c, c, gg, kk, 2));
        hepa_poly_destroy(p0), hepa_poly_destroy(p1), hepa_poly_destroy(xl);
    }
    hepa_poly_destroy(o0low), hepa_poly_destroy(c1), hepa_poly_destroy(z0), hepa_poly_destroy(z1);
    hepa_poly *all[] = {s, sl, sx, c, o0, o1, top, o1low, ac, ax};
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k) hepa_poly_destroy(all[k]);
    hepa_ksk_destroy(key), hepa_ksk_destroy(key2), hepa_ksk_destroy(NULL);
    hepa_rng_destroy(g);
    hepa_ks_destroy(ks), hepa_ks_destroy(ks2), hepa_ks_destroy(NULL);
    hepa_ring_destroy(r), hepa_ring_destroy(r2);
}

/* PACKED COLUMNS' high-byte order (rns/ksk_layout.h): a permutation of [0, n) for every n the
 * device packs at (and every multiple of 1024 up to 2^17), pairs (x even) adjacent, and each
 * 32-byte sector = 8 adjacent columns of 4 consecutive 256-word rows. */
Test(ksk_layout, pcol_hi) {
    for (size_t n = 1024; n <= ((size_t)1 << 17); n *= 2) {
        unsigned char *seen = calloc(n, 1);
        cr_assert(seen);
        for (size_t x = 0; x < n; ++x) {
            const size_t h = hepa_pcol_hi(x);
            cr_assert(h < n && !seen[h], "n %zu: x %zu -> %zu", n, x, h);
            seen[h] = 1;
            if (!(x & 1)) cr_assert_eq(hepa_pcol_hi(x + 1), h + 1);
            /* the sector of x: its row block (x >> 10), tile ((x & 255) >> 3); inside it,
             * row (x >> 8) & 3 and column x & 7 */
            cr_assert_eq(h >> 5, (x >> 10) * 32 + ((x & 255) >> 3), "n %zu x %zu", n, x);
            cr_assert_eq(h & 31, ((x >> 8) & 3) * 8 + (x & 7), "n %zu x %zu", n, x);
        }
        /* the conversion kernel's pair order: even words, each once, high bytes at 2p */
        memset(seen, 0, n);
        for (size_t p = 0; p < n / 2; ++p) {
            const size_t x = hepa_pcol_pair(p);
            cr_assert(x < n && !(x & 1) && !seen[x], "n %zu: pair %zu -> %zu", n, p, x);
            seen[x] = 1;
            cr_assert_eq(hepa_pcol_hi(x), 2 * p, "n %zu pair %zu", n, p);
        }
        free(seen);
    }
}
