/* hepa/ckks.h — CKKS encoding: N/2 complex slots <-> a plaintext polynomial of the ring, in the
 * NTT domain.
 *
 * Slot order (SEAL's and HEAAN's). M = 2N, ζ = e^(2πi/M). Slot j (0 <= j < N/2) is the value of
 * the plaintext polynomial m at ζ^(5^j mod M), divided by the scale Δ; m has real (integer)
 * coefficients, so m(ζ^(-5^j)) is the complex conjugate and those N/2 slots are implied.
 * Slots are interleaved complex doubles: slots[2j] = Re z_j, slots[2j + 1] = Im z_j.
 *
 * How (both backends, same steps): with h = N/2 and 5^j ≡ 1 + 4·t_j (mod M), the evaluation
 * m(ζ^(5^j)) is Σ_k v_k·ζ^k·e^(2πi·t_j·k/h) where v_k = m_k + i·m_(k+h): a twist by ζ^k and one
 * complex DFT of size h (hepa/dft.h), read at the permuted index t_j. Encode runs it backwards:
 * place Δ·z_j at t_j, forward DFT / h, untwist, m_k = Re v_k, m_(k+h) = Im v_k, round each to the
 * nearest integer (ties to even) exactly — also beyond 2^53, where every double is an integer —
 * reduce into every limb, forward NTT.
 *
 * Decode reads the polynomial through exact CRT over the first t limbs only, t the fewest whose
 * product exceeds 2^(log2 Δ + 62) (all limbs of the plaintext if they do not reach that), so it
 * recovers plaintexts whose coefficients stay below 2^61·Δ in magnitude — slot values up to
 * about 2^61 — and reads no more limbs than that needs. The integer coefficients are centred,
 * converted to double (relative error <= 2^-52), divided by Δ and transformed.
 *
 * Precision: the DFT runs in one of hepa/dft.h's modes (DFT MODE below). The encoding's own
 * error is the rounding to integers: RMS 0.29 per coefficient, about 0.29·sqrt(N)/Δ per slot. A
 * DFT of relative L2 error ε adds about ε·Δ·rms|z|/sqrt(N) per coefficient (RMS), which stays
 * below the rounding while ε·Δ·rms|z| <= 0.29·sqrt(N): for FP64 (ε ≈ 2.6e-16) every Δ up to 2^57
 * at N = 2^16 and |z| <= 1.
 */
#ifndef HEPA_CKKS_H
#define HEPA_CKKS_H

#include <stddef.h>
#include "hepa/poly.h"
#include "hepa/ring.h"
#include "hepa/dft.h"
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most limbs decode reads (the t above); beyond it decode returns HEPA_ERR_UNSUPPORTED. */
#define HEPA_CKKS_MAX_DECODE_LIMBS ((size_t)16)

typedef struct hepa_ckks_encoder hepa_ckks_encoder;

/* An encoder for the ring: the slot permutation, the twist ζ^k and (CUDA backend) a device DFT
 * plan and tables, built once. The ring must outlive the encoder. On the CUDA backend an
 * encoder serves one host thread at a time (its encode check flags are its own state): give
 * each thread that encodes concurrently its own encoder.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL), HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_ckks_encoder_create(hepa_ckks_encoder **out,
                                                              const hepa_ring *ring);
HEPA_API void hepa_ckks_encoder_destroy(hepa_ckks_encoder *enc);

/* out (a polynomial of the encoder's ring, at its level) = encoding of the N/2 slots (2·(N/2)
 * doubles; host memory, or on the CUDA backend host or device memory) at scale Δ = scale.
 * out ends in the NTT domain. On the CUDA backend the call waits for its own kernels (to report
 * bad slots); the result is then ready on the ring's stream.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL; scale not finite or <= 0; a slot NaN or infinite;
 * device slots on the CPU backend), HEPA_ERR_MISMATCH (out of another ring),
 * HEPA_ERR_RANGE (a coefficient Δ·m_k rounds to a value of magnitude >= Q/2, Q the product of
 * out's level moduli: the scale is too large for that level; or, with the DFT mode forced to
 * FP16, slots too large for its DFT: DFT MODE below), HEPA_ERR_OUT_OF_MEMORY,
 * HEPA_ERR_DEVICE. On error out's contents are undefined (its level and ring are kept). */
