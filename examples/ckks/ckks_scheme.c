/* examples/ckks/ckks_scheme.c — see ckks_scheme.h. Each operation is a handful of hepa calls;
 * the comments give the algebra. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ckks_scheme.h"

#define TRY(call)                                                                              \
    do {                                                                                       \
        hepa_status s_ = (call);                                                               \
        if (s_ != HEPA_OK) return s_;                                                          \
    } while (0)

ckks_params ckks_params_default(void) {
    ckks_params p = {13, 3, 1, 60, 40, 60, 1099511627776.0 /* 2^40 */, NULL};
    return p;
}

/* A polynomial of the context's ring at `level`, or NULL (status in *s). */
static hepa_poly *new_poly(const ckks_ctx *ctx, size_t level, hepa_status *s) {
    hepa_poly *p = NULL;
    if (*s == HEPA_OK) *s = hepa_poly_create(&p, ctx->ring, level);
    return p;
}

static hepa_status ct_alloc(const ckks_ctx *ctx, ckks_ct *ct, size_t level) {
    hepa_status s = HEPA_OK;
    ct->c0 = new_poly(ctx, level, &s);
    ct->c1 = new_poly(ctx, level, &s);
    if (s != HEPA_OK) ckks_ct_free(ct);
    return s;
}

void ckks_ct_free(ckks_ct *ct) {
    hepa_poly_destroy(ct->c0);
    hepa_poly_destroy(ct->c1);
    ct->c0 = ct->c1 = NULL;
}

size_t ckks_ct_level(const ckks_ct *ct) { return hepa_poly_level(ct->c0); }

/* Moduli: q_0 (q0_bits), L-1 primes of q_bits, K special primes of p_bits, all ≡ 1 mod 2N. */
static hepa_status make_ring(ckks_ctx *ctx, const ckks_params *p, hepa_backend backend) {
    uint64_t q[HEPA_RING_MAX_MODULI], big[HEPA_RING_MAX_MODULI];
    const size_t n = ctx->n, L = p->levels, K = p->special;
    if (L + K > HEPA_RING_MAX_MODULI || L < 1 || K < 1) return HEPA_ERR_INVALID_ARGUMENT;
    if (p->q0_bits == p->p_bits) { /* one list, so q_0 and P differ */
        TRY(hepa_primes_ntt(big, K + 1, p->p_bits, n));
        q[0] = big[0];
        memcpy(q + L, big + 1, K * sizeof *q);
    } else {
        TRY(hepa_primes_ntt(q, 1, p->q0_bits, n));
        TRY(hepa_primes_ntt(q + L, K, p->p_bits, n));
    }
    if (L > 1) TRY(hepa_primes_ntt(q + 1, L - 1, p->q_bits, n));
    return hepa_ring_create(&ctx->ring, n, q, L + K, backend);
}

void ckks_ctx_destroy(ckks_ctx *ctx) {
    if (!ctx) return;
    for (size_t i = 0; i < ctx->num_rot; ++i) hepa_ksk_destroy(ctx->rot_key[i]);
    hepa_ksk_destroy(ctx->relin);
    hepa_poly_destroy(ctx->sk), hepa_poly_destroy(ctx->pk0), hepa_poly_destroy(ctx->pk1);
    hepa_ckks_encoder_destroy(ctx->enc);
    hepa_ks_destroy(ctx->ks);
    hepa_rng_destroy(ctx->rng);
    hepa_ring_destroy(ctx->ring);
    free(ctx);
}

/* A switching key from `from` to `to` whose uniform halves come from a fresh 32-byte seed drawn
 * from the context's generator (hepa_ksk_create_seeded): a client can send it as that seed and
 * its b halves (hepa_ksk_export_seeded), half the words; examples/key_transfer.c does. */
static hepa_status make_key(ckks_ctx *ctx, hepa_ksk **out, const hepa_poly *from,
                            const hepa_poly *to) {
    uint8_t seed[32];
    const hepa_status s = hepa_rng_bytes(ctx->rng, seed, sizeof seed);
    return s == HEPA_OK ? hepa_ksk_create_seeded(out, ctx->ks, from, to, ctx->rng, seed) : s;
}

