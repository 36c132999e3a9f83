/* tests/ckks_scheme_checks.h — the checks built from the CKKS example (examples/ckks), run on
 * one backend: included by tests/test_ckks_scheme.c (CPU) and tests/gpu/test_gpu_rns.c (CUDA).
 * Each homomorphic result is decrypted and compared with the plain computation on the slots,
 * against the noise bounds that examples/ckks/ckks_scheme.h states. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckks_scheme.h"
#include "test_util.h"

/* max_j |got_j - want_j| over complex slots, as log2 */
static double slot_err_log2(const double *got, const double *want, size_t h) {
    double m = 0;
    for (size_t j = 0; j < h; ++j) {
        const double e = hypot(got[2 * j] - want[2 * j], got[2 * j + 1] - want[2 * j + 1]);
        if (!(e <= m)) m = e; /* NaN propagates */
    }
    return m > 0 ? log2(m) : -1000;
}

static void rand_slots(test_rng *t, double *z, size_t h) {
    for (size_t j = 0; j < 2 * h; ++j) z[j] = 2 * test_rand_unit(t) - 1; /* |z| <= sqrt 2 */
    for (size_t j = 0; j < h; ++j) { /* scale into the unit disc */
        const double r = hypot(z[2 * j], z[2 * j + 1]);
        if (r > 1) z[2 * j] /= r, z[2 * j + 1] /= r;
    }
}

#define CHECK_ERR(what, got, want, h, bound)                                                   \
    do {                                                                                       \
        const double e_ = slot_err_log2(got, want, h);                                         \
        fprintf(stderr, "ckks example (%s): %-34s error 2^%.1f (bound 2^%d)\n", backend_name,   \
                what, e_, bound);                                                              \
        cr_assert(e_ < (bound), "%s: error 2^%.1f above 2^%d", what, e_, bound);               \
    } while (0)

