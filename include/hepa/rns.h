/* hepa/rns.h — ciphertext building blocks on RNS polynomials: tensor product, rescale and
 * drop-to-level, automorphisms x -> x^g, and fast base conversion between RNS bases.
 * Key switching (ModUp, inner product, ModDown) is in hepa/keyswitch.h.
 *
 * Every function runs on the ring's backend (host loops on the CPU, kernels enqueued on the
 * ring's stream on CUDA, no waiting) and the two give bit-identical results. Argument rules as
 * in hepa/poly.h: operands of one ring (HEPA_ERR_MISMATCH otherwise), the documented levels and
 * domains (HEPA_ERR_MISMATCH / HEPA_ERR_DOMAIN), outputs untouched on argument errors. */
#ifndef HEPA_RNS_H
#define HEPA_RNS_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/poly.h"
#include "hepa/ring.h"
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tensor product of two degree-1 ciphertexts, NTT domain, one pass over the data:
 *   d0 = a0·b0,  d1 = a0·b1 + a1·b0,  d2 = a1·b1   (pointwise, mod each q_i).
 * All seven polynomials of one ring and level; the four inputs in the NTT domain; outputs take
 * the NTT domain. Outputs may alias inputs (each element is read before it is written); the
 * three outputs must be distinct. b0, b1 may be a0, a1 (squaring).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, outputs not distinct), HEPA_ERR_MISMATCH,
 * HEPA_ERR_DOMAIN (an input in the coefficient domain). */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_tensor(hepa_poly *d0, hepa_poly *d1, hepa_poly *d2,
                                                      const hepa_poly *a0, const hepa_poly *a1,
                                                      const hepa_poly *b0, const hepa_poly *b1);

/* Rescale: out = round(a / q_(l-1)), l = a's level, q_(l-1) its last live modulus; out has level
 * l - 1 and a's domain. The rounding is exact (ties, which need an odd-sized gap, cannot occur
 * with odd q): out_i = (a_i - [a]_(q_(l-1)) centred) · q_(l-1)^(-1) mod q_i.
 * Coefficient domain: one pass. NTT domain: the last limb goes through one inverse NTT and its
 * reductions through forward NTTs of the l - 1 other limbs (as in SEAL and Phantom).
 * out must not alias a (different levels).
 * Errors: HEPA_ERR_RANGE (a at level 1: nothing would be left), HEPA_ERR_MISMATCH (other ring,
 * or out's level not a's level - 1), HEPA_ERR_INVALID_ARGUMENT (NULL), HEPA_ERR_OUT_OF_MEMORY. */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_rescale(hepa_poly *out, const hepa_poly *a);

/* Rescale of both polynomials of a ciphertext: out0 = rescale(a0), out1 = rescale(a1), each as
 * hepa_poly_rescale, bit-identical to two calls of it. a0 and a1 share ring, level and domain.
 * On the CUDA backend in the NTT domain at n >= 2^13 the two share the launches of the last
 * limbs' inverse NTT, and those of the forward NTT's two passes unless the data between the
 * passes fits the L2 cache for one polynomial but not for both (then one polynomial at a time):
 * at n = 2^16 with 33 limbs of 40 bits on an H100, 71.6 µs against 78.3 µs for two calls
 * (bench/results/2026-11-24-h100-rescale-xf2-f71d918.md).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, out0 == out1), HEPA_ERR_MISMATCH (another ring, a1's
 * level not a0's, an output's level not a0's level - 1), HEPA_ERR_DOMAIN (a0 and a1 in
 * different domains), HEPA_ERR_RANGE (level 1), HEPA_ERR_OUT_OF_MEMORY. */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_rescale_pair(hepa_poly *out0, hepa_poly *out1,
                                                           const hepa_poly *a0,
                                                           const hepa_poly *a1);

/* Drop to a lower level: out = the first level(out) limbs of a (in either domain, which out
 * takes). In CKKS this keeps the message and scale (a modulus switch without division).
 * Errors: HEPA_ERR_MISMATCH (other ring, or level(out) > level(a)), HEPA_ERR_INVALID_ARGUMENT. */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_drop(hepa_poly *out, const hepa_poly *a);

/* Automorphism σ_g: a(x) -> a(x^g) in Z_Q[x]/(x^n + 1), g odd (taken mod 2n). In the
 * coefficient domain a signed permutation of coefficients (x^k -> ±x^(k·g mod n)); in the NTT
 * domain a permutation of the evaluation points: with NTT(a)[k] = a(ψ^(2·rev(k)+1)),
 * NTT(σ_g a)[k] = NTT(a)[k'] where 2·rev(k')+1 = (2·rev(k)+1)·g mod 2n. a's domain is kept.
 * CKKS: g = 5^r mod 2n rotates the slots left by r; g = 2n - 1 conjugates them.
 * out may alias a (a scratch copy is then made).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, g even), HEPA_ERR_MISMATCH, HEPA_ERR_OUT_OF_MEMORY. */
HEPA_API HEPA_NODISCARD hepa_status hepa_poly_automorphism(hepa_poly *out, const hepa_poly *a,
                                                            uint64_t g);

/* Fast base conversion (Bajard et al.; Halevi–Polyakov–Shoup with exact = 1), raw tier on
 * coefficient-domain limbs in the ring backend's memory (device pointers on CUDA).
 * S = the ring's moduli src_idx[0 .. ns), T = the ring's moduli dst_idx[0 .. nt) (indices into
 * the ring, each < num_moduli; S distinct; T may overlap S). in: ns limbs of n words (limb k
 * residues mod the src_idx[k]-th modulus, in [0, q)); out: nt limbs of n words.
 * With x the integer in [0, S) that in represents (S = Π src moduli):
 *   exact = 0:  out = x + u·S mod t, u in [0, ns) (the approximate Conv_{S->T}: no correction);
 *   exact = 1:  out = x' mod t with x' the centred representative (x or x - S, in (-S/2, S/2)),
 *               computed with a floating-point estimate of u (Halevi–Polyakov–Shoup); exact
 *               whenever |x/S - 1/2| > ns^2 · 2^-51 (the double sum's error bound), which a
 *               random x misses with probability ~ns^2·2^-50; inside that window either
 *               representative may come out (for a rounding division this moves the result by
 *               one, at a tie-like point where both roundings are as good).
 * out and in must not overlap. The device path uploads the conversion tables for the call and
 * waits for that upload (key switching keeps its tables resident instead).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, ns or nt 0 or > 64, an index out of range,
 * repeated src index), HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_rns_convert(const hepa_ring *ring, uint64_t *out,
                                                      const size_t *dst_idx, size_t nt,
                                                      const uint64_t *in, const size_t *src_idx,
                                                      size_t ns, int exact);

#ifdef __cplusplus
}
#endif
#endif /* HEPA_RNS_H */
