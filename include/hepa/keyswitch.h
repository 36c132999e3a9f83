/* hepa/keyswitch.h — hybrid key switching (Han–Ki; the RNS gadget of SEAL, Phantom, Lattigo):
 * ModUp of the digits, inner product with a switching key, ModDown.
 *
 * Moduli. The ring's moduli are q_0 .. q_(L-1) (the ciphertext modulus Q) followed by the K
 * special primes p_0 .. p_(K-1) (P = Π p_k): num_moduli = L + K. Ciphertexts live at levels
 * l <= L. The digits are consecutive groups of `digit_size` (alpha) primes of Q: digit j holds
 * q_(j·alpha) .. q_(min((j+1)·alpha, L) - 1); the last may be shorter, and at level l only the
 * digits' primes below l are used (dnum(l) = ceil(l / alpha) digits). Any L, K >= 1 and
 * 1 <= alpha <= L are accepted; noise stays small when P exceeds the product of one digit
 * (alpha <= K primes of equal size, the usual choice alpha = K).
 *
 * Key. For secrets s_from, s_to (polynomials over all L + K moduli, NTT domain), digit j's key
 * is (b_j, a_j) over all L + K moduli with a_j uniform, e_j Gaussian and
 *     b_j = -a_j·s_to + e_j + P·g_j·s_from,   g_j ≡ 1 mod the primes of digit j, ≡ 0 mod the
 * other primes of Q (so P·g_j ≡ P mod q_i for q_i in digit j and 0 elsewhere).
 *
 * Switch of c (level l, NTT domain):
 *   ModUp:   for each digit j, c_j = c mod Q_j (its own limbs) extended to all of
 *            Q_l ∪ P as the centred representative c~_j in (-Q_j/2, Q_j/2) (the exact
 *            conversion of hepa_rns_convert: one floating-point term more per input than the
 *            approximate one, and it halves the noise and removes the bias of [0, Q_j)
 *            digits), then NTTs;
 *   product: (t0, t1) = Σ_j c~_j · (b_j, a_j) over Q_l ∪ P;
 *   ModDown: out_k = round(t_k / P) over Q_l (exact centred conversion of t_k mod P).
 * Then out0 + out1·s_to = c·s_from + (Σ_j c~_j e_j)/P + rounding, mod Q_l: with |c~_j| <= Q_j/2
 * and Q_j <= P, a few units per coefficient plus the rounding of out1 times s_to.
 *
 * Extended polynomials (ModUp output, inner-product accumulators) use the compact layout: l limbs
 * for q_0 .. q_(l-1), then K limbs for p_0 .. p_(K-1), n words each. */
#ifndef HEPA_KEYSWITCH_H
#define HEPA_KEYSWITCH_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/poly.h"
#include "hepa/ring.h"
#include "hepa/sample.h"
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hepa_ks hepa_ks;
typedef struct hepa_ksk hepa_ksk;

/* Key-switching context: the ring's last num_special moduli are P, digits of digit_size primes
 * (0 means digit_size = num_special). Precomputes the conversion tables of every level (and
 * uploads them on the CUDA backend). The ring must outlive the context.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL ring or out, num_special 0 or >= num_moduli,
 * digit_size > L), HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_ks_create(hepa_ks **out, const hepa_ring *ring,
                                                    size_t num_special, size_t digit_size);
HEPA_API void hepa_ks_destroy(hepa_ks *ks);
/* L, the highest ciphertext level. */
HEPA_API size_t hepa_ks_max_level(const hepa_ks *ks);
/* K and alpha. */
HEPA_API size_t hepa_ks_num_special(const hepa_ks *ks);
HEPA_API size_t hepa_ks_digit_size(const hepa_ks *ks);
/* dnum(l) = ceil(l / alpha), or 0 for a level outside [1, L]. */
HEPA_API size_t hepa_ks_num_digits(const hepa_ks *ks, size_t level);

