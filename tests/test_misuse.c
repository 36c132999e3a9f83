/* tests/test_misuse.c — random calls of the checked API (hepa/poly.h, hepa/rns.h,
 * hepa/keyswitch.h, hepa/sample.h, hepa/ckks.h) on the CPU backend with random operands: NULL,
 * polynomials of other rings and levels, both domains, outputs aliasing inputs, odd scalars and
 * indices. It found hepa_poly_tensor writing past a d0 of a lower level (its check skipped d0).
 *
 * After every call:
 *   - the status is a hepa_status;
 *   - argument errors (INVALID_ARGUMENT, MISMATCH, DOMAIN) left every polynomial untouched
 *     (data, domain and level: hepa/poly.h and hepa/rns.h promise it); so did HEPA_ERR_RANGE
 *     and HEPA_ERR_UNSUPPORTED, except encode's output, which ckks.h leaves undefined on error;
 *   - on HEPA_OK only the call's outputs changed, and every polynomial's residues are below
 *     their moduli.
 * Test bigprime_untouched does the same for the checked big-prime field API (bigprime.h: outputs
 * untouched on error, inputs never changed), with non-canonical digits and bad sizes.
 * Test key_transfer does it for switching-key export and import (plain and seeded): the exact
 * status of every call, *out untouched on error, and on success the imported key's words.
 * The rings are small (n = 16 .. 64, 4 to 6 moduli of 30, 40 and 60 bits) so that 10^5 calls
 * take about 3 s (Release); HEPA_TEST_QUICK=1 runs 5000. Replay a run with its HEPA_TEST_SEED. */
#include <math.h>
#include <string.h>

#include "test_util.h"
#include "hepa/bigprime.h"
#include "hepa/ckks.h"
#include "hepa/keyswitch.h"
#include "hepa/poly.h"
#include "hepa/primes.h"
#include "hepa/ring.h"
#include "hepa/rns.h"
#include "hepa/sample.h"

enum { NR = 3, NP = 24, NKS = 6, MAXN = 64 };

typedef struct world {
    test_rng t;
    hepa_ring *r[NR];
    hepa_poly *p[NP];
    hepa_ks *ks[NKS];
    hepa_ksk *key[NKS];
    hepa_ckks_encoder *enc[NR];
    hepa_rng *g;
} world;

/* (ring, K, digit size) of the key-switching contexts: digits of 1, 2, 3 limbs, 1-3 specials */
static const size_t ks_shape[NKS][3] = {{0, 1, 1}, {0, 2, 3}, {0, 3, 2},
                                        {1, 1, 1}, {1, 2, 2}, {2, 1, 3}};

static size_t below(world *w, size_t k) {
    return k ? (size_t)test_rand_below(&w->t, k) : 0;
}

/* FNV-1a over a polynomial's words, domain and level (0 for NULL) */
static uint64_t fingerprint(hepa_poly *p) {
    if (!p) return 0;
    const size_t n = hepa_ring_n(hepa_poly_ring(p)), l = hepa_poly_level(p);
    const uint64_t *d = hepa_poly_data(p);
    uint64_t h = 1469598103934665603ull ^ (uint64_t)hepa_poly_domain(p) ^ (uint64_t)l << 8;
    for (size_t i = 0; i < l * n; ++i)
        h = (h ^ d[i]) * 1099511628211ull;
    return h;
}

static void assert_canonical(hepa_poly *p, const char *what) {
    const hepa_ring *r = hepa_poly_ring(p);
    const size_t n = hepa_ring_n(r), l = hepa_poly_level(p);
    const uint64_t *d = hepa_poly_data(p);
    for (size_t i = 0; i < l; ++i)
        for (size_t j = 0; j < n; ++j)
            T_CHECK(d[i * n + j] < hepa_ring_modulus(r, i), "%s: limb %zu word %zu = %llu", what, i,
                    j, (unsigned long long)d[i * n + j]);
}

static void fill_random(world *w, hepa_poly *p, hepa_domain dom) {
    T_OK(hepa_sample_uniform(w->g, p, dom));
}

