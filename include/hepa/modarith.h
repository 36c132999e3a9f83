/* hepa/modarith.h — word-size modular arithmetic shared by the CPU and the GPU.
 *
 * Every function here is `static inline` and, when compiled by nvcc, `__host__ __device__`, so
 * the CPU backend and the CUDA kernels compute bit-identical results from one source.
 *
 * Ranges: the modulus q is odd, 2 <= q < 2^62. "Strict" functions take and return residues in
 * [0, q). Functions suffixed _lazy return values in a wider range that the name's comment
 * states; 4q < 2^64 is what makes the lazy ranges of the NTT butterflies fit a word.
 *
 * Barrett: hepa_modulus carries ratio = floor(2^128 / q) in two words; it reduces any 128-bit
 * value x < 2^128 with one correction (proof at hepa_mod_reduce128).
 * Shoup: multiplying by a fixed w in [0, q) uses w' = floor(w * 2^64 / q) (hepa_shoup_precompute);
 * the result of hepa_mul_shoup_lazy is in [0, 2q) for any 64-bit input a. */
#ifndef HEPA_MODARITH_H
#define HEPA_MODARITH_H

#include <stdint.h>

#ifdef __CUDACC__
#define HEPA_HD static __host__ __device__ __forceinline__
#else
#define HEPA_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef __CUDA_ARCH__
/* 128-bit products on the host; __extension__ keeps -std=c11 -pedantic quiet in users' code. */
__extension__ typedef unsigned __int128 hepa_u128;
#endif

/* Largest modulus (exclusive) the library accepts: 4q must fit in 64 bits. */
#define HEPA_MODULUS_LIMIT (UINT64_C(1) << 62)

/* A modulus with its Barrett constant. Build with hepa_modulus_make. */
typedef struct hepa_modulus {
    uint64_t value;    /* q, odd, 2 < q < 2^62 */
    uint64_t ratio_hi; /* floor(2^128 / q) >> 64 */
    uint64_t ratio_lo; /* floor(2^128 / q) mod 2^64 */
} hepa_modulus;

/* High 64 bits of the 128-bit product a*b. */
HEPA_HD uint64_t hepa_mulhi64(uint64_t a, uint64_t b) {
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return (uint64_t)(((hepa_u128)a * b) >> 64);
#endif
}

/* Full 128-bit product a*b as (hi, lo). */
HEPA_HD void hepa_mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
#ifdef __CUDA_ARCH__
    *lo = a * b;
    *hi = __umul64hi(a, b);
#else
    hepa_u128 p = (hepa_u128)a * b;
    *lo = (uint64_t)p;
    *hi = (uint64_t)(p >> 64);
#endif
}

/* (hi, lo) += a*b, a 128-bit multiply-accumulate (the caller keeps the sum below 2^128). */
HEPA_HD void hepa_mac64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
    uint64_t ph, pl;
    hepa_mul64(a, b, &ph, &pl);
    *lo += pl;
    *hi += ph + (*lo < pl);
}

/* The Barrett constant floor(2^128/q) for odd q >= 3 (below 2^64; the library uses q < 2^62).
 * 2^128 = (2^64 / q) * 2^64 computed by long division in two 64-bit steps. */
HEPA_HD hepa_modulus hepa_modulus_make(uint64_t q) {
    hepa_modulus m;
    m.value = q;
    /* high word: floor((2^128 - 1) / q) >> 64 = floor((2^64 - 1) / q) when q does not divide 2^64
     * exactly; q is odd (> 1) here, so floor(2^128/q) = floor((2^128-1)/q). */
    uint64_t hi = UINT64_MAX / q;
    uint64_t rem = UINT64_MAX - hi * q; /* (2^64 - 1) mod q, < q */
    /* low word: floor((rem * 2^64 + 2^64 - 1) / q) */
#ifdef __CUDA_ARCH__
    /* device: bitwise long division (only used when building tables on the device) */
    uint64_t lo = 0, r = rem;
    for (int i = 63; i >= 0; --i) {
        uint64_t top = r >> 63;
        r = (r << 1) | 1u; /* bits of 2^64-1 are all ones */
        if (top || r >= q) {
            r -= q;
            lo |= (uint64_t)1 << i;
        }
    }
#else
    hepa_u128 num = ((hepa_u128)rem << 64) | UINT64_MAX;
    uint64_t lo = (uint64_t)(num / q);
#endif
    m.ratio_hi = hi;
    m.ratio_lo = lo;
    return m;
}

