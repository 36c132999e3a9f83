/* hepa/primes.h — NTT-friendly primes and roots of unity. */
#ifndef HEPA_PRIMES_H
#define HEPA_PRIMES_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if x is prime, else 0. Deterministic for every 64-bit x: Miller–Rabin with the first twelve
 * prime bases (2, 3, ..., 37), which has no 64-bit strong pseudoprime (Sorenson & Webster 2015
 * prove the set correct below 3.3e24). */
HEPA_API int hepa_is_prime(uint64_t x);

/* Writes the `count` largest primes q ≡ 1 (mod 2n) with exactly `bits` bits (2^(bits-1) <= q <
 * 2^bits), in decreasing order, into out[0..count).
 * bits in [20, 62]; n a power of two in [2, 2^30] with 2n < 2^(bits-1).
 * Errors: HEPA_ERR_INVALID_ARGUMENT for NULL out (with count > 0) or bits/n out of range;
 * HEPA_ERR_UNSUPPORTED when fewer than `count` such primes exist (out is untouched then).
 * With valid bits and n, count == 0 is a no-op that returns HEPA_OK. */
HEPA_API HEPA_NODISCARD hepa_status hepa_primes_ntt(uint64_t *out, size_t count, unsigned bits,
                                                     size_t n);

/* *root = the smallest primitive m-th root of unity mod prime q, for m a power of two with
 * m | q - 1 (for the negacyclic NTT of size n, m = 2n gives ψ).
 * Errors: HEPA_ERR_INVALID_ARGUMENT if root is NULL, q is not a prime below 2^62, m is not a
 * power of two >= 2, or m does not divide q - 1. */
HEPA_API HEPA_NODISCARD hepa_status hepa_primitive_root(uint64_t *root, uint64_t q, uint64_t m);

#ifdef __cplusplus
}
#endif
#endif /* HEPA_PRIMES_H */