/* Key generation: s ternary; pk = (-a·s + e, a) mod Q; relin = switching key s^2 -> s. */
static hepa_status keygen(ckks_ctx *ctx) {
    const size_t M = ctx->L + ctx->K;
    hepa_status s = HEPA_OK;
    ctx->sk = new_poly(ctx, M, &s);
    ctx->pk0 = new_poly(ctx, ctx->L, &s);
    ctx->pk1 = new_poly(ctx, ctx->L, &s);
    hepa_poly *sl = new_poly(ctx, ctx->L, &s), *s2 = new_poly(ctx, M, &s);
    if (s == HEPA_OK && (s = hepa_sample_ternary(ctx->rng, ctx->sk)) == HEPA_OK &&
        (s = hepa_poly_to_ntt(ctx->sk)) == HEPA_OK &&
        (s = hepa_sample_uniform(ctx->rng, ctx->pk1, HEPA_DOMAIN_NTT)) == HEPA_OK && /* a */
        (s = hepa_sample_gaussian(ctx->rng, ctx->pk0, HEPA_SIGMA_DEFAULT)) == HEPA_OK &&
        (s = hepa_poly_to_ntt(ctx->pk0)) == HEPA_OK &&                               /* e */
        (s = hepa_poly_drop(sl, ctx->sk)) == HEPA_OK &&
        (s = hepa_poly_mul(sl, ctx->pk1, sl)) == HEPA_OK &&                          /* a·s */
        (s = hepa_poly_sub(ctx->pk0, ctx->pk0, sl)) == HEPA_OK &&                    /* e - a·s */
        (s = hepa_poly_mul(s2, ctx->sk, ctx->sk)) == HEPA_OK)
        s = make_key(ctx, &ctx->relin, s2, ctx->sk);
    hepa_poly_destroy(sl), hepa_poly_destroy(s2);
    return s;
}

hepa_status ckks_ctx_create(ckks_ctx **out, const ckks_params *p, hepa_backend backend) {
    if (!out || !p || !(p->scale > 1)) return HEPA_ERR_INVALID_ARGUMENT;
    ckks_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return HEPA_ERR_OUT_OF_MEMORY;
    ctx->n = (size_t)1 << p->log_n, ctx->L = p->levels, ctx->K = p->special, ctx->scale = p->scale;
    hepa_status s;
    if ((s = make_ring(ctx, p, backend)) != HEPA_OK ||
        (s = hepa_ks_create(&ctx->ks, ctx->ring, ctx->K, 0)) != HEPA_OK ||
        (s = hepa_ckks_encoder_create(&ctx->enc, ctx->ring)) != HEPA_OK ||
        (s = hepa_rng_create(&ctx->rng, p->seed)) != HEPA_OK || (s = keygen(ctx)) != HEPA_OK) {
        ckks_ctx_destroy(ctx);
        return s;
    }
    *out = ctx;
    return HEPA_OK;
}

/* g = 5^steps mod 2N (steps taken mod N/2): σ_g moves slot j + steps to slot j. */
static uint64_t galois_element(const ckks_ctx *ctx, int steps) {
    const uint64_t m = 2 * (uint64_t)ctx->n, h = ctx->n / 2;
    uint64_t e = (uint64_t)(((steps % (long)h) + (long)h) % (long)h), g = 1, b = 5;
    for (; e; e >>= 1, b = b * b % m)
        if (e & 1) g = g * b % m;
    return g;
}

/* Rotation key: switching key σ_g(s) -> s. */
hepa_status ckks_add_rotation_key(ckks_ctx *ctx, int steps) {
    if (ctx->num_rot == CKKS_MAX_ROTATIONS) return HEPA_ERR_UNSUPPORTED;
    const uint64_t g = galois_element(ctx, steps);
    hepa_status s = HEPA_OK;
    hepa_poly *sg = new_poly(ctx, ctx->L + ctx->K, &s);
    if (s == HEPA_OK && (s = hepa_poly_automorphism(sg, ctx->sk, g)) == HEPA_OK &&
        (s = make_key(ctx, &ctx->rot_key[ctx->num_rot], sg, ctx->sk)) == HEPA_OK)
        ctx->rot_g[ctx->num_rot++] = g;
    hepa_poly_destroy(sg);
    return s;
}