/* (a + b) mod q for a, b in [0, q). */
HEPA_HD uint64_t hepa_mod_add(uint64_t a, uint64_t b, uint64_t q) {
    uint64_t s = a + b;
    return s >= q ? s - q : s;
}

/* (a - b) mod q for a, b in [0, q). */
HEPA_HD uint64_t hepa_mod_sub(uint64_t a, uint64_t b, uint64_t q) {
    return a >= b ? a - b : a + q - b;
}

/* (-a) mod q for a in [0, q). */
HEPA_HD uint64_t hepa_mod_neg(uint64_t a, uint64_t q) { return a ? q - a : 0; }

/* x mod q for any 128-bit x = hi*2^64 + lo (x < 2^128).
 * Why one correction suffices: with R = floor(2^128/q) = 2^128/q - e, 0 <= e < 1, the computed
 * quotient t = floor(x*R / 2^128) satisfies x/q - 1 < x*R/2^128 <= x/q, so t is floor(x/q) or one
 * less, and x - t*q lies in [0, 2q). x*R/2^128 is formed exactly from the four partial
 * products. */
HEPA_HD uint64_t hepa_mod_reduce128(uint64_t hi, uint64_t lo, const hepa_modulus *m) {
    uint64_t q = m->value;
    uint64_t p_hi, p_lo;
    /* middle = lo*R_hi + hi*R_lo + (lo*R_lo >> 64), as a 128-bit sum (carry, mid_hi:mid_lo) */
    uint64_t c0 = hepa_mulhi64(lo, m->ratio_lo);
    hepa_mul64(lo, m->ratio_hi, &p_hi, &p_lo);
    uint64_t mid_lo = p_lo + c0;
    uint64_t mid_hi = p_hi + (mid_lo < c0);
    hepa_mul64(hi, m->ratio_lo, &p_hi, &p_lo);
    mid_lo += p_lo;
    uint64_t carry = mid_lo < p_lo;
    mid_hi += p_hi;
    uint64_t carry2 = mid_hi < p_hi;
    mid_hi += carry;
    carry2 += (mid_hi < carry);
    /* quotient low word: hi*R_hi + mid_hi + (carry2 << 64); only its low 64 bits matter */
    uint64_t t = hi * m->ratio_hi + mid_hi;
    (void)carry2; /* contributes only above 2^64 of the quotient, which cancels mod 2^64 */
    uint64_t r = lo - t * q; /* exact: true remainder + (0 or q) < 2^64 */
    return r >= q ? r - q : r;
}

/* (a * b) mod q by Barrett for any a, b with a*b < 2^128 (so lazy inputs are fine). */
HEPA_HD uint64_t hepa_mod_mul(uint64_t a, uint64_t b, const hepa_modulus *m) {
    uint64_t hi, lo;
    hepa_mul64(a, b, &hi, &lo);
    return hepa_mod_reduce128(hi, lo, m);
}

/* x mod q for any 64-bit x. */
HEPA_HD uint64_t hepa_mod_reduce64(uint64_t x, const hepa_modulus *m) {
    return hepa_mod_reduce128(0, x, m);
}

/* Shoup companion w' = floor(w * 2^64 / q) of a fixed multiplicand w in [0, q). */
HEPA_HD uint64_t hepa_shoup_precompute(uint64_t w, uint64_t q) {
#ifdef __CUDA_ARCH__
    /* w * 2^64 / q by long division: quotient fits 64 bits because w < q. */
    uint64_t quo = 0, r = w;
    for (int i = 63; i >= 0; --i) {
        uint64_t top = r >> 63;
        r <<= 1;
        if (top || r >= q) {
            r -= q;
            quo |= (uint64_t)1 << i;
        }
    }
    return quo;
#else
    return (uint64_t)(((hepa_u128)w << 64) / q);
#endif
}

