/* src/rns/rns_ops.c — hepa/rns.h: argument checks, the CPU backend's raw versions (the
 * references the device kernels in rns_cuda.cu are tested against), and the dispatch. */
#include <stdlib.h>
#include <string.h>

#include "hepa/rns.h"
#include "ntt/internal.h"
#include "rns/conv_core.h"
#include "rns/internal.h"

static int on_device(const hepa_ring *r) { return r->backend == HEPA_BACKEND_CUDA; }

size_t _hepa_auto_ntt_src(size_t k, uint64_t g, unsigned log_n) {
    const uint64_t mask = ((uint64_t)2 << log_n) - 1;
    const uint64_t e = ((2 * (uint64_t)hepa_bitrev(k, log_n) + 1) * g) & mask;
    return hepa_bitrev((size_t)((e - 1) >> 1), log_n);
}

/* ---- host raw tier ---------------------------------------------------------------------- */

void _hepa_host_tensor(const hepa_ring *ring, size_t level, uint64_t *d0, uint64_t *d1,
                       uint64_t *d2, const uint64_t *a0, const uint64_t *a1, const uint64_t *b0,
                       const uint64_t *b1) {
    const size_t n = ring->n;
    for (size_t i = 0; i < level; ++i) {
        const hepa_modulus *m = &ring->mods[i];
        for (size_t j = i * n; j < (i + 1) * n; ++j) {
            const uint64_t x0 = a0[j], x1 = a1[j], y0 = b0[j], y1 = b1[j];
            /* x0·y1 + x1·y0 < 2^125: one reduction of the 128-bit sum */
            hepa_u128 mid = (hepa_u128)x0 * y1 + (hepa_u128)x1 * y0;
            d0[j] = hepa_mod_mul(x0, y0, m);
            d1[j] = hepa_mod_reduce128((uint64_t)(mid >> 64), (uint64_t)mid, m);
            d2[j] = hepa_mod_mul(x1, y1, m);
        }
    }
}

void _hepa_rescale_consts(const hepa_ring *ring, size_t level, uint64_t *inv, uint64_t *inv_sh,
                          uint64_t *qmod) {
    const uint64_t ql = ring->moduli[level - 1];
    for (size_t i = 0; i + 1 < level; ++i) {
        const uint64_t q = ring->moduli[i];
        qmod[i] = hepa_mod_reduce64(ql, &ring->mods[i]);
        inv[i] = hepa_mod_inv(qmod[i], q);
        inv_sh[i] = hepa_shoup_precompute(inv[i], q);
    }
}

void _hepa_host_rescale(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                        int ntt, uint64_t *tmp) {
    const size_t n = ring->n;
    uint64_t inv[HEPA_RING_MAX_MODULI], inv_sh[HEPA_RING_MAX_MODULI], qmod[HEPA_RING_MAX_MODULI];
    _hepa_rescale_consts(ring, level, inv, inv_sh, qmod);
    const uint64_t half = ring->moduli[level - 1] / 2;
    const uint64_t *last = a + (level - 1) * n;
    if (ntt) { /* the last limb to coefficients, in tmp's first limb */
        memcpy(tmp, last, n * sizeof *tmp);
        _hepa_ntt_inverse(ring->ntt[level - 1], tmp);
        last = tmp;
    }
    for (size_t i = 0; i + 1 < level; ++i) {
        const hepa_modulus *m = &ring->mods[i];
        const uint64_t q = m->value;
        uint64_t *r = ntt ? tmp + (i + 1) * n : out + i * n; /* the correction, limb i */
        for (size_t j = 0; j < n; ++j) r[j] = hepa_center_mod(last[j], half, qmod[i], m);
        if (ntt) _hepa_ntt_forward(ring->ntt[i], r);
        for (size_t j = 0; j < n; ++j)
            out[i * n + j] = hepa_mul_shoup(hepa_mod_sub(a[i * n + j], r[j], q), inv[i], inv_sh[i], q);
    }
}

void _hepa_host_automorphism(const hepa_ring *ring, size_t level, uint64_t *out,
                             const uint64_t *a, uint64_t g, int ntt) {
    const size_t n = ring->n;
    const uint64_t mask = 2 * (uint64_t)n - 1;
    g &= mask;
    if (ntt) { /* the source index once for all limbs (it costs two bit reversals) */
        for (size_t k = 0; k < n; ++k) {
            const size_t src = _hepa_auto_ntt_src(k, g, ring->log_n);
            for (size_t i = 0; i < level; ++i)
                out[i * n + k] = a[i * n + src];
        }
        return;
    }
    for (size_t i = 0; i < level; ++i) {
        const uint64_t q = ring->moduli[i];
        const uint64_t *x = a + i * n;
        uint64_t *y = out + i * n;
        for (size_t j = 0; j < n; ++j) {
            const uint64_t e = ((uint64_t)j * g) & mask; /* x^j -> x^e, x^n = -1 */
            if (e < n)
                y[e] = x[j];
            else
                y[e - n] = hepa_mod_neg(x[j], q);
        }
    }
}