/* a pool polynomial, or (about one time in nine) NULL */
static hepa_poly *any(world *w) {
    const size_t i = below(w, NP + 3);
    return i < NP ? w->p[i] : NULL;
}

static void world_init(world *w) {
    memset(w, 0, sizeof *w);
    test_rng_init(&w->t);
    uint64_t q40[8], q60[4], q30[4];
    T_OK(hepa_primes_ntt(q40, 8, 40, MAXN));
    T_OK(hepa_primes_ntt(q60, 4, 60, MAXN));
    T_OK(hepa_primes_ntt(q30, 4, 30, MAXN));
    const uint64_t m0[6] = {q60[0], q40[0], q40[1], q40[2], q60[1], q60[2]};
    const uint64_t m1[5] = {q30[0], q40[3], q40[4], q30[1], q60[3]};
    const uint64_t m2[4] = {q40[5], q40[6], q40[7], q30[2]};
    T_OK(hepa_ring_create(&w->r[0], 16, m0, 6, HEPA_BACKEND_CPU));
    T_OK(hepa_ring_create(&w->r[1], 64, m1, 5, HEPA_BACKEND_CPU));
    T_OK(hepa_ring_create(&w->r[2], 32, m2, 4, HEPA_BACKEND_CPU));
    uint8_t seed[32];
    for (int i = 0; i < 32; ++i)
        seed[i] = (uint8_t)test_rand64(&w->t);
    T_OK(hepa_rng_create(&w->g, seed));
    for (int i = 0; i < NP; ++i) {
        const hepa_ring *r = w->r[i % NR];
        T_OK(hepa_poly_create(&w->p[i], r, 1 + below(w, hepa_ring_num_moduli(r))));
        fill_random(w, w->p[i], (hepa_domain)below(w, 2));
    }
    for (int i = 0; i < NKS; ++i) {
        const hepa_ring *r = w->r[ks_shape[i][0]];
        T_OK(hepa_ks_create(&w->ks[i], r, ks_shape[i][1], ks_shape[i][2]));
        const size_t M = hepa_ring_num_moduli(r);
        hepa_poly *a = NULL, *b = NULL;
        T_OK(hepa_poly_create(&a, r, M));
        T_OK(hepa_poly_create(&b, r, M));
        T_OK(hepa_sample_ternary(w->g, a));
        T_OK(hepa_sample_ternary(w->g, b));
        T_OK(hepa_poly_to_ntt(a));
        T_OK(hepa_poly_to_ntt(b));
        T_OK(hepa_ksk_create(&w->key[i], w->ks[i], a, b, w->g));
        hepa_poly_destroy(a), hepa_poly_destroy(b);
    }
    for (int i = 0; i < NR; ++i)
        T_OK(hepa_ckks_encoder_create(&w->enc[i], w->r[i]));
}

static void world_clear(world *w) {
    for (int i = 0; i < NR; ++i)
        hepa_ckks_encoder_destroy(w->enc[i]);
    for (int i = 0; i < NKS; ++i)
        hepa_ksk_destroy(w->key[i]), hepa_ks_destroy(w->ks[i]);
    for (int i = 0; i < NP; ++i)
        hepa_poly_destroy(w->p[i]);
    for (int i = 0; i < NR; ++i)
        hepa_ring_destroy(w->r[i]);
    hepa_rng_destroy(w->g);
}

/* Coherent operands (seven out of ten calls): fresh polynomials of one ring, mostly of one level
 * and domain, so that the deep paths run too; the rest come from the pool. */
typedef struct operands {
    hepa_poly *x[7];   /* x[0] is the usual output */
    hepa_poly *own[7]; /* the fresh ones, destroyed after the call */
    size_t ks;         /* a key-switching context matching the ring (coherent calls) */
} operands;

