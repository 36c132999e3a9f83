/* tests/test_util.c — see test_util.h. */
#include "test_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <criterion/hooks.h>

_Static_assert(sizeof(unsigned long) == 8, "GMP's *_ui functions must take 64-bit words");

#define SEED_ENV "HEPA_TEST_SEED"

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t fresh_seed(void) {
    uint64_t s = 0;
    if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s = (uint64_t)ts.tv_sec * UINT64_C(1000000007) ^ (uint64_t)ts.tv_nsec;
    }
    return s;
}

static int parse_seed(const char *text, uint64_t *out) {
    if (!text || !*text) return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || !end || *end) return 0;
    *out = (uint64_t)v;
    return 1;
}

/* Criterion runs every test in a fresh process (it re-executes the binary), so globals set in the
 * runner do not reach the tests — but the environment does. The runner fixes the seed once,
 * exports it and prints it; the test processes read it back. */
ReportHook(PRE_ALL)(struct criterion_test_set *set) {
    (void)set;
    uint64_t s;
    if (!parse_seed(getenv(SEED_ENV), &s)) {
        s = fresh_seed();
        char buf[32];
        snprintf(buf, sizeof buf, "%" PRIu64, s);
        setenv(SEED_ENV, buf, 1);
    }
    fprintf(stderr, "hepa tests: %s=%" PRIu64 "%s\n", SEED_ENV, s,
            test_quick() ? " (HEPA_TEST_QUICK: reduced sizes)" : "");
}

uint64_t test_seed(void) {
    static int have = 0;
    static uint64_t seed;
    if (!have) {
        if (!parse_seed(getenv(SEED_ENV), &seed)) {
            /* Run outside the Criterion runner's hook: pick one and export it so that it is at
             * least logged below. */
            seed = fresh_seed();
            char buf[32];
            snprintf(buf, sizeof buf, "%" PRIu64, seed);
            setenv(SEED_ENV, buf, 1);
        }
        have = 1;
    }
    return seed;
}