HEPA_API HEPA_NODISCARD hepa_status hepa_ckks_encode(const hepa_ckks_encoder *enc, hepa_poly *out,
                                                      const double *slots, double scale);

/* slots (2·(N/2) doubles; host, or on the CUDA backend host or device memory) = decoding of
 * the plaintext pt (NTT or coefficient domain, any level) at scale Δ = scale. pt is not
 * changed. Waits for the result (host slots) or enqueues it on the ring's stream (device slots).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL; scale not finite or <= 0; device slots on the CPU
 * backend), HEPA_ERR_MISMATCH (pt of another ring), HEPA_ERR_UNSUPPORTED (more than
 * HEPA_CKKS_MAX_DECODE_LIMBS limbs needed), HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_ckks_decode(const hepa_ckks_encoder *enc,
                                                      const hepa_poly *pt, double scale,
                                                      double *slots);

/* DFT MODE. The precision of the encoder's DFTs, for encode and decode alike:
 * HEPA_CKKS_DFT_AUTO (the default) or a hepa_dft_mode (hepa/dft.h: HEPA_DFT_FP64, HEPA_DFT_FP16X2,
 * HEPA_DFT_FP16) to force one. AUTO takes, per call, the cheapest mode whose DFT error stays below
 * the encoding's own rounding error at that Δ for slots of magnitude up to 1 (ε·Δ <= 0.29·sqrt(N),
 * ε the mode's documented error bound: FP16X2 up to Δ ≈ 2^26, FP16 up to Δ ≈ 2^15 at N = 2^16).
 * Measured on an H100 (bench/results/2026-11-24-h100-ckks-modes.md, N = 2^12 ... 2^17), FP64
 * encodes 5-14 µs faster than the tensor-core modes at N = 2^13 ... 2^17 and as fast at 2^12: the
 * encoder transforms one vector of N/2 slots, which FP64 places, transforms and rounds in one
 * kernel (N = 2^13 ... 2^16) where the others take three launches. Decode costs the same in every
 * mode within 3 µs (FP16 1-3 µs less at N <= 2^14, where its error is below the rounding only
 * for Δ <= 2^13 or so). So AUTO is FP64 for both; forcing FP16X2 or FP16 gains nothing worth
 * their error on that GPU and is there for experiments.
 * Forced FP16X2 / FP16 on encode: the slots go into the DFT unscaled (FP16: times
 * 2^-ceil(log2(N/2)/2)) and Δ is applied after it, so FP16X2 takes any slot a float holds; FP16
 * overflows for slots beyond about 65504/sqrt(N/2) in magnitude, and encode then returns
 * HEPA_ERR_RANGE; decode with FP16 likewise holds slots up to about 65504/sqrt(N/2) (beyond, they
 * come out infinite). Errors: HEPA_ERR_INVALID_ARGUMENT (NULL; an unknown mode),
 * HEPA_ERR_UNSUPPORTED (FP16X2 or FP16 on the CPU backend, which has only the double-precision DFT;
 * or on a GPU older than sm_80; HEPA_DFT_FP32, which the encoder does not offer: FP64 is its
 * fastest mode), HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE (creating the mode's DFT
 * plan). On error the mode is unchanged. */
#define HEPA_CKKS_DFT_AUTO (-1)
HEPA_API HEPA_NODISCARD hepa_status hepa_ckks_encoder_set_dft_mode(hepa_ckks_encoder *enc,
                                                                   int mode);
/* The hepa_dft_mode that encode and decode use at scale Δ = scale (AUTO resolved), or -1 for a
 * NULL encoder or a scale that is not finite and positive. */
HEPA_API int hepa_ckks_dft_mode(const hepa_ckks_encoder *enc, double scale);
/* The t of decode for this plaintext level and scale (1 <= t <= level), or 0 when more than
 * HEPA_CKKS_MAX_DECODE_LIMBS would be needed. */
HEPA_API size_t hepa_ckks_decode_limbs(const hepa_ckks_encoder *enc, size_t level, double scale);

#ifdef __cplusplus
}
#endif

#endif /* HEPA_CKKS_H */