static void pick(world *w, operands *o, int op) {
    memset(o, 0, sizeof *o);
    o->ks = below(w, NKS);
    if (below(w, 10) >= 7) {
        for (int i = 0; i < 7; ++i)
            o->x[i] = any(w);
        return;
    }
    const int ksop = (op >= 13 && op <= 15) || op == 23;
    const hepa_ring *r = w->r[ksop ? ks_shape[o->ks][0] : below(w, NR)];
    const size_t M = hepa_ring_num_moduli(r);
    size_t lv = 1 + below(w, M);
    if (ksop && below(w, 4)) lv = 1 + below(w, hepa_ks_max_level(w->ks[o->ks]));
    const hepa_domain dom = (hepa_domain)below(w, 2);
    for (int i = 0; i < 7; ++i) {
        const size_t li = below(w, 12) == 0 ? 1 + below(w, M) : lv;
        T_OK(hepa_poly_create(&o->own[i], r, li));
        fill_random(w, o->own[i], below(w, 12) == 0 ? (hepa_domain)below(w, 2) : dom);
        o->x[i] = o->own[i];
    }
    if (below(w, 6) == 0) o->x[0] = o->x[1]; /* output on an input */
    if (below(w, 8) == 0) o->x[2] = o->x[1]; /* the same operand twice */
}

/* One random call. outs[] receives the polynomials the call may change on success. Returns its
 * status; *undefined_on_error is set where the API leaves outs undefined on error. */