/* A switching key from s_from to s_to (both at the ring's full level L + K, NTT domain), with
 * fresh uniform a_j and Gaussian e_j (sigma = HEPA_SIGMA_DEFAULT) from rng. Stored in the ring
 * backend's memory, dnum(L) · 2 · (L + K) · n words: on the CUDA backend the limbs of moduli
 * below 2^40 in 5 bytes per word (the inner product reads the whole key on every switch, so the
 * bytes it moves shrink with it: 1122 -> 726 MiB at n = 2^16 with 33 40-bit primes, P = 1 prime
 * of 60 bits), the others in 8; hepa_ksk_bytes gives the size.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL), HEPA_ERR_MISMATCH (a secret of another ring or not
 * at the full level), HEPA_ERR_DOMAIN (a secret in the coefficient domain),
 * HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_ksk_create(hepa_ksk **out, const hepa_ks *ks,
                                                     const hepa_poly *s_from,
                                                     const hepa_poly *s_to, hepa_rng *rng);
HEPA_API void hepa_ksk_destroy(hepa_ksk *key);
/* Bytes of the ring backend's memory the key holds (0 for NULL). */
HEPA_API size_t hepa_ksk_bytes(const hepa_ksk *key);
/* The key's dnum(L) · 2 · (L+K) · n words into host memory `out`: digit j's b at
 * + (2·j)·(L+K)·n, its a at + (2·j+1)·(L+K)·n, limb i of each at + i·n in the ring's modulus
 * order, every word in [0, q_i). On the CUDA backend it waits for the ring's stream.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL), HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_ksk_export(const hepa_ksk *key, uint64_t *out);
/* Words in a key of this context: dnum(L) · 2 · (L+K) · n, the length of hepa_ksk_export's
 * output and of hepa_ksk_import's input (0 for NULL). */
HEPA_API size_t hepa_ks_key_words(const hepa_ks *ks);
/* A key from `count` host words in hepa_ksk_export's layout (count = hepa_ks_key_words(ks)),
 * stored in the ring backend's memory as hepa_ksk_create stores its keys (so a key made on one
 * backend or machine, exported and sent, switches on another: the server's context must have the
 * same moduli in the same order, n, K and digit size; only the length and the words' ranges can
 * be checked). hepa_ksk_export of the result gives the words back. The words may be freed or
 * changed when the call returns. On the CUDA backend the packing is enqueued on the ring's
 * stream, as for hepa_ksk_create.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, or a word of limb i not in [0, q_i)),
 * HEPA_ERR_MISMATCH (count is not hepa_ks_key_words(ks)), HEPA_ERR_OUT_OF_MEMORY,
 * HEPA_ERR_DEVICE; *out is set on HEPA_OK only. */
HEPA_API HEPA_NODISCARD hepa_status hepa_ksk_import(hepa_ksk **out, const hepa_ks *ks,
                                                    const uint64_t *words, size_t count);

/* Seeded keys (as SEAL's seeded serialization): the a_j are uniform and public, so they can travel
 * as the 32-byte seed of the ChaCha20 stream (hepa_rng_create(seed)) they are drawn from, in
 * digit order; such a key exports as its seed and its b_j, half the words.
 * hepa_ksk_create_seeded is hepa_ksk_create with the a_j drawn from seed's stream (e_j still
 * from rng): use a fresh uniform seed per key (e.g. hepa_rng_bytes of a getrandom-seeded
 * generator); two keys from one seed share their a_j. The same errors as hepa_ksk_create
 * (seed NULL: HEPA_ERR_INVALID_ARGUMENT). */
HEPA_API HEPA_NODISCARD hepa_status hepa_ksk_create_seeded(hepa_ksk **out, const hepa_ks *ks,
                                                           const hepa_poly *s_from,
                                                           const hepa_poly *s_to, hepa_rng *rng,
                                                           const uint8_t *seed);
/* A seeded key's seed (32 bytes) and b_j (hepa_ks_key_words(ks) / 2 words: digit j's b at
 * + j·(L+K)·n, limbs as in hepa_ksk_export). On the CUDA backend it waits for the ring's stream.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL), HEPA_ERR_UNSUPPORTED (a key made without a seed),
 * HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_ksk_export_seeded(const hepa_ksk *key, uint8_t *seed,
                                                           uint64_t *b_out);
/* The key that hepa_ksk_export_seeded described: the b_j from `count` host words (count =
 * hepa_ks_key_words(ks) / 2), checked and stored as hepa_ksk_import does, and the a_j drawn
 * again from seed's stream. The result is seeded and has the original key's words.
 * Errors: those of hepa_ksk_import (seed NULL: HEPA_ERR_INVALID_ARGUMENT). */
