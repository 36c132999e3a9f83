/* src/rns/rns_avx512.c — the ring layer's host loops on eight coefficients at a time, for CPUs
 * with AVX-512 (called after _hepa_ntt_use_avx512(), so HEPA_NO_AVX512=1 selects the scalar
 * loops, which stay the reference; ctest runs test_rns both ways: rns and rns_scalar).
 *
 * _hepa_host_conv_avx512 (base conversion, conv.c's _hepa_host_conv): every lane computes what
 * conv_core.h's scalar formulas compute, in the same order:
 *   v_k = Shoup(x_k, inv_hat_k) in [0, s_k);
 *   the exact variant's fraction f = (((0 + v_0·(1/s_0)) + v_1·(1/s_1)) + ...) in doubles, each
 *   product and sum rounded on its own (no FMA, as the scalar code built with -ffp-contract=off
 *   and the device's __dmul_rn / __dadd_rn), u = (uint64_t)(f + 0.5) by truncation;
 *   y_t = corr_t[u], then + Shoup(v_k, hat_tk) reduced to [0, t), k = 0 .. ns - 1.
 * So the words are those of the scalar loop (checked on 2.7 M words, 2026-12-08). Why: the
 * conversion was the largest part of a host key switch (29% of hepa-bench --ks --backend cpu at
 * 2^14, perf, 2026-12-08).
 *
 * _hepa_host_inner_avx512 (the key-switch inner product of one extended limb, keyswitch.c's
 * host_inner): the 128-bit sums of the products in two 64-bit lanes with the carry, folded to
 * [0, q) every 16 terms and at the end as (hi·(2^64 mod q) + lo) mod q, two Shoup products by
 * fixed words; the scalar loop reduces the same sums with hepa_mod_reduce128, so both give the
 * unique residue in [0, q). */
#include "ntt/internal.h"
#include "rns/conv_core.h"
#include "rns/internal.h"

#ifdef HEPA_HOST_AVX512
#include <string.h>

#include "ntt/avx512_arith.h"

/* v·w mod q in [0, q) for a broadcast w < q and any 64-bit v (hepa_mul_shoup on 8 lanes) */
HEPA_AVX512 static inline __m512i shoup(__m512i v, uint64_t w, uint64_t wp, __m512i q) {
    const __m512i vwp = _mm512_set1_epi64((long long)wp);
    return csub(shoup_lazy(v, _mm512_set1_epi64((long long)w), vwp, _mm512_srli_epi64(vwp, 32), q),
                q);
}

HEPA_AVX512 void _hepa_host_conv_avx512(const uint64_t *tab, size_t n, uint64_t *out,
                                        const uint64_t *in, int exact) {
    const unsigned ns = (unsigned)tab[0], nt = (unsigned)tab[1];
    __m512i v[HEPA_CONV_MAX];
    for (size_t x = 0; x < n; x += 8) {
        __m512d f = _mm512_setzero_pd();
        for (unsigned k = 0; k < ns; ++k) {
            const uint64_t *s = tab + 4 + 4 * (size_t)k; /* s_k, inv_hat_k, companion, 1/s_k */
            const __m512i X = _mm512_loadu_si512((const void *)(in + (size_t)k * n + x));
            v[k] = shoup(X, s[1], s[2], _mm512_set1_epi64((long long)s[0]));
            if (exact) {
                double inv;
                memcpy(&inv, s + 3, sizeof inv);
                f = _mm512_add_pd(f, _mm512_mul_pd(_mm512_cvtepu64_pd(v[k]), _mm512_set1_pd(inv)));
            }
        }
        const __m512i u = exact ? _mm512_cvttpd_epu64(_mm512_add_pd(f, _mm512_set1_pd(0.5)))
                                : _mm512_setzero_si512();
        for (unsigned t = 0; t < nt; ++t) {
            const uint64_t q = hepa_conv_tg(tab, ns, t)[0];
            const uint64_t *hat = hepa_conv_hat(tab, ns, t), *hatp = hat + (size_t)ns * nt;
            const __m512i vq = _mm512_set1_epi64((long long)q);
            /* corr_t[u] (u <= ns: the table holds ns + 1 words), 0 when not exact */
            __m512i y = exact
                            ? _mm512_i64gather_epi64(u, (const void *)hepa_conv_corr(tab, ns, t), 8)
                            : _mm512_setzero_si512();
            for (unsigned k = 0; k < ns; ++k)
                y = csub(_mm512_add_epi64(y, shoup(v[k], hat[k], hatp[k], vq)), vq);
            _mm512_storeu_si512((void *)(out + hepa_conv_out_limb(tab, t) * n + x), y);
        }
    }
}

