/* src/rns/poly.c — hepa_poly objects: argument checks, then the backend's raw operation
 * (poly_host.c on the CPU, poly_cuda.cu and ntt/ntt_cuda.cu on the device). */
#include <stdlib.h>
#include <string.h>

#include "rns/internal.h"

static int on_device(const hepa_poly *p) { return p->ring->backend == HEPA_BACKEND_CUDA; }
static size_t words(const hepa_poly *p) { return p->level * p->ring->n; }

hepa_status hepa_poly_create(hepa_poly **out, const hepa_ring *ring, size_t level) {
    if (!out || !ring || level < 1 || level > ring->num_moduli) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_poly *p = malloc(sizeof *p);
    if (!p) return HEPA_ERR_OUT_OF_MEMORY;
    p->ring = ring;
    p->level = level;
    p->domain = HEPA_DOMAIN_COEFF;
    p->data = NULL;
    const size_t bytes = words(p) * sizeof *p->data;
    hepa_status s = HEPA_OK;
    if (ring->backend == HEPA_BACKEND_CUDA) {
        s = _hepa_dev_alloc(ring, (void **)&p->data, bytes);
        if (s == HEPA_OK) {
            s = _hepa_dev_memset(ring, p->data, 0, bytes);
            if (s != HEPA_OK) _hepa_dev_free(ring, p->data);
        }
    } else {
        p->data = calloc(words(p), sizeof *p->data);
        if (!p->data) s = HEPA_ERR_OUT_OF_MEMORY;
    }
    if (s != HEPA_OK) {
        free(p);
        return s;
    }
    *out = p;
    return HEPA_OK;
}

void hepa_poly_destroy(hepa_poly *poly) {
    if (!poly) return;
    if (on_device(poly))
        _hepa_dev_free(poly->ring, poly->data); /* stream-ordered: after enqueued work */
    else
        free(poly->data);
    free(poly);
}

const hepa_ring *hepa_poly_ring(const hepa_poly *p) { return p->ring; }
size_t hepa_poly_level(const hepa_poly *p) { return p->level; }
hepa_domain hepa_poly_domain(const hepa_poly *p) { return p->domain; }
uint64_t *hepa_poly_data(hepa_poly *p) { return p->data; }

/* set: validate on the host, then copy (enqueued on the device backend) */
static hepa_status poly_set(hepa_poly *p, const uint64_t *src, hepa_domain domain) {
    if (!p || !src) return HEPA_ERR_INVALID_ARGUMENT;
    if (domain != HEPA_DOMAIN_COEFF && domain != HEPA_DOMAIN_NTT) return HEPA_ERR_INVALID_ARGUMENT;
    if (!_hepa_limbs_ok(p->ring, p->level, src)) return HEPA_ERR_INVALID_ARGUMENT;
    const size_t bytes = words(p) * sizeof *src;
    if (on_device(p)) {
        hepa_status s = _hepa_dev_copy(p->ring, p->data, src, bytes, 0);
        if (s != HEPA_OK) return s;
    } else {
        memmove(p->data, src, bytes);
    }
    p->domain = domain;
    return HEPA_OK;
}

hepa_status hepa_poly_set(hepa_poly *p, const uint64_t *src, hepa_domain domain) {
    /* From pageable memory the CUDA runtime has consumed src when the copy call returns; from
     * pinned memory it has not, so only then wait (the synchronous contract: src may change as
     * soon as this returns). */
    hepa_status s = poly_set(p, src, domain);
    if (s == HEPA_OK && on_device(p) && _hepa_dev_is_pinned(src)) s = _hepa_dev_sync(p->ring);
    return s;
}

hepa_status hepa_poly_set_async(hepa_poly *p, const uint64_t *src, hepa_domain domain) {
    return poly_set(p, src, domain);
}

static hepa_status poly_get(const hepa_poly *p, uint64_t *dst, int wait) {
    if (!p || !dst) return HEPA_ERR_INVALID_ARGUMENT;
    const size_t bytes = words(p) * sizeof *dst;
    if (!on_device(p)) {
        memmove(dst, p->data, bytes);
        return HEPA_OK;
    }
    hepa_status s = _hepa_dev_copy(p->ring, dst, p->data, bytes, 1);
    return s == HEPA_OK && wait ? _hepa_dev_sync(p->ring) : s;
}

hepa_status hepa_poly_get(const hepa_poly *p, uint64_t *dst) { return poly_get(p, dst, 1); }
hepa_status hepa_poly_get_async(const hepa_poly *p, uint64_t *dst) { return poly_get(p, dst, 0); }

/* Shared checks for an output and one or two inputs: non-NULL, same ring and level; with two
 * inputs, the same domain. */
static hepa_status check_ops(const hepa_poly *out, const hepa_poly *a, const hepa_poly *b) {
    if (!out || !a) return HEPA_ERR_INVALID_ARGUMENT;
    if (out->ring != a->ring || out->level != a->level) return HEPA_ERR_MISMATCH;
    if (b) {
        if (b->ring != a->ring || b->level != a->level) return HEPA_ERR_MISMATCH;
        if (b->domain != a->domain) return HEPA_ERR_DOMAIN;
    }
    return HEPA_OK;
}

hepa_status hepa_poly_copy(hepa_poly *dst, const hepa_poly *src) {
    hepa_status s = check_ops(dst, src, NULL);
    if (s != HEPA_OK) return s;
    if (dst != src) {
        const size_t bytes = words(src) * sizeof *src->data;
        if (on_device(src)) {
            s = _hepa_dev_copy(src->ring, dst->data, src->data, bytes, 2);
            if (s != HEPA_OK) return s;
        } else {
            memcpy(dst->data, src->data, bytes);
        }
    }
    dst->domain = src->domain;
    return HEPA_OK;
}

