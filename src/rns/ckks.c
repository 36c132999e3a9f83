/* src/rns/ckks.c — CKKS encoder: tables, argument checks, the CPU backend's encode and decode,
 * and the dispatch to the device path (ckks_cuda.cu). The steps are described in hepa/ckks.h;
 * the integer parts (rounding to residues, CRT) live in ckks_core.h, shared with the device. */
#include <gmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hepa/ckks.h"
#include "hepa/dft.h"
#include "host/roots.h"
#include "rns/ckks_internal.h"

/* Garner constants and Q_t, floor(Q_t/2) for the first T moduli; halfq / log2q for every level. */
static void build_crt(hepa_ckks_encoder *e) {
    const hepa_ring *r = e->ring;
    const size_t L = r->num_moduli, T = L < CKKS_MAXT ? L : CKKS_MAXT;
    ckks_crt_consts *C = &e->crt;
    memset(C, 0, sizeof *C);
    C->T = T;
    mpz_t P, h;
    mpz_inits(P, h, NULL);
    mpz_set_ui(P, 1); /* P = P_l = q_0···q_(l-1) */
    double lg = 0;
    for (size_t l = 0; l < L; ++l) {
        if (l < T) {
            C->mod[l] = r->mods[l];
            for (size_t i = l + 1; i < T; ++i) C->pm[i][l] = mpz_fdiv_ui(P, r->moduli[i]);
            if (l > 0) C->inv[l] = hepa_mod_inv(mpz_fdiv_ui(P, r->moduli[l]), r->moduli[l]);
        }
        mpz_mul_ui(P, P, r->moduli[l]); /* now Q_(l+1) */
        lg += log2((double)r->moduli[l]);
        e->log2q[l] = lg;
        mpz_fdiv_q_2exp(h, P, 1);
        e->halfq[l] = mpz_sizeinbase(h, 2) <= 1024 ? mpz_get_d(h) : INFINITY; /* truncates */
        if (l < T) {
            size_t cnt = 0;
            mpz_export(C->Q[l], &cnt, -1, sizeof(uint64_t), 0, 0, P);
            mpz_export(C->halfQ[l], &cnt, -1, sizeof(uint64_t), 0, 0, h);
        }
    }
    mpz_clears(P, h, NULL);
}