HEPA_API HEPA_NODISCARD hepa_status hepa_ksk_import_seeded(hepa_ksk **out, const hepa_ks *ks,
                                                           const uint8_t *seed,
                                                           const uint64_t *b_words, size_t count);

/* (out0, out1) = key switch of c under key (see above). c at level l in [1, L], NTT domain;
 * out0, out1 at level l, take the NTT domain; they may alias c but not each other.
 * Scratch (device pool or malloc): dnum(l)·(l+K) + 3·(l+K) limbs of n words.
 * KS GRAPH (on by default; the environment variable HEPA_KS_GRAPH=0, when the first call reads
 * it, turns it off; CUDA backend, n = 2^15 and 2^16; this call, hepa_keyswitch_add,
 * hepa_mul_relin and hepa_mul_relin_rescale): an eager call captures its own launches and
 * replays them from an executable graph the context keeps per call shape and level, updated
 * each call (graph launches overlap the key switch's two streams better: on an H100 at 2^16/33
 * hepa_mul_relin is 23-26 µs faster, and the host's time to enqueue a call 2.5-3.5x shorter).
 * The first call of a shape at a level instantiates its graph (host time). The scratch then
 * stays in the context until hepa_ks_destroy, as large as the largest level switched so far
 * (283 MiB at 2^16 with l = 33, K = 3). Calls made while the ring's stream is being captured
 * into the caller's own graph, and calls of other threads while one thread uses the cache, run
 * eagerly.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, out0 == out1), HEPA_ERR_MISMATCH (another ring, a key
 * of another context, levels differ or c above L), HEPA_ERR_DOMAIN (c not in the NTT domain),
 * HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_keyswitch(const hepa_ks *ks, hepa_poly *out0,
                                                    hepa_poly *out1, const hepa_poly *c,
                                                    const hepa_ksk *key);
/* (out0, out1) = (add0, add1) + key switch of c: relinearization ((d0, d1) + switch of d2) and
 * rotation ((σ(c0), 0) + switch of σ(c1)) in one call. The same words as hepa_keyswitch then
 * hepa_poly_add, but the additions happen where ModDown writes its outputs (on the CUDA backend
 * from n = 2^13 in the last pass of its NTT), so the two add passes over the ciphertext are
 * saved. add_k: NULL (nothing added) or level l, NTT domain; out_k may be add_k (in place) or c,
 * but add0 must not be out1 nor add1 out0.
 * Errors: those of hepa_keyswitch; HEPA_ERR_INVALID_ARGUMENT (add0 == out1 or add1 == out0),
 * HEPA_ERR_MISMATCH (an add of another ring or level), HEPA_ERR_DOMAIN (an add in the
 * coefficient domain). */
HEPA_API HEPA_NODISCARD hepa_status hepa_keyswitch_add(const hepa_ks *ks, hepa_poly *out0,
                                                       hepa_poly *out1, const hepa_poly *c,
                                                       const hepa_ksk *key, const hepa_poly *add0,
                                                       const hepa_poly *add1);

