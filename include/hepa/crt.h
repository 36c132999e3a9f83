/* hepa/crt.h — Chinese remaindering between RNS limbs and big integers (GMP mpz_t).
 *
 * For inspection, tests and I/O, not hot paths. Uses the first `level` moduli of the ring,
 * Q_level = q_0 ··· q_{level-1}. Including this header requires <gmp.h>. */
#ifndef HEPA_CRT_H
#define HEPA_CRT_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "hepa/status.h"
#include "hepa/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Q = q_0 ··· q_{level-1} (Q must be initialised). 1 <= level <= num_moduli. */
HEPA_API HEPA_NODISCARD hepa_status hepa_crt_modulus(const hepa_ring *ring, size_t level, mpz_t Q);

/* out[j] (j < n, each initialised by the caller) = the integer x with x ≡ limbs[i·n + j]
 * (mod q_i) for i < level: in [0, Q) when centered == 0, in (-Q/2, Q/2] otherwise.
 * limbs: host array of level·n residues in [0, q_i) (limb-major).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, bad level, a residue >= its modulus). */
HEPA_API HEPA_NODISCARD hepa_status hepa_crt_compose(const hepa_ring *ring, size_t level,
                                                      mpz_t *out, const uint64_t *limbs,
                                                      int centered);

/* limbs[i·n + j] = in[j] mod q_i in [0, q_i), for any integer in[j] (negative values too). */
HEPA_API HEPA_NODISCARD hepa_status hepa_crt_decompose(const hepa_ring *ring, size_t level,
                                                        uint64_t *limbs, const mpz_t *in);

#ifdef __cplusplus
}
#endif
#endif /* HEPA_CRT_H */
