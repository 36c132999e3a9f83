/* src/rns/internal.h — private layout of rings and polynomials, and the CPU backend's raw
 * limb-wise operations. */
#ifndef HEPA_SRC_RNS_INTERNAL_H
#define HEPA_SRC_RNS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/modarith.h"
#include "hepa/ntt.h"
#include "hepa/poly.h"
#include "hepa/ring.h"
#include "device/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hepa_ring {
    size_t n;               /* power of two in [HEPA_RING_MIN_N, HEPA_RING_MAX_N] */
    unsigned log_n;
    size_t num_moduli;      /* L in [1, HEPA_RING_MAX_MODULI] */
    hepa_backend backend;   /* CPU or CUDA, never AUTO */
    uint64_t *moduli;       /* L values (also in mods[i].value) */
    hepa_modulus *mods;     /* L moduli with Barrett constants */
    hepa_ntt_tables **ntt;  /* L tables */
    hepa_ring_device *dev;  /* CUDA backend state, NULL on the CPU backend */
};

struct hepa_poly {
    const hepa_ring *ring;
    size_t level;        /* live limbs, in [1, ring->num_moduli] */
    hepa_domain domain;
    uint64_t *data;      /* level·n words, limb-major, residues in [0, q_i) */
};

/* CPU backend, raw tier: limb-wise operations over `level` limbs of n words each, on the
 * ring's first `level` moduli. Inputs in [0, q_i), outputs in [0, q_i). out may equal a or b
 * (element-wise, so any exact aliasing is safe); partial overlaps are not allowed. */
void _hepa_host_add(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                    const uint64_t *b);
void _hepa_host_sub(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                    const uint64_t *b);
void _hepa_host_neg(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a);
void _hepa_host_mul_pointwise(const hepa_ring *ring, size_t level, uint64_t *out,
                              const uint64_t *a, const uint64_t *b);
void _hepa_host_mul_scalar(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                           const uint64_t *scalars);
void _hepa_host_ntt_forward(const hepa_ring *ring, size_t level, uint64_t *a);
void _hepa_host_ntt_inverse(const hepa_ring *ring, size_t level, uint64_t *a);
/* out = a * b negacyclic, coefficient domain in and out. scratch: level·n words that must not
 * overlap out, a or b; out may equal a or b. */
void _hepa_host_negacyclic_mul(const hepa_ring *ring, size_t level, uint64_t *out,
                               const uint64_t *a, const uint64_t *b, uint64_t *scratch);

/* 1 when every residue of the level·n words is below its limb's modulus. */
int _hepa_limbs_ok(const hepa_ring *ring, size_t level, const uint64_t *a);

#ifdef __cplusplus
}
#endif
#endif