/* Hoisted automorphisms (rotations and conjugation) of one ciphertext (c0, c1): for k < count,
 *     (out0[k], out1[k]) = (σ_(g[k])(c0), 0) + key switch of σ_(g[k])(c1) under keys[k],
 * the rotation of hepa/rns.h's hepa_poly_automorphism (g = 5^r mod 2n rotates the slots left by
 * r, g = 2n - 1 conjugates) with keys[k] a switching key from σ_(g[k])(s) to s. The same words
 * as hepa_poly_automorphism of c0 and c1 then hepa_keyswitch_add(ks, out0[k], out1[k],
 * σ(c1), keys[k], σ(c0), NULL) (up to the conversion's ambiguity window, probability about
 * alpha·2^-50 per coefficient: see HOISTING in keyswitch.c), but c1's ModUp (its inverse NTT,
 * the conversion of its digits and the forward NTTs of dnum(l)·(l + K) limbs) runs once for all
 * count rotations, and each rotation reads the extended digits through σ_(g[k]) in its inner
 * product. Host backend, one core of the development machine, 8 rotations (hepa-bench --ks
 * --backend cpu, minimums): n = 2^13, 8 Q primes, K = 2: 41-45 -> 26-27 ms; n = 2^14, 16 Q
 * primes, K = 4: 190-205 -> 116-120 ms. Scratch: that of hepa_keyswitch.
 * c0, c1 at level l in [1, L], NTT domain; every output at level l, takes the NTT domain; no
 * output may be c0, c1 or another output. g[k] odd (taken mod 2n; g = 1 switches c1 itself).
 * On the CUDA backend (asynchronous on the ring's stream) ModUp writes the extended digits whole
 * (the fused row pass of hepa_keyswitch is not taken), and each rotation runs σ_g of c0 into
 * out0[k], the inner product reading the digits through σ_g (ks_inner_kernel<AUTO>) and ModDown
 * with the add; below 4 rotations (HOIST MIN in keyswitch.c) it runs them one at a time on the
 * fused key switch, which is faster there. H100, 8 rotations at 2^16/33, P = 1 / 3 / 2 / 4 (see
 * the README for the latest): hoisted about 1.2-1.3x faster than one at a time.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, count 0, an even g[k], an output aliasing c0, c1 or
 * another output), HEPA_ERR_MISMATCH (another ring, a key of another context, levels differ or
 * above L), HEPA_ERR_DOMAIN (c0 or c1 in the coefficient domain): outputs untouched;
 * HEPA_ERR_OUT_OF_MEMORY: outputs untouched on the host backend, on the CUDA backend those of
 * the rotations before the failed allocation may be written (the one-at-a-time path allocates
 * per rotation); HEPA_ERR_DEVICE: the outputs' words unspecified. */
HEPA_API HEPA_NODISCARD hepa_status hepa_automorphism_hoisted(
    const hepa_ks *ks, hepa_poly *const *out0, hepa_poly *const *out1, const hepa_poly *c0,
    const hepa_poly *c1, const uint64_t *g, const hepa_ksk *const *keys, size_t count);
/* Multiply and relinearize: (out0, out1) = (d0, d1) + key switch of d2 under rlk, where
 * (d0, d1, d2) = (a0, a1) ⊗ (b0, b1) as hepa_poly_tensor computes it (d0 = a0·b0,
 * d1 = a0·b1 + a1·b0, d2 = a1·b1). With rlk a key from s^2 to s, (out0, out1) decrypts under s
 * to the product of what (a0, a1) and (b0, b1) decrypt to. The same words as hepa_poly_tensor
 * then hepa_keyswitch_add(ks, out0, out1, d2, rlk, d0, d1), without the d0, d1, d2 polynomials:
 * d2 goes to scratch (l limbs more than hepa_keyswitch_add's). On the CUDA backend from
 * n = 2^13, when neither output overlaps an input, d0 and d1 are never written: the last pass of
 * ModDown's NTT computes them from the inputs as it stores (about 5 µs less at 2^16/33 on an
 * H100, 20 µs at 2^17/61); otherwise they go to out0, out1 in the tensor's pass (as in
 * hepa_poly_tensor) before the key switch. The four inputs and two outputs of one
 * ring and level l <= L; inputs in the NTT domain; outputs take it. out0, out1
 * may alias any input (in place: out0 = a0, out1 = a1), b may be a (squaring); out0 != out1.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, out0 == out1), HEPA_ERR_MISMATCH (another ring, a key
 * of another context, levels differ or above L), HEPA_ERR_DOMAIN (an input in the coefficient
 * domain), HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE; on an error the outputs' words are
 * unspecified unless the error is one of the argument checks (then untouched). */
HEPA_API HEPA_NODISCARD hepa_status hepa_mul_relin(const hepa_ks *ks, hepa_poly *out0,
                                                   hepa_poly *out1, const hepa_poly *a0,
                                                   const hepa_poly *a1, const hepa_poly *b0,
                                                   const hepa_poly *b1, const hepa_ksk *rlk);

