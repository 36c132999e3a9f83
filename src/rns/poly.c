/* src/rns/poly.c — hepa_poly objects: argument checks, then the backend's raw operation.
 * (Only the CPU backend exists in this release; a CUDA ring is refused at creation.) */
#include <stdlib.h>
#include <string.h>

#include "rns/internal.h"

hepa_status hepa_poly_create(hepa_poly **out, const hepa_ring *ring, size_t level) {
    if (!out || !ring || level < 1 || level > ring->num_moduli) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_poly *p = malloc(sizeof *p);
    uint64_t *data = calloc(level * ring->n, sizeof *data);
    if (!p || !data) {
        free(p);
        free(data);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    p->ring = ring;
    p->level = level;
    p->domain = HEPA_DOMAIN_COEFF;
    p->data = data;
    *out = p;
    return HEPA_OK;
}

void hepa_poly_destroy(hepa_poly *poly) {
    if (!poly) return;
    free(poly->data);
    free(poly);
}

const hepa_ring *hepa_poly_ring(const hepa_poly *p) { return p->ring; }
size_t hepa_poly_level(const hepa_poly *p) { return p->level; }
hepa_domain hepa_poly_domain(const hepa_poly *p) { return p->domain; }
uint64_t *hepa_poly_data(hepa_poly *p) { return p->data; }

static size_t words(const hepa_poly *p) { return p->level * p->ring->n; }

hepa_status hepa_poly_set(hepa_poly *p, const uint64_t *src, hepa_domain domain) {
    if (!p || !src) return HEPA_ERR_INVALID_ARGUMENT;
    if (domain != HEPA_DOMAIN_COEFF && domain != HEPA_DOMAIN_NTT) return HEPA_ERR_INVALID_ARGUMENT;
    if (!_hepa_limbs_ok(p->ring, p->level, src)) return HEPA_ERR_INVALID_ARGUMENT;
    memmove(p->data, src, words(p) * sizeof *src);
    p->domain = domain;
    return HEPA_OK;
}

hepa_status hepa_poly_get(const hepa_poly *p, uint64_t *dst) {
    if (!p || !dst) return HEPA_ERR_INVALID_ARGUMENT;
    memmove(dst, p->data, words(p) * sizeof *dst);
    return HEPA_OK;
}

/* Shared checks for an output and one or two inputs: non-NULL, same ring and level; with two
 * inputs, the same domain. */
static hepa_status check_ops(const hepa_poly *out, const hepa_poly *a, const hepa_poly *b) {
    if (!out || !a || (b == NULL && a == NULL)) return HEPA_ERR_INVALID_ARGUMENT;
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
    if (dst != src) memcpy(dst->data, src->data, words(src) * sizeof *src->data);
    dst->domain = src->domain;
    return HEPA_OK;
}

#define BINARY_OP(name, raw)                                                                   \
    hepa_status name(hepa_poly *out, const hepa_poly *a, const hepa_poly *b) {                 \
        if (!b) return HEPA_ERR_INVALID_ARGUMENT;                                              \
        hepa_status s = check_ops(out, a, b);                                                  \
        if (s != HEPA_OK) return s;                                                            \
        raw(a->ring, a->level, out->data, a->data, b->data);                                   \
        out->domain = a->domain;                                                               \
        return HEPA_OK;                                                                        \
    }
BINARY_OP(hepa_poly_add, _hepa_host_add)
BINARY_OP(hepa_poly_sub, _hepa_host_sub)

hepa_status hepa_poly_neg(hepa_poly *out, const hepa_poly *a) {
    hepa_status s = check_ops(out, a, NULL);
    if (s != HEPA_OK) return s;
    _hepa_host_neg(a->ring, a->level, out->data, a->data);
    out->domain = a->domain;
    return HEPA_OK;
}

hepa_status hepa_poly_mul(hepa_poly *out, const hepa_poly *a, const hepa_poly *b) {
    if (!b) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_status s = check_ops(out, a, b);
    if (s != HEPA_OK) return s;
    if (a->domain == HEPA_DOMAIN_NTT) {
        _hepa_host_mul_pointwise(a->ring, a->level, out->data, a->data, b->data);
    } else {
        uint64_t *scratch = malloc(words(a) * sizeof *scratch);
        if (!scratch) return HEPA_ERR_OUT_OF_MEMORY;
        _hepa_host_negacyclic_mul(a->ring, a->level, out->data, a->data, b->data, scratch);
        free(scratch);
    }
    out->domain = a->domain;
    return HEPA_OK;
}

hepa_status hepa_poly_mul_scalar(hepa_poly *out, const hepa_poly *a, const uint64_t *scalars) {
    if (!scalars) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_status s = check_ops(out, a, NULL);
    if (s != HEPA_OK) return s;
    for (size_t i = 0; i < a->level; ++i)
        if (scalars[i] >= a->ring->moduli[i]) return HEPA_ERR_INVALID_ARGUMENT;
    _hepa_host_mul_scalar(a->ring, a->level, out->data, a->data, scalars);
    out->domain = a->domain;
    return HEPA_OK;
}

hepa_status hepa_poly_to_ntt(hepa_poly *p) {
    if (!p) return HEPA_ERR_INVALID_ARGUMENT;
    if (p->domain != HEPA_DOMAIN_COEFF) return HEPA_ERR_DOMAIN;
    _hepa_host_ntt_forward(p->ring, p->level, p->data);
    p->domain = HEPA_DOMAIN_NTT;
    return HEPA_OK;
}

hepa_status hepa_poly_from_ntt(hepa_poly *p) {
    if (!p) return HEPA_ERR_INVALID_ARGUMENT;
    if (p->domain != HEPA_DOMAIN_NTT) return HEPA_ERR_DOMAIN;
    _hepa_host_ntt_inverse(p->ring, p->level, p->data);
    p->domain = HEPA_DOMAIN_COEFF;
    return HEPA_OK;
}