/* The low and high words of the 128-bit products a·b per lane (any 64-bit a, b). */
HEPA_AVX512 static inline void mul128(__m512i a, __m512i b, __m512i *lo, __m512i *hi) {
    *lo = _mm512_mullo_epi64(a, b);
    *hi = mulhi64(a, b, _mm512_srli_epi64(b, 32));
}

/* (h, l) += a·b as 128-bit sums per lane */
HEPA_AVX512 static inline void mac128(__m512i a, __m512i b, __m512i *h, __m512i *l) {
    __m512i pl, ph;
    mul128(a, b, &pl, &ph);
    *l = _mm512_add_epi64(*l, pl);
    const __mmask8 carry = _mm512_cmplt_epu64_mask(*l, pl);
    const __m512i hs = _mm512_add_epi64(*h, ph);
    *h = _mm512_mask_add_epi64(hs, carry, hs, _mm512_set1_epi64(1)); /* + the carry of l */
}

/* (h·2^64 + l) mod q in [0, q): h·R + l·1 with R = 2^64 mod q, both by Shoup (any 64-bit
 * h, l) */
typedef struct fold_consts {
    uint64_t r, rp, onep; /* R, its Shoup companion, the companion of 1 */
} fold_consts;
HEPA_AVX512 static inline __m512i fold128(__m512i h, __m512i l, const fold_consts *c, __m512i q) {
    return csub(_mm512_add_epi64(shoup(h, c->r, c->rp, q), shoup(l, 1, c->onep, q)), q);
}

HEPA_AVX512 void _hepa_host_inner_avx512(size_t n, size_t dn, const uint64_t *ext, size_t ext_step,
                                         const uint64_t *key, size_t key_step, size_t a_off,
                                         const uint32_t *src, uint64_t q, uint64_t *t0,
                                         uint64_t *t1) {
    const __m512i vq = _mm512_set1_epi64((long long)q);
    fold_consts c;
    c.r = (0 - q) % q; /* 2^64 mod q */
    c.rp = hepa_shoup_precompute(c.r, q);
    c.onep = hepa_shoup_precompute(1, q);
    for (size_t x = 0; x < n; x += 8) {
        /* src maps the aligned block x .. x + 7 onto an aligned block (_hepa_auto_ntt_src): one
         * load of that block, then a permutation of its lanes */
        size_t blk = x;
        __m512i perm = _mm512_setzero_si512();
        if (src) {
            const __m256i s8 = _mm256_loadu_si256((const __m256i *)(src + x));
            blk = src[x] & ~(size_t)7;
            perm = _mm512_and_si512(_mm512_cvtepu32_epi64(s8), _mm512_set1_epi64(7));
        }
        __m512i h0 = _mm512_setzero_si512(), l0 = h0, h1 = h0, l1 = h0;
        for (size_t j = 0; j < dn; ++j) {
            __m512i v = _mm512_loadu_si512((const void *)(ext + j * ext_step + blk));
            if (src) v = _mm512_permutexvar_epi64(perm, v);
            const uint64_t *kj = key + j * key_step + x;
            mac128(v, _mm512_loadu_si512((const void *)kj), &h0, &l0);
            mac128(v, _mm512_loadu_si512((const void *)(kj + a_off)), &h1, &l1);
            if ((j & 15) == 15) {
                l0 = fold128(h0, l0, &c, vq), h0 = _mm512_setzero_si512();
                l1 = fold128(h1, l1, &c, vq), h1 = _mm512_setzero_si512();
            }
        }
        _mm512_storeu_si512((void *)(t0 + x), fold128(h0, l0, &c, vq));
        _mm512_storeu_si512((void *)(t1 + x), fold128(h1, l1, &c, vq));
    }
}
#endif
