/* src/rns/ckks_internal.h — the CKKS encoder's layout, shared by ckks.c (host path, dispatch)
 * and ckks_cuda.cu (device path). */
#ifndef HEPA_SRC_RNS_CKKS_INTERNAL_H
#define HEPA_SRC_RNS_CKKS_INTERNAL_H

#include "rns/ckks_core.h"
#include "rns/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hepa_ckks_encoder {
    const hepa_ring *ring;
    size_t h;           /* N/2 slots */
    uint32_t *perm;     /* perm[j] = t_j = (5^j mod 2N - 1)/4, a permutation of [0, h) */
    double *twist;      /* twist[k] = ζ^k (re, im), k < h, rounded from long double */
    double *halfq;      /* halfq[l-1] = floor(Q_l / 2) rounded down to a double (inf if huge) */
    double *log2q;      /* log2q[l-1] = log2(Q_l) */
    ckks_crt_consts crt;
    int dft_mode;       /* HEPA_CKKS_DFT_AUTO or the forced hepa_dft_mode (hepa/ckks.h) */
    void *dev;          /* CUDA backend: struct ckks_dev (ckks_cuda.cu), else NULL */
};

/* CUDA backend (ckks_cuda.cu; device_none.c in a CPU-only build). */
hepa_status _hepa_dev_ckks_init(struct hepa_ckks_encoder *enc);
void _hepa_dev_ckks_free(struct hepa_ckks_encoder *enc);
/* The device path of hepa_ckks_encoder_set_dft_mode: creates the mode's DFT plan if needed. */
hepa_status _hepa_dev_ckks_set_mode(struct hepa_ckks_encoder *enc, int mode);
/* mode: the hepa_dft_mode of the call (hepa_ckks_dft_mode) */
hepa_status _hepa_dev_ckks_encode(const struct hepa_ckks_encoder *enc, hepa_poly *out,
                                  const double *slots, double scale, int mode);
hepa_status _hepa_dev_ckks_decode(const struct hepa_ckks_encoder *enc, const hepa_poly *pt,
                                  double scale, double *slots, size_t t, int mode);

#ifdef __cplusplus
}
#endif

#endif /* HEPA_SRC_RNS_CKKS_INTERNAL_H */