static void ckks_scheme_checks(hepa_backend backend) {
    const char *backend_name = backend == HEPA_BACKEND_CUDA ? "CUDA" : "CPU";
    test_rng t;
    test_rng_init(&t);
    ckks_params p = ckks_params_default();
    ckks_ctx *ctx = NULL;
    T_OK(ckks_ctx_create(&ctx, &p, backend));
    cr_assert_eq(hepa_ring_backend(ctx->ring), backend);
    const size_t h = ctx->n / 2, L = ctx->L;
    double *x = malloc(2 * h * sizeof *x), *y = malloc(2 * h * sizeof *y);
    double *want = malloc(2 * h * sizeof *want), *got = malloc(2 * h * sizeof *got);
    cr_assert(x && y && want && got);
    rand_slots(&t, x, h);
    rand_slots(&t, y, h);
    ckks_ct cx, cy, sum, prod, sq, rot;
    T_OK(ckks_encrypt(ctx, &cx, x));
    T_OK(ckks_encrypt(ctx, &cy, y));
    cr_assert_eq(ckks_ct_level(&cx), L);

    T_OK(ckks_decrypt(ctx, &cx, got));
    CHECK_ERR("decrypt(encrypt(x))", got, x, h, -21);

    T_OK(ckks_add(ctx, &sum, &cx, &cy));
    T_OK(ckks_decrypt(ctx, &sum, got));
    for (size_t j = 0; j < 2 * h; ++j) want[j] = x[j] + y[j];
    CHECK_ERR("x + y", got, want, h, -21);

    T_OK(ckks_mul(ctx, &prod, &cx, &cy));
    T_OK(ckks_rescale(ctx, &prod));
    cr_assert_eq(ckks_ct_level(&prod), L - 1);
    T_OK(ckks_decrypt(ctx, &prod, got));
    for (size_t j = 0; j < h; ++j) {
        want[2 * j] = x[2 * j] * y[2 * j] - x[2 * j + 1] * y[2 * j + 1];
        want[2 * j + 1] = x[2 * j] * y[2 * j + 1] + x[2 * j + 1] * y[2 * j];
    }
    CHECK_ERR("rescale(relin(x * y))", got, want, h, -21);
    { /* ckks_mul_rescale (hepa_mul_relin_rescale): the same words as ckks_mul, ckks_rescale */
        ckks_ct one;
        T_OK(ckks_mul_rescale(ctx, &one, &cx, &cy));
        cr_assert_eq(ckks_ct_level(&one), L - 1);
        cr_assert(one.scale == prod.scale);
        const size_t w = (L - 1) * ctx->n;
        uint64_t *u = malloc(w * sizeof *u), *v = malloc(w * sizeof *v);
        cr_assert(u && v);
        for (int k = 0; k < 2; ++k) {
            T_OK(hepa_poly_get(k ? one.c1 : one.c0, u));
            T_OK(hepa_poly_get(k ? prod.c1 : prod.c0, v));
            cr_assert(memcmp(u, v, w * sizeof *u) == 0, "ckks_mul_rescale, c%d", k);
        }
        free(u), free(v);
        ckks_ct_free(&one);
    }

    T_OK(ckks_mul(ctx, &sq, &prod, &prod)); /* (xy)^2 at level L - 2 */
    T_OK(ckks_rescale(ctx, &sq));
    T_OK(ckks_decrypt(ctx, &sq, got));
    for (size_t j = 0; j < h; ++j) {
        const double re = want[2 * j], im = want[2 * j + 1];
        want[2 * j] = re * re - im * im;
        want[2 * j + 1] = 2 * re * im;
    }
    CHECK_ERR("rescale(relin((xy)^2))", got, want, h, -20);

    const int steps[] = {1, 5, -3};
    for (int k = 0; k < 3; ++k) {
        T_OK(ckks_add_rotation_key(ctx, steps[k]));
        T_OK(ckks_rotate(ctx, &rot, &cx, steps[k]));
        T_OK(ckks_decrypt(ctx, &rot, got));
        for (size_t j = 0; j < h; ++j) {
            const size_t src = (j + (size_t)(steps[k] + (int)h)) % h;
            want[2 * j] = x[2 * src], want[2 * j + 1] = x[2 * src + 1];
        }
        char what[64];
        snprintf(what, sizeof what, "rotate(x, %d)", steps[k]);
        CHECK_ERR(what, got, want, h, -21);
        ckks_ct_free(&rot);
    }

    /* bad input */
    ckks_ct tmp;
    T_STATUS(ckks_add(ctx, &tmp, &cx, &prod), HEPA_ERR_MISMATCH); /* levels differ */
    T_STATUS(ckks_mul(ctx, &tmp, &cx, &prod), HEPA_ERR_MISMATCH);
    ckks_ct raw;
    T_OK(ckks_mul(ctx, &raw, &cx, &cy)); /* scale Δ^2 at level L */
    T_STATUS(ckks_add(ctx, &tmp, &cx, &raw), HEPA_ERR_MISMATCH); /* scales differ */
    T_STATUS(ckks_rotate(ctx, &tmp, &cx, 7), HEPA_ERR_UNSUPPORTED); /* no key */
    T_STATUS(ckks_rescale(ctx, &sq), HEPA_ERR_RANGE);                /* at level 1 */
    T_STATUS(ckks_mul_rescale(ctx, &tmp, &sq, &sq), HEPA_ERR_RANGE);
    T_STATUS(ckks_mul_rescale(ctx, &tmp, &cx, &prod), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_rescale(sq.c0, sq.c1), HEPA_ERR_RANGE);
    T_STATUS(hepa_poly_automorphism(raw.c0, cx.c0, 6), HEPA_ERR_INVALID_ARGUMENT);
    ckks_ctx *other = NULL;
    T_OK(ckks_ctx_create(&other, &p, backend));
    hepa_poly *k0 = NULL, *k1 = NULL;
    T_OK(hepa_poly_create(&k0, ctx->ring, L));
    T_OK(hepa_poly_create(&k1, ctx->ring, L));
    T_STATUS(hepa_keyswitch(ctx->ks, k0, k1, cx.c1, other->relin), HEPA_ERR_MISMATCH);
    hepa_poly_destroy(k0), hepa_poly_destroy(k1);
    ckks_ctx_destroy(other);

    ckks_ct_free(&cx), ckks_ct_free(&cy), ckks_ct_free(&sum), ckks_ct_free(&prod);
    ckks_ct_free(&sq), ckks_ct_free(&raw);
    free(x), free(y), free(want), free(got);
    ckks_ctx_destroy(ctx);
}
