/* hepa/bigprime.h — the big prime field Z/pZ, p = r^k + 1 with a sparse radix r = 2^w ± 2^u
 * (a "sparse-radix generalized Fermat prime", seed 002): host reference arithmetic, roots of
 * unity and a reference FFT. The device kernels are tested against these functions.
 *
 * Why this form: r^k ≡ -1 (mod p), so r is a primitive K-th root of unity with K = 2k, and
 * multiplying by a power of r is a shift of the base-r digits plus a negation of the digits that
 * wrap around: a DFT of size K needs no general multiplication. Because r = 2^w ± 2^u, dividing
 * by r (to split a two-word product into base-r digits) needs only shifts and adds.
 *
 * ELEMENT REPRESENTATION (host: element-major). An element is k 64-bit words x[0..k), the base-r
 * digits x_0 (least significant) .. x_{k-1}, with value Σ_i x_i·r^i. A vector of n elements is
 * n·k words, element j at x + j·k. The canonical forms, one per residue class:
 *   - 0 <= x_i < r for every i: the values 0 .. r^k - 1 = p - 2, in plain base r;
 *   - x_{k-1} = r and x_0 = .. = x_{k-2} = 0: the value r^k = p - 1 (≡ -1), the only residue
 *     that does not fit k digits below r, and the only case in which a digit equals r.
 * Anything else (a digit > r; a digit = r below the top; a top digit = r with another digit
 * nonzero) is invalid. The checked functions reject invalid inputs with HEPA_ERR_INVALID_ARGUMENT
 * and leave their outputs untouched; the raw functions assume canonical inputs and always write
 * canonical outputs.
 * (The device code stores vectors digit-major instead — digit d of element j at x[j + d·n] — so
 * that a warp's loads coalesce; the digits themselves are the same.)
 *
 * Two tiers, as in FLINT: hepa_bp_* check the field, NULL pointers and every input digit;
 * _hepa_bp_* work on raw pointers and check nothing. Raw functions allow the output to alias any
 * input (z == x, z == y, x == y). The digit-level ones (add, sub, neg, mul_rpow, mul_digits)
 * allocate nothing (they keep HEPA_BP_MAX_K 128-bit digit sums, 4 KiB, on the stack); the
 * GMP-based ones (_hepa_bp_mul, _hepa_bp_inv) use GMP temporaries (GMP aborts on allocation
 * failure).
 *
 * A field is immutable after creation: any number of threads may use one concurrently.
 * Including this header requires <gmp.h>. */
#ifndef HEPA_BIGPRIME_H
#define HEPA_BIGPRIME_H

#include <stddef.h>
#include <stdint.h>
#include <gmp.h>
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest k (digits per element) a field may have: p < 2^(64·256) = 2^16384. Bigger fields
 * are of no practical use here and their primality test would take minutes. */
#define HEPA_BP_MAX_K 256u

/* The field descriptor: p = r^k + 1, r = 2^w + sign·2^u, its bit length, v2(p - 1), and a
 * primitive 2^v2-th root of unity fixed at creation (see hepa_bp_root_of_unity). Opaque. */
typedef struct hepa_bp_field hepa_bp_field;

/* Named fields. All have sign = +1; each p is prime (the tests re-check them with GMP).
 *   HEPA_BP_P3      = (2^63 + 2^34)^8  + 1:  505 bits, k = 8,  K = 16, v2(p-1) = 272
 *   HEPA_BP_P4      = (2^62 + 2^36)^16 + 1:  993 bits, k = 16, K = 32, v2(p-1) = 576
 *   HEPA_BP_W59_K8  = (2^59 + 2^16)^8  + 1:  473 bits, k = 8,  K = 16, v2(p-1) = 128
 *   HEPA_BP_W58_K16 = (2^58 + 2^10)^16 + 1:  929 bits, k = 16, K = 32, v2(p-1) = 160
 *   HEPA_BP_W56_K32 = (2^56 + 2^21)^32 + 1: 1793 bits, k = 32, K = 64, v2(p-1) = 672
 *   HEPA_BP_W47_K64 = (2^47 + 2^32)^64 + 1: 3009 bits, k = 64, K = 128, v2(p-1) = 2048
 * P3 and P4 are the seed's primes; the other four are the ones the BPAS library uses. */
typedef enum hepa_bp_prime {
    HEPA_BP_P3 = 0,
    HEPA_BP_P4 = 1,
    HEPA_BP_W59_K8 = 2,
    HEPA_BP_W58_K16 = 3,
    HEPA_BP_W56_K32 = 4,
    HEPA_BP_W47_K64 = 5,
    HEPA_BP_PRIME_COUNT = 6 /* number of named fields; not a field */
} hepa_bp_prime;

