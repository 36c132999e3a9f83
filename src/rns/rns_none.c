/* src/rns/rns_none.c — stands in for rns_cuda.cu in a CPU-only build, where no ring is on the
 * CUDA backend and these are never reached (see device/device_none.c). */
#include "rns/internal.h"

hepa_status _hepa_dev_tensor(const hepa_ring *ring, size_t level, uint64_t *d0, uint64_t *d1,
                             uint64_t *d2, const uint64_t *a0, const uint64_t *a1,
                             const uint64_t *b0, const uint64_t *b1) {
    (void)ring, (void)level, (void)d0, (void)d1, (void)d2, (void)a0, (void)a1, (void)b0, (void)b1;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_rescale(const hepa_ring *ring, size_t level, uint64_t *out0,
                              const uint64_t *a0, uint64_t *out1, const uint64_t *a1, int ntt,
                              uint64_t *tmp) {
    (void)ring, (void)level, (void)out0, (void)a0, (void)out1, (void)a1, (void)ntt, (void)tmp;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_automorphism(const hepa_ring *ring, size_t level, uint64_t *out,
                                   const uint64_t *a, uint64_t g, int ntt) {
    (void)ring, (void)level, (void)out, (void)a, (void)g, (void)ntt;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_conv(const hepa_ring *ring, const hepa_conv_job *jobs, size_t njobs,
                           size_t max_ns, int exact) {
    (void)ring, (void)jobs, (void)njobs, (void)max_ns, (void)exact;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ntt_map(const hepa_ring *ring, int inverse, uint64_t *out,
                              const uint64_t *in, const uint32_t *map, size_t count) {
    (void)ring, (void)inverse, (void)out, (void)in, (void)map, (void)count;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ks_modup1(const hepa_ring *ring, size_t l, size_t E, uint64_t *ext,
                                const uint64_t *c, const uint64_t *coef, const uint32_t *map,
                                size_t count, const uint64_t *aux) {
    (void)ring, (void)l, (void)E, (void)ext, (void)c, (void)coef, (void)map, (void)count,
        (void)aux;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ks_inner(const hepa_ring *ring, size_t level, size_t K, size_t dnum,
                               uint64_t *t0, uint64_t *t1, const uint64_t *ext,
                               const unsigned char *key, size_t comp, uint64_t packed) {
    (void)ring, (void)level, (void)K, (void)dnum, (void)t0, (void)t1, (void)ext, (void)key;
    (void)comp, (void)packed;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ks_inner_auto(const hepa_ring *ring, size_t level, size_t K, size_t dnum,
                                    uint64_t *t0, uint64_t *t1, const uint64_t *ext,
                                    const unsigned char *key, size_t comp, uint64_t packed,
                                    uint64_t g) {
    (void)ring, (void)level, (void)K, (void)dnum, (void)t0, (void)t1, (void)ext, (void)key;
    (void)comp, (void)packed, (void)g;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ksk_pack(const hepa_ring *ring, unsigned char *dst, const uint64_t *src,
                               uint64_t packed) {
    (void)ring, (void)dst, (void)src, (void)packed;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_sub_scale(const hepa_ring *ring, size_t level, int npoly, uint64_t *out0,
                                const uint64_t *a0, const uint64_t *b0, uint64_t *out1,
                                const uint64_t *a1, const uint64_t *b1, const uint64_t *s,
                                const uint64_t *s_sh, const uint64_t *c0, const uint64_t *c1) {
    (void)c0, (void)c1, (void)ring, (void)level, (void)npoly, (void)out0, (void)a0, (void)b0,
        (void)out1, (void)a1, (void)b1, (void)s, (void)s_sh;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ks_rescale_prep(const hepa_ring *ring, size_t level, uint64_t *t0,
                                      uint64_t *t1, const hepa_tensor_in *tens, uint64_t pmod) {
    (void)ring, (void)level, (void)t0, (void)t1, (void)tens, (void)pmod;
    return HEPA_ERR_NO_DEVICE;
}