static hepa_status call(world *w, operands *o, int op, hepa_poly **outs, int *nouts,
                        int *undefined_on_error) {
    hepa_poly **x = o->x;
    uint64_t buf[6 * MAXN];
    double slots[MAXN + 8];
    *nouts = 1;
    outs[0] = x[0];
    *undefined_on_error = 0;
    switch (op) {
    case 0:
        return hepa_poly_add(x[0], x[1], x[2]);
    case 1:
        return hepa_poly_sub(x[0], x[1], x[2]);
    case 2:
        return hepa_poly_neg(x[0], x[1]);
    case 3:
        return hepa_poly_mul(x[0], x[1], x[2]);
    case 4:
        for (int i = 0; i < 6; ++i)
            buf[i] = below(w, 4) ? test_rand64(&w->t) % 1000 : test_rand64(&w->t);
        return hepa_poly_mul_scalar(x[0], x[1], below(w, 8) ? buf : NULL);
    case 5:
        return below(w, 2) ? hepa_poly_to_ntt(x[0]) : hepa_poly_from_ntt(x[0]);
    case 6:
        *nouts = 3, outs[1] = x[1], outs[2] = x[2];
        return hepa_poly_tensor(x[0], x[1], x[2], x[3], x[4], x[5], x[6]);
    case 7:
        return hepa_poly_rescale(x[0], x[1]);
    case 8:
        *nouts = 2, outs[1] = x[1];
        return hepa_poly_rescale_pair(x[0], x[1], x[2], x[3]);
    case 9:
        return hepa_poly_drop(x[0], x[1]);
    case 10: {
        const uint64_t g = below(w, 3) == 0 ? test_rand64(&w->t) : below(w, 300);
        return hepa_poly_automorphism(x[0], x[1], g);
    }
    case 11:
        return hepa_poly_copy(x[0], x[1]);
    case 12: { /* base conversion on host arrays: out-of-range and repeated indices, ns = 0 */
        size_t di[8], si[8];
        for (int i = 0; i < 8; ++i)
            di[i] = below(w, 8), si[i] = below(w, 8);
        static uint64_t in[8 * MAXN], out[8 * MAXN];
        for (size_t i = 0; i < 8 * MAXN; ++i)
            in[i] = test_rand_below(&w->t, 1000003);
        const size_t ri = below(w, NR + 1);
        *nouts = 0;
        return hepa_rns_convert(ri < NR ? w->r[ri] : NULL, below(w, 8) ? out : NULL,
                                below(w, 8) ? di : NULL, below(w, 7), below(w, 8) ? in : NULL,
                                below(w, 8) ? si : NULL, below(w, 7), (int)below(w, 3) - 1);
    }
    case 13:
    case 14:
    case 15: {
        const size_t k = below(w, 8) ? o->ks : below(w, NKS + 1);
        const hepa_ks *ks = k < NKS ? w->ks[k] : NULL;
        const size_t kk = below(w, 8) ? o->ks : below(w, NKS + 1);
        const hepa_ksk *key = kk < NKS ? w->key[kk] : NULL;
        *nouts = 2, outs[1] = x[1];
        if (op == 13) return hepa_keyswitch(ks, x[0], x[1], x[2], key);
        if (op == 14) return hepa_keyswitch_add(ks, x[0], x[1], x[2], key, x[3], x[4]);
        return hepa_mul_relin(ks, x[0], x[1], x[2], x[3], x[4], x[5], key);
    }
    case 23: { /* hoisted automorphisms: one or two rotations, outputs (x0, x1), (x3, x4) of
                * (x2, x5); now and then an even or huge g, a NULL or foreign key, count 0 */
        const size_t k = below(w, 8) ? o->ks : below(w, NKS + 1);
        const hepa_ks *ks = k < NKS ? w->ks[k] : NULL;
        const hepa_ksk *keys[2];
        uint64_t g[2];
        for (int i = 0; i < 2; ++i) {
            const size_t kk = below(w, 8) ? o->ks : below(w, NKS + 1);
            keys[i] = kk < NKS ? w->key[kk] : NULL;
            g[i] = below(w, 3) == 0 ? test_rand64(&w->t) : 2 * below(w, 150) + 1;
        }
        hepa_poly *o0[2] = {x[0], x[3]}, *o1[2] = {x[1], x[4]};
        const size_t cnt = below(w, 10) == 0 ? 0 : 1 + below(w, 2);
        *nouts = 2 * (int)cnt, outs[1] = x[1], outs[2] = x[3], outs[3] = x[4];
        return hepa_automorphism_hoisted(ks, o0, o1, x[2], x[5], g, keys, cnt);
    }
    case 16: { /* set: now and then a residue at its modulus, or an unknown domain */
        if (!x[0]) return hepa_poly_set(x[0], buf, HEPA_DOMAIN_COEFF);
        const hepa_ring *r = hepa_poly_ring(x[0]);
        const size_t n = hepa_ring_n(r), l = hepa_poly_level(x[0]);
        for (size_t i = 0; i < l; ++i)
            for (size_t j = 0; j < n; ++j)
                buf[i * n + j] = test_rand_below(&w->t, hepa_ring_modulus(r, i)) +
                                 (below(w, 50) == 0 ? hepa_ring_modulus(r, i) : 0);
        return hepa_poly_set(x[0], buf, (hepa_domain)below(w, 3));
    }
    case 17:
        *nouts = 0;
        return hepa_poly_get(x[0], below(w, 8) ? buf : NULL);
    case 18:
        return hepa_sample_uniform(below(w, 8) ? w->g : NULL, x[0], (hepa_domain)below(w, 3));
    case 19:
        return hepa_sample_ternary(below(w, 8) ? w->g : NULL, x[0]);
    case 20: {
        const double sigma = below(w, 3) == 0 ? -1.0 : below(w, 3) == 0 ? NAN : 3.2;
        return hepa_sample_gaussian(below(w, 8) ? w->g : NULL, x[0], sigma);
    }
    case 21: { /* encode: NaN / infinite slots, scales too large or not positive */
        const size_t i = below(w, NR + 1);
        for (int j = 0; j < MAXN + 8; ++j)
            slots[j] = test_rand_unit(&w->t) * 2 - 1;
        if (below(w, 20) == 0) slots[below(w, MAXN)] = below(w, 2) ? NAN : INFINITY;
        const double scale = below(w, 6) == 0    ? ldexp(1.0, (int)below(w, 300))
                             : below(w, 10) == 0 ? -1.0
                                                 : ldexp(1.0, 20);
        *undefined_on_error = 1;
        return hepa_ckks_encode(i < NR ? w->enc[i] : NULL, x[0], below(w, 10) ? slots : NULL,
                                scale);
    }
    default: { /* decode */
        const size_t i = below(w, NR + 1);
        const double scale =
            below(w, 6) == 0 ? ldexp(1.0, (int)below(w, 300) - 100) : ldexp(1.0, 20);
        *nouts = 0;
        return hepa_ckks_decode(i < NR ? w->enc[i] : NULL, x[0], scale,
                                below(w, 10) ? slots : NULL);
    }
    }
}

