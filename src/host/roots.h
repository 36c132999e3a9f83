/* src/host/roots.h — the complex roots of unity of the library's host-built tables (the host DFT
 * reference, the DFT plans' twiddles, the CKKS encoder's twist and slot roots), computed one way
 * everywhere: the angle 2π·num/den in long double, then cosl and sinl, rounded once by the
 * caller to double or float. */
#ifndef HEPA_SRC_HOST_ROOTS_H
#define HEPA_SRC_HOST_ROOTS_H

#include <math.h>
#include <stdint.h>

#define HEPA_TWO_PI_L 6.283185307179586476925286766559005768L

/* cos and sin of 2π·num/den (den > 0). */
static inline void hepa_root_ld(uint64_t num, uint64_t den, long double *c, long double *s) {
    const long double a = HEPA_TWO_PI_L * (long double)num / (long double)den;
    *c = cosl(a);
    *s = sinl(a);
}

#endif /* HEPA_SRC_HOST_ROOTS_H */