/* Creates the field p = r^k + 1 with r = 2^w + sign·2^u.
 * Requires sign = +1 or -1, 0 <= u < w <= 63 and r >= 2 (so 2 <= r < 2^64), k a power of two in
 * [2, HEPA_BP_MAX_K], and p prime (mpz_probab_prime_p with 30 rounds; this costs about 10 ms at
 * 500 bits and 0.2 s at 3000 bits). Note p prime forces u >= 1 (an odd r makes p even).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL out, a parameter out of range, p composite),
 * HEPA_ERR_OUT_OF_MEMORY. *out is written only on success. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_field_create(hepa_bp_field **out, unsigned w,
                                                          unsigned u, int sign, unsigned k);
/* Creates a named field (no primality test is run: the constants are known primes).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL out, which >= HEPA_BP_PRIME_COUNT),
 * HEPA_ERR_OUT_OF_MEMORY. *out is written only on success. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_field_create_named(hepa_bp_field **out,
                                                                hepa_bp_prime which);
/* NULL is a no-op. */
HEPA_API void hepa_bp_field_destroy(hepa_bp_field *f);

/* Accessors; each returns 0 for f == NULL. */
HEPA_API unsigned hepa_bp_field_k(const hepa_bp_field *f);  /* digits per element, 2..256 */
HEPA_API unsigned hepa_bp_field_K(const hepa_bp_field *f);  /* K = 2k, the order of r */
HEPA_API uint64_t hepa_bp_field_r(const hepa_bp_field *f);  /* r = 2^w + sign·2^u */
HEPA_API unsigned hepa_bp_field_w(const hepa_bp_field *f);
HEPA_API unsigned hepa_bp_field_u(const hepa_bp_field *f);
HEPA_API int hepa_bp_field_sign(const hepa_bp_field *f);    /* +1 or -1 */
HEPA_API unsigned hepa_bp_field_bits(const hepa_bp_field *f); /* bit length of p */
/* v2(p - 1): the largest e with 2^e | p - 1 (= u·k). Primitive N-th roots of unity exist
 * exactly for N | 2^v2; K | 2^v2 always holds. */
HEPA_API unsigned hepa_bp_field_v2(const hepa_bp_field *f);
/* out (initialised by the caller) = p. Errors: HEPA_ERR_INVALID_ARGUMENT (NULL). */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_field_prime(const hepa_bp_field *f, mpz_t out);

/* ---- conversions ----------------------------------------------------------------------------- */

/* 1 if the k words at x are a canonical element (see the header comment), else 0 (also for a
 * NULL f or x). */
HEPA_API int hepa_bp_is_valid(const hepa_bp_field *f, const uint64_t *x);
/* x (k words) = the canonical element of v mod p, for any integer v (negative too).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL). */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_from_mpz(const hepa_bp_field *f, uint64_t *x,
                                                      const mpz_t v);
/* out (initialised) = Σ x_i·r^i, in [0, p).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, x not canonical; out untouched). */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_to_mpz(const hepa_bp_field *f, mpz_t out,
                                                    const uint64_t *x);

/* ---- arithmetic, checked ----------------------------------------------------------------------
 * Each writes the canonical z (k words). z may alias x or y. Errors: HEPA_ERR_INVALID_ARGUMENT
 * for a NULL argument or a non-canonical input (z untouched), and as stated below. */

HEPA_API HEPA_NODISCARD hepa_status hepa_bp_add(const hepa_bp_field *f, uint64_t *z,
                                                 const uint64_t *x, const uint64_t *y);
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_sub(const hepa_bp_field *f, uint64_t *z,
                                                 const uint64_t *x, const uint64_t *y);
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_neg(const hepa_bp_field *f, uint64_t *z,
                                                 const uint64_t *x);
/* z = x·r^i for 0 <= i < 2k (r^(2k) = 1, so every power of r is one of these); i >= 2k is
 * HEPA_ERR_INVALID_ARGUMENT. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_mul_rpow(const hepa_bp_field *f, uint64_t *z,
                                                      const uint64_t *x, unsigned i);
/* z = x·y (through _hepa_bp_mul, the GMP reference). */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_mul(const hepa_bp_field *f, uint64_t *z,
                                                 const uint64_t *x, const uint64_t *y);
/* z = x^(-1); x = 0 is HEPA_ERR_INVALID_ARGUMENT. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_inv(const hepa_bp_field *f, uint64_t *z,
                                                 const uint64_t *x);

/* ---- arithmetic, raw --------------------------------------------------------------------------
 * Inputs canonical (unchecked; anything else gives an unspecified result), output canonical.
 * z may alias x and/or y. */

/* z = x + y: a base-r carry chain; a carry out of the top digit is worth r^k ≡ -1, so it is
 * subtracted at the bottom (with the wrap to p - 1 = r^k handled explicitly). No allocation. */
