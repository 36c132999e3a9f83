/* src/ntt/ntt_ref.c — the reference negacyclic NTT: textbook radix-2 loops, every value fully
 * reduced to [0, q) after every operation. Slow and obviously right; the fast host transform
 * (ntt_host.c) and the device kernels are tested against it.
 *
 * Forward (Cooley–Tukey, ψ merged): at stage m (1, 2, 4, ..., n/2) block i of size 2t = n/m
 * is combined with twiddle ψ^rev(m+i). Inverse (Gentleman–Sande) undoes the stages in reverse
 * order with ψ^(-rev(h+i)), then multiplies by n^(-1). */
#include "ntt/internal.h"

void _hepa_ntt_forward_ref(const hepa_ntt_tables *t, uint64_t *a);
void _hepa_ntt_inverse_ref(const hepa_ntt_tables *t, uint64_t *a);

void _hepa_ntt_forward_ref(const hepa_ntt_tables *t, uint64_t *a) {
    const size_t n = t->n;
    const uint64_t q = t->mod.value;
    size_t half = n;
    for (size_t m = 1; m < n; m <<= 1) {
        half >>= 1;
        for (size_t i = 0; i < m; ++i) {
            const uint64_t w = t->fwd[m + i];
            for (size_t j = 2 * i * half; j < 2 * i * half + half; ++j) {
                uint64_t u = a[j];
                uint64_t v = hepa_mod_mul(a[j + half], w, &t->mod);
                a[j] = hepa_mod_add(u, v, q);
                a[j + half] = hepa_mod_sub(u, v, q);
            }
        }
    }
}

void _hepa_ntt_inverse_ref(const hepa_ntt_tables *t, uint64_t *a) {
    const size_t n = t->n;
    const uint64_t q = t->mod.value;
    size_t half = 1;
    for (size_t m = n; m > 1; m >>= 1) {
        const size_t h = m >> 1;
        for (size_t i = 0; i < h; ++i) {
            const uint64_t w = t->inv[h + i];
            for (size_t j = 2 * i * half; j < 2 * i * half + half; ++j) {
                uint64_t u = a[j], v = a[j + half];
                a[j] = hepa_mod_add(u, v, q);
                a[j + half] = hepa_mod_mul(hepa_mod_sub(u, v, q), w, &t->mod);
            }
        }
        half <<= 1;
    }
    for (size_t j = 0; j < n; ++j) a[j] = hepa_mod_mul(a[j], t->n_inv, &t->mod);
}
