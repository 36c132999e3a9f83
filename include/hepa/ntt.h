/* hepa/ntt.h — negacyclic number-theoretic transforms over Z_q[x]/(x^n + 1), one limb at a time.
 *
 * Convention (identical on every backend, tested):
 *   forward:  Cooley–Tukey, the ψ-twist merged into the twiddles, natural order in, bit-reversed
 *             order out:  NTT(a)[k] = a(ψ^(2·rev(k) + 1)) mod q, where ψ is the table's primitive
 *             2n-th root of unity and rev() reverses log2(n) bits;
 *   inverse:  Gentleman–Sande, bit-reversed in, natural order out, scaled by n^(-1), so
 *             inverse(forward(a)) = a.
 * Pointwise products of two forward transforms are transforms of the negacyclic product, with no
 * permutation in between.
 *
 * Two tiers: hepa_ntt_* check their arguments; _hepa_ntt_* work on raw pointers, check nothing,
 * allocate nothing, and state their input and output ranges. */
#ifndef HEPA_NTT_H
#define HEPA_NTT_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Precomputed tables for one (n, q): n twiddles for each direction with their Shoup
 * companions. Immutable after creation; a ring holds one per modulus. */
typedef struct hepa_ntt_tables hepa_ntt_tables;

/* Creates the tables for n a power of two in [2, 2^30] and q a prime < 2^62 with q ≡ 1 mod 2n.
 * ψ is the smallest primitive 2n-th root of unity (hepa_primitive_root(q, 2n)).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL out, bad n, q not such a prime),
 * HEPA_ERR_OUT_OF_MEMORY. */
HEPA_API HEPA_NODISCARD hepa_status hepa_ntt_tables_create(hepa_ntt_tables **out, size_t n,
                                                            uint64_t q);
/* NULL is a no-op. */
HEPA_API void hepa_ntt_tables_destroy(hepa_ntt_tables *tables);

HEPA_API size_t hepa_ntt_tables_n(const hepa_ntt_tables *tables);
HEPA_API uint64_t hepa_ntt_tables_modulus(const hepa_ntt_tables *tables);
/* ψ, the primitive 2n-th root of unity the tables are built from. */
HEPA_API uint64_t hepa_ntt_tables_psi(const hepa_ntt_tables *tables);

/* Raw table access for other backends (the CUDA layer uploads these), each an array of n words:
 *   fwd[k]   = ψ^rev(k)          fwd_shoup[k]   = its Shoup companion      (k in [1, n))
 *   inv[k]   = ψ^(-rev(k))       inv_shoup[k]   = its Shoup companion      (k in [1, n))
 * where rev reverses log2(n) bits; entry 0 holds 1 (unused by the transforms).
 * n_inv = n^(-1) mod q with companion n_inv_shoup; n_inv_w = n^(-1)·ψ^(-rev(1)) with companion
 * (the last inverse stage merges the scaling with its twiddle). */
typedef struct hepa_ntt_table_view {
    size_t n;
    uint64_t q;
    const uint64_t *fwd, *fwd_shoup, *inv, *inv_shoup;
    uint64_t n_inv, n_inv_shoup, n_inv_w, n_inv_w_shoup;
} hepa_ntt_table_view;
HEPA_API hepa_ntt_table_view hepa_ntt_tables_view(const hepa_ntt_tables *tables);

/* In-place forward / inverse transform of a[0..n), residues in [0, q) in and out (fast path:
 * Harvey's lazy butterflies with Shoup twiddles).
 * Errors: HEPA_ERR_INVALID_ARGUMENT for NULL arguments or an input residue >= q (a untouched). */
HEPA_API HEPA_NODISCARD hepa_status hepa_ntt_forward(const hepa_ntt_tables *tables, uint64_t *a);
HEPA_API HEPA_NODISCARD hepa_status hepa_ntt_inverse(const hepa_ntt_tables *tables, uint64_t *a);

/* The reference transforms: textbook radix-2 loops with a full modular reduction after every
 * operation (Barrett, no lazy ranges). Same results as the fast path; slower; for tests. */
HEPA_API HEPA_NODISCARD hepa_status hepa_ntt_forward_ref(const hepa_ntt_tables *tables,
                                                          uint64_t *a);
HEPA_API HEPA_NODISCARD hepa_status hepa_ntt_inverse_ref(const hepa_ntt_tables *tables,
                                                          uint64_t *a);

/* Raw tier. a[0..n) in place, no checks, no allocation.
 * _hepa_ntt_forward_lazy: input in [0, 4q) (so [0, q) is fine), output in [0, 4q).
 * _hepa_ntt_forward:      input in [0, 4q), output in [0, q).
 * _hepa_ntt_inverse_lazy: input in [0, 2q), output in [0, 2q).
 * _hepa_ntt_inverse:      input in [0, 2q), output in [0, q). */
HEPA_API void _hepa_ntt_forward_lazy(const hepa_ntt_tables *tables, uint64_t *a);
HEPA_API void _hepa_ntt_forward(const hepa_ntt_tables *tables, uint64_t *a);
HEPA_API void _hepa_ntt_inverse_lazy(const hepa_ntt_tables *tables, uint64_t *a);
HEPA_API void _hepa_ntt_inverse(const hepa_ntt_tables *tables, uint64_t *a);

#ifdef __cplusplus
}
#endif
#endif /* HEPA_NTT_H */