int test_quick(void) {
    const char *q = getenv("HEPA_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

void test_rng_init_label(test_rng *r, const char *label) {
    /* FNV-1a of the label, mixed with the seed, expanded by splitmix64. */
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const char *p = label; p && *p; ++p) {
        h ^= (unsigned char)*p;
        h *= UINT64_C(0x100000001b3);
    }
    uint64_t x = test_seed() ^ h;
    for (int i = 0; i < 4; ++i) r->s[i] = splitmix64(&x);
    cr_log_info("seed %" PRIu64 " (%s)", test_seed(), label ? label : "");
}

void test_rng_init(test_rng *r) {
    char label[256] = "";
    if (criterion_current_test)
        snprintf(label, sizeof label, "%s/%s", criterion_current_test->category,
                 criterion_current_test->name);
    test_rng_init_label(r, label);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t test_rand64(test_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t test_rand_below(test_rng *r, uint64_t bound) {
    /* Rejection sampling: unbiased, so a residue sweep really is uniform. */
    if (bound == 0) return test_rand64(r);
    uint64_t limit = UINT64_MAX - (UINT64_MAX % bound + 1) % bound; /* accept x <= limit */
    uint64_t x;
    do x = test_rand64(r);
    while (x > limit);
    return x % bound;
}

uint64_t test_rand_range(test_rng *r, uint64_t lo, uint64_t hi) {
    if (lo == 0 && hi == UINT64_MAX) return test_rand64(r);
    return lo + test_rand_below(r, hi - lo + 1);
}

uint64_t test_rand_residue_edgy(test_rng *r, uint64_t q) {
    switch (test_rand_below(r, 8)) {
    case 0: return 0;
    case 1: return 1 % q;
    case 2: return q - 1;
    case 3: return q > 2 ? q - 2 : 0;
    case 4: return q / 2;
    default: return test_rand_below(r, q);
    }
}

void test_fill_residues(test_rng *r, uint64_t *a, size_t n, uint64_t q) {
    for (size_t j = 0; j < n; ++j) a[j] = test_rand_below(r, q);
}

void test_fill_limbs(test_rng *r, uint64_t *a, size_t n, const uint64_t *moduli, size_t L) {
    for (size_t i = 0; i < L; ++i) test_fill_residues(r, a + i * n, n, moduli[i]);
}

size_t test_first_diff(const uint64_t *a, const uint64_t *b, size_t count) {
    for (size_t i = 0; i < count; ++i)
        if (a[i] != b[i]) return i;
    return SIZE_MAX;
}

void test_poison(uint64_t *a, size_t count) {
    for (size_t i = 0; i < count; ++i) a[i] = UINT64_C(0xDEADBEEF00000000) | (uint64_t)i;
}

uint64_t *test_alloc(size_t count) {
    uint64_t *p = malloc((count ? count : 1) * sizeof *p);
    cr_assert(p != NULL, "out of memory allocating %zu words", count);
    return p;
}

uint64_t test_powmod(uint64_t a, uint64_t e, uint64_t q) {
    uint64_t r = 1 % q, b = a % q;
    while (e) {
        if (e & 1) r = test_mulmod(r, b, q);
        b = test_mulmod(b, b, q);
        e >>= 1;
    }
    return r;
}

uint64_t test_invmod(uint64_t a, uint64_t q) {
    mpz_t x, m;
    mpz_init_set_ui(x, a);
    mpz_init_set_ui(m, q);
    uint64_t r = 0;
    if (mpz_invert(x, x, m)) r = mpz_get_ui(x);
    mpz_clear(x);
    mpz_clear(m);
    return r;
}

size_t test_bitrev(size_t k, unsigned logn) {
    size_t r = 0;
    for (unsigned b = 0; b < logn; ++b) r |= ((k >> b) & 1) << (logn - 1 - b);
    return r;
}

unsigned test_log2(size_t n) {
    unsigned l = 0;
    while (((size_t)1 << l) < n) ++l;
    return l;
}

int test_gmp_is_prime(uint64_t x) {
    mpz_t z;
    mpz_init_set_ui(z, x);
    int r = mpz_probab_prime_p(z, 50) != 0;
    mpz_clear(z);
    return r;
}

uint64_t test_prev_prime_1mod(uint64_t limit, uint64_t m, uint64_t floor) {
    if (limit <= 1) return 0;
    /* largest c < limit with c ≡ 1 mod m */
    uint64_t c = ((limit - 2) / m) * m + 1;
    for (;;) {
        if (c < floor) return 0;
        if (test_gmp_is_prime(c)) return c;
        if (c < m + 1) return 0;
        c -= m;
    }
}

uint64_t test_next_prime_1mod(uint64_t start, uint64_t m) {
    /* smallest c >= start with c ≡ 1 mod m */
    u128 c = start <= 1 ? 1 : ((u128)(start - 2) / m + 1) * m + 1;
    for (; c <= UINT64_MAX; c += m)
        if (test_gmp_is_prime((uint64_t)c)) return (uint64_t)c;
    return 0;
}

size_t test_primes_1mod_desc(uint64_t *out, size_t count, unsigned bits, uint64_t m) {
    uint64_t lo = UINT64_C(1) << (bits - 1);
    uint64_t limit = bits == 64 ? UINT64_MAX : UINT64_C(1) << bits;
    size_t found = 0;
    while (found < count) {
        uint64_t p = test_prev_prime_1mod(limit, m, lo);
        if (!p) break;
        out[found++] = p;
        limit = p;
    }
    return found;
}

void test_negacyclic_schoolbook(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n,
                                uint64_t q) {
    /* pos[k] collects the terms with i+j = k, neg[k] those with i+j = k+n (x^n = -1). Products
     * are < 2^124, so up to 15 of them fit an unsigned __int128 before a reduction. */
    for (size_t k = 0; k < n; ++k) {
        u128 pos = 0, neg = 0;
        unsigned cp = 0, cn = 0;
        for (size_t i = 0; i <= k; ++i) {
            pos += (u128)a[i] * b[k - i];
            if (++cp == 15) pos %= q, cp = 1;
        }
        for (size_t i = k + 1; i < n; ++i) {
            neg += (u128)a[i] * b[n + k - i];
            if (++cn == 15) neg %= q, cn = 1;
        }
        uint64_t p = (uint64_t)(pos % q), m = (uint64_t)(neg % q);
        out[k] = p >= m ? p - m : p + q - m;
    }
}

uint64_t test_negacyclic_coeff(const uint64_t *a, const uint64_t *b, size_t n, uint64_t q,
                               size_t k) {
    u128 pos = 0, neg = 0;
    unsigned cp = 0, cn = 0;
    for (size_t i = 0; i <= k; ++i) {
        pos += (u128)a[i] * b[k - i];
        if (++cp == 15) pos %= q, cp = 1;
    }
    for (size_t i = k + 1; i < n; ++i) {
        neg += (u128)a[i] * b[n + k - i];
        if (++cn == 15) neg %= q, cn = 1;
    }
    uint64_t p = (uint64_t)(pos % q), m = (uint64_t)(neg % q);
    return p >= m ? p - m : p + q - m;
}

void test_crt_init(test_crt *c, const uint64_t *moduli, size_t L) {
    c->L = L;
    c->moduli = malloc(L * sizeof *c->moduli);
    c->basis = malloc(L * sizeof *c->basis);
    cr_assert(c->moduli && c->basis, "out of memory");
    memcpy(c->moduli, moduli, L * sizeof *moduli);
    mpz_init_set_ui(c->Q, 1);
    for (size_t i = 0; i < L; ++i) mpz_mul_ui(c->Q, c->Q, moduli[i]);
    mpz_t qi, hat;
    mpz_init(qi);
    mpz_init(hat);
    for (size_t i = 0; i < L; ++i) {
        mpz_init(c->basis[i]);
        mpz_set_ui(qi, moduli[i]);
        mpz_divexact_ui(hat, c->Q, moduli[i]);
        int ok = mpz_invert(c->basis[i], hat, qi);
        cr_assert(ok, "test CRT: moduli not coprime (q_%zu = %" PRIu64 ")", i, moduli[i]);
        mpz_mul(c->basis[i], c->basis[i], hat);
    }
    mpz_clear(qi);
    mpz_clear(hat);
}

void test_crt_clear(test_crt *c) {
    for (size_t i = 0; i < c->L; ++i) mpz_clear(c->basis[i]);
    mpz_clear(c->Q);
    free(c->basis);
    free(c->moduli);
}

void test_crt_compose(const test_crt *c, mpz_t out, const uint64_t *limbs, size_t stride) {
    mpz_set_ui(out, 0);
    for (size_t i = 0; i < c->L; ++i) mpz_addmul_ui(out, c->basis[i], limbs[i * stride]);
    mpz_mod(out, out, c->Q);
}

void test_negacyclic_mpz(mpz_t *out, const mpz_t *a, const mpz_t *b, size_t n, const mpz_t Q) {
    for (size_t k = 0; k < n; ++k) mpz_set_ui(out[k], 0);
    for (size_t i = 0; i < n; ++i) {
        if (mpz_sgn(a[i]) == 0) continue;
        for (size_t j = 0; j < n; ++j) {
            if (i + j < n)
                mpz_addmul(out[i + j], a[i], b[j]);
            else
                mpz_submul(out[i + j - n], a[i], b[j]);
        }
    }
    for (size_t k = 0; k < n; ++k) mpz_mod(out[k], out[k], Q); /* mpz_mod: result in [0, Q) */
}

void test_negacyclic_gmp(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n,
                         const uint64_t *moduli, size_t L) {
    test_crt c;
    test_crt_init(&c, moduli, L);
    mpz_t *za = malloc(n * sizeof *za), *zb = malloc(n * sizeof *zb), *zc = malloc(n * sizeof *zc);
    cr_assert(za && zb && zc, "out of memory");
    for (size_t j = 0; j < n; ++j) {
        mpz_init(za[j]);
        mpz_init(zb[j]);
        mpz_init(zc[j]);
        test_crt_compose(&c, za[j], a + j, n);
        test_crt_compose(&c, zb[j], b + j, n);
    }
    test_negacyclic_mpz(zc, (const mpz_t *)za, (const mpz_t *)zb, n, c.Q);
    for (size_t i = 0; i < L; ++i)
        for (size_t j = 0; j < n; ++j) out[i * n + j] = mpz_fdiv_ui(zc[j], moduli[i]);
    for (size_t j = 0; j < n; ++j) {
        mpz_clear(za[j]);
        mpz_clear(zb[j]);
        mpz_clear(zc[j]);
    }
    free(za);
    free(zb);
    free(zc);
    test_crt_clear(&c);
}

double test_rand_unit(test_rng *r) { return (double)(test_rand64(r) >> 11) * 0x1p-52 - 1.0; }

uint16_t test_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    const uint32_t fe = (x >> 23) & 0xffu, mant = x & 0x7fffffu;
    if (fe == 0xffu) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u)); /* inf, NaN */
    const int e = (int)fe - 127 + 15; /* half's biased exponent */
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* half subnormal (or zero): value = hm·2^-24 */
        if (e < -10) return sign;
        const uint32_t m = mant | 0x800000u;
        const unsigned shift = (unsigned)(14 - e);
        uint32_t hm = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (hm & 1u))) ++hm;
        return (uint16_t)(sign | hm);
    }
    uint32_t h = ((uint32_t)e << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h; /* a carry may reach infinity */
    return (uint16_t)(sign | h);
}

