/* src/rns/poly_host.c — the CPU backend's raw limb-wise operations (see rns/internal.h for the
 * ranges and aliasing rules). */
#include <string.h>

#include "ntt/internal.h"
#include "rns/internal.h"

#define FOR_EACH_LIMB(body)                                                                    \
    for (size_t i = 0; i < level; ++i) {                                                       \
        const size_t off = i * ring->n;                                                        \
        const uint64_t q = ring->moduli[i];                                                    \
        (void)q;                                                                               \
        body                                                                                   \
    }

void _hepa_host_add(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                    const uint64_t *b) {
    FOR_EACH_LIMB(for (size_t j = off; j < off + ring->n; ++j) out[j] = hepa_mod_add(a[j], b[j], q);)
}

void _hepa_host_sub(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                    const uint64_t *b) {
    FOR_EACH_LIMB(for (size_t j = off; j < off + ring->n; ++j) out[j] = hepa_mod_sub(a[j], b[j], q);)
}

void _hepa_host_neg(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a) {
    FOR_EACH_LIMB(for (size_t j = off; j < off + ring->n; ++j) out[j] = hepa_mod_neg(a[j], q);)
}

void _hepa_host_mul_pointwise(const hepa_ring *ring, size_t level, uint64_t *out,
                              const uint64_t *a, const uint64_t *b) {
    FOR_EACH_LIMB(const hepa_modulus *m = &ring->mods[i];
                  for (size_t j = off; j < off + ring->n; ++j) out[j] = hepa_mod_mul(a[j], b[j], m);)
}

void _hepa_host_mul_scalar(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                           const uint64_t *scalars) {
    FOR_EACH_LIMB(const uint64_t s = scalars[i]; const uint64_t sp = hepa_shoup_precompute(s, q);
                  for (size_t j = off; j < off + ring->n; ++j) out[j] = hepa_mul_shoup(a[j], s, sp, q);)
}

void _hepa_host_ntt_forward(const hepa_ring *ring, size_t level, uint64_t *a) {
    for (size_t i = 0; i < level; ++i) _hepa_ntt_forward(ring->ntt[i], a + i * ring->n);
}

void _hepa_host_ntt_inverse(const hepa_ring *ring, size_t level, uint64_t *a) {
    for (size_t i = 0; i < level; ++i) _hepa_ntt_inverse(ring->ntt[i], a + i * ring->n);
}

void _hepa_host_negacyclic_mul(const hepa_ring *ring, size_t level, uint64_t *out,
                               const uint64_t *a, const uint64_t *b, uint64_t *scratch) {
    const size_t n = ring->n;
    for (size_t i = 0; i < level; ++i) {
        const size_t off = i * n;
        const hepa_ntt_tables *t = ring->ntt[i];
        const hepa_modulus *m = &ring->mods[i];
        uint64_t *fa = scratch + off, *fb = out + off;
        /* fa = NTT(a) in scratch; fb = NTT(b) in out. When out aliases a, a's limb was copied
         * to scratch before out is written, so copy a first, then b. */
        memcpy(fa, a + off, n * sizeof *fa);
        if (fb != b + off) memcpy(fb, b + off, n * sizeof *fb);
        _hepa_ntt_forward_lazy(t, fa); /* [0, 4q) */
        if (b + off == a + off && fb != fa) {
            memcpy(fb, fa, n * sizeof *fb); /* squaring: reuse the one transform */
        } else {
            _hepa_ntt_forward_lazy(t, fb);
        }
        /* (4q)^2 < 2^128, so Barrett takes the lazy values directly; result in [0, q) */
        for (size_t j = 0; j < n; ++j) fb[j] = hepa_mod_mul(fa[j], fb[j], m);
        _hepa_ntt_inverse(t, fb);
    }
}
