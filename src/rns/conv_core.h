/* src/rns/conv_core.h — fast base conversion, per coefficient, shared by the host reference
 * (conv.c) and the device kernel (rns_cuda.cu) so both compute the same words.
 *
 * Conv_{S->T}(x) for x given by residues x_k mod s_k (k < ns), S = Π s_k:
 *   v_k = x_k · (S/s_k)^(-1) mod s_k                          in [0, s_k)
 *   y_t = Σ_k v_k · (S/s_k mod t) mod t   = x + u·S mod t,    u = floor(Σ_k v_k / s_k) in [0, ns)
 *   exact: subtract round(Σ_k v_k / s_k) · S mod t, which leaves the centred x' (x or x - S).
 * The fraction Σ v_k/s_k is accumulated in double, in order k = 0 .. ns-1, without contraction
 * into FMA (the library's C code is built with -ffp-contract=off, the device code uses
 * __dmul_rn/__dadd_rn), so host and device round u identically.
 *
 * Table layout (words; one allocation, the same on host and device):
 *   [0] ns  [1] nt  [2], [3] unused
 *   source k at 4 + 4k:           s_k, inv_hat_k, its Shoup companion, 1/s_k (double bits)
 *   target t at 4 + 4ns + 5t:     t, Barrett ratio hi, lo, output limb, S mod t
 *   hat at 4 + 4ns + 5nt + t·ns + k:  S/s_k mod t */
#ifndef HEPA_SRC_RNS_CONV_CORE_H
#define HEPA_SRC_RNS_CONV_CORE_H

#include <string.h>
#include "hepa/modarith.h"

#define HEPA_CONV_MAX 64 /* most source or target moduli of one conversion (= HEPA_RING_MAX_MODULI) */

HEPA_HD size_t hepa_conv_words(size_t ns, size_t nt) { return 4 + 4 * ns + 5 * nt + ns * nt; }

/* v_k for a source residue x in [0, s_k). */
HEPA_HD uint64_t hepa_conv_v(const uint64_t *tab, unsigned k, uint64_t x) {
    const uint64_t *s = tab + 4 + 4 * (size_t)k;
    return hepa_mul_shoup(x, s[1], s[2], s[0]);
}

HEPA_HD double hepa_conv_frac_add(double f, const uint64_t *tab, unsigned k, uint64_t v) {
    double inv;
    memcpy(&inv, tab + 4 + 4 * (size_t)k + 3, sizeof inv);
#ifdef __CUDA_ARCH__
    return __dadd_rn(f, __dmul_rn((double)v, inv));
#else
    return f + (double)v * inv;
#endif
}

/* y_t from v_0 .. v_(ns-1) (read at v[k·vstride]); u = round(fraction) when exact, else 0. */
HEPA_HD uint64_t hepa_conv_target(const uint64_t *tab, unsigned t, const uint64_t *v,
                                  unsigned vstride, uint64_t u) {
    const unsigned ns = (unsigned)tab[0], nt = (unsigned)tab[1];
    const uint64_t *tg = tab + 4 + 4 * (size_t)ns + 5 * (size_t)t;
    const hepa_modulus m = {tg[0], tg[1], tg[2]};
    const uint64_t *hat = tab + 4 + 4 * (size_t)ns + 5 * (size_t)nt + (size_t)t * ns;
    uint64_t hi = 0, lo = 0;
    for (unsigned k = 0; k < ns; ++k) {
        uint64_t ph, pl;
        hepa_mul64(v[(size_t)k * vstride], hat[k], &ph, &pl); /* < 2^124 */
        lo += pl;
        hi += ph + (lo < pl);
        if ((k & 15) == 15) { /* 16 terms < 2^128: fold before the 17th */
            lo = hepa_mod_reduce128(hi, lo, &m);
            hi = 0;
        }
    }
    /* exact: - u·S ≡ + u·(t - S mod t), added into the sum before its one reduction (u <= ns
     * <= 64, so the term is below 2^68; at most 15 terms < 2^124 are unfolded here, so the
     * 128-bit sum cannot overflow). One 128-bit reduction per output instead of two. */
    if (u) {
        uint64_t ph, pl;
        hepa_mul64(u, m.value - tg[4], &ph, &pl);
        lo += pl;
        hi += ph + (lo < pl);
    }
    return hepa_mod_reduce128(hi, lo, &m);
}

/* Output limb of target t. */
HEPA_HD size_t hepa_conv_out_limb(const uint64_t *tab, unsigned t) {
    return (size_t)tab[4 + 4 * tab[0] + 5 * (size_t)t + 3];
}

/* round(f) for the fraction f in [0, ns]. */
HEPA_HD uint64_t hepa_conv_round(double f) { return (uint64_t)(f + 0.5); }

/* The centred value of x in [0, ql) (x, or x - ql when x > ql/2) mod q: the rescale's
 * correction term. half = floor(ql/2), qlmod = ql mod q. */
HEPA_HD uint64_t hepa_center_mod(uint64_t x, uint64_t half, uint64_t qlmod, const hepa_modulus *m) {
    const uint64_t r = hepa_mod_reduce64(x, m);
    return x > half ? hepa_mod_sub(r, qlmod, m->value) : r;
}

#endif
