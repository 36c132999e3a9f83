/* src/rns/ckks_core.h — the integer steps of CKKS encode and decode, shared by the host code
 * (ckks.c) and the device kernels (ckks_cuda.cu), so both backends give the same integers:
 *   - a rounded double -> its residue mod q, exactly for every finite double (beyond 2^64 the
 *     double is mant·2^e with e > 11 and the residue is (mant mod q)·(2^e mod q));
 *   - t residues -> the centred integer they represent mod Q_t = q_0···q_(t-1) (Garner's mixed
 *     radix, Horner into t 64-bit words, centring against floor(Q_t/2)) -> a double.
 * Everything is static inline (HEPA_HD: also __host__ __device__ under nvcc). */
#ifndef HEPA_SRC_RNS_CKKS_CORE_H
#define HEPA_SRC_RNS_CKKS_CORE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "hepa/ckks.h"
#include "hepa/modarith.h"

#define CKKS_MAXT 16 /* = HEPA_CKKS_MAX_DECODE_LIMBS */

/* Constants of the decode CRT for the ring's first T = min(L, 16) moduli. Garner's constants
 * do not depend on t, so one table serves every t <= T. */
typedef struct ckks_crt_consts {
    size_t T;
    hepa_modulus mod[CKKS_MAXT];
    uint64_t pm[CKKS_MAXT][CKKS_MAXT]; /* pm[i][l] = P_l mod q_i for l < i, P_l = q_0···q_(l-1) */
    uint64_t inv[CKKS_MAXT];           /* inv[i] = P_i^(-1) mod q_i (i >= 1) */
    uint64_t Q[CKKS_MAXT][CKKS_MAXT];  /* Q[t-1]: Q_t in t little-endian words */
    uint64_t halfQ[CKKS_MAXT][CKKS_MAXT]; /* floor(Q_t / 2) */
} ckks_crt_consts;

/* r: an integral finite double. Returns r mod q in [0, q). */
HEPA_HD uint64_t ckks_residue(double r, const hepa_modulus *m) {
    const double a = fabs(r);
    uint64_t res;
    if (a < 18446744073709551616.0) { /* 2^64 */
        res = hepa_mod_reduce64((uint64_t)a, m);
    } else {
        int e;
        const double f = frexp(a, &e);                 /* a = f·2^e, f in [1/2, 1) */
        const uint64_t mant = (uint64_t)ldexp(f, 53);  /* exact: a = mant·2^(e-53), e > 64 */
        res = hepa_mod_mul(hepa_mod_reduce64(mant, m), hepa_mod_pow(2, (uint64_t)(e - 53), m), m);
    }
    return (r < 0 && res) ? m->value - res : res;
}

/* The device encoder's form of a rounded coefficient (ckks_cuda.cu): w = m as an int64 while
 * |m| < 2^63, else CKKS_BIG (and the double is kept beside it for ckks_residue). Converting once
 * per coefficient instead of once per limb keeps the double conversion and the 128-bit Barrett
 * out of the NTT's first pass. */
#define CKKS_BIG INT64_MIN

/* w != CKKS_BIG. Returns w mod q in [0, q): |w| < q is taken as it is; else one Barrett step with
 * mu = floor(2^64/q) = ratio_hi, whose quotient is at most 1 short for x < 2^64. */
HEPA_HD uint64_t ckks_residue_i64(int64_t w, const hepa_modulus *m) {
    const uint64_t q = m->value;
    uint64_t x = w < 0 ? 0 - (uint64_t)w : (uint64_t)w; /* < 2^63 */
    if (x >= q) {
        x -= hepa_mulhi64(x, m->ratio_hi) * q; /* [0, 2q) */
        if (x >= q) x -= q;
    }
    return (w < 0 && x) ? q - x : x;
}

/* The centred integer x in (-Q_t/2, Q_t/2] with x ≡ c[i·stride] (mod q_i), i < t (residues in
 * [0, q_i)), as a double (relative error <= 2^-52). */
HEPA_HD double ckks_crt_to_double(const ckks_crt_consts *C, size_t t, const uint64_t *c,
                                  size_t stride) {
    uint64_t a[CKKS_MAXT];
    a[0] = c[0];
    for (size_t i = 1; i < t; ++i) {
        const hepa_modulus *m = &C->mod[i];
        /* s = (a_0 + a_1 P_1 + ... + a_(i-1) P_(i-1)) mod q_i */
        uint64_t s = hepa_mod_reduce64(a[0], m);
        for (size_t l = 1; l < i; ++l)
            s = hepa_mod_add(s, hepa_mod_mul(hepa_mod_reduce64(a[l], m), C->pm[i][l], m), m->value);
        a[i] = hepa_mod_mul(hepa_mod_sub(c[i * stride], s, m->value), C->inv[i], m);
    }
    /* x = (((a_(t-1))·q_(t-2) + a_(t-2))·q_(t-3) + ...)·q_0 + a_0, in t words */
    uint64_t x[CKKS_MAXT];
    for (size_t w = 0; w < t; ++w) x[w] = 0;
    x[0] = a[t - 1];
    for (size_t i = t - 1; i-- > 0;) {
        const uint64_t q = C->mod[i].value;
        uint64_t carry = a[i];
        for (size_t w = 0; w < t; ++w) {
            uint64_t hi, lo;
            hepa_mul64(x[w], q, &hi, &lo);
            lo += carry;
            hi += lo < carry;
            x[w] = lo;
            carry = hi;
        }
    }
    /* centre: x > floor(Q/2) means x - Q < 0 */
    const uint64_t *h = C->halfQ[t - 1];
    int gt = 0;
    for (size_t w = t; w-- > 0;) {
        if (x[w] != h[w]) {
            gt = x[w] > h[w];
            break;
        }
    }
    if (gt) { /* x = Q - x */
        const uint64_t *Q = C->Q[t - 1];
        uint64_t borrow = 0;
        for (size_t w = 0; w < t; ++w) {
            const uint64_t d = Q[w] - x[w] - borrow;
            borrow = (Q[w] < x[w]) || (Q[w] - x[w] < borrow);
            x[w] = d;
        }
    }
    size_t top = t;
    while (top > 0 && x[top - 1] == 0) --top;
    double v = 0;
    if (top == 1) {
        v = (double)x[0];
    } else if (top >= 2) {
        /* the top 128 bits; the words below change the value by < 2^-64 relative */
        v = ldexp((double)x[top - 1], 64) + (double)x[top - 2];
        v = ldexp(v, (int)(64 * (top - 2)));
    }
    return gt ? -v : v;
}

#endif /* HEPA_SRC_RNS_CKKS_CORE_H */