/* ---- public tier -------------------------------------------------------------------------- */

/* Scratch of `words` words in the backend's memory. */
static hepa_status scratch_alloc(const hepa_ring *r, uint64_t **p, size_t words) {
    if (on_device(r)) return _hepa_dev_alloc(r, (void **)p, words * sizeof **p);
    *p = malloc(words * sizeof **p);
    return *p ? HEPA_OK : HEPA_ERR_OUT_OF_MEMORY;
}

static void scratch_free(const hepa_ring *r, uint64_t *p) {
    if (on_device(r))
        _hepa_dev_free(r, p);
    else
        free(p);
}

hepa_status hepa_poly_tensor(hepa_poly *d0, hepa_poly *d1, hepa_poly *d2, const hepa_poly *a0,
                             const hepa_poly *a1, const hepa_poly *b0, const hepa_poly *b1) {
    if (!d0 || !d1 || !d2 || !a0 || !a1 || !b0 || !b1) return HEPA_ERR_INVALID_ARGUMENT;
    if (d0 == d1 || d0 == d2 || d1 == d2) return HEPA_ERR_INVALID_ARGUMENT;
    /* every operand against a0 (d0 too: it is written level·n words, like the others) */
    const hepa_poly *all[7] = {d0, d1, d2, a0, a1, b0, b1};
    for (int k = 0; k < 7; ++k)
        if (all[k]->ring != a0->ring || all[k]->level != a0->level) return HEPA_ERR_MISMATCH;
    for (int k = 3; k < 7; ++k)
        if (all[k]->domain != HEPA_DOMAIN_NTT) return HEPA_ERR_DOMAIN;
    const hepa_ring *r = a0->ring;
    if (on_device(r)) {
        hepa_status s = _hepa_dev_tensor(r, a0->level, d0->data, d1->data, d2->data, a0->data,
                                         a1->data, b0->data, b1->data);
        if (s != HEPA_OK) return s;
    } else {
        _hepa_host_tensor(r, a0->level, d0->data, d1->data, d2->data, a0->data, a1->data,
                          b0->data, b1->data);
    }
    d0->domain = d1->domain = d2->domain = HEPA_DOMAIN_NTT;
    return HEPA_OK;
}

/* The rescale of a0 into out0 and, unless out1 is NULL, of a1 into out1 (checked by the
 * callers: one ring and level, a0's level >= 2, outs one level lower). */
static hepa_status rescale_run(hepa_poly *out0, const hepa_poly *a0, hepa_poly *out1,
                               const hepa_poly *a1) {
    const hepa_ring *r = a0->ring;
    const size_t l = a0->level;
    const int ntt = a0->domain == HEPA_DOMAIN_NTT;
    uint64_t *tmp = NULL;
    hepa_status s = HEPA_OK;
    if (ntt && (s = scratch_alloc(r, &tmp, l * r->n)) != HEPA_OK) return s;
    if (on_device(r)) {
        s = _hepa_dev_rescale(r, l, out0->data, a0->data, out1 ? out1->data : NULL,
                              out1 ? a1->data : NULL, ntt, tmp);
    } else {
        _hepa_host_rescale(r, l, out0->data, a0->data, ntt, tmp);
        if (out1) _hepa_host_rescale(r, l, out1->data, a1->data, ntt, tmp);
    }
    if (tmp) scratch_free(r, tmp);
    if (s == HEPA_OK) {
        out0->domain = a0->domain;
        if (out1) out1->domain = a1->domain;
    }
    return s;
}

hepa_status hepa_poly_rescale(hepa_poly *out, const hepa_poly *a) {
    if (!out || !a) return HEPA_ERR_INVALID_ARGUMENT;
    if (out->ring != a->ring) return HEPA_ERR_MISMATCH;
    if (a->level < 2) return HEPA_ERR_RANGE;
    if (out->level != a->level - 1) return HEPA_ERR_MISMATCH;
    return rescale_run(out, a, NULL, NULL);
}

