/* src/rns/conv.c — base-conversion tables and the host (reference) conversion; the formulas
 * are in conv_core.h, shared with the device kernel. */
#include <string.h>

#include "ntt/internal.h"
#include "rns/conv_core.h"
#include "rns/internal.h"

void _hepa_conv_build(const hepa_ring *ring, uint64_t *tab, const size_t *src, size_t ns,
                      const size_t *dst, const size_t *out_limb, size_t nt) {
    tab[0] = ns, tab[1] = nt, tab[2] = tab[3] = 0;
    for (size_t k = 0; k < ns; ++k) {
        const hepa_modulus *m = &ring->mods[src[k]];
        uint64_t hat = 1; /* S/s_k mod s_k */
        for (size_t j = 0; j < ns; ++j)
            if (j != k) hat = hepa_mod_mul(hat, hepa_mod_reduce64(ring->moduli[src[j]], m), m);
        uint64_t *s = tab + 4 + 4 * k;
        s[0] = m->value;
        s[1] = hepa_mod_inv(hat, m->value);
        s[2] = hepa_shoup_precompute(s[1], m->value);
        const double inv = 1.0 / (double)m->value;
        memcpy(&s[3], &inv, sizeof inv);
    }
    for (size_t t = 0; t < nt; ++t) {
        const hepa_modulus *m = &ring->mods[dst[t]];
        uint64_t *tg = tab + 4 + 4 * ns + 5 * t;
        const double inv_t = 1.0 / (double)m->value; /* the device's 1.0 / qd, bit for bit */
        tg[0] = m->value, tg[2] = 0;
        memcpy(&tg[1], &inv_t, sizeof inv_t);
        tg[3] = out_limb ? out_limb[t] : t;
        /* hat words, their Shoup companions (ns·nt words on) and the exact variant's
         * corrections u·(t - S mod t) (see hepa_conv_target) */
        uint64_t *hat = tab + 4 + 4 * ns + 5 * nt + t * ns, *hatp = hat + ns * nt;
        uint64_t *corr = tab + 4 + 4 * ns + 5 * nt + 2 * ns * nt + t * (ns + 1);
        uint64_t all = 1;
        for (size_t k = 0; k < ns; ++k) {
            const uint64_t sk = hepa_mod_reduce64(ring->moduli[src[k]], m);
            all = hepa_mod_mul(all, sk, m);
            uint64_t h = 1;
            for (size_t j = 0; j < ns; ++j)
                if (j != k) h = hepa_mod_mul(h, hepa_mod_reduce64(ring->moduli[src[j]], m), m);
            hat[k] = h;
            hatp[k] = hepa_shoup_precompute(h, m->value);
        }
        tg[4] = all; /* S mod t; 0 when t is a source, and then so are the corrections */
        for (size_t u = 0; u <= ns; ++u)
            corr[u] = hepa_mod_mul(u, m->value - all, m);
    }
}

void _hepa_host_conv(const uint64_t *tab, size_t n, uint64_t *out, const uint64_t *in, int exact) {
#ifdef HEPA_HOST_AVX512
    if (_hepa_ntt_use_avx512() && n % 8 == 0) {
        _hepa_host_conv_avx512(tab, n, out, in, exact);
        return;
    }
#endif
    const unsigned ns = (unsigned)tab[0], nt = (unsigned)tab[1];
    uint64_t v[HEPA_CONV_MAX];
    for (size_t x = 0; x < n; ++x) {
        double f = 0;
        for (unsigned k = 0; k < ns; ++k) {
            v[k] = hepa_conv_v(tab, k, in[k * n + x]);
            if (exact) f = hepa_conv_frac_add(f, tab, k, v[k]);
        }
        const uint64_t u = exact ? hepa_conv_round(f) : 0;
        for (unsigned t = 0; t < nt; ++t)
            out[hepa_conv_out_limb(tab, t) * n + x] = hepa_conv_target(tab, t, v, 1, u);
    }
}
