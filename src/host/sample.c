/* src/host/sample.c — ChaCha20 keystream generator and the polynomial samplers of
 * hepa/sample.h (see there for what is constant time). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "hepa/sample.h"
#include "rns/internal.h"

struct hepa_rng {
    uint32_t key[8];
    uint64_t counter;    /* 64-bit block counter (words 12, 13), 64-bit zero nonce */
    uint8_t block[64];   /* current keystream block */
    unsigned used;       /* bytes of block consumed, 64 = empty */
};

#define ROTL32(x, r) (((x) << (r)) | ((x) >> (32 - (r))))
#define QR(a, b, c, d)                                                                         \
    a += b, d ^= a, d = ROTL32(d, 16), c += d, b ^= c, b = ROTL32(b, 12), a += b, d ^= a,      \
        d = ROTL32(d, 8), c += d, b ^= c, b = ROTL32(b, 7)

/* One ChaCha20 block (RFC 8439 section 2.3 with a 64-bit counter and nonce 0). */
static void chacha_block(hepa_rng *g) {
    uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    memcpy(s + 4, g->key, 32);
    s[12] = (uint32_t)g->counter;
    s[13] = (uint32_t)(g->counter >> 32);
    s[14] = s[15] = 0;
    uint32_t x[16];
    memcpy(x, s, sizeof x);
    for (int i = 0; i < 10; ++i) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; ++i) {
        const uint32_t w = x[i] + s[i];
        g->block[4 * i] = (uint8_t)w, g->block[4 * i + 1] = (uint8_t)(w >> 8);
        g->block[4 * i + 2] = (uint8_t)(w >> 16), g->block[4 * i + 3] = (uint8_t)(w >> 24);
    }
    g->counter++;
    g->used = 0;
}

hepa_status hepa_rng_create(hepa_rng **out, const uint8_t *seed) {
    if (!out) return HEPA_ERR_INVALID_ARGUMENT;
    uint8_t k[32];
    if (seed) {
        memcpy(k, seed, 32);
    } else {
        size_t got = 0;
        while (got < sizeof k) {
            const ssize_t r = getrandom(k + got, sizeof k - got, 0);
            if (r <= 0) return HEPA_ERR_UNSUPPORTED;
            got += (size_t)r;
        }
    }
    hepa_rng *g = calloc(1, sizeof *g);
    if (!g) return HEPA_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < 8; ++i)
        g->key[i] = (uint32_t)k[4 * i] | (uint32_t)k[4 * i + 1] << 8 |
                    (uint32_t)k[4 * i + 2] << 16 | (uint32_t)k[4 * i + 3] << 24;
    memset(k, 0, sizeof k);
    g->used = 64;
    *out = g;
    return HEPA_OK;
}

void hepa_rng_destroy(hepa_rng *g) {
    if (!g) return;
    volatile uint8_t *p = (volatile uint8_t *)g; /* not optimised away */
    for (size_t i = 0; i < sizeof *g; ++i) p[i] = 0;
    free(g);
}

static void rng_fill(hepa_rng *g, uint8_t *buf, size_t bytes) {
    while (bytes) {
        if (g->used == 64) chacha_block(g);
        size_t take = 64 - g->used;
        if (take > bytes) take = bytes;
        memcpy(buf, g->block + g->used, take);
        g->used += (unsigned)take;
        buf += take;
        bytes -= take;
    }
}

hepa_status hepa_rng_bytes(hepa_rng *g, void *buf, size_t bytes) {
    if (!g || (!buf && bytes)) return HEPA_ERR_INVALID_ARGUMENT;
    rng_fill(g, buf, bytes);
    return HEPA_OK;
}

static uint64_t rng_u64(hepa_rng *g) {
    uint8_t b[8];
    rng_fill(g, b, 8);
    uint64_t x = 0;
    for (int i = 7; i >= 0; --i) x = x << 8 | b[i];
    return x;
}

/* A host buffer of the polynomial's level·n words, filled by `fill`, then set into the poly
 * (uploaded on the CUDA backend) and wiped. */
static hepa_status finish(hepa_poly *p, uint64_t *buf, hepa_domain domain) {
    const size_t words = p->level * p->ring->n;
    hepa_status s = hepa_poly_set(p, buf, domain);
    volatile uint64_t *v = buf;
    for (size_t i = 0; i < words; ++i) v[i] = 0;
    free(buf);
    return s;
}