float test_f16_to_f32(uint16_t h) {
    const float s = (h & 0x8000u) ? -1.0f : 1.0f;
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0) return s * ldexpf((float)m, -24);
    if (e == 31) return m ? NAN : s * INFINITY;
    return s * ldexpf((float)(m | 0x400), e - 25);
}

mpz_t *test_mpz_array(size_t n) {
    mpz_t *z = malloc(n * sizeof *z);
    cr_assert(z);
    for (size_t j = 0; j < n; ++j) mpz_init(z[j]);
    return z;
}

void test_mpz_array_free(mpz_t *z, size_t n) {
    for (size_t j = 0; j < n; ++j) mpz_clear(z[j]);
    free(z);
}

void test_ks_moduli(uint64_t *q, size_t n, size_t L, size_t K, unsigned bits) {
    uint64_t big[64] = {0};
    cr_assert(K + 1 <= 64);
    cr_assert_eq(test_primes_1mod_desc(big, K + 1, 60, 2 * (uint64_t)n), K + 1);
    if (L > 1) cr_assert_eq(test_primes_1mod_desc(q + 1, L - 1, bits, 2 * (uint64_t)n), L - 1);
    q[0] = big[0];
    for (size_t k = 0; k < K; ++k) q[L + k] = big[1 + k];
}
