/* tests/test_ckks.c — the host DFT reference and CKKS encode/decode on the CPU backend, against
 * long double references: the DFT against a direct long double DFT; the encoded polynomial
 * evaluated exactly (GMP CRT, long double powers of ζ) at ζ^(5^j) against Δ·z_j; decode(encode)
 * against the input; scales beyond 2^53 (exact rounding and reduction); bad input. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "test_util.h"
#include "hepa/ckks.h"
#include "hepa/crt.h"
#include "hepa/dft.h"
#include "hepa/poly.h"
#include "hepa/primes.h"
#include "hepa/ring.h"
#include "rns/ckks_core.h"

static const long double TWO_PI = 6.283185307179586476925286766559005768L;


/* Direct DFT in long double: out = Σ_k x_k e^(∓2πi tk/n). */
static void dft_direct(long double *out, const double *x, size_t n, int inverse) {
    for (size_t t = 0; t < n; ++t) {
        long double re = 0, im = 0;
        for (size_t k = 0; k < n; ++k) {
            const long double a = TWO_PI * (long double)((t * k) % n) / (long double)n;
            const long double c = cosl(a), s = inverse ? sinl(a) : -sinl(a);
            re += x[2 * k] * c - x[2 * k + 1] * s;
            im += x[2 * k] * s + x[2 * k + 1] * c;
        }
        out[2 * t] = re;
        out[2 * t + 1] = im;
    }
}

