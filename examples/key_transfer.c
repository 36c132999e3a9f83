/* key_transfer.c — a client makes a relinearization key and sends it to a server, which uses it.
 *
 *   client (CPU backend): secret s, a seeded key from s^2 to s (hepa_ksk_create_seeded), sent as
 *     its 32-byte seed and its b halves (hepa_ksk_export_seeded): half the words of the key;
 *   server (the GPU when there is one, else the CPU): loads it (hepa_ksk_import_seeded, which
 *     draws the uniform halves again from the seed) and multiplies and relinearizes two
 *     ciphertexts (hepa_mul_relin);
 *   the client does the same product with its own key: the words must be equal (both backends
 *     compute the same words), so nothing was lost on the way.
 * The ciphertexts here are random words, not encryptions: relinearization is the same map on any
 * input. Returns 0 on success.
 *
 * Build (installed hepa):  cc key_transfer.c $(pkg-config --cflags --libs hepa) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hepa/hepa.h>

#define N 4096 /* ring degree */
#define LQ 4   /* ciphertext primes: one of 60 bits, three of 40 */
#define K 1    /* special primes (60 bits) */
#define M (LQ + K)

/* Reports a failed call and jumps to cleanup. */
#define TRY(call)                                                                                  \
    do {                                                                                           \
        hepa_status st_ = (call);                                                                  \
        if (st_ != HEPA_OK) {                                                                      \
            fprintf(stderr, "%s: %s\n", #call, hepa_status_string(st_));                           \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

/* (out0, out1) = relinearized product of (c[0], c[1]) and (c[2], c[3]), host words in and out,
 * computed on `ring` with `key` (both of context ks). */
static hepa_status mul_relin_words(const hepa_ring *ring, const hepa_ks *ks, const hepa_ksk *key,
                                   uint64_t *const c[4], uint64_t *out0, uint64_t *out1) {
    hepa_poly *p[6] = {NULL};
    hepa_status s = HEPA_OK;
    for (int i = 0; i < 6 && s == HEPA_OK; ++i)
        s = hepa_poly_create(&p[i], ring, LQ);
    for (int i = 0; i < 4 && s == HEPA_OK; ++i)
        s = hepa_poly_set(p[i], c[i], HEPA_DOMAIN_NTT);
    if (s == HEPA_OK) s = hepa_mul_relin(ks, p[4], p[5], p[0], p[1], p[2], p[3], key);
    if (s == HEPA_OK) s = hepa_poly_get(p[4], out0);
    if (s == HEPA_OK) s = hepa_poly_get(p[5], out1);
    for (int i = 0; i < 6; ++i)
        hepa_poly_destroy(p[i]);
    return s;
}

int main(void) {
    int ok = 0;
    uint64_t q[M];
    uint8_t seed[32], sent_seed[32];
    uint64_t *sent_b = NULL, *c[4] = {NULL}, *mine[2] = {NULL}, *theirs[2] = {NULL};
    hepa_ring *cr = NULL, *sr = NULL;
    hepa_ks *cks = NULL, *sks = NULL;
    hepa_rng *g = NULL;
    hepa_poly *s = NULL, *s2 = NULL;
    hepa_ksk *key = NULL, *loaded = NULL;

    TRY(hepa_primes_ntt(q, 1, 60, N));
    TRY(hepa_primes_ntt(q + 1, LQ - 1, 40, N));
    TRY(hepa_primes_ntt(q + LQ, K, 59, N)); /* 59 bits: distinct from q_0 */

    /* Client: the secret, and a relinearization key whose uniform halves come from a fresh seed */
    TRY(hepa_ring_create(&cr, N, q, M, HEPA_BACKEND_CPU));
    TRY(hepa_ks_create(&cks, cr, K, 0));
    TRY(hepa_rng_create(&g, NULL)); /* seeded by getrandom */
    TRY(hepa_poly_create(&s, cr, M));
    TRY(hepa_poly_create(&s2, cr, M));
    TRY(hepa_sample_ternary(g, s));
    TRY(hepa_poly_to_ntt(s));
    TRY(hepa_poly_mul(s2, s, s));
    TRY(hepa_rng_bytes(g, seed, sizeof seed));
    TRY(hepa_ksk_create_seeded(&key, cks, s2, s, g, seed));
    const size_t full = hepa_ks_key_words(cks), half = full / 2;
    if (!(sent_b = malloc(half * sizeof *sent_b))) goto cleanup;
    TRY(hepa_ksk_export_seeded(key, sent_seed, sent_b)); /* what goes over the wire */

    /* Server: its own ring and context with the same moduli, n, K and digit size */
    TRY(hepa_ring_create(&sr, N, q, M, HEPA_BACKEND_AUTO));
    TRY(hepa_ks_create(&sks, sr, K, 0));
    TRY(hepa_ksk_import_seeded(&loaded, sks, sent_seed, sent_b, half));

    /* Two "ciphertexts" of LQ limbs in the NTT domain, and their product on both sides */
    for (int i = 0; i < 4; ++i) {
        if (!(c[i] = malloc(LQ * N * sizeof *c[i]))) goto cleanup;
        TRY(hepa_rng_bytes(g, c[i], LQ * N * sizeof *c[i]));
        for (size_t j = 0; j < LQ * N; ++j)
            c[i][j] %= q[j / N]; /* residues in [0, q_i) (slightly biased: fine for a demo) */
    }
    for (int i = 0; i < 2; ++i)
        if (!(mine[i] = malloc(LQ * N * sizeof *mine[i])) ||
            !(theirs[i] = malloc(LQ * N * sizeof *theirs[i])))
            goto cleanup;
    TRY(mul_relin_words(sr, sks, loaded, c, theirs[0], theirs[1]));
    TRY(mul_relin_words(cr, cks, key, c, mine[0], mine[1]));
    ok = !memcmp(mine[0], theirs[0], LQ * N * sizeof(uint64_t)) &&
         !memcmp(mine[1], theirs[1], LQ * N * sizeof(uint64_t));

    printf("ring: n = %d, %d + %d primes; server backend %s\n", N, LQ, K,
           hepa_ring_backend(sr) == HEPA_BACKEND_CUDA ? "cuda" : "cpu");
    printf("key sent as a 32-byte seed + %zu words (the whole key: %zu words)\n", half, full);
    printf("server's multiply + relinearize %s the client's, word for word\n",
           ok ? "equals" : "DIFFERS from");

cleanup:
    for (int i = 0; i < 4; ++i)
        free(c[i]);
    for (int i = 0; i < 2; ++i)
        free(mine[i]), free(theirs[i]);
    free(sent_b);
    hepa_ksk_destroy(loaded), hepa_ksk_destroy(key); /* keys before their contexts */
    hepa_ks_destroy(sks), hepa_ks_destroy(cks);
    hepa_poly_destroy(s), hepa_poly_destroy(s2);
    hepa_rng_destroy(g);
    hepa_ring_destroy(sr), hepa_ring_destroy(cr);
    return ok ? 0 : 1;
}