/* a * w mod q, lazy: result in [0, 2q) for any a < 2^64, w in [0, q), wp = companion of w.
 * (The error of the quotient estimate floor(a*wp/2^64) is below 1, hence one extra q.) */
HEPA_HD uint64_t hepa_mul_shoup_lazy(uint64_t a, uint64_t w, uint64_t wp, uint64_t q) {
    uint64_t t = hepa_mulhi64(a, wp);
    return a * w - t * q;
}

/* a * w mod q, strict: result in [0, q). */
HEPA_HD uint64_t hepa_mul_shoup(uint64_t a, uint64_t w, uint64_t wp, uint64_t q) {
    uint64_t r = hepa_mul_shoup_lazy(a, w, wp, q);
    return r >= q ? r - q : r;
}

/* Reduce x in [0, 2q) to [0, q). */
HEPA_HD uint64_t hepa_reduce_2q(uint64_t x, uint64_t q) { return x >= q ? x - q : x; }

/* Reduce x in [0, 4q) to [0, q). */
HEPA_HD uint64_t hepa_reduce_4q(uint64_t x, uint64_t q) {
    x = x >= 2 * q ? x - 2 * q : x;
    return x >= q ? x - q : x;
}

/* Cooley–Tukey butterfly, Harvey's lazy form (forward NTT).
 * In:  x, y in [0, 4q); w in [0, q), wp its Shoup companion.
 * Out: x' = x + w*y, y' = x - w*y (mod q), both in [0, 4q). Needs q < 2^62. */
HEPA_HD void hepa_butterfly_ct_lazy(uint64_t *x, uint64_t *y, uint64_t w, uint64_t wp, uint64_t q) {
    uint64_t two_q = 2 * q;
    uint64_t a = *x >= two_q ? *x - two_q : *x;     /* [0, 2q) */
    uint64_t t = hepa_mul_shoup_lazy(*y, w, wp, q); /* [0, 2q) */
    *x = a + t;                                     /* [0, 4q) */
    *y = a - t + two_q;                             /* (0, 4q) */
}

/* Gentleman–Sande butterfly, Harvey's lazy form (inverse NTT).
 * In:  x, y in [0, 2q); w in [0, q), wp its Shoup companion.
 * Out: x' = x + y, y' = (x - y)*w (mod q), both in [0, 2q). */
HEPA_HD void hepa_butterfly_gs_lazy(uint64_t *x, uint64_t *y, uint64_t w, uint64_t wp, uint64_t q) {
    uint64_t two_q = 2 * q;
    uint64_t a = *x, b = *y;
    uint64_t s = a + b; /* [0, 4q) */
    *x = s >= two_q ? s - two_q : s;
    *y = hepa_mul_shoup_lazy(a - b + two_q, w, wp, q);
}

/* a^e mod q (square and multiply); a any 64-bit value. 0^0 = 1. */
HEPA_HD uint64_t hepa_mod_pow(uint64_t a, uint64_t e, const hepa_modulus *m) {
    uint64_t r = hepa_mod_reduce64(1, m);
    uint64_t b = hepa_mod_reduce64(a, m);
    while (e) {
        if (e & 1) r = hepa_mod_mul(r, b, m);
        b = hepa_mod_mul(b, b, m);
        e >>= 1;
    }
    return r;
}

/* Inverse of a mod q by the extended Euclidean algorithm; returns 0 when gcd(a, q) != 1
 * (including a == 0 mod q). Works for any modulus 2 <= q < 2^63, prime or not. */
HEPA_HD uint64_t hepa_mod_inv(uint64_t a, uint64_t q) {
    int64_t t = 0, newt = 1; /* |t| <= q/2 < 2^61 throughout, so signed words suffice */
    uint64_t r = q, newr = a % q;
    while (newr) {
        uint64_t quo = r / newr;
        int64_t tmp_t = t - (int64_t)quo * newt;
        t = newt;
        newt = tmp_t;
        uint64_t tmp_r = r - quo * newr;
        r = newr;
        newr = tmp_r;
    }
    if (r != 1) return 0;
    return t < 0 ? (uint64_t)(t + (int64_t)q) : (uint64_t)t;
}

#ifdef __cplusplus
}
#endif
#endif /* HEPA_MODARITH_H */
