/* hepa/sample.h — random polynomials for keys and encryption: uniform mod Q, ternary and
 * discrete Gaussian, from a cryptographic generator.
 *
 * Generator: ChaCha20 (RFC 8439 block function, 20 rounds) keyed by 32 bytes, from the
 * operating system (getrandom(2)) unless the caller passes a seed (tests, reproducible runs).
 * A generator is not thread-safe: use one per thread.
 *
 * Sampling runs on the host; on the CUDA backend the polynomial is then uploaded (synchronously:
 * the call returns when the device copy is complete, and the host buffer is wiped).
 *
 * Timing (what is and is not constant time):
 *   - ChaCha20 itself is constant time.
 *   - Ternary and Gaussian values are produced branch-free from the random words: the Gaussian
 *     scans its whole cumulative table for every sample, the ternary maps a byte with
 *     arithmetic, and the reduction of a signed value into each limb is a masked add. Their
 *     timing does not depend on the values drawn.
 *   - Rejection loops (uniform mod q: 62-bit words >= q are redrawn; ternary: bytes >= 255 are
 *     redrawn) take a data-dependent number of iterations, but a rejected word is discarded and
 *     never used, so the timing reveals only how many were discarded, not the values kept.
 *   - The upload to the device and everything after it is not a side-channel concern of this
 *     module. The host buffer is cleared after the upload; the generator state is cleared by
 *     hepa_rng_destroy. No other hardening (mlock, fault resistance) is done. */
#ifndef HEPA_SAMPLE_H
#define HEPA_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/poly.h"
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hepa_rng hepa_rng;

/* seed: 32 bytes, or NULL to take 32 bytes from getrandom(2).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL out), HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_UNSUPPORTED
 * (getrandom failed: no entropy source). */
HEPA_API HEPA_NODISCARD hepa_status hepa_rng_create(hepa_rng **out, const uint8_t *seed);
/* Clears and frees the generator. NULL is a no-op. */
HEPA_API void hepa_rng_destroy(hepa_rng *rng);
/* Fills buf with `bytes` bytes of the keystream. */
HEPA_API HEPA_NODISCARD hepa_status hepa_rng_bytes(hepa_rng *rng, void *buf, size_t bytes);

/* poly := every residue uniform in [0, q_i), independently per limb (so a uniform element of
 * R_Q at poly's level); tagged with `domain` (a uniform polynomial is uniform in both). */
HEPA_API HEPA_NODISCARD hepa_status hepa_sample_uniform(hepa_rng *rng, hepa_poly *poly,
                                                         hepa_domain domain);
/* poly := coefficients uniform in {-1, 0, 1}, the same integer in every limb; coefficient
 * domain. */
HEPA_API HEPA_NODISCARD hepa_status hepa_sample_ternary(hepa_rng *rng, hepa_poly *poly);
/* poly := coefficients from the discrete Gaussian of parameter sigma (probability of k
 * proportional to exp(-k^2 / (2 sigma^2))), cut at |k| <= ceil(6 sigma); the same integer in
 * every limb; coefficient domain. sigma in (0, 16] (HEPA_ERR_INVALID_ARGUMENT otherwise). Each
 * table threshold is exact to 2^-64. */
HEPA_API HEPA_NODISCARD hepa_status hepa_sample_gaussian(hepa_rng *rng, hepa_poly *poly,
                                                          double sigma);

/* The error parameter of the homomorphic-encryption standard. */
#define HEPA_SIGMA_DEFAULT 3.2

#ifdef __cplusplus
}
#endif
#endif /* HEPA_SAMPLE_H */