/* relative L2 error of got against want (2n reals) */
static double rel_l2(const double *got, const long double *want, size_t n2) {
    long double num = 0, den = 0;
    for (size_t i = 0; i < n2; ++i) {
        const long double d = (long double)got[i] - want[i];
        num += d * d;
        den += want[i] * want[i];
    }
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

Test(ckks, dft_host_vs_direct) {
    test_rng r;
    test_rng_init(&r);
    for (size_t n = 1; n <= 1024; n *= 2)
        for (int inv = 0; inv < 2; ++inv) {
            const size_t batch = 3;
            double *x = malloc(2 * n * batch * sizeof *x), *y = malloc(2 * n * batch * sizeof *y);
            long double *want = malloc(2 * n * sizeof *want);
            for (size_t i = 0; i < 2 * n * batch; ++i) x[i] = test_rand_unit(&r);
            memcpy(y, x, 2 * n * batch * sizeof *x);
            T_OK(hepa_dft_host(y, n, batch, inv));
            for (size_t b = 0; b < batch; ++b) {
                dft_direct(want, x + 2 * n * b, n, inv);
                const double e = rel_l2(y + 2 * n * b, want, 2 * n);
                cr_assert(e < 1e-15 * (1 + test_log2(n)), "n=%zu inv=%d batch %zu: rel L2 %.3g", n,
                          inv, b, e);
            }
            /* inverse(forward(x)) = n·x */
            if (!inv) {
                T_OK(hepa_dft_host(y, n, batch, 1));
                for (size_t i = 0; i < 2 * n * batch; ++i)
                    cr_assert(fabs(y[i] / (double)n - x[i]) < 1e-14, "round trip n=%zu", n);
            }
            free(x);
            free(y);
            free(want);
        }
    double z[2] = {1, 2};
    T_STATUS(hepa_dft_host(z, 3, 1, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_dft_host(NULL, 4, 1, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_dft_host(z, 0, 1, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_OK(hepa_dft_host(NULL, 4, 0, 0)); /* nothing to do */
}

/* The unit roundoff long double really has when the program runs: valgrind executes x87
 * extended-precision arithmetic in double precision, so under scripts/test.sh --valgrind
 * 1 + LDBL_EPSILON rounds to 1 and long double carries no more than double. */
static long double ld_eps_at_run_time(void) {
    volatile long double one = 1.0L, eps = LDBL_EPSILON;
    return one + eps != one ? LDBL_EPSILON : (long double)DBL_EPSILON;
}

/* The long double reference the GPU tests measure error against: within a few long double ulps
 * (2^-64 ≈ 5.4e-20) of the direct long double DFT, i.e. far below every mode's error (bound
 * 1e-18 ≈ 9 LDBL_EPSILON; scaled to the precision long double has at run time, see above). */
Test(ckks, dft_host_ld_vs_direct) {
    test_rng r;
    test_rng_init(&r);
    const double bound = 1e-18 * (double)(ld_eps_at_run_time() / LDBL_EPSILON);
    for (size_t n = 1; n <= 512; n *= 2)
        for (int inv = 0; inv < 2; ++inv) {
            double *x = malloc(2 * n * sizeof *x);
            long double *y = malloc(2 * n * sizeof *y), *want = malloc(2 * n * sizeof *want);
            for (size_t i = 0; i < 2 * n; ++i) y[i] = x[i] = test_rand_unit(&r);
            T_OK(hepa_dft_host_ld(y, n, 1, inv));
            dft_direct(want, x, n, inv);
            long double num = 0, den = 0;
            for (size_t i = 0; i < 2 * n; ++i) {
                num += (y[i] - want[i]) * (y[i] - want[i]);
                den += want[i] * want[i];
            }
            const double e = (double)sqrtl(num / den);
            cr_assert(e < bound, "n=%zu inv=%d: rel L2 %.3g (bound %.3g)", n, inv, e, bound);
            free(x);
            free(y);
            free(want);
        }
    long double z[2] = {1, 2};
    T_STATUS(hepa_dft_host_ld(z, 6, 1, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_dft_host_ld(NULL, 4, 1, 0), HEPA_ERR_INVALID_ARGUMENT);
}

typedef struct {
    hepa_ring *ring;
    hepa_ckks_encoder *enc;
    size_t n, L;
    uint64_t q[64];
} cctx;

static void cctx_init(cctx *c, size_t n, size_t L, unsigned bits) {
    c->n = n;
    c->L = L;
    cr_assert_eq(test_primes_1mod_desc(c->q, L, bits, 2 * n), L);
    T_OK(hepa_ring_create(&c->ring, n, c->q, L, HEPA_BACKEND_CPU));
    T_OK(hepa_ckks_encoder_create(&c->enc, c->ring));
}
static void cctx_clear(cctx *c) {
    hepa_ckks_encoder_destroy(c->enc);
    hepa_ring_destroy(c->ring);
}

static void rand_slots(test_rng *r, double *z, size_t h, double mag) {
    for (size_t i = 0; i < 2 * h; ++i) z[i] = mag * test_rand_unit(r);
}

/* Encode at (Δ, level), then check m(ζ^(5^j)) ≈ Δ·z_j exactly: the coefficients come back
 * through GMP CRT (centred, exact as long double below 2^64), the powers of ζ in long double.
 * Returns the largest |m(ζ^(5^j))/Δ - z_j|. */
static double check_evaluation(cctx *c, const double *z, double scale, size_t level) {
    const size_t n = c->n, h = n / 2, M = 2 * n;
    hepa_poly *p;
    T_OK(hepa_poly_create(&p, c->ring, level));
    T_OK(hepa_ckks_encode(c->enc, p, z, scale));
    cr_assert_eq(hepa_poly_domain(p), HEPA_DOMAIN_NTT);
    T_OK(hepa_poly_from_ntt(p));
    uint64_t *limbs = test_alloc(level * n);
    T_OK(hepa_poly_get(p, limbs));
    mpz_t *m = malloc(n * sizeof *m);
    for (size_t k = 0; k < n; ++k) mpz_init(m[k]);
    T_OK(hepa_crt_compose(c->ring, level, m, limbs, 1));
    long double *mk = malloc(n * sizeof *mk), *zr = malloc(M * sizeof *zr),
                *zi = malloc(M * sizeof *zi);
    for (size_t k = 0; k < n; ++k) {
        cr_assert(mpz_sizeinbase(m[k], 2) < 63, "coefficient %zu too large for this check", k);
        mk[k] = (long double)mpz_get_si(m[k]);
    }
    for (size_t i = 0; i < M; ++i) {
        zr[i] = cosl(TWO_PI * (long double)i / (long double)M);
        zi[i] = sinl(TWO_PI * (long double)i / (long double)M);
    }
    double worst = 0;
    uint64_t g = 1;
    for (size_t j = 0; j < h; ++j) {
        long double re = 0, im = 0;
        for (size_t k = 0; k < n; ++k) {
            const size_t e = (size_t)((g * k) % M);
            re += mk[k] * zr[e];
            im += mk[k] * zi[e];
        }
        const double d = (double)hypotl(re / scale - z[2 * j], im / scale - z[2 * j + 1]);
        if (d > worst) worst = d;
        g = g * 5 % M;
    }
    for (size_t k = 0; k < n; ++k) mpz_clear(m[k]);
    free(m);
    free(mk);
    free(zr);
    free(zi);
    free(limbs);
    hepa_poly_destroy(p);
    return worst;
}

Test(ckks, encode_evaluates_to_slots) {
    test_rng r;
    test_rng_init(&r);
    const size_t top = test_quick() ? 1024 : 4096;
    for (size_t n = 16; n <= top; n *= 2) {
        cctx c;
        cctx_init(&c, n, 3, 60);
        const size_t h = n / 2;
        double *z = malloc(2 * h * sizeof *z);
        rand_slots(&r, z, h, 1.0);
        const double scales[] = {0x1p30, 0x1p40, 0x1p50};
        for (int s = 0; s < 3; ++s)
            for (size_t level = 1; level <= 3; level += 2) {
                /* rounding moves each coefficient by <= 1/2: <= n/2 per evaluation */
                const double bound = (0.5 * (double)n + 1) / scales[s] + 1e-12;
                const double w = check_evaluation(&c, z, scales[s], level);
                cr_assert(w <= bound, "n=%zu Δ=2^%d level=%zu: max error %.3g > %.3g", n,
                          (int)log2(scales[s]), level, w, bound);
            }
        free(z);
        cctx_clear(&c);
    }
}

/* decode(encode(z)) ≈ z, for host slots; Δ from 2^20 to 2^120 (beyond 2^53 every rounded value
 * is the double itself and its residues come from mant·2^e: wrong residues would decode to
 * garbage). Returns nothing; asserts max |error| <= n/Δ + rel·|z|. */
static void round_trip(cctx *c, test_rng *r, double scale, size_t level, double mag, double rel) {
    const size_t h = c->n / 2;
    double *z = malloc(2 * h * sizeof *z), *out = malloc(2 * h * sizeof *out);
    rand_slots(r, z, h, mag);
    hepa_poly *p;
    T_OK(hepa_poly_create(&p, c->ring, level));
    T_OK(hepa_ckks_encode(c->enc, p, z, scale));
    for (size_t i = 0; i < 2 * h; ++i) out[i] = NAN;
    T_OK(hepa_ckks_decode(c->enc, p, scale, out));
    const double bound = (double)c->n / scale + rel * mag;
    for (size_t i = 0; i < 2 * h; ++i)
        cr_assert(fabs(out[i] - z[i]) <= bound, "n=%zu Δ=2^%.0f level=%zu slot %zu: %.17g vs %.17g",
                  c->n, log2(scale), level, i / 2, out[i], z[i]);
    /* decoding the coefficient-domain polynomial gives the same slots */
    T_OK(hepa_poly_from_ntt(p));
    double *out2 = malloc(2 * h * sizeof *out2);
    T_OK(hepa_ckks_decode(c->enc, p, scale, out2));
    cr_assert(memcmp(out, out2, 2 * h * sizeof *out) == 0, "decode differs by domain");
    free(out2);
    hepa_poly_destroy(p);
    free(z);
    free(out);
}

Test(ckks, encode_decode_round_trip) {
    test_rng r;
    test_rng_init(&r);
    const size_t top = test_quick() ? 4096 : 65536;
    for (size_t n = 16; n <= top; n *= 4) {
        cctx c;
        cctx_init(&c, n, 4, 60);
        round_trip(&c, &r, 0x1p20, 2, 100.0, 1e-12);
        round_trip(&c, &r, 0x1p40, 3, 1.0, 1e-12);
        round_trip(&c, &r, 0x1p50, 4, 1000.0, 1e-12);
        round_trip(&c, &r, 0x1p60, 4, 1.0, 1e-12);  /* coefficients near 2^60 */
        round_trip(&c, &r, 0x1p100, 4, 1.0, 1e-12); /* near 2^100: beyond 2^64 */
        round_trip(&c, &r, 0x1p120, 4, 1.0, 1e-12); /* near 2^120 with Q ≈ 2^240 */
        cctx_clear(&c);
    }
}

Test(ckks, decode_limbs) {
    cctx c;
    cctx_init(&c, 1024, 5, 60);
    cr_assert_eq(hepa_ckks_decode_limbs(c.enc, 5, 0x1p40), 2); /* needs > 102 bits: 2·60 */
    cr_assert_eq(hepa_ckks_decode_limbs(c.enc, 5, 0x1p59), 3); /* needs > 121 bits */
    cr_assert_eq(hepa_ckks_decode_limbs(c.enc, 1, 0x1p40), 1); /* capped at the level */
    cr_assert_eq(hepa_ckks_decode_limbs(c.enc, 6, 0x1p40), 0); /* bad level */
    cr_assert_eq(hepa_ckks_decode_limbs(c.enc, 5, -1.0), 0);
    cctx_clear(&c);
    /* 20 limbs of 20 bits: Δ = 2^300 needs 362 bits, 19 limbs: more than 16 */
    cctx_init(&c, 16, 20, 20);
    cr_assert_eq(hepa_ckks_decode_limbs(c.enc, 20, 0x1p300), 0);
    hepa_poly *p;
    T_OK(hepa_poly_create(&p, c.ring, 20));
    T_OK(hepa_poly_set(p, (uint64_t[320]){0}, HEPA_DOMAIN_COEFF));
    double out[16];
    T_STATUS(hepa_ckks_decode(c.enc, p, 0x1p300, out), HEPA_ERR_UNSUPPORTED);
    hepa_poly_destroy(p);
    cctx_clear(&c);
}

/* The device encoder's int64 reduction (ckks_residue_i64: |w| < q taken as is, else one Barrett
 * step) against GMP, for small, 60-bit and near-2^62 moduli, at the boundaries (0, ±1, ±(q-1),
 * ±q, ±(q+1), ±2q, ±(2^63-1)) and on random words of every size, both signs. */
Test(ckks, residue_i64_vs_gmp) {
    test_rng r;
    test_rng_init(&r);
    uint64_t qs[4] = {12289, (1ull << 40) - 87, 0, 0};
    T_OK(hepa_primes_ntt(&qs[2], 1, 60, 1u << 16));
    T_OK(hepa_primes_ntt(&qs[3], 1, 62, 1u << 16));
    mpz_t z;
    mpz_init(z);
    for (int qi = 0; qi < 4; ++qi) {
        const uint64_t q = qs[qi];
        cr_assert(q & 1);
        const hepa_modulus m = hepa_modulus_make(q);
        int64_t ws[2000];
        size_t cnt = 0;
        const int64_t edge[8] = {0, 1, (int64_t)q - 1, (int64_t)q, (int64_t)q + 1,
                                 (int64_t)(2 * q), INT64_MAX, INT64_MAX - 1};
        for (int e = 0; e < 8; ++e) ws[cnt++] = edge[e], ws[cnt++] = -edge[e];
        while (cnt < 2000) {
            const unsigned bits = 1 + (unsigned)test_rand_below(&r, 63); /* 1 .. 63 */
            const int64_t v = (int64_t)(test_rand64(&r) >> (64 - bits)) & INT64_MAX;
            ws[cnt] = (cnt & 1) ? -v : v;
            ++cnt;
        }
        for (size_t i = 0; i < cnt; ++i) {
            mpz_set_si(z, (long)ws[i]);
            const uint64_t want = mpz_fdiv_ui(z, q);
            const uint64_t got = ckks_residue_i64(ws[i], &m);
            cr_assert_eq(got, want, "q=%llu w=%lld: %llu, want %llu", (unsigned long long)q,
                         (long long)ws[i], (unsigned long long)got, (unsigned long long)want);
            /* and the double path agrees where the double is exact */
            if (ws[i] > -(1ll << 53) && ws[i] < (1ll << 53))
                cr_assert_eq(ckks_residue((double)ws[i], &m), want);
        }
    }
    mpz_clear(z);
}

Test(ckks, bad_input) {
    cctx c, d;
    cctx_init(&c, 64, 3, 60);
    cctx_init(&d, 64, 3, 50);
    const size_t h = 32;
    double z[64] = {0}, out[64];
    z[0] = 1;
    hepa_poly *p, *pd;
    T_OK(hepa_poly_create(&p, c.ring, 3));
    T_OK(hepa_poly_create(&pd, d.ring, 3));
    T_STATUS(hepa_ckks_encoder_create(NULL, c.ring), HEPA_ERR_INVALID_ARGUMENT);
    hepa_ckks_encoder *e = (hepa_ckks_encoder *)0x1;
    T_STATUS(hepa_ckks_encoder_create(&e, NULL), HEPA_ERR_INVALID_ARGUMENT);
    cr_assert_eq(e, (hepa_ckks_encoder *)0x1, "output touched on error");
    hepa_ckks_encoder_destroy(NULL);

    T_STATUS(hepa_ckks_encode(NULL, p, z, 0x1p40), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ckks_encode(c.enc, NULL, z, 0x1p40), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ckks_encode(c.enc, p, NULL, 0x1p40), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ckks_encode(c.enc, pd, z, 0x1p40), HEPA_ERR_MISMATCH);
    const double bad_scales[] = {0, -1, NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 5; ++i) {
        T_STATUS(hepa_ckks_encode(c.enc, p, z, bad_scales[i]), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_ckks_decode(c.enc, p, bad_scales[i], out), HEPA_ERR_INVALID_ARGUMENT);
    }
    const double bad_slots[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; ++i)
        for (size_t pos = 0; pos < 2 * h; pos += 2 * h - 1) {
            z[pos] = bad_slots[i];
            T_STATUS(hepa_ckks_encode(c.enc, p, z, 0x1p40), HEPA_ERR_INVALID_ARGUMENT);
            z[pos] = pos == 0 ? 1 : 0;
        }
    /* Q ≈ 2^180: Δ = 2^180 puts the slot value 1 at coefficients near 2^174... and 2^200 overflows */
    T_STATUS(hepa_ckks_encode(c.enc, p, z, 0x1p200), HEPA_ERR_RANGE);
    /* at level 1 (Q = q_0 ≈ 2^60) even Δ = 2^60 is too much for |z| = 1 spread over 64 coeffs */
    hepa_poly *p1;
    T_OK(hepa_poly_create(&p1, c.ring, 1));
    z[0] = 1e6;
    T_STATUS(hepa_ckks_encode(c.enc, p1, z, 0x1p60), HEPA_ERR_RANGE);
    z[0] = 1;
    T_OK(hepa_ckks_encode(c.enc, p1, z, 0x1p40));
    /* a scale whose product with a slot overflows double */
    z[0] = 1e300;
    T_STATUS(hepa_ckks_encode(c.enc, p, z, 0x1p100), HEPA_ERR_RANGE);
    z[0] = 1;

    T_STATUS(hepa_ckks_decode(NULL, p, 0x1p40, out), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ckks_decode(c.enc, NULL, 0x1p40, out), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ckks_decode(c.enc, p, 0x1p40, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ckks_decode(c.enc, pd, 0x1p40, out), HEPA_ERR_MISMATCH);
    hepa_poly_destroy(p1);
    hepa_poly_destroy(p);
    hepa_poly_destroy(pd);
    cctx_clear(&c);
    cctx_clear(&d);
}

/* the length of hepa_last_error_message in a thread that has made no call (read there: the
 * text is the thread's own and goes with it) */
static void *last_message_of_new_thread(void *out) {
    const char *m = hepa_last_error_message();
    *(size_t *)out = m ? strlen(m) : SIZE_MAX;
    return NULL;
}

/* DFT MODE (hepa/ckks.h) on the CPU backend: AUTO and FP64 only; the resolved mode is FP64 (the
 * cheapest in the measured cost order) for every scale; bad arguments. */
Test(ckks, dft_mode) {
    cctx c;
    cctx_init(&c, 64, 3, 60);
    const double scales[] = {1.0, 0x1p10, 0x1p20, 0x1p40, 0x1p100};
    for (int i = 0; i < 5; ++i)
        cr_assert_eq(hepa_ckks_dft_mode(c.enc, scales[i]), HEPA_DFT_FP64);
    cr_assert_eq(hepa_ckks_dft_mode(NULL, 0x1p40), -1);
    cr_assert_eq(hepa_ckks_dft_mode(c.enc, 0), -1);
    cr_assert_eq(hepa_ckks_dft_mode(c.enc, -1), -1);
    cr_assert_eq(hepa_ckks_dft_mode(c.enc, NAN), -1);
    cr_assert_eq(hepa_ckks_dft_mode(c.enc, INFINITY), -1);
    T_STATUS(hepa_ckks_encoder_set_dft_mode(NULL, HEPA_DFT_FP64), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ckks_encoder_set_dft_mode(c.enc, 7), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ckks_encoder_set_dft_mode(c.enc, -2), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ckks_encoder_set_dft_mode(c.enc, HEPA_DFT_FP16), HEPA_ERR_UNSUPPORTED);
    /* the reason is in this thread's hepa_last_error_message, not in another thread's */
    cr_assert(strstr(hepa_last_error_message(), "CPU backend") != NULL, "message: '%s'",
              hepa_last_error_message());
    pthread_t th;
    size_t other = 1;
    cr_assert_eq(pthread_create(&th, NULL, last_message_of_new_thread, &other), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_assert_eq(other, 0, "a new thread's message has length %zu", other);
    T_STATUS(hepa_ckks_encoder_set_dft_mode(c.enc, HEPA_DFT_FP16X2), HEPA_ERR_UNSUPPORTED);
    T_STATUS(hepa_ckks_encoder_set_dft_mode(c.enc, HEPA_DFT_FP32), HEPA_ERR_UNSUPPORTED);
    cr_assert(strstr(hepa_last_error_message(), "HEPA_DFT_FP32") != NULL, "message: '%s'",
              hepa_last_error_message());
    cr_assert_eq(hepa_ckks_dft_mode(c.enc, 0x1p40), HEPA_DFT_FP64, "mode changed on error");
    T_OK(hepa_ckks_encoder_set_dft_mode(c.enc, HEPA_DFT_FP64));
    cr_assert_eq(hepa_ckks_dft_mode(c.enc, 0x1p40), HEPA_DFT_FP64);
    T_OK(hepa_ckks_encoder_set_dft_mode(c.enc, HEPA_CKKS_DFT_AUTO));
    /* still encodes and decodes */
    double z[64], out[64];
    for (int i = 0; i < 64; ++i)
        z[i] = (i % 7) * 0.125 - 0.375;
    hepa_poly *p;
    T_OK(hepa_poly_create(&p, c.ring, 3));
    T_OK(hepa_ckks_encode(c.enc, p, z, 0x1p40));
    T_OK(hepa_ckks_decode(c.enc, p, 0x1p40, out));
    for (int i = 0; i < 64; ++i)
        cr_assert(fabs(out[i] - z[i]) < 1e-9);
    hepa_poly_destroy(p);
    cctx_clear(&c);
}
