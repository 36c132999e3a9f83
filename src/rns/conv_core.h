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
 *   target t at 4 + 4ns + 5t:     t, 1/t (double bits), 0, output limb, S mod t
 *   hat at 4 + 4ns + 5nt + t·ns + k:  S/s_k mod t
 *   after it, at 4 + 4ns + 5nt + ns·nt + t·ns + k:  the Shoup companion of that hat word
 *   after those, at 4 + 4ns + 5nt + 2·ns·nt + t·(ns + 1) + u:  u·(t - S mod t) mod t, u <= ns
 *     (the exact variant's correction, looked up instead of multiplied)
 * (1/t serves the device's FP64 route for targets below 2^47, see conv_pair in rns_cuda.cu;
 * fused kernels take S mod t from the target's words, see keyswitch.c.) */
#ifndef HEPA_SRC_RNS_CONV_CORE_H
#define HEPA_SRC_RNS_CONV_CORE_H

#include <string.h>
#include "hepa/modarith.h"

#define HEPA_CONV_MAX 64 /* most source or target moduli of one conversion (= HEPA_RING_MAX_MODULI) */

HEPA_HD size_t hepa_conv_words(size_t ns, size_t nt) {
    return 4 + 4 * ns + 5 * nt + 2 * ns * nt + (ns + 1) * nt;
}

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

/* Target t's words, its ns hat words (their Shoup companions follow at + ns·nt) and its ns + 1
 * corrections (ns = tab[0], passed by callers that know it at compile time). */
HEPA_HD const uint64_t *hepa_conv_tg(const uint64_t *tab, unsigned ns, unsigned t) {
    return tab + 4 + 4 * (size_t)ns + 5 * (size_t)t;
}
HEPA_HD const uint64_t *hepa_conv_hat(const uint64_t *tab, unsigned ns, unsigned t) {
    return tab + 4 + 4 * (size_t)ns + 5 * (size_t)tab[1] + (size_t)t * ns;
}
HEPA_HD const uint64_t *hepa_conv_corr(const uint64_t *tab, unsigned ns, unsigned t) {
    const size_t nt = (size_t)tab[1];
    return tab + 4 + 4 * (size_t)ns + 5 * nt + 2 * (size_t)ns * nt + (size_t)t * (ns + 1);
}

/* y_t in [0, t) from v_0 .. v_(ns-1) (read at v[k·vstride]); u = round(fraction) when exact,
 * else 0. Each term v_k·hat_k is one Shoup multiplication (any 64-bit v_k; hat_k < t), reduced
 * to [0, t) and added mod t (sums below 2t < 2^63 for t < 2^62), and the exact variant's
 * u·(t - S mod t) mod t is looked up (u <= ns): no 128-bit sums and no Barrett reduction. On
 * the device that is about a third of the instructions of a 128-bit sum with one Barrett
 * reduction, which the conversion kernel ran before (H100, ModUp at 2^16/33 with digits of two
 * limbs: 430 µs, issue-bound at 66% with 13% of DRAM bandwidth). */
HEPA_HD uint64_t hepa_conv_target_ns(const uint64_t *tab, unsigned ns, unsigned t,
                                     const uint64_t *v, unsigned vstride, uint64_t u) {
    const uint64_t q = hepa_conv_tg(tab, ns, t)[0];
    const uint64_t *hat = hepa_conv_hat(tab, ns, t);
    const uint64_t *hatp = hat + (size_t)ns * tab[1];
    uint64_t y = hepa_conv_corr(tab, ns, t)[u]; /* 0 unless exact */
    for (unsigned k = 0; k < ns; ++k) {
        const uint64_t r = hepa_mul_shoup(v[(size_t)k * vstride], hat[k], hatp[k], q);
        y += r;
        y = y >= q ? y - q : y;
    }
    return y;
}

/* The same with ns = tab[0] read from the table; hepa_conv_target_ns takes ns from a caller that
 * knows it at compile time (the device kernel's unrolled loops keep v in registers). */
HEPA_HD uint64_t hepa_conv_target(const uint64_t *tab, unsigned t, const uint64_t *v,
                                  unsigned vstride, uint64_t u) {
    return hepa_conv_target_ns(tab, (unsigned)tab[0], t, v, vstride, u);
}

/* The largest source modulus of a table. */
HEPA_HD uint64_t hepa_conv_smax(const uint64_t *tab) {
    uint64_t m = 0;
    for (size_t k = 0; k < (size_t)tab[0]; ++k)
        m = tab[4 + 4 * k] > m ? tab[4 + 4 * k] : m;
    return m;
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