/* The element-wise operations: checks, then host loop or device kernel. b may be NULL (neg,
 * mul_scalar); scalars only for mul_scalar. */
static hepa_status elementwise(hepa_ew_op op, hepa_poly *out, const hepa_poly *a,
                               const hepa_poly *b, const uint64_t *scalars) {
    hepa_status s = check_ops(out, a, b);
    if (s != HEPA_OK) return s;
    const hepa_ring *r = a->ring;
    if (on_device(a)) {
        s = _hepa_dev_elementwise(r, a->level, op, out->data, a->data, b ? b->data : NULL, scalars);
        if (s != HEPA_OK) return s;
    } else {
        switch (op) {
        case HEPA_EW_ADD: _hepa_host_add(r, a->level, out->data, a->data, b->data); break;
        case HEPA_EW_SUB: _hepa_host_sub(r, a->level, out->data, a->data, b->data); break;
        case HEPA_EW_NEG: _hepa_host_neg(r, a->level, out->data, a->data); break;
        case HEPA_EW_MUL: _hepa_host_mul_pointwise(r, a->level, out->data, a->data, b->data); break;
        case HEPA_EW_MUL_SCALAR:
            _hepa_host_mul_scalar(r, a->level, out->data, a->data, scalars);
            break;
        }
    }
    out->domain = a->domain;
    return HEPA_OK;
}

hepa_status hepa_poly_add(hepa_poly *out, const hepa_poly *a, const hepa_poly *b) {
    return b ? elementwise(HEPA_EW_ADD, out, a, b, NULL) : HEPA_ERR_INVALID_ARGUMENT;
}

hepa_status hepa_poly_sub(hepa_poly *out, const hepa_poly *a, const hepa_poly *b) {
    return b ? elementwise(HEPA_EW_SUB, out, a, b, NULL) : HEPA_ERR_INVALID_ARGUMENT;
}

hepa_status hepa_poly_neg(hepa_poly *out, const hepa_poly *a) {
    return elementwise(HEPA_EW_NEG, out, a, NULL, NULL);
}

hepa_status hepa_poly_mul_scalar(hepa_poly *out, const hepa_poly *a, const uint64_t *scalars) {
    if (!scalars || !a) return HEPA_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < a->level; ++i)
        if (scalars[i] >= a->ring->moduli[i]) return HEPA_ERR_INVALID_ARGUMENT;
    return elementwise(HEPA_EW_MUL_SCALAR, out, a, NULL, scalars);
}

/* Negacyclic product of two coefficient-domain polynomials on the device (_hepa_dev_ntt_mul):
 * the forward transforms go out of place into scratch (one when squaring). */
static hepa_status mul_coeff_cuda(hepa_poly *out, const hepa_poly *a, const hepa_poly *b) {
    const hepa_ring *r = a->ring;
    const size_t w = words(a);
    const int square = a->data == b->data;
    uint64_t *scratch = NULL;
    hepa_status s = _hepa_dev_alloc(r, (void **)&scratch, (square ? 1 : 2) * w * sizeof *scratch);
    if (s != HEPA_OK) return s;
    uint64_t *fa = scratch, *fb = square ? scratch : scratch + w;
    s = _hepa_dev_ntt_mul(r, a->level, out->data, a->data, b->data, fa, fb);
    _hepa_dev_free(r, scratch);
    return s;
}

hepa_status hepa_poly_mul(hepa_poly *out, const hepa_poly *a, const hepa_poly *b) {
    if (!b) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_status s = check_ops(out, a, b);
    if (s != HEPA_OK) return s;
    if (a->domain == HEPA_DOMAIN_NTT) return elementwise(HEPA_EW_MUL, out, a, b, NULL);
    if (on_device(a)) {
        s = mul_coeff_cuda(out, a, b);
    } else {
        uint64_t *scratch = malloc(words(a) * sizeof *scratch);
        if (!scratch) return HEPA_ERR_OUT_OF_MEMORY;
        _hepa_host_negacyclic_mul(a->ring, a->level, out->data, a->data, b->data, scratch);
        free(scratch);
    }
    if (s == HEPA_OK) out->domain = HEPA_DOMAIN_COEFF;
    return s;
}

static hepa_status transform(hepa_poly *p, hepa_domain from) {
    if (!p) return HEPA_ERR_INVALID_ARGUMENT;
    if (p->domain != from) return HEPA_ERR_DOMAIN;
    const int fwd = from == HEPA_DOMAIN_COEFF;
    if (on_device(p)) {
        hepa_status s = fwd ? _hepa_dev_ntt_forward(p->ring, p->level, p->data, p->data)
                            : _hepa_dev_ntt_inverse(p->ring, p->level, p->data, p->data);
        if (s != HEPA_OK) return s;
    } else if (fwd) {
        _hepa_host_ntt_forward(p->ring, p->level, p->data);
    } else {
        _hepa_host_ntt_inverse(p->ring, p->level, p->data);
    }
    p->domain = fwd ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF;
    return HEPA_OK;
}

hepa_status hepa_poly_to_ntt(hepa_poly *p) { return transform(p, HEPA_DOMAIN_COEFF); }
hepa_status hepa_poly_from_ntt(hepa_poly *p) { return transform(p, HEPA_DOMAIN_NTT); }
