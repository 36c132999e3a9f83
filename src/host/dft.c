/* src/host/dft.c — the host reference complex DFT (hepa_dft_host): iterative radix-2,
 * bit-reversal first, twiddles e^(∓2πi·m/n) computed in long double and rounded once to double.
 * The device plans (src/device/dft_cuda.cu) are checked against it. */
#include <math.h>
#include <stdlib.h>

#include "hepa/dft.h"

#define HEPA_DFT_HOST_MAX_N ((size_t)1 << 20)

/* e^(-2πi·m/n) for m < n/2 (re, im interleaved), from long double. */
static double *roots(size_t n) {
    double *w = malloc((n / 2 + 1) * 2 * sizeof *w);
    if (!w) return NULL;
    const long double two_pi = 6.283185307179586476925286766559005768L;
    for (size_t m = 0; m < n / 2; ++m) {
        const long double a = two_pi * (long double)m / (long double)n;
        w[2 * m] = (double)cosl(a);
        w[2 * m + 1] = (double)-sinl(a);
    }
    return w;
}

hepa_status hepa_dft_host(double *x, size_t n, size_t batch, int inverse) {
    if (n == 0 || (n & (n - 1)) || n > HEPA_DFT_HOST_MAX_N) return HEPA_ERR_INVALID_ARGUMENT;
    if (batch == 0) return HEPA_OK;
    if (!x) return HEPA_ERR_INVALID_ARGUMENT;
    if (n == 1) return HEPA_OK;
    double *w = roots(n);
    if (!w) return HEPA_ERR_OUT_OF_MEMORY;
    const double sign = inverse ? -1.0 : 1.0; /* conjugate twiddles for the inverse */
    for (size_t b = 0; b < batch; ++b) {
        double *v = x + 2 * n * b;
        for (size_t i = 1, j = 0; i < n; ++i) { /* bit reversal */
            size_t bit = n >> 1;
            for (; j & bit; bit >>= 1) j ^= bit;
            j |= bit;
            if (i < j) {
                const double r = v[2 * i], im = v[2 * i + 1];
                v[2 * i] = v[2 * j];
                v[2 * i + 1] = v[2 * j + 1];
                v[2 * j] = r;
                v[2 * j + 1] = im;
            }
        }
        for (size_t len = 2; len <= n; len <<= 1) {
            const size_t half = len / 2, step = n / len;
            for (size_t s = 0; s < n; s += len)
                for (size_t k = 0; k < half; ++k) {
                    const double wr = w[2 * k * step], wi = sign * w[2 * k * step + 1];
                    double *a = v + 2 * (s + k), *c = v + 2 * (s + k + half);
                    const double tr = c[0] * wr - c[1] * wi, ti = c[0] * wi + c[1] * wr;
                    c[0] = a[0] - tr;
                    c[1] = a[1] - ti;
                    a[0] += tr;
                    a[1] += ti;
                }
        }
    }
    free(w);
    return HEPA_OK;
}
