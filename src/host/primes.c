/* src/host/primes.c — deterministic 64-bit primality, NTT-friendly primes, roots of unity. */
#include <string.h>

#include "hepa/modarith.h"
#include "hepa/primes.h"

/* a*b mod m for any 64-bit values (m > 0); not a hot path, so plain 128-bit division. */
static uint64_t mulmod_any(uint64_t a, uint64_t b, uint64_t m) {
    return (uint64_t)(((unsigned __int128)a * b) % m);
}

static uint64_t powmod_any(uint64_t a, uint64_t e, uint64_t m) {
    uint64_t r = 1 % m;
    a %= m;
    while (e) {
        if (e & 1) r = mulmod_any(r, a, m);
        a = mulmod_any(a, a, m);
        e >>= 1;
    }
    return r;
}

int hepa_is_prime(uint64_t x) {
    static const uint64_t bases[12] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    if (x < 2) return 0;
    for (int i = 0; i < 12; ++i) {
        if (x == bases[i]) return 1;
        if (x % bases[i] == 0) return 0;
    }
    /* x odd, > 37: x - 1 = d·2^s with d odd */
    uint64_t d = x - 1;
    unsigned s = 0;
    while ((d & 1) == 0) {
        d >>= 1;
        ++s;
    }
    for (int i = 0; i < 12; ++i) {
        uint64_t y = powmod_any(bases[i], d, x);
        if (y == 1 || y == x - 1) continue;
        unsigned r = 1;
        for (; r < s; ++r) {
            y = mulmod_any(y, y, x);
            if (y == x - 1) break;
        }
        if (r == s) return 0; /* bases[i] witnesses that x is composite */
    }
    return 1;
}

static int is_pow2(uint64_t x) { return x && (x & (x - 1)) == 0; }

hepa_status hepa_primes_ntt(uint64_t *out, size_t count, unsigned bits, size_t n) {
    if (bits < 20 || bits > 62) return HEPA_ERR_INVALID_ARGUMENT;
    if (!is_pow2(n) || n < 2 || n > ((size_t)1 << 30)) return HEPA_ERR_INVALID_ARGUMENT;
    const uint64_t step = 2 * (uint64_t)n;
    const uint64_t lo = UINT64_C(1) << (bits - 1);
    if (step >= lo) return HEPA_ERR_INVALID_ARGUMENT;
    if (count == 0) return HEPA_OK;
    if (!out) return HEPA_ERR_INVALID_ARGUMENT;
    /* fewer candidates than asked for: no need to scan (2^(bits-1) / 2n of them) */
    if (count > (lo / step)) return HEPA_ERR_UNSUPPORTED;

    /* Candidates are k·2n + 1 in [2^(bits-1), 2^bits), scanned downward. Collect into the
     * output only once all are found, so a failed call leaves out untouched. The first
     * candidate: the largest k·2n + 1 below 2^bits, i.e. 2^bits - 2n + 1 (2n divides 2^bits). */
    size_t found = 0;
    uint64_t q = (UINT64_C(1) << bits) - step + 1;
    for (; q >= lo && found < count; q -= step) {
        if (hepa_is_prime(q)) ++found;
        if (q < lo + step) break; /* next step would leave the range (and could wrap) */
    }
    if (found < count) return HEPA_ERR_UNSUPPORTED;
    found = 0;
    for (q = (UINT64_C(1) << bits) - step + 1; found < count; q -= step)
        if (hepa_is_prime(q)) out[found++] = q;
    return HEPA_OK;
}

hepa_status hepa_primitive_root(uint64_t *root, uint64_t q, uint64_t m) {
    if (!root || q >= HEPA_MODULUS_LIMIT || !hepa_is_prime(q) || q == 2) return HEPA_ERR_INVALID_ARGUMENT;
    if (!is_pow2(m) || m < 2 || (q - 1) % m != 0) return HEPA_ERR_INVALID_ARGUMENT;
    const hepa_modulus mod = hepa_modulus_make(q);
    /* x = g^((q-1)/m) has order dividing m; it is primitive exactly when x^(m/2) = -1. Some g
     * below q works (a generator of Z_q^* does), and in practice a small one. */
    uint64_t x = 0;
    for (uint64_t g = 2; g < q; ++g) {
        x = hepa_mod_pow(g, (q - 1) / m, &mod);
        if (hepa_mod_pow(x, m / 2, &mod) == q - 1) break;
    }
    /* The primitive m-th roots are x^j for odd j < m; return the smallest, so the choice is
     * canonical (independent of how x was found). */
    uint64_t best = x, x2 = hepa_mod_mul(x, x, &mod), cur = x;
    for (uint64_t j = 3; j < m; j += 2) {
        cur = hepa_mod_mul(cur, x2, &mod);
        if (cur < best) best = cur;
    }
    *root = best;
    return HEPA_OK;
}
