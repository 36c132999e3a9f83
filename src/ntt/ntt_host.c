/* src/ntt/ntt_host.c — the fast host negacyclic NTT: Harvey's lazy butterflies with Shoup
 * twiddles (hepa_butterfly_ct_lazy / hepa_butterfly_gs_lazy from hepa/modarith.h, the same
 * code the GPU kernels run), same stage order and tables as the reference in ntt_ref.c.
 * On AVX-512 CPUs every stage runs eight butterflies at a time (ntt_host_avx512.c;
 * bit-identical results) when n >= 16; otherwise the scalar code below runs.
 *
 * Ranges (q < 2^62, so 4q fits a word):
 *   forward: values stay in [0, 4q) through every stage; a final pass reduces to [0, q).
 *   inverse: values stay in [0, 2q); the last stage folds in the n^(-1) scaling
 *            (n_inv for the sum, n_inv·ψ^(-rev(1)) for the difference). */
#include <stdatomic.h>

#include "host/env.h"
#include "ntt/internal.h"

int _hepa_ntt_use_avx512(void) {
    /* -1: undecided. Racing first calls compute and store the same value; the atomic makes
     * that race well defined (relaxed order suffices: the value carries no other data). */
    static _Atomic int use = -1;
    int u = atomic_load_explicit(&use, memory_order_relaxed);
    if (u < 0) {
        u = _hepa_cpu_has_avx512() && !_hepa_env_flag("HEPA_NO_AVX512");
        atomic_store_explicit(&use, u, memory_order_relaxed);
    }
    return u;
}

/* One scalar forward stage (see _hepa_ntt_fwd_stage_avx512 for the block layout). */
static void fwd_stage(uint64_t *restrict a, size_t m, size_t half, const uint64_t *restrict w,
                      const uint64_t *restrict wp, uint64_t q) {
    for (size_t i = 0; i < m; ++i) {
        const uint64_t wi = w[m + i], wpi = wp[m + i];
        uint64_t *restrict x = a + 2 * i * half;
        uint64_t *restrict y = x + half;
        for (size_t j = 0; j < half; ++j) hepa_butterfly_ct_lazy(x + j, y + j, wi, wpi, q);
    }
}

static void inv_stage(uint64_t *restrict a, size_t h, size_t half, const uint64_t *restrict w,
                      const uint64_t *restrict wp, uint64_t q) {
    for (size_t i = 0; i < h; ++i) {
        const uint64_t wi = w[h + i], wpi = wp[h + i];
        uint64_t *restrict x = a + 2 * i * half;
        uint64_t *restrict y = x + half;
        for (size_t j = 0; j < half; ++j) hepa_butterfly_gs_lazy(x + j, y + j, wi, wpi, q);
    }
}

void _hepa_ntt_forward_lazy(const hepa_ntt_tables *t, uint64_t *a) {
    const size_t n = t->n;
    const uint64_t q = t->mod.value;
    const int vec = _hepa_ntt_use_avx512();
    size_t half = n;
    for (size_t m = 1; m < n; m <<= 1) {
        half >>= 1;
#ifdef HEPA_HOST_AVX512
        if (vec && half % 8 == 0) {
            _hepa_ntt_fwd_stage_avx512(a, m, half, t->fwd, t->fwd_shoup, q);
            continue;
        }
        if (vec && n >= 16) { /* half in {1, 2, 4} */
            _hepa_ntt_fwd_short_avx512(a, m, half, t->fwd, t->fwd_shoup, q);
            continue;
        }
#endif
        fwd_stage(a, m, half, t->fwd, t->fwd_shoup, q);
    }
    (void)vec;
}

void _hepa_ntt_forward(const hepa_ntt_tables *t, uint64_t *a) {
    _hepa_ntt_forward_lazy(t, a);
    const uint64_t q = t->mod.value;
#ifdef HEPA_HOST_AVX512
    if (_hepa_ntt_use_avx512() && t->n % 8 == 0) {
        _hepa_reduce_avx512(a, t->n, q, 1);
        return;
    }
#endif
    for (size_t j = 0; j < t->n; ++j) a[j] = hepa_reduce_4q(a[j], q);
}

void _hepa_ntt_inverse_lazy(const hepa_ntt_tables *t, uint64_t *a) {
    const size_t n = t->n;
    const uint64_t q = t->mod.value, two_q = 2 * q;
    const int vec = _hepa_ntt_use_avx512();
    size_t half = 1;
    for (size_t m = n; m > 2; m >>= 1) {
        const size_t h = m >> 1;
#ifdef HEPA_HOST_AVX512
        if (vec && half % 8 == 0)
            _hepa_ntt_inv_stage_avx512(a, h, half, t->inv, t->inv_shoup, q);
        else if (vec && n >= 16) /* half in {1, 2, 4} */
            _hepa_ntt_inv_short_avx512(a, h, half, t->inv, t->inv_shoup, q);
        else
#endif
            inv_stage(a, h, half, t->inv, t->inv_shoup, q);
        half <<= 1;
    }
    /* last stage (m = 2, half = n/2) with the n^(-1) scaling merged in */
    const uint64_t s = t->n_inv, sp = t->n_inv_shoup, sw = t->n_inv_w, swp = t->n_inv_w_shoup;
#ifdef HEPA_HOST_AVX512
    if (vec && half % 8 == 0) {
        _hepa_ntt_inv_last_avx512(a, half, s, sp, sw, swp, q);
        return;
    }
#endif
    (void)vec;
    for (size_t j = 0; j < half; ++j) {
        uint64_t u = a[j], v = a[j + half];          /* [0, 2q) */
        a[j] = hepa_mul_shoup_lazy(u + v, s, sp, q); /* [0, 2q) */
        a[j + half] = hepa_mul_shoup_lazy(u - v + two_q, sw, swp, q);
    }
}

void _hepa_ntt_inverse(const hepa_ntt_tables *t, uint64_t *a) {
    _hepa_ntt_inverse_lazy(t, a);
    const uint64_t q = t->mod.value;
#ifdef HEPA_HOST_AVX512
    if (_hepa_ntt_use_avx512() && t->n % 8 == 0) {
        _hepa_reduce_avx512(a, t->n, q, 0);
        return;
    }
#endif
    for (size_t j = 0; j < t->n; ++j) a[j] = hepa_reduce_2q(a[j], q);
}
