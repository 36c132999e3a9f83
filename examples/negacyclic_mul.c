/* negacyclic_mul.c — multiply two polynomials in Z_Q[x]/(x^n + 1) with hepa, two ways:
 *   1. the one call hepa_negacyclic_mul on host arrays;
 *   2. hepa_poly objects: set, to_ntt, mul (pointwise), from_ntt, get.
 * Both results are checked against a schoolbook product. Returns 0 on success.
 *
 * Build (installed hepa):  cc negacyclic_mul.c $(pkg-config --cflags --libs hepa) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hepa/hepa.h>

#define N 16    /* ring degree: a power of two in [16, 2^17] */
#define LIMBS 2 /* RNS primes, Q = q_0 * q_1 */
#define BITS 40 /* bits per prime */

/* Reports a failed call and jumps to cleanup. */
#define TRY(call)                                                                                  \
    do {                                                                                           \
        hepa_status st_ = (call);                                                                  \
        if (st_ != HEPA_OK) {                                                                      \
            fprintf(stderr, "%s: %s\n", #call, hepa_status_string(st_));                           \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

/* Schoolbook product mod (x^n + 1, q): x^(i+j) = -x^(i+j-n) when i + j >= n. */
static void schoolbook(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n, uint64_t q) {
    hepa_modulus m = hepa_modulus_make(q);
    for (size_t k = 0; k < n; ++k)
        out[k] = 0;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
            uint64_t p = hepa_mod_mul(a[i], b[j], &m);
            size_t k = (i + j) % n;
            out[k] = i + j < n ? hepa_mod_add(out[k], p, q) : hepa_mod_sub(out[k], p, q);
        }
}

int main(void) {
    int ok = 0;
    uint64_t q[LIMBS];
    uint64_t a[LIMBS * N], b[LIMBS * N], c[LIMBS * N], d[LIMBS * N], want[LIMBS * N];
    hepa_ring *ring = NULL;
    hepa_poly *pa = NULL, *pb = NULL;

    /* Primes q ≡ 1 (mod 2N) with exactly BITS bits, largest first. */
    TRY(hepa_primes_ntt(q, LIMBS, BITS, N));

    /* The ring R_Q = Z_Q[x]/(x^N + 1); AUTO takes the GPU when one is usable, else the CPU. */
    TRY(hepa_ring_create(&ring, N, q, LIMBS, HEPA_BACKEND_AUTO));

    /* a = 1 + 2x + ... + N x^(N-1);  b = x^(N-1) - 3 (note -3 is q_i - 3 in each limb).
     * Limb-major: coefficient j of limb i is at [i * N + j]. */
    for (size_t i = 0; i < LIMBS; ++i)
        for (size_t j = 0; j < N; ++j) {
            a[i * N + j] = j + 1;
            b[i * N + j] = j == N - 1 ? 1 : j == 0 ? q[i] - 3 : 0;
        }

    /* 1. One call: c = a * b mod (x^N + 1), every limb. */
    TRY(hepa_negacyclic_mul(ring, c, a, b));

    /* 2. The same with polynomial objects: transform, multiply pointwise, transform back. */
    TRY(hepa_poly_create(&pa, ring, LIMBS));
    TRY(hepa_poly_create(&pb, ring, LIMBS));
    TRY(hepa_poly_set(pa, a, HEPA_DOMAIN_COEFF));
    TRY(hepa_poly_set(pb, b, HEPA_DOMAIN_COEFF));
    TRY(hepa_poly_to_ntt(pa));
    TRY(hepa_poly_to_ntt(pb));
    TRY(hepa_poly_mul(pa, pa, pb)); /* pa = pa .* pb, in the NTT domain; output may alias */
    TRY(hepa_poly_from_ntt(pa));
    TRY(hepa_poly_get(pa, d));

    /* Check both against the schoolbook product, limb by limb. */
    for (size_t i = 0; i < LIMBS; ++i)
        schoolbook(want + i * N, a + i * N, b + i * N, N, q[i]);
    ok = !memcmp(c, want, sizeof c) && !memcmp(d, want, sizeof d);

    printf("ring: n = %d, Q = %llu * %llu, backend %s\n", N, (unsigned long long)q[0],
           (unsigned long long)q[1], hepa_ring_backend(ring) == HEPA_BACKEND_CUDA ? "cuda" : "cpu");
    printf("a*b mod (x^%d + 1), limb 0, as signed residues:\n ", N);
    for (size_t j = 0; j < N; ++j) {
        uint64_t v = c[j];
        long long s = v > q[0] / 2 ? -(long long)(q[0] - v) : (long long)v;
        printf(" %lld", s);
    }
    printf("\nhepa_negacyclic_mul %s, hepa_poly route %s the schoolbook product\n",
           memcmp(c, want, sizeof c) ? "DIFFERS from" : "matches",
           memcmp(d, want, sizeof d) ? "DIFFERS from" : "matches");

cleanup:
    hepa_poly_destroy(pa); /* polynomials before their ring; NULL is fine */
    hepa_poly_destroy(pb);
    hepa_ring_destroy(ring);
    return ok ? 0 : 1;
}