HEPA_API void _hepa_bp_add(const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                           const uint64_t *y);
/* z = x - y: a base-r borrow chain; a borrow out of the top digit is worth -r^k ≡ +1. */
HEPA_API void _hepa_bp_sub(const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                           const uint64_t *y);
/* z = -x (= p - x for x != 0). */
HEPA_API void _hepa_bp_neg(const hepa_bp_field *f, uint64_t *z, const uint64_t *x);
/* z = x·r^i, 0 <= i < 2k required. For i < k the digits move up by i and the i that pass the top
 * come back at the bottom negated (r^k ≡ -1): z = (x shifted) - (wrapped digits); for i >= k,
 * x·r^i = -(x·r^(i-k)). Only shifts, adds and subtracts: no multiplication. */
HEPA_API void _hepa_bp_mul_rpow(const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                                unsigned i);
/* z = x·y, the reference: converted to mpz, multiplied and reduced mod p by GMP, converted back.
 * Obviously right, slow; the digit algorithm (_hepa_bp_mul_digits, and the device kernels) is
 * tested against it. */
HEPA_API void _hepa_bp_mul(const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                           const uint64_t *y);
/* z = x·y by the seed's digit algorithm: the negacyclic schoolbook product of the digit vectors
 * (T^k ≡ -1), each 128-bit digit product x_i·y_j split into two base-r digits h·r + l using only
 * shifts and adds (r = 2^w ± 2^u), the wrapped terms negated, then one signed carry chain in base
 * r and a final fold of the carry out of the top (r^k ≡ -1). No GMP, no allocation. */
HEPA_API void _hepa_bp_mul_digits(const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                                  const uint64_t *y);
/* z = x^(-1) by GMP (mpz_invert); x = 0 gives z = 0. */
HEPA_API void _hepa_bp_inv(const hepa_bp_field *f, uint64_t *z, const uint64_t *x);

/* ---- roots of unity and the reference FFT ---------------------------------------------------- */

/* w (k words) = ω_N, a primitive N-th root of unity, for N a power of two with N | 2^v2 (N = 1
 * gives 1, N = 2 gives p - 1).
 * The roots come from one primitive 2^v2-th root W fixed at field creation, ω_N = W^(2^v2 / N),
 * with W chosen such that ω_K = r. Hence:
 *   - ω_(2N)^2 = ω_N for every N (the roots of different sizes are compatible);
 *   - when K | N, ω_N^(N/K) = r, so the K-point DFTs inside an FFT of size N use only powers of
 *     r (multiplication-free, _hepa_bp_mul_rpow) — the property the seed's FFT relies on;
 *   - when N < K, ω_N = r^(K/N).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, N = 0 or not a power of two),
 * HEPA_ERR_UNSUPPORTED (N a power of two that does not divide 2^v2: the field has no such root).
 * w is untouched on failure. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_root_of_unity(const hepa_bp_field *f, uint64_t *w,
                                                           size_t N);

/* In-place DFT of x[0..N) (N elements, element-major, N·k words), natural order in and out.
 *   forward (inverse == 0):  X_j = Σ_i x_i·ω^(i·j),            ω = hepa_bp_root_of_unity(f, N)
 *   inverse (inverse != 0):  x_i = N^(-1)·Σ_j X_j·ω^(-i·j)
 * so inverse(forward(x)) = x. The reference: bit-reversal permutation, then radix-2
 * decimation-in-time butterflies with general (GMP) multiplications; it allocates its twiddle
 * table (N/2 elements). The device FFT is tested against it.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, N not a power of two, N so large that N·k words
 * cannot exist, an element not canonical), HEPA_ERR_UNSUPPORTED (N does not divide 2^v2),
 * HEPA_ERR_OUT_OF_MEMORY. x is untouched on failure. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_fft(const hepa_bp_field *f, uint64_t *x, size_t N,
                                                 int inverse);

/* out[0..N) = a·b mod (x^N - 1) when negacyclic == 0 (cyclic), mod (x^N + 1) otherwise, for
 * polynomials of N coefficients in Z/pZ (each N·k words, element-major, coefficient of x^j at
 * element j). Through the FFT: cyclic = inverse(forward(a) ⊙ forward(b)); negacyclic first
 * twists a_j and b_j by ψ^j (ψ = hepa_bp_root_of_unity(f, 2N), ψ^N = -1) and untwists the
 * result by ψ^(-j). out may alias a and/or b. Scratch is allocated internally.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, N not a power of two or too large to exist, a
 * coefficient not canonical), HEPA_ERR_UNSUPPORTED (N — 2N when negacyclic — does not divide
 * 2^v2), HEPA_ERR_OUT_OF_MEMORY. out is untouched on failure. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_poly_mul(const hepa_bp_field *f, uint64_t *out,
                                                      const uint64_t *a, const uint64_t *b,
                                                      size_t N, int negacyclic);

#ifdef __cplusplus
}
#endif
#endif /* HEPA_BIGPRIME_H */