hepa_status hepa_ckks_encoder_create(hepa_ckks_encoder **out, const hepa_ring *ring) {
    if (!out || !ring) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_ckks_encoder *e = calloc(1, sizeof *e);
    if (!e) return HEPA_ERR_OUT_OF_MEMORY;
    const size_t n = ring->n, h = n / 2, L = ring->num_moduli;
    e->ring = ring;
    e->h = h;
    e->dft_mode = HEPA_CKKS_DFT_AUTO;
    e->perm = malloc(h * sizeof *e->perm);
    e->twist = malloc(2 * h * sizeof *e->twist);
    e->halfq = malloc(L * sizeof *e->halfq);
    e->log2q = malloc(L * sizeof *e->log2q);
    if (!e->perm || !e->twist || !e->halfq || !e->log2q) {
        hepa_ckks_encoder_destroy(e);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    const uint64_t M = 2 * (uint64_t)n;
    uint64_t g = 1; /* 5^j mod M */
    for (size_t j = 0; j < h; ++j) {
        e->perm[j] = (uint32_t)((g - 1) / 4);
        g = g * 5 % M;
    }
    for (size_t k = 0; k < h; ++k) {
        long double c, s;
        hepa_root_ld(k, M, &c, &s);
        e->twist[2 * k] = (double)c;
        e->twist[2 * k + 1] = (double)s;
    }
    build_crt(e);
    if (ring->backend == HEPA_BACKEND_CUDA) {
        const hepa_status s = _hepa_dev_ckks_init(e);
        if (s != HEPA_OK) {
            hepa_ckks_encoder_destroy(e);
            return s;
        }
    }
    *out = e;
    return HEPA_OK;
}

void hepa_ckks_encoder_destroy(hepa_ckks_encoder *e) {
    if (!e) return;
    if (e->dev) _hepa_dev_ckks_free(e);
    free(e->perm);
    free(e->twist);
    free(e->halfq);
    free(e->log2q);
    free(e);
}

size_t hepa_ckks_decode_limbs(const hepa_ckks_encoder *e, size_t level, double scale) {
    if (!e || level == 0 || level > e->ring->num_moduli || !(scale > 0) || !isfinite(scale))
        return 0;
    const double need = log2(scale) + 62;
    size_t t = 1;
    while (t < level && e->log2q[t - 1] <= need) ++t;
    return t <= CKKS_MAXT ? t : 0;
}

static hepa_status check_slots_ptr(const hepa_ring *ring, const double *slots) {
    if (!slots) return HEPA_ERR_INVALID_ARGUMENT;
    if (ring->backend == HEPA_BACKEND_CPU && _hepa_dev_ptr_is_device(slots))
        return HEPA_ERR_INVALID_ARGUMENT;
    return HEPA_OK;
}

/* ---- CPU backend ------------------------------------------------------------------------- */

static hepa_status host_encode(const hepa_ckks_encoder *e, hepa_poly *out, const double *slots,
                               double scale) {
    const hepa_ring *r = e->ring;
    const size_t h = e->h, n = r->n, level = out->level;
    for (size_t i = 0; i < 2 * h; ++i)
        if (!isfinite(slots[i])) return HEPA_ERR_INVALID_ARGUMENT;
    double *Z = malloc(2 * h * sizeof *Z);
    if (!Z) return HEPA_ERR_OUT_OF_MEMORY;
    for (size_t j = 0; j < h; ++j) { /* Δ·z_j at t_j */
        Z[2 * e->perm[j]] = scale * slots[2 * j];
        Z[2 * e->perm[j] + 1] = scale * slots[2 * j + 1];
    }
    hepa_status s = hepa_dft_host(Z, h, 1, 0);
    if (s != HEPA_OK) {
        free(Z);
        return s;
    }
    const double bound = e->halfq[level - 1], inv_h = 1.0 / (double)h;
    for (size_t k = 0; k < h; ++k) {
        /* v_k = (Z_k / h)·conj(ζ^k); m_k = Re v_k, m_(k+h) = Im v_k */
        const double ur = Z[2 * k] * inv_h, ui = Z[2 * k + 1] * inv_h;
        const double c = e->twist[2 * k], sn = e->twist[2 * k + 1];
        const double m0 = rint(ur * c + ui * sn), m1 = rint(ui * c - ur * sn);
        if (!(fabs(m0) < bound) || !(fabs(m1) < bound)) {
            free(Z);
            return HEPA_ERR_RANGE;
        }
        for (size_t i = 0; i < level; ++i) {
            out->data[i * n + k] = ckks_residue(m0, &r->mods[i]);
            out->data[i * n + k + h] = ckks_residue(m1, &r->mods[i]);
        }
    }
    free(Z);
    _hepa_host_ntt_forward(r, level, out->data);
    out->domain = HEPA_DOMAIN_NTT;
    return HEPA_OK;
}

static hepa_status host_decode(const hepa_ckks_encoder *e, const hepa_poly *pt, double scale,
                               double *slots, size_t t) {
    const hepa_ring *r = e->ring;
    const size_t h = e->h, n = r->n;
    uint64_t *tmp = NULL;
    const uint64_t *c = pt->data;
    if (pt->domain == HEPA_DOMAIN_NTT) {
        tmp = malloc(t * n * sizeof *tmp);
        if (!tmp) return HEPA_ERR_OUT_OF_MEMORY;
        memcpy(tmp, pt->data, t * n * sizeof *tmp);
        _hepa_host_ntt_inverse(r, t, tmp);
        c = tmp;
    }
    double *U = malloc(2 * h * sizeof *U);
    if (!U) {
        free(tmp);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    const double inv_scale = 1.0 / scale;
    for (size_t k = 0; k < h; ++k) { /* u_k = (m_k + i·m_(k+h))/Δ · ζ^k */
        const double a = ckks_crt_to_double(&e->crt, t, c + k, n) * inv_scale;
        const double b = ckks_crt_to_double(&e->crt, t, c + k + h, n) * inv_scale;
        const double cs = e->twist[2 * k], sn = e->twist[2 * k + 1];
        U[2 * k] = a * cs - b * sn;
        U[2 * k + 1] = a * sn + b * cs;
    }
    free(tmp);
    hepa_status s = hepa_dft_host(U, h, 1, 1);
    if (s == HEPA_OK)
        for (size_t j = 0; j < h; ++j) {
            slots[2 * j] = U[2 * e->perm[j]];
            slots[2 * j + 1] = U[2 * e->perm[j] + 1];
        }
    free(U);
    return s;
}

/* ---- DFT mode (hepa/ckks.h, DFT MODE) ------------------------------------------------------ */

/* The modes in the order of their cost inside the encoder, cheapest first, and their documented
 * relative L2 error bounds (hepa/dft.h). Measured on an H100 (hepa-bench --ckks, every mode
 * forced, N = 2^12 ... 2^17; bench/results/2026-11-24-h100-ckks-modes.md): FP64 encodes fastest
 * at every N and decode costs the same in every mode (±3 µs), so AUTO resolves to FP64. A GPU
 * where a tensor-core mode is cheaper would reorder this table (per N if need be); the error rule
 * in hepa_ckks_dft_mode then keeps the choice as accurate as the encoding itself. */
static const struct {
    hepa_dft_mode mode;
    double eps;
} mode_cost_order[] = {{HEPA_DFT_FP64, 1e-15}, {HEPA_DFT_FP16X2, 1e-6}, {HEPA_DFT_FP16, 2e-3}};

int hepa_ckks_dft_mode(const hepa_ckks_encoder *e, double scale) {
    if (!e || !(scale > 0) || !isfinite(scale)) return -1;
    if (e->dft_mode != HEPA_CKKS_DFT_AUTO) return e->dft_mode;
    /* the first (cheapest) mode whose DFT error stays below the rounding: ε·Δ <= 0.29·sqrt(N)
     * for slots of magnitude up to 1; FP64, the most accurate, where none does */
    const double limit = 0.29 * sqrt((double)e->ring->n);
    for (size_t i = 0; i < sizeof mode_cost_order / sizeof mode_cost_order[0]; ++i)
        if (mode_cost_order[i].eps * scale <= limit) return (int)mode_cost_order[i].mode;
    return (int)HEPA_DFT_FP64;
}

hepa_status hepa_ckks_encoder_set_dft_mode(hepa_ckks_encoder *e, int mode) {
    if (!e) return HEPA_ERR_INVALID_ARGUMENT;
    if (mode == (int)HEPA_DFT_FP32) {
        _hepa_set_error_message("hepa_ckks_encoder_set_dft_mode: the encoder does not offer "
                                "HEPA_DFT_FP32");
        return HEPA_ERR_UNSUPPORTED;
    }
    if (mode != HEPA_CKKS_DFT_AUTO && mode != (int)HEPA_DFT_FP64 && mode != (int)HEPA_DFT_FP16 &&
        mode != (int)HEPA_DFT_FP16X2)
        return HEPA_ERR_INVALID_ARGUMENT;
    if (mode != HEPA_CKKS_DFT_AUTO && mode != (int)HEPA_DFT_FP64) {
        if (e->ring->backend != HEPA_BACKEND_CUDA) {
            _hepa_set_error_message("hepa_ckks_encoder_set_dft_mode: the CPU backend has only the "
                                    "double-precision DFT");
            return HEPA_ERR_UNSUPPORTED;
        }
        const hepa_status s = _hepa_dev_ckks_set_mode(e, mode);
        if (s != HEPA_OK) return s;
    }
    e->dft_mode = mode;
    return HEPA_OK;
}

/* ---- public entry points ----------------------------------------------------------------- */

hepa_status hepa_ckks_encode(const hepa_ckks_encoder *e, hepa_poly *out, const double *slots,
                             double scale) {
    if (!e || !out) return HEPA_ERR_INVALID_ARGUMENT;
    if (out->ring != e->ring) return HEPA_ERR_MISMATCH;
    if (!(scale > 0) || !isfinite(scale)) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_status s = check_slots_ptr(e->ring, slots);
    if (s != HEPA_OK) return s;
    if (e->ring->backend == HEPA_BACKEND_CUDA)
        return _hepa_dev_ckks_encode(e, out, slots, scale, hepa_ckks_dft_mode(e, scale));
    return host_encode(e, out, slots, scale);
}

hepa_status hepa_ckks_decode(const hepa_ckks_encoder *e, const hepa_poly *pt, double scale,
                             double *slots) {
    if (!e || !pt) return HEPA_ERR_INVALID_ARGUMENT;
    if (pt->ring != e->ring) return HEPA_ERR_MISMATCH;
    if (!(scale > 0) || !isfinite(scale)) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_status s = check_slots_ptr(e->ring, slots);
    if (s != HEPA_OK) return s;
    const size_t t = hepa_ckks_decode_limbs(e, pt->level, scale);
    if (t == 0) return HEPA_ERR_UNSUPPORTED;
    if (e->ring->backend == HEPA_BACKEND_CUDA)
        return _hepa_dev_ckks_decode(e, pt, scale, slots, t, hepa_ckks_dft_mode(e, scale));
    return host_decode(e, pt, scale, slots, t);
}
