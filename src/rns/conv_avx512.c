/* src/rns/conv_avx512.c — the host base conversion (_hepa_host_conv, conv.c) on eight coefficients
 * at a time, for CPUs with AVX-512 (after _hepa_ntt_use_avx512(), so HEPA_NO_AVX512=1 selects the
 * scalar loop). Every lane computes what conv_core.h's scalar formulas compute, in the same order:
 *   v_k = Shoup(x_k, inv_hat_k) in [0, s_k);
 *   the exact variant's fraction f = (((0 + v_0·(1/s_0)) + v_1·(1/s_1)) + ...) in doubles, each
 *   product and sum rounded on its own (no FMA, as the scalar code built with -ffp-contract=off
 *   and the device's __dmul_rn / __dadd_rn), u = (uint64_t)(f + 0.5) by truncation;
 *   y_t = corr_t[u], then + Shoup(v_k, hat_tk) reduced to [0, t), k = 0 .. ns - 1.
 * So the words are those of the scalar loop (tests/test_rns.c checks both against GMP: ctest's
 * rns and rns_scalar). Why: the conversion was the largest part of a host key switch (29% of
 * hepa-bench --ks --backend cpu at 2^14, perf, 2026-12-08). */
#include "ntt/internal.h"
#include "rns/conv_core.h"
#include "rns/internal.h"

#ifdef HEPA_HOST_AVX512
#include <string.h>

#include "ntt/avx512_arith.h"

/* v·w mod q in [0, q) for a broadcast w (hepa_mul_shoup on 8 lanes) */
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
#endif