hepa_status hepa_poly_rescale_pair(hepa_poly *out0, hepa_poly *out1, const hepa_poly *a0,
                                   const hepa_poly *a1) {
    if (!out0 || !out1 || !a0 || !a1 || out0 == out1) return HEPA_ERR_INVALID_ARGUMENT;
    const hepa_ring *r = a0->ring;
    if (a1->ring != r || out0->ring != r || out1->ring != r || a1->level != a0->level)
        return HEPA_ERR_MISMATCH;
    if (a1->domain != a0->domain) return HEPA_ERR_DOMAIN;
    if (a0->level < 2) return HEPA_ERR_RANGE;
    if (out0->level != a0->level - 1 || out1->level != a0->level - 1) return HEPA_ERR_MISMATCH;
    return rescale_run(out0, a0, out1, a1);
}

hepa_status hepa_poly_drop(hepa_poly *out, const hepa_poly *a) {
    if (!out || !a) return HEPA_ERR_INVALID_ARGUMENT;
    if (out->ring != a->ring || out->level > a->level) return HEPA_ERR_MISMATCH;
    if (out != a) {
        const size_t bytes = out->level * a->ring->n * sizeof *a->data;
        if (on_device(a->ring)) {
            hepa_status s = _hepa_dev_copy(a->ring, out->data, a->data, bytes, 2);
            if (s != HEPA_OK) return s;
        } else {
            memcpy(out->data, a->data, bytes);
        }
    }
    out->domain = a->domain;
    return HEPA_OK;
}

hepa_status hepa_poly_automorphism(hepa_poly *out, const hepa_poly *a, uint64_t g) {
    if (!out || !a) return HEPA_ERR_INVALID_ARGUMENT;
    if ((g & 1) == 0) return HEPA_ERR_INVALID_ARGUMENT;
    if (out->ring != a->ring || out->level != a->level) return HEPA_ERR_MISMATCH;
    const hepa_ring *r = a->ring;
    const size_t words = a->level * r->n;
    const int ntt = a->domain == HEPA_DOMAIN_NTT;
    const uint64_t *src = a->data;
    uint64_t *copy = NULL;
    hepa_status s = HEPA_OK;
    if (out == a) { /* a permutation cannot run in place: read from a copy */
        if ((s = scratch_alloc(r, &copy, words)) != HEPA_OK) return s;
        if (on_device(r))
            s = _hepa_dev_copy(r, copy, a->data, words * sizeof *copy, 2);
        else
            memcpy(copy, a->data, words * sizeof *copy);
        src = copy;
    }
    if (s == HEPA_OK) {
        if (on_device(r))
            s = _hepa_dev_automorphism(r, a->level, out->data, src, g, ntt);
        else
            _hepa_host_automorphism(r, a->level, out->data, src, g, ntt);
    }
    if (copy) scratch_free(r, copy);
    if (s == HEPA_OK) out->domain = ntt ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF;
    return s;
}

hepa_status hepa_rns_convert(const hepa_ring *ring, uint64_t *out, const size_t *dst_idx,
                             size_t nt, const uint64_t *in, const size_t *src_idx, size_t ns,
                             int exact) {
    if (!ring || !out || !dst_idx || !in || !src_idx) return HEPA_ERR_INVALID_ARGUMENT;
    if (ns == 0 || nt == 0 || ns > HEPA_CONV_MAX || nt > HEPA_CONV_MAX)
        return HEPA_ERR_INVALID_ARGUMENT;
    for (size_t k = 0; k < ns; ++k) {
        if (src_idx[k] >= ring->num_moduli) return HEPA_ERR_INVALID_ARGUMENT;
        for (size_t j = 0; j < k; ++j)
            if (src_idx[j] == src_idx[k]) return HEPA_ERR_INVALID_ARGUMENT;
    }
    for (size_t t = 0; t < nt; ++t)
        if (dst_idx[t] >= ring->num_moduli) return HEPA_ERR_INVALID_ARGUMENT;
    const size_t words = hepa_conv_words(ns, nt);
    uint64_t *tab = malloc(words * sizeof *tab);
    if (!tab) return HEPA_ERR_OUT_OF_MEMORY;
    _hepa_conv_build(ring, tab, src_idx, ns, dst_idx, NULL, nt);
    hepa_status s = HEPA_OK;
    if (on_device(ring)) {
        uint64_t *dtab = NULL;
        if ((s = _hepa_dev_alloc(ring, (void **)&dtab, words * sizeof *tab)) == HEPA_OK) {
            /* from pageable memory: the runtime has read tab when the call returns */
            s = _hepa_dev_copy(ring, dtab, tab, words * sizeof *tab, 0);
            if (s == HEPA_OK) {
                const hepa_conv_job job = {dtab, in, out, NULL, 0, 0, hepa_conv_smax(tab)};
                s = _hepa_dev_conv(ring, &job, 1, ns, exact);
            }
            _hepa_dev_free(ring, dtab);
        }
    } else {
        _hepa_host_conv(tab, ring->n, out, in, exact);
    }
    free(tab);
    return s;
}
