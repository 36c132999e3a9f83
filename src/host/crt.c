/* src/host/crt.c — CRT between RNS limbs and GMP integers.
 * compose: x = Σ_i [a_i · (Q/q_i)^(-1) mod q_i] · (Q/q_i)  mod Q   (Garner-free textbook form;
 * one reduction mod Q per coefficient at the end). */
#include <stdlib.h>

#include "hepa/crt.h"
#include "hepa/modarith.h"
#include "rns/internal.h"

hepa_status hepa_crt_modulus(const hepa_ring *ring, size_t level, mpz_t Q) {
    if (!ring || !Q || level < 1 || level > ring->num_moduli) return HEPA_ERR_INVALID_ARGUMENT;
    mpz_set_ui(Q, 1);
    for (size_t i = 0; i < level; ++i) mpz_mul_ui(Q, Q, ring->moduli[i]);
    return HEPA_OK;
}

hepa_status hepa_crt_compose(const hepa_ring *ring, size_t level, mpz_t *out,
                             const uint64_t *limbs, int centered) {
    if (!ring || !out || !limbs || level < 1 || level > ring->num_moduli)
        return HEPA_ERR_INVALID_ARGUMENT;
    if (!_hepa_limbs_ok(ring, level, limbs)) return HEPA_ERR_INVALID_ARGUMENT;
    const size_t n = ring->n;
    uint64_t *inv = malloc(level * sizeof *inv);
    mpz_t *qhat = malloc(level * sizeof *qhat);
    if (!inv || !qhat) {
        free(inv);
        free(qhat);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    mpz_t Q, half, acc;
    mpz_inits(Q, half, acc, NULL);
    mpz_set_ui(Q, 1);
    for (size_t i = 0; i < level; ++i) mpz_mul_ui(Q, Q, ring->moduli[i]);
    mpz_fdiv_q_2exp(half, Q, 1); /* floor(Q/2): centred values are > -Q/2 and <= Q/2 */
    for (size_t i = 0; i < level; ++i) {
        const uint64_t q = ring->moduli[i];
        mpz_init(qhat[i]);
        mpz_divexact_ui(qhat[i], Q, q);
        inv[i] = hepa_mod_inv(mpz_fdiv_ui(qhat[i], q), q); /* moduli distinct primes: exists */
    }
    for (size_t j = 0; j < n; ++j) {
        mpz_set_ui(acc, 0);
        for (size_t i = 0; i < level; ++i) {
            const hepa_modulus *m = &ring->mods[i];
            uint64_t c = hepa_mod_mul(limbs[i * n + j], inv[i], m);
            mpz_addmul_ui(acc, qhat[i], c);
        }
        mpz_mod(out[j], acc, Q);
        if (centered && mpz_cmp(out[j], half) > 0) mpz_sub(out[j], out[j], Q);
    }
    for (size_t i = 0; i < level; ++i) mpz_clear(qhat[i]);
    mpz_clears(Q, half, acc, NULL);
    free(qhat);
    free(inv);
    return HEPA_OK;
}

hepa_status hepa_crt_decompose(const hepa_ring *ring, size_t level, uint64_t *limbs,
                               const mpz_t *in) {
    if (!ring || !limbs || !in || level < 1 || level > ring->num_moduli)
        return HEPA_ERR_INVALID_ARGUMENT;
    const size_t n = ring->n;
    for (size_t i = 0; i < level; ++i)
        for (size_t j = 0; j < n; ++j)
            limbs[i * n + j] = mpz_fdiv_ui(in[j], ring->moduli[i]); /* in [0, q), any sign */
    return HEPA_OK;
}