Test(misuse, random_calls) {
    world w;
    world_init(&w);
    const long iters = test_quick() ? 5000 : 100000;
    long ok = 0;
    for (long it = 0; it < iters; ++it) {
        const int op = (int)below(&w, 24);
        operands o;
        pick(&w, &o, op);
        /* fingerprints of the pool and of the fresh operands */
        uint64_t before[NP + 7];
        hepa_poly *all[NP + 7];
        for (int i = 0; i < NP; ++i)
            all[i] = w.p[i];
        for (int i = 0; i < 7; ++i)
            all[NP + i] = o.own[i];
        for (int i = 0; i < NP + 7; ++i)
            before[i] = fingerprint(all[i]);
        hepa_poly *outs[4];
        int nouts = 0, undefined = 0;
        const hepa_status s = call(&w, &o, op, outs, &nouts, &undefined);
        T_CHECK((int)s >= HEPA_OK && (int)s <= HEPA_ERR_RANGE, "call %ld (op %d): status %d", it,
                op, (int)s);
        T_CHECK(s != HEPA_ERR_DEVICE && s != HEPA_ERR_NO_DEVICE && s != HEPA_ERR_OUT_OF_MEMORY,
                "call %ld (op %d): status %d on small CPU rings", it, op, (int)s);
        ok += s == HEPA_OK;
        for (int i = 0; i < NP + 7; ++i) {
            if (!all[i]) continue;
            int is_out = 0;
            for (int k = 0; k < nouts; ++k)
                is_out |= outs[k] == all[i];
            if (s == HEPA_OK) {
                if (!is_out)
                    T_CHECK(fingerprint(all[i]) == before[i],
                            "call %ld (op %d) returned OK and changed polynomial %d, not an output",
                            it, op, i);
                else
                    assert_canonical(all[i], "an output");
            } else if (!(is_out && undefined)) {
                T_CHECK(fingerprint(all[i]) == before[i],
                        "call %ld (op %d) returned %d and changed polynomial %d", it, op, (int)s,
                        i);
            }
        }
        for (int i = 0; i < 7; ++i)
            hepa_poly_destroy(o.own[i]);
    }
    /* the mix must reach the successful paths, not only the argument checks */
    cr_assert_gt(ok, iters / 5, "only %ld of %ld calls succeeded", ok, iters);
    world_clear(&w);
}

/* The checked big-prime calls on the named fields: random canonical or non-canonical digits,
 * sizes that are or are not powers of two. On error the output is as it was; inputs never change
 * (except hepa_bp_fft's in-place x, and only on success). */
