/* src/ntt/ntt_tables.c — twiddle tables for the negacyclic NTT (one (n, q) pair), and the
 * argument-checking public entry points shared by the reference and the fast host transforms. */
#include <stdlib.h>

#include "hepa/primes.h"
#include "ntt/internal.h"

hepa_status hepa_ntt_tables_create(hepa_ntt_tables **out, size_t n, uint64_t q) {
    if (!out || n < 2 || (n & (n - 1)) || n > ((size_t)1 << 30)) return HEPA_ERR_INVALID_ARGUMENT;
    uint64_t psi;
    /* hepa_primitive_root rejects q that is not a prime < 2^62 or with 2n not dividing q-1 */
    if (hepa_primitive_root(&psi, q, 2 * (uint64_t)n) != HEPA_OK) return HEPA_ERR_INVALID_ARGUMENT;

    hepa_ntt_tables *t = calloc(1, sizeof *t);
    uint64_t *buf = malloc(4 * n * sizeof *buf);
    if (!t || !buf) {
        free(t);
        free(buf);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    t->n = n;
    t->log_n = 0;
    while (((size_t)1 << t->log_n) < n) ++t->log_n;
    t->mod = hepa_modulus_make(q);
    t->psi = psi;
    t->fwd = buf;
    t->fwd_shoup = buf + n;
    t->inv = buf + 2 * n;
    t->inv_shoup = buf + 3 * n;

    /* powers ψ^i and ψ^(-i) for i < n, stored at the bit-reversed index */
    const uint64_t psi_inv = hepa_mod_inv(psi, q);
    uint64_t p = 1, pi = 1;
    for (size_t i = 0; i < n; ++i) {
        size_t r = hepa_bitrev(i, t->log_n);
        t->fwd[r] = p;
        t->inv[r] = pi;
        p = hepa_mod_mul(p, psi, &t->mod);
        pi = hepa_mod_mul(pi, psi_inv, &t->mod);
    }
    for (size_t i = 0; i < n; ++i) {
        t->fwd_shoup[i] = hepa_shoup_precompute(t->fwd[i], q);
        t->inv_shoup[i] = hepa_shoup_precompute(t->inv[i], q);
    }
    t->n_inv = hepa_mod_inv((uint64_t)(n % q), q);
    t->n_inv_shoup = hepa_shoup_precompute(t->n_inv, q);
    t->n_inv_w = hepa_mod_mul(t->n_inv, t->inv[1], &t->mod);
    t->n_inv_w_shoup = hepa_shoup_precompute(t->n_inv_w, q);
    *out = t;
    return HEPA_OK;
}

void hepa_ntt_tables_destroy(hepa_ntt_tables *t) {
    if (!t) return;
    free(t->fwd);
    free(t);
}

size_t hepa_ntt_tables_n(const hepa_ntt_tables *t) { return t->n; }
uint64_t hepa_ntt_tables_modulus(const hepa_ntt_tables *t) { return t->mod.value; }
uint64_t hepa_ntt_tables_psi(const hepa_ntt_tables *t) { return t->psi; }

hepa_ntt_table_view hepa_ntt_tables_view(const hepa_ntt_tables *t) {
    hepa_ntt_table_view v = {t->n,         t->mod.value, t->fwd,         t->fwd_shoup,
                             t->inv,       t->inv_shoup, t->n_inv,       t->n_inv_shoup,
                             t->n_inv_w,   t->n_inv_w_shoup};
    return v;
}

/* ---- checked entry points: validate, then call the raw transform ------------------------- */

static hepa_status check(const hepa_ntt_tables *t, const uint64_t *a) {
    if (!t || !a) return HEPA_ERR_INVALID_ARGUMENT;
    if (!hepa_residues_ok(a, t->n, t->mod.value)) return HEPA_ERR_INVALID_ARGUMENT;
    return HEPA_OK;
}

/* internal reference transforms (ntt_ref.c) */
void _hepa_ntt_forward_ref(const hepa_ntt_tables *t, uint64_t *a);
void _hepa_ntt_inverse_ref(const hepa_ntt_tables *t, uint64_t *a);

#define HEPA_NTT_ENTRY(name, raw)                                                              \
    hepa_status name(const hepa_ntt_tables *t, uint64_t *a) {                                  \
        hepa_status s = check(t, a);                                                           \
        if (s == HEPA_OK) raw(t, a);                                                           \
        return s;                                                                              \
    }
HEPA_NTT_ENTRY(hepa_ntt_forward, _hepa_ntt_forward)
HEPA_NTT_ENTRY(hepa_ntt_inverse, _hepa_ntt_inverse)
HEPA_NTT_ENTRY(hepa_ntt_forward_ref, _hepa_ntt_forward_ref)
HEPA_NTT_ENTRY(hepa_ntt_inverse_ref, _hepa_ntt_inverse_ref)