/* Multiply, relinearize and rescale (CKKS's homomorphic multiplication): (out0, out1) at level
 * l - 1 = hepa_poly_rescale_pair of hepa_mul_relin's (level-l) result, the same words (see
 * below), without the level-l ciphertext in between. Inputs at level l in [2, L], NTT domain;
 * outputs at level l - 1, take the NTT domain; they must not be inputs (other levels).
 * On the CUDA backend at n = 2^15 .. 2^17 on rings with FP64 limbs (40-bit Q primes) the
 * rescale rides in ModDown: ModDown by P·q_(l-1) instead of P (the rescale
 * fused into the last base conversion, as the fast GPU libraries do; MODDOWN RESCALE in
 * keyswitch.c). Its exact conversion of the l-1'th and special primes' limbs to the other l - 1
 * yields x = c + P·r, with c ModDown's centred conversion of the P limbs and r the rescale's
 * centred last limb, so the words are those of the two steps unless a floating-point estimate
 * of a conversion lands in its ambiguity window (hepa_rns_convert: probability about
 * (K+1)^2 · 2^-50 per coefficient), where either neighbouring rounding may come out. Elsewhere
 * (host backend, other sizes and rings) it runs the two steps, with scratch for the level-l
 * pair.
 * Errors: those of hepa_mul_relin; HEPA_ERR_RANGE (inputs at level 1: nothing would be left);
 * HEPA_ERR_MISMATCH also for outputs not at level l - 1. */
HEPA_API HEPA_NODISCARD hepa_status hepa_mul_relin_rescale(const hepa_ks *ks, hepa_poly *out0,
                                                           hepa_poly *out1, const hepa_poly *a0,
                                                           const hepa_poly *a1, const hepa_poly *b0,
                                                           const hepa_poly *b1,
                                                           const hepa_ksk *rlk);

/* Raw tier of the three steps, on buffers in the ring backend's memory, compact extended layout
 * (E = l + K limbs of n words), no argument checks, nothing allocated beyond what each states.
 *   _hepa_ks_modup:     ext (dnum(l)·E limbs, digit j at + j·E·n) = ModUp of c (l limbs, NTT
 *                       domain, [0, q)); tmp: l limbs of scratch. NTT domain out.
 *   _hepa_ks_inner:     (t0, t1) (E limbs each) = Σ_j ext_j ⊙ (b_j, a_j). NTT domain.
 *   _hepa_ks_modup_inner: both, (t0, t1) from c; ext (dnum(l)·E limbs) and tmp (l limbs) are
 *                       scratch. On the CUDA backend with n >= 2^13 fused: the last NTT pass
 *                       of ModUp and the inner product are one kernel, and ext is left in an
 *                       intermediate state (what hepa_keyswitch runs).
 *   _hepa_ks_moddown:   out0/out1 (l limbs each, NTT domain) = round(t0/P), round(t1/P); t0 and
 *                       t1 are overwritten (their P limbs go to the coefficient domain); tmp:
 *                       2·l limbs of scratch. out_k may equal t_k (its first l limbs). */
HEPA_API HEPA_NODISCARD hepa_status _hepa_ks_modup(const hepa_ks *ks, size_t level, uint64_t *ext,
                                                    const uint64_t *c, uint64_t *tmp);
HEPA_API HEPA_NODISCARD hepa_status _hepa_ks_inner(const hepa_ks *ks, size_t level, uint64_t *t0,
                                                    uint64_t *t1, const uint64_t *ext,
                                                    const hepa_ksk *key);
HEPA_API HEPA_NODISCARD hepa_status _hepa_ks_modup_inner(const hepa_ks *ks, size_t level,
                                                          uint64_t *t0, uint64_t *t1,
                                                          uint64_t *ext, const uint64_t *c,
                                                          uint64_t *tmp, const hepa_ksk *key);
HEPA_API HEPA_NODISCARD hepa_status _hepa_ks_moddown(const hepa_ks *ks, size_t level,
                                                      uint64_t *out0, uint64_t *out1, uint64_t *t0,
                                                      uint64_t *t1, uint64_t *tmp);

#ifdef __cplusplus
}
#endif
#endif /* HEPA_KEYSWITCH_H */
