/* src/device/bigprime_none.c — stands in for src/ntt/bigprime_cuda.cu in a CPU-only build: the
 * device big-prime functions of hepa/bigprime_cuda.h link and report that there is no device. */
#include "hepa/bigprime_cuda.h"

hepa_status hepa_bp_dev_field_init(const hepa_bp_field *f, hepa_bp_dev_field *out) {
    (void)f, (void)out;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_dev_upload(const hepa_bp_field *f, uint64_t *d_x, const uint64_t *h_x,
                               size_t N, void *stream) {
    (void)f, (void)d_x, (void)h_x, (void)N, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_dev_download(const hepa_bp_field *f, uint64_t *h_x, const uint64_t *d_x,
                                 size_t N, void *stream) {
    (void)f, (void)h_x, (void)d_x, (void)N, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_dev_add(const hepa_bp_field *f, uint64_t *d_z, const uint64_t *d_x,
                            const uint64_t *d_y, size_t N, void *stream) {
    (void)f, (void)d_z, (void)d_x, (void)d_y, (void)N, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_dev_sub(const hepa_bp_field *f, uint64_t *d_z, const uint64_t *d_x,
                            const uint64_t *d_y, size_t N, void *stream) {
    (void)f, (void)d_z, (void)d_x, (void)d_y, (void)N, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_dev_neg(const hepa_bp_field *f, uint64_t *d_z, const uint64_t *d_x, size_t N,
                            void *stream) {
    (void)f, (void)d_z, (void)d_x, (void)N, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_dev_mul(const hepa_bp_field *f, uint64_t *d_z, const uint64_t *d_x,
                            const uint64_t *d_y, size_t N, void *stream) {
    (void)f, (void)d_z, (void)d_x, (void)d_y, (void)N, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_dev_mul_rpow(const hepa_bp_field *f, uint64_t *d_z, const uint64_t *d_x,
                                 size_t N, unsigned i, void *stream) {
    (void)f, (void)d_z, (void)d_x, (void)N, (void)i, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_bp_dev_add(hepa_bp_dev_field df, uint64_t *d_z, const uint64_t *d_x,
                             const uint64_t *d_y, size_t N, void *stream) {
    (void)df, (void)d_z, (void)d_x, (void)d_y, (void)N, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_bp_dev_sub(hepa_bp_dev_field df, uint64_t *d_z, const uint64_t *d_x,
                             const uint64_t *d_y, size_t N, void *stream) {
    (void)df, (void)d_z, (void)d_x, (void)d_y, (void)N, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_bp_dev_neg(hepa_bp_dev_field df, uint64_t *d_z, const uint64_t *d_x, size_t N,
                             void *stream) {
    (void)df, (void)d_z, (void)d_x, (void)N, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_bp_dev_mul(hepa_bp_dev_field df, uint64_t *d_z, const uint64_t *d_x,
                             const uint64_t *d_y, size_t N, void *stream) {
    (void)df, (void)d_z, (void)d_x, (void)d_y, (void)N, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status _hepa_bp_dev_mul_rpow(hepa_bp_dev_field df, uint64_t *d_z, const uint64_t *d_x,
                                  size_t N, unsigned i, void *stream) {
    (void)df, (void)d_z, (void)d_x, (void)N, (void)i, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_dev_fft(const hepa_bp_field *f, uint64_t *d_x, size_t N, int inverse,
                            void *stream) {
    (void)f, (void)d_x, (void)N, (void)inverse, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_dev_plan_create(hepa_bp_dev_plan **plan, const hepa_bp_field *f, size_t N,
                                    unsigned flags) {
    (void)plan, (void)f, (void)N, (void)flags;
    return HEPA_ERR_NO_DEVICE;
}
void hepa_bp_dev_plan_destroy(hepa_bp_dev_plan *plan) { (void)plan; }
size_t hepa_bp_dev_plan_size(const hepa_bp_dev_plan *plan) {
    (void)plan;
    return 0;
}
hepa_status hepa_bp_dev_plan_fft(const hepa_bp_dev_plan *plan, uint64_t *d_out,
                                 const uint64_t *d_in, int inverse, void *stream) {
    (void)plan, (void)d_out, (void)d_in, (void)inverse, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_dev_poly_mul(const hepa_bp_dev_plan *plan, uint64_t *d_z, const uint64_t *d_x,
                                 const uint64_t *d_y, int negacyclic, void *stream) {
    (void)plan, (void)d_z, (void)d_x, (void)d_y, (void)negacyclic, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
hepa_status hepa_bp_rns_plan_create(hepa_bp_rns_plan **plan, const hepa_bp_field *f, size_t N) {
    (void)plan, (void)f, (void)N;
    return HEPA_ERR_NO_DEVICE;
}
void hepa_bp_rns_plan_destroy(hepa_bp_rns_plan *plan) { (void)plan; }
size_t hepa_bp_rns_plan_primes(const hepa_bp_rns_plan *plan) {
    (void)plan;
    return 0;
}
const uint64_t *hepa_bp_rns_plan_moduli(const hepa_bp_rns_plan *plan) {
    (void)plan;
    return NULL;
}
hepa_status hepa_bp_rns_poly_mul(const hepa_bp_rns_plan *plan, uint64_t *d_z, const uint64_t *d_x,
                                 const uint64_t *d_y, void *stream) {
    (void)plan, (void)d_z, (void)d_x, (void)d_y, (void)stream;
    return HEPA_ERR_NO_DEVICE;
}
