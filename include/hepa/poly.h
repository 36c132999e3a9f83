/* hepa/poly.h — RNS polynomials of a ring: level·n words, limb-major (limb i at data + i·n),
 * with a domain tag (coefficient or NTT) and a level (how many of the ring's limbs are live:
 * limbs 0 .. level-1, i.e. moduli q_0 .. q_{level-1}).
 *
 * Binary operations require operands of the same ring and level (HEPA_ERR_MISMATCH otherwise)
 * and the domain each documents (HEPA_ERR_DOMAIN otherwise). The output must belong to the same
 * ring and level; it may alias any input. On argument errors the output is untouched.
 *
 * CUDA backend: the words live in device memory (taken from the device's stream-ordered pool);
 * every operation is enqueued on the ring's stream and returns without waiting, except the
 * calls that hand data back to the host (hepa_poly_get) or read pinned host memory synchronously
 * (hepa_poly_set from hepa_host_alloc memory). Any call may also return HEPA_ERR_OUT_OF_MEMORY
 * (device memory for the polynomial or for scratch) or HEPA_ERR_DEVICE (a CUDA failure, text in
 * hepa_last_error_message); after HEPA_ERR_DEVICE the output's contents are undefined. A
 * failure of earlier enqueued work surfaces at the next waiting call (hepa_ring_sync). */
#ifndef HEPA_POLY_H
#define HEPA_POLY_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/status.h"
#include "hepa/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HEPA_DOMAIN_COEFF = 0, /* coefficients of x^0 .. x^(n-1) */
    HEPA_DOMAIN_NTT = 1    /* forward negacyclic NTT of each limb (hepa/ntt.h convention) */
} hepa_domain;

typedef struct hepa_poly hepa_poly;

/* Creates the zero polynomial of `ring` at `level` (1 <= level <= num_moduli), coefficient
 * domain, in the ring backend's memory. Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, bad level),
 * HEPA_ERR_OUT_OF_MEMORY. */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_create(hepa_poly **out, const hepa_ring *ring,
                                                      size_t level);
/* NULL is a no-op. */
HEPA_API void hepa_poly_destroy(hepa_poly *poly);

HEPA_API const hepa_ring *hepa_poly_ring(const hepa_poly *poly);
HEPA_API size_t hepa_poly_level(const hepa_poly *poly);
HEPA_API hepa_domain hepa_poly_domain(const hepa_poly *poly);
/* The level·n words, in the backend's memory (a host pointer on the CPU backend). Writing
 * through it is allowed; keeping residues below their moduli is then the caller's duty. */
HEPA_API uint64_t *hepa_poly_data(hepa_poly *poly);

/* Copies level·n words from the host array src (limb-major, residues in [0, q_i)) and tags the
 * polynomial with `domain`. Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, unknown domain, a residue
 * out of range; poly untouched). */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_set(hepa_poly *poly, const uint64_t *src,
                                                   hepa_domain domain);
/* Copies the level·n words to the host array dst. On the CUDA backend it waits for the copy
 * (and so for all work enqueued before it on the ring's stream). */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_get(const hepa_poly *poly, uint64_t *dst);

/* Asynchronous variants for the CUDA backend: the copy is enqueued on the ring's stream and the
 * call returns at once. src must stay unchanged, and dst must not be read, until hepa_ring_sync
 * (or a later waiting call) returns. The copies only overlap other work when the host memory is
 * pinned (hepa_host_alloc); with ordinary memory the CUDA runtime may stage them synchronously.
 * hepa_poly_set_async checks the residues of src on the host before enqueuing (same errors as
 * hepa_poly_set). On the CPU backend both behave exactly like the synchronous calls. */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_set_async(hepa_poly *poly, const uint64_t *src,
                                                         hepa_domain domain);
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_get_async(const hepa_poly *poly, uint64_t *dst);

/* Page-locked ("pinned") host memory for the asynchronous copies: bytes > 0, *out receives the
 * pointer. Without a usable GPU (or in a CPU-only build) ordinary memory is returned, so code
 * using it runs on every backend. Free with hepa_host_free (NULL is a no-op).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL out, bytes == 0), HEPA_ERR_OUT_OF_MEMORY. */
HEPA_API HEPA_NODISCARD hepa_status hepa_host_alloc(void **out, size_t bytes);
HEPA_API void hepa_host_free(void *ptr);
/* dst = src (same ring and level). */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_copy(hepa_poly *dst, const hepa_poly *src);

/* out = a + b, a - b, -a: limb-wise, in either domain (a and b must share it); out takes it. */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_add(hepa_poly *out, const hepa_poly *a,
                                                   const hepa_poly *b);
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_sub(hepa_poly *out, const hepa_poly *a,
                                                   const hepa_poly *b);
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_neg(hepa_poly *out, const hepa_poly *a);

/* out = a * b in the ring. Both in the NTT domain: pointwise product (out in NTT domain). Both in
 * the coefficient domain: the negacyclic product, computed by transforms (out in coefficient
 * domain; uses scratch of level·n words). Mixed domains: HEPA_ERR_DOMAIN. */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_mul(hepa_poly *out, const hepa_poly *a,
                                                   const hepa_poly *b);

/* out = a · s_i on limb i, with scalars[i] in [0, q_i) for i < level (host array). Any domain.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, a scalar >= its modulus; out untouched),
 * HEPA_ERR_MISMATCH (ring or level). */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_mul_scalar(hepa_poly *out, const hepa_poly *a,
                                                          const uint64_t *scalars);

/* In-place change of domain. HEPA_ERR_DOMAIN if the polynomial is already in the target one. */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_to_ntt(hepa_poly *poly);
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_from_ntt(hepa_poly *poly);

#ifdef __cplusplus
}
#endif
#endif /* HEPA_POLY_H */