/* Enc: v ternary, e0, e1 Gaussian; c0 = v·pk0 + e0 + m, c1 = v·pk1 + e1, so
 * c0 + c1·s = m + v·e + e0 + e1·s. */
hepa_status ckks_encrypt(ckks_ctx *ctx, ckks_ct *ct, const double *slots) {
    const size_t L = ctx->L;
    TRY(ct_alloc(ctx, ct, L));
    ct->scale = ctx->scale;
    hepa_status s = HEPA_OK;
    hepa_poly *m = new_poly(ctx, L, &s), *v = new_poly(ctx, L, &s), *e = new_poly(ctx, L, &s);
    if (s == HEPA_OK && (s = hepa_ckks_encode(ctx->enc, m, slots, ctx->scale)) == HEPA_OK &&
        (s = hepa_sample_ternary(ctx->rng, v)) == HEPA_OK && (s = hepa_poly_to_ntt(v)) == HEPA_OK &&
        (s = hepa_poly_mul(ct->c0, v, ctx->pk0)) == HEPA_OK &&
        (s = hepa_poly_mul(ct->c1, v, ctx->pk1)) == HEPA_OK &&
        (s = hepa_sample_gaussian(ctx->rng, e, HEPA_SIGMA_DEFAULT)) == HEPA_OK &&
        (s = hepa_poly_to_ntt(e)) == HEPA_OK && (s = hepa_poly_add(ct->c0, ct->c0, e)) == HEPA_OK &&
        (s = hepa_poly_add(ct->c0, ct->c0, m)) == HEPA_OK &&
        (s = hepa_sample_gaussian(ctx->rng, e, HEPA_SIGMA_DEFAULT)) == HEPA_OK &&
        (s = hepa_poly_to_ntt(e)) == HEPA_OK)
        s = hepa_poly_add(ct->c1, ct->c1, e);
    hepa_poly_destroy(m), hepa_poly_destroy(v), hepa_poly_destroy(e);
    if (s != HEPA_OK) ckks_ct_free(ct);
    return s;
}

/* Dec: m = c0 + c1·s over the ciphertext's level, decoded at its scale. */
hepa_status ckks_decrypt(ckks_ctx *ctx, const ckks_ct *ct, double *slots) {
    const size_t l = ckks_ct_level(ct);
    hepa_status s = HEPA_OK;
    hepa_poly *m = new_poly(ctx, l, &s);
    if (s == HEPA_OK && (s = hepa_poly_drop(m, ctx->sk)) == HEPA_OK &&
        (s = hepa_poly_mul(m, ct->c1, m)) == HEPA_OK && (s = hepa_poly_add(m, m, ct->c0)) == HEPA_OK)
        s = hepa_ckks_decode(ctx->enc, m, ct->scale, slots);
    hepa_poly_destroy(m);
    return s;
}

static int same_scale(double a, double b) { return fabs(a / b - 1) < 1e-9; }

hepa_status ckks_add(ckks_ctx *ctx, ckks_ct *out, const ckks_ct *a, const ckks_ct *b) {
    if (ckks_ct_level(a) != ckks_ct_level(b) || !same_scale(a->scale, b->scale))
        return HEPA_ERR_MISMATCH;
    TRY(ct_alloc(ctx, out, ckks_ct_level(a)));
    out->scale = a->scale;
    hepa_status s = hepa_poly_add(out->c0, a->c0, b->c0);
    if (s == HEPA_OK) s = hepa_poly_add(out->c1, a->c1, b->c1);
    if (s != HEPA_OK) ckks_ct_free(out);
    return s;
}