Test(misuse, bigprime_untouched) {
    test_rng t;
    test_rng_init(&t);
    const long iters = test_quick() ? 100 : 1000;
    long errors = 0;
    for (long it = 0; it < iters; ++it) {
        hepa_bp_field *f = NULL;
        T_OK(hepa_bp_field_create_named(&f, (hepa_bp_prime)test_rand_below(&t, 6)));
        const unsigned k = hepa_bp_field_k(f);
        const uint64_t r = hepa_bp_field_r(f);
        const size_t N = (size_t)1 << test_rand_below(&t, 6), w = 3 * N * k; /* room for 3N */
        uint64_t *x = test_alloc(w), *y = test_alloc(w), *z = test_alloc(w);
        uint64_t *xc = test_alloc(w), *yc = test_alloc(w), *zc = test_alloc(w);
        for (size_t i = 0; i < w; ++i)
            x[i] = test_rand_below(&t, r), y[i] = test_rand_below(&t, r), z[i] = test_rand64(&t);
        if (test_rand_below(&t, 2)) x[test_rand_below(&t, N * k)] = r + test_rand_below(&t, 3);
        if (test_rand_below(&t, 3) == 0) y[test_rand_below(&t, k)] = UINT64_MAX;
        if (test_rand_below(&t, 4) == 0) memset(x, 0, k * sizeof *x); /* 0: no inverse */
        const size_t n2 = test_rand_below(&t, 4) ? N : 3 * N;         /* 3N: not a power of two */
        const int op = (int)test_rand_below(&t, 9);
        if (op == 7) memcpy(z, x, N * k * sizeof *z); /* the FFT is in place */
        memcpy(xc, x, w * sizeof *x), memcpy(yc, y, w * sizeof *y), memcpy(zc, z, w * sizeof *z);
        hepa_status s = HEPA_OK;
        switch (op) {
        case 0:
            s = hepa_bp_add(f, z, x, y);
            break;
        case 1:
            s = hepa_bp_sub(f, z, x, y);
            break;
        case 2:
            s = hepa_bp_neg(f, z, x);
            break;
        case 3:
            s = hepa_bp_mul(f, z, x, y);
            break;
        case 4:
            s = hepa_bp_inv(f, z, x);
            break;
        case 5:
            s = hepa_bp_mul_rpow(f, z, x, (unsigned)test_rand_below(&t, 4 * k));
            break;
        case 6:
            s = hepa_bp_root_of_unity(f, z, n2);
            break;
        case 7:
            s = hepa_bp_fft(f, z, n2 <= N ? n2 : N + 1, (int)test_rand_below(&t, 2));
            break;
        default:
            s = hepa_bp_poly_mul(f, z, x, y, n2, (int)test_rand_below(&t, 2));
            break;
        }
        T_CHECK(s == HEPA_OK || s == HEPA_ERR_INVALID_ARGUMENT, "call %ld op %d: status %d", it, op,
                (int)s);
        T_CHECK(!memcmp(x, xc, w * sizeof *x) && !memcmp(y, yc, w * sizeof *y),
                "call %ld op %d changed an input", it, op);
        if (s != HEPA_OK) {
            ++errors;
            T_CHECK(!memcmp(z, zc, w * sizeof *z),
                    "call %ld op %d returned %d and wrote its output", it, op, (int)s);
        }
        free(x), free(y), free(z), free(xc), free(yc), free(zc);
        hepa_bp_field_destroy(f);
    }
    cr_assert_gt(errors, iters / 10, "only %ld of %ld calls were errors", errors, iters);
    cr_assert_lt(errors, iters - iters / 10, "%ld of %ld calls were errors", errors, iters);
}

/* The status hepa_ksk_import(_seeded) owes for `count` words at w into a context of ring r with
 * kw key words (all pointers given): MISMATCH for another length, INVALID_ARGUMENT for a word not
 * below its modulus (word x of component c, limb m: index (c·M + m)·n + x). */
static hepa_status import_status(const hepa_ring *r, size_t kw, const uint64_t *w, size_t count,
                                 int seeded) {
    if (count != (seeded ? kw / 2 : kw)) return HEPA_ERR_MISMATCH;
    const size_t n = hepa_ring_n(r), M = hepa_ring_num_moduli(r);
    for (size_t i = 0; i < count; ++i)
        if (w[i] >= hepa_ring_modulus(r, i / n % M)) return HEPA_ERR_INVALID_ARGUMENT;
    return HEPA_OK;
}

