/* examples/ckks/ckks_scheme.h — a minimal CKKS on top of hepa's public API, small enough to read
 * in one sitting: key generation, encrypt, decrypt, add, multiply + relinearize, rescale and
 * rotate. Everything stays on the ring's backend (the GPU when there is one).
 *
 * Not a hardened library: no serialisation, no bootstrapping, one secret per context, and the
 * parameters below are the only ones it has been tested with.
 *
 * Parameters (ckks_params_default): N = 2^13, Q = q_0·q_1·q_2 with q_0 of 60 bits and two
 * 40-bit primes, one 60-bit special prime P, so log2(QP) ≈ 200 <= 218, the homomorphic-encryption
 * standard's bound for 128-bit security at N = 2^13 with ternary secrets. Scale Δ = 2^40.
 * Secrets ternary, errors Gaussian with σ = 3.2, encryption with the public key. Switching keys
 * (relinearization, rotations) are seeded: their uniform halves come from a 32-byte seed, so they
 * could be sent in half the words (examples/key_transfer.c).
 *
 * Noise (what tests/test_ckks_scheme.c and tests/gpu/test_gpu_rns.c check; slot values |z| <= 1,
 * error = max over the 4096 slots of |decoded - expected|; measured: worst of 10 CPU runs):
 *   fresh encryption, decrypt               bound 2^-21   measured 2^-22.8
 *   add                                     bound 2^-21   measured 2^-22.3
 *   multiply + relinearize + rescale        bound 2^-21   measured 2^-22.4
 *   that, squared (two levels down)         bound 2^-20   measured 2^-21.4
 *   rotate                                  bound 2^-21   measured 2^-22.8
 * The encryption noise v·e + e0 + e1·s (about 2^8 per coefficient) dominates: the slots see it
 * times about sqrt(N) and divided by Δ. Key switching adds less: its noise Σ c~_j·e_j / P is a
 * few units per coefficient because hepa takes the digits c~_j centred (an uncentred [0, q_j)
 * digit adds a smooth, biased term that piles up in the slots next to ζ^1: 2^-19.4 at slot 0 in
 * our first version).
 */
#ifndef HEPA_EXAMPLE_CKKS_SCHEME_H
#define HEPA_EXAMPLE_CKKS_SCHEME_H

#include <stddef.h>
#include <stdint.h>

#include "hepa/hepa.h"

typedef struct ckks_params {
    unsigned log_n;        /* ring degree N = 2^log_n */
    size_t levels;         /* L: primes in Q */
    size_t special;        /* K: special primes (P) for key switching */
    unsigned q0_bits, q_bits, p_bits;
    double scale;          /* Δ */
    const uint8_t *seed;   /* 32 bytes for a reproducible run, or NULL (getrandom) */
} ckks_params;

ckks_params ckks_params_default(void);

#define CKKS_MAX_ROTATIONS 16

typedef struct ckks_ctx {
    hepa_ring *ring;          /* L + K moduli: q_0 .. q_(L-1), then p_0 .. p_(K-1) */
    hepa_ks *ks;
    hepa_ckks_encoder *enc;
    hepa_rng *rng;
    size_t n, L, K;
    double scale;
    hepa_poly *sk;            /* s, all L + K limbs, NTT domain */
    hepa_poly *pk0, *pk1;     /* (-a·s + e, a) at level L, NTT domain */
    hepa_ksk *relin;          /* s^2 -> s */
    size_t num_rot;
    uint64_t rot_g[CKKS_MAX_ROTATIONS]; /* Galois elements 5^k mod 2N with keys */
    hepa_ksk *rot_key[CKKS_MAX_ROTATIONS];
} ckks_ctx;

/* A ciphertext (c0, c1) at level l (both polys, NTT domain): c0 + c1·s ≈ Δ·m. */
typedef struct ckks_ct {
    hepa_poly *c0, *c1;
    double scale;
} ckks_ct;

hepa_status ckks_ctx_create(ckks_ctx **out, const ckks_params *p, hepa_backend backend);
void ckks_ctx_destroy(ckks_ctx *ctx);
/* Adds the key for rotations by `steps` slots (left; negative: right). */
hepa_status ckks_add_rotation_key(ckks_ctx *ctx, int steps);

void ckks_ct_free(ckks_ct *ct);
size_t ckks_ct_level(const ckks_ct *ct);

/* ct = Enc(slots) at level L; slots: N/2 complex numbers (interleaved re, im; host memory). */
hepa_status ckks_encrypt(ckks_ctx *ctx, ckks_ct *ct, const double *slots);
/* slots (host) = Dec(ct). */
hepa_status ckks_decrypt(ckks_ctx *ctx, const ckks_ct *ct, double *slots);
/* out = a + b: same level and scale (HEPA_ERR_MISMATCH otherwise). out is created. */
hepa_status ckks_add(ckks_ctx *ctx, ckks_ct *out, const ckks_ct *a, const ckks_ct *b);
/* out = a·b, relinearized; scale = product. Same level (HEPA_ERR_MISMATCH). */
hepa_status ckks_mul(ckks_ctx *ctx, ckks_ct *out, const ckks_ct *a, const ckks_ct *b);
/* ct = ct / q_(l-1), one level down, scale / q_(l-1). HEPA_ERR_RANGE at level 1. */
hepa_status ckks_rescale(ckks_ctx *ctx, ckks_ct *ct);
/* out = ckks_mul then ckks_rescale, in one call (hepa_mul_relin_rescale): the same words, out at
 * level l - 1. Same level (HEPA_ERR_MISMATCH); HEPA_ERR_RANGE at level 1. out is created. */
hepa_status ckks_mul_rescale(ckks_ctx *ctx, ckks_ct *out, const ckks_ct *a, const ckks_ct *b);
/* out = a with slots rotated left by steps (out[j] = a[j + steps]); needs its key
 * (HEPA_ERR_UNSUPPORTED otherwise). */
hepa_status ckks_rotate(ckks_ctx *ctx, ckks_ct *out, const ckks_ct *a, int steps);

#endif
