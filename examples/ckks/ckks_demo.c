/* examples/ckks/ckks_demo.c — the CKKS example in use: encrypt two random vectors, multiply
 * (relinearize, rescale), rotate, add, decrypt, and print each result's largest slot error and
 * wall time (on the GPU when there is one; each timed step ends with hepa_ring_sync). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ckks_scheme.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static double max_err(const double *got, const double *want, size_t h) {
    double m = 0;
    for (size_t j = 0; j < h; ++j) {
        const double e = hypot(got[2 * j] - want[2 * j], got[2 * j + 1] - want[2 * j + 1]);
        if (!(e <= m)) m = e;
    }
    return m;
}

#define CHECK(call)                                                                            \
    do {                                                                                       \
        hepa_status s_ = (call);                                                               \
        if (s_ != HEPA_OK) {                                                                   \
            fprintf(stderr, "%s failed: %s %s\n", #call, hepa_status_string(s_),               \
                    hepa_last_error_message());                                                \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

int main(void) {
    ckks_params p = ckks_params_default();
    ckks_ctx *ctx = NULL;
    double t0 = now_ms();
    CHECK(ckks_ctx_create(&ctx, &p, HEPA_BACKEND_AUTO));
    CHECK(ckks_add_rotation_key(ctx, 1));
    CHECK(hepa_ring_sync(ctx->ring));
    printf("CKKS example on the %s: N = %zu, %zu + %zu primes, scale 2^%.0f; keys in %.1f ms\n",
           hepa_ring_backend(ctx->ring) == HEPA_BACKEND_CUDA ? "GPU" : "CPU", ctx->n, ctx->L,
           ctx->K, log2(p.scale), now_ms() - t0);
    const size_t h = ctx->n / 2;
    double *x = malloc(2 * h * sizeof *x), *y = malloc(2 * h * sizeof *y);
    double *want = malloc(2 * h * sizeof *want), *got = malloc(2 * h * sizeof *got);
    if (!x || !y || !want || !got) return 1;
    srand(2026);
    for (size_t j = 0; j < 2 * h; ++j) {
        x[j] = (double)rand() / RAND_MAX - 0.5;
        y[j] = (double)rand() / RAND_MAX - 0.5;
    }
    ckks_ct cx, cy, prod, rot, sum;
    t0 = now_ms();
    CHECK(ckks_encrypt(ctx, &cx, x));
    CHECK(ckks_encrypt(ctx, &cy, y));
    CHECK(hepa_ring_sync(ctx->ring));
    printf("  encrypt x, y                 %8.3f ms\n", now_ms() - t0);

    t0 = now_ms();
    CHECK(ckks_mul_rescale(ctx, &prod, &cx, &cy)); /* ckks_mul then ckks_rescale, one call */
    CHECK(hepa_ring_sync(ctx->ring));
    const double t_mul = now_ms() - t0;
    CHECK(ckks_decrypt(ctx, &prod, got));
    for (size_t j = 0; j < h; ++j) {
        want[2 * j] = x[2 * j] * y[2 * j] - x[2 * j + 1] * y[2 * j + 1];
        want[2 * j + 1] = x[2 * j] * y[2 * j + 1] + x[2 * j + 1] * y[2 * j];
    }
    printf("  x*y, relinearize, rescale    %8.3f ms   max slot error %.2e\n", t_mul,
           max_err(got, want, h));

    t0 = now_ms();
    CHECK(ckks_rotate(ctx, &rot, &cx, 1));
    CHECK(hepa_ring_sync(ctx->ring));
    const double t_rot = now_ms() - t0;
    CHECK(ckks_decrypt(ctx, &rot, got));
    for (size_t j = 0; j < h; ++j) want[2 * j] = x[2 * ((j + 1) % h)], want[2 * j + 1] = x[2 * ((j + 1) % h) + 1];
    printf("  rotate x by one slot         %8.3f ms   max slot error %.2e\n", t_rot,
           max_err(got, want, h));

    CHECK(ckks_add(ctx, &sum, &cx, &cy));
    CHECK(ckks_decrypt(ctx, &sum, got));
    for (size_t j = 0; j < 2 * h; ++j) want[j] = x[j] + y[j];
    const double e_add = max_err(got, want, h);
    printf("  x + y                                    max slot error %.2e\n", e_add);

    int ok = e_add < ldexp(1, -21);
    ckks_ct_free(&cx), ckks_ct_free(&cy), ckks_ct_free(&prod), ckks_ct_free(&rot),
        ckks_ct_free(&sum);
    free(x), free(y), free(want), free(got);
    ckks_ctx_destroy(ctx);
    return ok ? 0 : 1;
}