Test(misuse, key_transfer) {
    world w;
    world_init(&w);
    enum { CAP = 4096 }; /* words: above every context's hepa_ks_key_words (2560 at most) */
    hepa_ksk *sk[NKS];   /* a seeded key per context, beside the world's plain ones */
    uint8_t seeds[NKS][32];
    for (int i = 0; i < NKS; ++i) {
        const hepa_ring *r = w.r[ks_shape[i][0]];
        const size_t M = hepa_ring_num_moduli(r);
        cr_assert_leq(hepa_ks_key_words(w.ks[i]), CAP);
        hepa_poly *a = NULL;
        T_OK(hepa_poly_create(&a, r, M));
        T_OK(hepa_sample_ternary(w.g, a));
        T_OK(hepa_poly_to_ntt(a));
        for (int j = 0; j < 32; ++j)
            seeds[i][j] = (uint8_t)test_rand64(&w.t);
        T_OK(hepa_ksk_create_seeded(&sk[i], w.ks[i], a, a, w.g, seeds[i]));
        hepa_poly_destroy(a);
    }
    uint64_t *words = test_alloc(CAP), *back = test_alloc(CAP);
    const long iters = test_quick() ? 300 : 3000;
    long ok = 0;
    for (long it = 0; it < iters; ++it) {
        /* the words: a key's export (plain, or a seeded key's b_j), of this context or another */
        const size_t src = below(&w, NKS), k = below(&w, 5) ? src : below(&w, NKS);
        const int seeded = (int)below(&w, 2);
        uint8_t seed[32];
        if (seeded)
            T_OK(hepa_ksk_export_seeded(sk[src], seed, words));
        else
            T_OK(hepa_ksk_export(w.key[src], words));
        const size_t kw = hepa_ks_key_words(w.ks[k]);
        const size_t have = hepa_ks_key_words(w.ks[src]) / (seeded ? 2 : 1);
        size_t count = below(&w, 4) ? (seeded ? kw / 2 : kw) : below(&w, CAP);
        if (count > have) { /* past what was exported: random words, mostly in range */
            for (size_t i = have; i < count; ++i)
                words[i] = test_rand64(&w.t) >> (below(&w, 8) ? 40 : 0);
        }
        if (count && below(&w, 4) == 0) /* a word at or above its modulus */
            words[below(&w, count)] =
                below(&w, 2) ? ~(uint64_t)0 : hepa_ring_modulus(w.r[ks_shape[k][0]], 0);
        const int null = (int)below(&w, 10); /* 0, 1, 2: one NULL argument */
        hepa_ksk *made = (hepa_ksk *)(uintptr_t)0x5eed;
        hepa_status s;
        if (seeded)
            s = hepa_ksk_import_seeded(null == 0 ? NULL : &made, null == 1 ? NULL : w.ks[k], seed,
                                       null == 2 ? NULL : words, count);
        else
            s = hepa_ksk_import(null == 0 ? NULL : &made, null == 1 ? NULL : w.ks[k],
                                null == 2 ? NULL : words, count);
        const hepa_status want = null <= 2
                                     ? HEPA_ERR_INVALID_ARGUMENT
                                     : import_status(w.r[ks_shape[k][0]], kw, words, count, seeded);
        T_CHECK(s == want, "call %ld: import%s returned %d, owed %d", it, seeded ? "_seeded" : "",
                (int)s, (int)want);
        if (s != HEPA_OK) {
            T_CHECK(made == (hepa_ksk *)(uintptr_t)0x5eed, "call %ld: *out changed on error", it);
            continue;
        }
        ++ok;
        /* the imported key gives its words back (seeded: its seed and b_j) */
        if (seeded) {
            uint8_t sd[32];
            T_OK(hepa_ksk_export_seeded(made, sd, back));
            T_CHECK(memcmp(sd, seed, 32) == 0, "call %ld: seed", it);
        } else {
            T_OK(hepa_ksk_export(made, back));
            T_CHECK(hepa_ksk_export_seeded(made, seed, back + kw) == HEPA_ERR_UNSUPPORTED,
                    "call %ld: a plain import exported seeded", it);
        }
        T_CHECK(memcmp(back, words, count * sizeof *words) == 0, "call %ld: words", it);
        hepa_ksk_destroy(made);
    }
    cr_assert_gt(ok, iters / 4, "only %ld of %ld imports succeeded", ok, iters);
    free(words), free(back);
    for (int i = 0; i < NKS; ++i)
        hepa_ksk_destroy(sk[i]);
    world_clear(&w);
}