static hepa_status alloc_buf(hepa_rng *g, hepa_poly *p, uint64_t **buf) {
    if (!g || !p) return HEPA_ERR_INVALID_ARGUMENT;
    *buf = calloc(p->level * p->ring->n, sizeof **buf);
    return *buf ? HEPA_OK : HEPA_ERR_OUT_OF_MEMORY;
}

hepa_status hepa_sample_uniform(hepa_rng *g, hepa_poly *p, hepa_domain domain) {
    if (domain != HEPA_DOMAIN_COEFF && domain != HEPA_DOMAIN_NTT) return HEPA_ERR_INVALID_ARGUMENT;
    uint64_t *buf;
    hepa_status s = alloc_buf(g, p, &buf);
    if (s != HEPA_OK) return s;
    const size_t n = p->ring->n;
    for (size_t i = 0; i < p->level; ++i) {
        const uint64_t q = p->ring->moduli[i];
        unsigned bits = 64 - (unsigned)__builtin_clzll(q); /* q < 2^bits, so p(accept) > 1/2 */
        const uint64_t mask = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
        for (size_t j = 0; j < n; ++j) {
            uint64_t x;
            do x = rng_u64(g) & mask;
            while (x >= q);
            buf[i * n + j] = x;
        }
    }
    return finish(p, buf, domain);
}

/* Signed coefficients c[j] (|c| < 2^61) into every limb: c mod q_i, branch-free. */
static void spread_signed(const hepa_poly *p, const int64_t *c, uint64_t *buf) {
    const size_t n = p->ring->n;
    for (size_t i = 0; i < p->level; ++i) {
        const uint64_t q = p->ring->moduli[i];
        for (size_t j = 0; j < n; ++j) {
            const uint64_t neg = (uint64_t)(c[j] >> 63); /* all ones when negative */
            buf[i * n + j] = (uint64_t)c[j] + (q & neg);
        }
    }
}

/* Signed samples: coefficient j = draw(g, ctx), spread into every limb, wiped afterwards. */
typedef int64_t (*draw_fn)(hepa_rng *g, const void *ctx);

static hepa_status sample_signed(hepa_rng *g, hepa_poly *p, draw_fn draw, const void *ctx) {
    uint64_t *buf;
    hepa_status s = alloc_buf(g, p, &buf);
    if (s != HEPA_OK) return s;
    const size_t n = p->ring->n;
    int64_t *c = malloc(n * sizeof *c);
    if (!c) {
        free(buf);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    for (size_t j = 0; j < n; ++j) c[j] = draw(g, ctx);
    spread_signed(p, c, buf);
    volatile int64_t *v = c;
    for (size_t j = 0; j < n; ++j) v[j] = 0;
    free(c);
    return finish(p, buf, HEPA_DOMAIN_COEFF);
}

static int64_t draw_ternary(hepa_rng *g, const void *ctx) {
    (void)ctx;
    uint8_t b;
    do rng_fill(g, &b, 1);
    while (b >= 255); /* 255 = 3·85: b mod 3 is then uniform */
    return (int64_t)(b % 3) - 1;
}

hepa_status hepa_sample_ternary(hepa_rng *g, hepa_poly *p) {
    return sample_signed(g, p, draw_ternary, NULL);
}

/* Cumulative table over k = -B .. B: T[m] = floor(2^64 · P(X <= -B + m)) for m < 2B, in long
 * double (64-bit mantissa). A sample is -B + #{m : u >= T[m]} for a uniform 64-bit u, counted
 * over the whole table (no early exit). */
typedef struct cdt {
    int B;
    uint64_t T[2 * 96];
} cdt;

static int64_t draw_gaussian(hepa_rng *g, const void *ctx) {
    const cdt *t = ctx;
    const uint64_t u = rng_u64(g);
    int64_t k = -t->B;
    for (int m = 0; m < 2 * t->B; ++m) k += (int64_t)(u >= t->T[m]);
    return k;
}

hepa_status hepa_sample_gaussian(hepa_rng *g, hepa_poly *p, double sigma) {
    if (!(sigma > 0 && sigma <= 16)) return HEPA_ERR_INVALID_ARGUMENT;
    cdt t;
    t.B = (int)ceil(6 * sigma);
    long double w[2 * 96 + 1], total = 0;
    for (int k = -t.B; k <= t.B; ++k)
        total += w[k + t.B] = expl(-(long double)k * k / (2.0L * sigma * sigma));
    long double acc = 0;
    for (int m = 0; m < 2 * t.B; ++m) {
        acc += w[m];
        const long double x = ldexpl(acc / total, 64);
        t.T[m] = x >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)x;
    }
    return sample_signed(g, p, draw_gaussian, &t);
}