/* (d0, d1, d2) = (a0, a1) ⊗ (b0, b1) decrypts under (1, s, s^2); key switching d2 from s^2 to s
 * gives (k0, k1) with k0 + k1·s ≈ d2·s^2, so (d0 + k0, d1 + k1) decrypts under (1, s).
 * hepa_mul_relin does all of it in one call (the same words as hepa_poly_tensor then
 * hepa_keyswitch_add, without the d polynomials). */
hepa_status ckks_mul(ckks_ctx *ctx, ckks_ct *out, const ckks_ct *a, const ckks_ct *b) {
    const size_t l = ckks_ct_level(a);
    if (l != ckks_ct_level(b)) return HEPA_ERR_MISMATCH;
    TRY(ct_alloc(ctx, out, l));
    out->scale = a->scale * b->scale;
    const hepa_status s =
        hepa_mul_relin(ctx->ks, out->c0, out->c1, a->c0, a->c1, b->c0, b->c1, ctx->relin);
    if (s != HEPA_OK) ckks_ct_free(out);
    return s;
}

hepa_status ckks_rescale(ckks_ctx *ctx, ckks_ct *ct) {
    const size_t l = ckks_ct_level(ct);
    if (l < 2) return HEPA_ERR_RANGE;
    ckks_ct r;
    TRY(ct_alloc(ctx, &r, l - 1));
    hepa_status s = hepa_poly_rescale_pair(r.c0, r.c1, ct->c0, ct->c1);
    if (s != HEPA_OK) {
        ckks_ct_free(&r);
        return s;
    }
    r.scale = ct->scale / (double)hepa_ring_modulus(ctx->ring, l - 1);
    ckks_ct_free(ct);
    *ct = r;
    return HEPA_OK;
}

/* ckks_mul then ckks_rescale in one call: hepa_mul_relin_rescale gives the same words and, on
 * the GPU at N = 2^15 .. 2^17, divides by P·q_(l-1) in key switching's ModDown instead of
 * running the rescale's own NTTs. */
hepa_status ckks_mul_rescale(ckks_ctx *ctx, ckks_ct *out, const ckks_ct *a, const ckks_ct *b) {
    const size_t l = ckks_ct_level(a);
    if (l != ckks_ct_level(b)) return HEPA_ERR_MISMATCH;
    if (l < 2) return HEPA_ERR_RANGE;
    TRY(ct_alloc(ctx, out, l - 1));
    out->scale = a->scale * b->scale / (double)hepa_ring_modulus(ctx->ring, l - 1);
    const hepa_status s =
        hepa_mul_relin_rescale(ctx->ks, out->c0, out->c1, a->c0, a->c1, b->c0, b->c1, ctx->relin);
    if (s != HEPA_OK) ckks_ct_free(out);
    return s;
}

/* σ_g(c0) + σ_g(c1)·σ_g(s) decrypts to the rotated message; switch σ_g(c1) from σ_g(s) to s. */
hepa_status ckks_rotate(ckks_ctx *ctx, ckks_ct *out, const ckks_ct *a, int steps) {
    const uint64_t g = galois_element(ctx, steps);
    hepa_ksk *key = NULL;
    for (size_t i = 0; i < ctx->num_rot; ++i)
        if (ctx->rot_g[i] == g) key = ctx->rot_key[i];
    if (!key) return HEPA_ERR_UNSUPPORTED;
    const size_t l = ckks_ct_level(a);
    TRY(ct_alloc(ctx, out, l));
    out->scale = a->scale;
    hepa_status s = HEPA_OK;
    hepa_poly *t = new_poly(ctx, l, &s);
    if (s == HEPA_OK && (s = hepa_poly_automorphism(out->c0, a->c0, g)) == HEPA_OK &&
        (s = hepa_poly_automorphism(t, a->c1, g)) == HEPA_OK)
        s = hepa_keyswitch_add(ctx->ks, out->c0, out->c1, t, key, out->c0, NULL);
    hepa_poly_destroy(t);
    if (s != HEPA_OK) ckks_ct_free(out);
    return s;
}
