/* src/device/device_none.c — stands in for the CUDA glue in a CPU-only build. No ring can be on
 * the CUDA backend there (hepa_ring_create refuses it with HEPA_ERR_NO_DEVICE), so the device
 * entry points below are never reached; they exist so the library links, and say so if called. */
#include "device/internal.h"
#include "hepa/poly.h"
#include "hepa/ring.h"

#include <stdlib.h>

int hepa_device_count(void) { return 0; }

HEPA_API int hepa_cuda_available(void) { return 0; }

struct hepa_ring;
hepa_status _hepa_dev_ring_init(struct hepa_ring *ring) { (void)ring; return HEPA_ERR_NO_DEVICE; }
void _hepa_dev_ring_free(struct hepa_ring *ring) { (void)ring; }
hepa_status _hepa_dev_sync(const struct hepa_ring *ring) { (void)ring; return HEPA_ERR_NO_DEVICE; }
hepa_status _hepa_dev_alloc(const struct hepa_ring *ring, void **ptr, size_t bytes) {
    (void)ring, (void)ptr, (void)bytes;
    return HEPA_ERR_NO_DEVICE;
}
void _hepa_dev_free(const struct hepa_ring *ring, void *ptr) { (void)ring, (void)ptr; }
hepa_status _hepa_dev_copy(const struct hepa_ring *ring, void *dst, const void *src, size_t bytes,
                           int kind) {
    (void)ring, (void)dst, (void)src, (void)bytes, (void)kind;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_memset(const struct hepa_ring *ring, void *dst, int value, size_t bytes) {
    (void)ring, (void)dst, (void)value, (void)bytes;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ntt_forward(const struct hepa_ring *ring, size_t level, uint64_t *out,
                                  const uint64_t *in) {
    (void)ring, (void)level, (void)out, (void)in;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ntt_forward2(const struct hepa_ring *ring, size_t level, uint64_t *out_a,
                                   const uint64_t *in_a, uint64_t *out_b, const uint64_t *in_b) {
    (void)ring, (void)level, (void)out_a, (void)in_a, (void)out_b, (void)in_b;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_fork(const struct hepa_ring *ring) {
    (void)ring;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_join(const struct hepa_ring *ring) {
    (void)ring;
    return HEPA_ERR_NO_DEVICE;
}
int _hepa_dev_capturing(const struct hepa_ring *ring) {
    (void)ring;
    return 0;
}
hepa_status _hepa_dev_view_create(const struct hepa_ring *ring, hepa_ring_device **out) {
    (void)ring, (void)out;
    return HEPA_ERR_NO_DEVICE;
}
void _hepa_dev_view_destroy(hepa_ring_device *view) {
    (void)view;
}
hepa_status _hepa_dev_graph_begin(const struct hepa_ring *view) {
    (void)view;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_graph_end(const struct hepa_ring *view, const struct hepa_ring *ring,
                                void **exec, int ok) {
    (void)view, (void)ring, (void)exec, (void)ok;
    return HEPA_ERR_NO_DEVICE;
}
void _hepa_dev_graph_free(void *exec) {
    (void)exec;
}
hepa_status _hepa_dev_ntt_inverse(const struct hepa_ring *ring, size_t level, uint64_t *out,
                                  const uint64_t *in) {
    (void)ring, (void)level, (void)out, (void)in;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ntt_mul(const struct hepa_ring *ring, size_t level, uint64_t *out,
                              const uint64_t *a, const uint64_t *b, uint64_t *fa, uint64_t *fb) {
    (void)ring, (void)level, (void)out, (void)a, (void)b, (void)fa, (void)fb;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ntt_modup_cols(const struct hepa_ring *ring, size_t count, size_t run,
                                     uint64_t *ext, const uint64_t *coef, const uint32_t *map,
                                     const uint64_t *aux) {
    (void)ring, (void)count, (void)run, (void)ext, (void)coef, (void)map, (void)aux;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ntt_modupn_cols(const struct hepa_ring *ring, size_t level, size_t E,
                                      size_t alpha, uint64_t *ext, const uint64_t *coef,
                                      const uint32_t *map, const uint64_t *const *tabs) {
    (void)ring, (void)level, (void)E, (void)alpha, (void)ext, (void)coef, (void)map, (void)tabs;
    return HEPA_ERR_NO_DEVICE;
}
int _hepa_dev_ks_packed(const struct hepa_ring *ring) {
    (void)ring;
    return 0;
}
hepa_status _hepa_dev_ntt_moddownn_cols(const struct hepa_ring *ring, size_t level, size_t K,
                                        uint64_t *mid, const uint64_t *coef, const uint32_t *map,
                                        const uint64_t *tab) {
    (void)ring, (void)level, (void)K, (void)mid, (void)coef, (void)map, (void)tab;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ks_rows_inner(const struct hepa_ring *ring, size_t level, size_t K,
                                    size_t alpha, size_t dnum, uint64_t *t0, uint64_t *t1,
                                    const uint64_t *ext, const uint64_t *c,
                                    const unsigned char *key, size_t comp, uint64_t packed,
                                    size_t i0, size_t ni, int pack_q, int last_first, int pdl) {
    (void)ring, (void)level, (void)K, (void)alpha, (void)dnum, (void)t0, (void)t1, (void)ext,
        (void)c, (void)key, (void)comp, (void)packed, (void)i0, (void)ni, (void)pack_q,
        (void)last_first, (void)pdl;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ntt_moddown(const struct hepa_ring *ring, size_t level, uint64_t *out0,
                                  uint64_t *out1, uint64_t *mid, const uint64_t *t0,
                                  const uint64_t *t1, const uint64_t *y0, const uint64_t *y1,
                                  const uint64_t *conv_aux, const uint64_t *scale_aux,
                                  const uint64_t *add0, const uint64_t *add1,
                                  const hepa_tensor_in *tens, int packed_t, int phase,
                                  int rescale) {
    (void)ring, (void)level, (void)out0, (void)out1, (void)t0, (void)t1, (void)y0, (void)y1,
        (void)conv_aux, (void)scale_aux, (void)mid, (void)add0, (void)add1, (void)tens,
        (void)packed_t, (void)phase, (void)rescale;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_elementwise(const struct hepa_ring *ring, size_t level, hepa_ew_op op,
                                  uint64_t *out, const uint64_t *a, const uint64_t *b,
                                  const uint64_t *host_scalars) {
    (void)ring, (void)level, (void)op, (void)out, (void)a, (void)b, (void)host_scalars;
    return HEPA_ERR_NO_DEVICE;
}

HEPA_API hepa_status hepa_host_alloc(void **out, size_t bytes) {
    if (!out || bytes == 0) return HEPA_ERR_INVALID_ARGUMENT;
    void *p = malloc(bytes);
    if (!p) return HEPA_ERR_OUT_OF_MEMORY;
    *out = p;
    return HEPA_OK;
}

HEPA_API void hepa_host_free(void *ptr) { free(ptr); }

int _hepa_dev_is_pinned(const void *ptr) { (void)ptr; return 0; }

/* CKKS encoder and DFT plans (hepa/ckks.h, hepa/dft.h): no device in this build. */
#include "hepa/dft.h"
struct hepa_ckks_encoder;
int _hepa_dev_ptr_is_device(const void *p) {
    (void)p;
    return 0;
}
hepa_status _hepa_dev_ckks_init(struct hepa_ckks_encoder *e) {
    (void)e;
    return HEPA_ERR_NO_DEVICE;
}
void _hepa_dev_ckks_free(struct hepa_ckks_encoder *e) { (void)e; }
hepa_status _hepa_dev_ckks_set_mode(struct hepa_ckks_encoder *e, int mode) {
    (void)e, (void)mode;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ckks_encode(const struct hepa_ckks_encoder *e, struct hepa_poly *out,
                                  const double *slots, double scale, int mode) {
    (void)e, (void)out, (void)slots, (void)scale, (void)mode;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_dev_ckks_decode(const struct hepa_ckks_encoder *e, const struct hepa_poly *pt,
                                  double scale, double *slots, size_t t, int mode) {
    (void)e, (void)pt, (void)scale, (void)slots, (void)t, (void)mode;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_dft_plan_create(hepa_dft_plan **out, size_t n, size_t batch, hepa_dft_mode mode) {
    (void)out, (void)n, (void)batch, (void)mode;
    _hepa_set_error_message("hepa_dft_plan_create: this build has no CUDA backend");
    return HEPA_ERR_UNSUPPORTED;
}
void hepa_dft_plan_destroy(hepa_dft_plan *p) { (void)p; }
hepa_status _hepa_dft_plan_create_split(hepa_dft_plan **out, size_t n, size_t batch,
                                        hepa_dft_mode mode, unsigned l1) {
    (void)l1;
    return hepa_dft_plan_create(out, n, batch, mode);
}
int _hepa_dft_plan_passes(const hepa_dft_plan *p) {
    (void)p;
    return 0;
}
const char *_hepa_dft_plan_kernel(const hepa_dft_plan *p) {
    (void)p;
    return "none";
}
hepa_status _hepa_dft_exec(const hepa_dft_plan *p, void *o, const void *i, int inv, void *st) {
    (void)p, (void)o, (void)i, (void)inv, (void)st;
    return HEPA_ERR_UNSUPPORTED;
}
hepa_status hepa_dft_exec(const hepa_dft_plan *p, void *o, const void *i, int inv, void *st) {
    (void)p, (void)o, (void)i, (void)inv, (void)st;
    return HEPA_ERR_UNSUPPORTED;
}
