/* src/host/dft.c — the host reference complex DFT (hepa_dft_host): iterative radix-2,
 * bit-reversal first, twiddles e^(∓2πi·m/n) computed in long double and rounded once to double.
 * The device plans (src/device/dft_cuda.cu) are checked against it. */
#include <math.h>
#include <stdlib.h>

#include "hepa/dft.h"
#include "host/roots.h"

#define HEPA_DFT_HOST_MAX_N ((size_t)1 << 20)

/* One radix-2 body for both precisions: twiddles e^(∓2πi·m/n), m < n/2, computed in long double
 * and rounded once to TYPE; bit reversal first, then log2 n butterfly levels per vector. */
#define HEPA_DFT_HOST_BODY(NAME, TYPE)                                                             \
    hepa_status NAME(TYPE *x, size_t n, size_t batch, int inverse) {                               \
        if (n == 0 || (n & (n - 1)) || n > HEPA_DFT_HOST_MAX_N) return HEPA_ERR_INVALID_ARGUMENT;  \
        if (batch == 0) return HEPA_OK;                                                            \
        if (!x) return HEPA_ERR_INVALID_ARGUMENT;                                                  \
        if (n == 1) return HEPA_OK;                                                                \
        TYPE *w = malloc(n * sizeof *w); /* (re, im) for m < n/2 */                                \
        if (!w) return HEPA_ERR_OUT_OF_MEMORY;                                                     \
        for (size_t m = 0; m < n / 2; ++m) {                                                       \
            long double c, s;                                                                      \
            hepa_root_ld(m, n, &c, &s);                                                            \
            w[2 * m] = (TYPE)c;                                                                    \
            w[2 * m + 1] = (TYPE)(inverse ? s : -s);                                               \
        }                                                                                          \
        for (size_t b = 0; b < batch; ++b) {                                                       \
            TYPE *v = x + 2 * n * b;                                                               \
            for (size_t i = 1, j = 0; i < n; ++i) {                                                \
                size_t bit = n >> 1;                                                               \
                for (; j & bit; bit >>= 1)                                                         \
                    j ^= bit;                                                                      \
                j |= bit;                                                                          \
                if (i < j) {                                                                       \
                    const TYPE r = v[2 * i], im = v[2 * i + 1];                                    \
                    v[2 * i] = v[2 * j];                                                           \
                    v[2 * i + 1] = v[2 * j + 1];                                                   \
                    v[2 * j] = r;                                                                  \
                    v[2 * j + 1] = im;                                                             \
                }                                                                                  \
            }                                                                                      \
            for (size_t len = 2; len <= n; len <<= 1) {                                            \
                const size_t half = len / 2, step = n / len;                                       \
                for (size_t s = 0; s < n; s += len)                                                \
                    for (size_t k = 0; k < half; ++k) {                                            \
                        const TYPE wr = w[2 * k * step], wi = w[2 * k * step + 1];                 \
                        TYPE *a = v + 2 * (s + k), *c = v + 2 * (s + k + half);                    \
                        const TYPE tr = c[0] * wr - c[1] * wi, ti = c[0] * wi + c[1] * wr;         \
                        c[0] = a[0] - tr;                                                          \
                        c[1] = a[1] - ti;                                                          \
                        a[0] += tr;                                                                \
                        a[1] += ti;                                                                \
                    }                                                                              \
            }                                                                                      \
        }                                                                                          \
        free(w);                                                                                   \
        return HEPA_OK;                                                                            \
    }

HEPA_DFT_HOST_BODY(hepa_dft_host, double)
HEPA_DFT_HOST_BODY(hepa_dft_host_ld, long double)
