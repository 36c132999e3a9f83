/* tests/test_modarith.c — word-size modular arithmetic (hepa/modarith.h) against unsigned __int128
 * and GMP, at the boundaries: q from 3 to just below 2^62 (and beyond where a function promises
 * more), values 0, 1, q-1, the edges of every lazy range, and 128-bit inputs up to 2^128 - 1. */
#include <string.h>

#include "test_util.h"
#include "hepa/modarith.h"

#define MAX_MODULI 96
#define TWO62 (UINT64_C(1) << 62)

/* Moduli every test sweeps: tiny primes, NTT primes, primes just below 2^20 / 2^32 / 2^50 /
 * 2^61 / 2^62, the largest odd value accepted (2^62 - 1, composite), and random odd q < 2^62 of
 * random sizes (most of them composite, which Barrett and Shoup must not care about). */
static size_t build_moduli(test_rng *r, uint64_t *q) {
    size_t k = 0;
    static const uint64_t fixed[] = {3, 5, 7, 17, 97, 257, 12289, 65537, 786433, 1073479681};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i) q[k++] = fixed[i];
    static const unsigned below[] = {20, 30, 31, 32, 33, 50, 60, 61};
    for (size_t i = 0; i < sizeof below / sizeof below[0]; ++i)
        q[k++] = test_prev_prime_1mod(UINT64_C(1) << below[i], 2, 3);
    /* the three largest primes below 2^62, the tightest case for every lazy range */
    uint64_t lim = TWO62;
    for (int i = 0; i < 3; ++i) lim = q[k++] = test_prev_prime_1mod(lim, 2, 3);
    cr_assert_eq(q[k - 3], TWO62 - 57, "GMP: the largest prime below 2^62 is 2^62 - 57");
    q[k++] = TWO62 - 1;             /* largest odd q < 2^62 */
    q[k++] = (UINT64_C(1) << 61) - 1; /* Mersenne prime */
    while (k < 48) {
        unsigned bits = 2 + (unsigned)test_rand_below(r, 61); /* 2..62 bits */
        uint64_t v = test_rand64(r) >> (64 - bits);
        v |= UINT64_C(1) << (bits - 1);
        v |= 1;
        if (v < 3 || v >= TWO62) continue;
        q[k++] = v;
    }
    return k;
}

/* Values worth trying in [0, q). */
static size_t edge_residues(uint64_t q, uint64_t *v) {
    size_t k = 0;
    const uint64_t cand[] = {0, 1, 2, q / 2, q / 2 + 1, q - 2, q - 1};
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; ++i)
        if (cand[i] < q) v[k++] = cand[i];
    return k;
}

/* hepa_modulus_make: ratio == floor(2^128 / q) for odd q across the whole 64-bit range the
 * header promises (not only q < 2^62). */
Test(modarith, modulus_make_ratio) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI + 16];
    size_t nq = build_moduli(&r, q);
    q[nq++] = UINT64_MAX;
    q[nq++] = UINT64_MAX - 58; /* largest 64-bit prime */
    q[nq++] = (UINT64_C(1) << 63) + 1;
    q[nq++] = TWO62 + 1;
    for (int i = 0; i < 8; ++i) q[nq++] = test_rand64(&r) | 1;
    mpz_t two128, want, got;
    mpz_init(two128);
    mpz_init(want);
    mpz_init(got);
    mpz_ui_pow_ui(two128, 2, 128);
    for (size_t i = 0; i < nq; ++i) {
        hepa_modulus m = hepa_modulus_make(q[i]);
        cr_assert_eq(m.value, q[i], "value %" PRIu64 " != q %" PRIu64, m.value, q[i]);
        mpz_fdiv_q_ui(want, two128, q[i]);
        mpz_set_ui(got, m.ratio_hi);
        mpz_mul_2exp(got, got, 64);
        mpz_add_ui(got, got, m.ratio_lo);
        cr_assert(mpz_cmp(got, want) == 0,
                  "q=%" PRIu64 ": ratio hi=%" PRIu64 " lo=%" PRIu64 " != floor(2^128/q) (seed %" PRIu64
                  ")",
                  q[i], m.ratio_hi, m.ratio_lo, test_seed());
    }
    mpz_clear(two128);
    mpz_clear(want);
    mpz_clear(got);
}

Test(modarith, mulhi64_mul64) {
    test_rng r;
    test_rng_init(&r);
    const uint64_t edges[] = {0, 1, 2, UINT64_MAX, UINT64_MAX - 1, UINT64_C(1) << 63, TWO62 - 1};
    for (int t = 0; t < 20000; ++t) {
        uint64_t a = t < 49 ? edges[t % 7] : test_rand64(&r);
        uint64_t b = t < 49 ? edges[t / 7] : test_rand64(&r);
        u128 p = (u128)a * b;
        uint64_t hi, lo;
        hepa_mul64(a, b, &hi, &lo);
        T_CHECK(hi == (uint64_t)(p >> 64) && lo == (uint64_t)p, "mul64(%" PRIu64 ", %" PRIu64 ")",
                a, b);
        T_CHECK(hepa_mulhi64(a, b) == (uint64_t)(p >> 64), "mulhi64(%" PRIu64 ", %" PRIu64 ")", a,
                b);
    }
}

Test(modarith, add_sub_neg) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI];
    size_t nq = build_moduli(&r, q);
    for (size_t i = 0; i < nq; ++i) {
        uint64_t e[8];
        size_t ne = edge_residues(q[i], e);
        for (size_t s = 0; s < ne + 400; ++s) {
            uint64_t a = s < ne ? e[s] : test_rand_below(&r, q[i]);
            for (size_t t = 0; t < ne + 4; ++t) {
                uint64_t b = t < ne ? e[t] : test_rand_below(&r, q[i]);
                T_CHECK(hepa_mod_add(a, b, q[i]) == test_addmod(a, b, q[i]),
                        "add(%" PRIu64 ", %" PRIu64 ") mod %" PRIu64, a, b, q[i]);
                T_CHECK(hepa_mod_sub(a, b, q[i]) == test_submod(a, b, q[i]),
                        "sub(%" PRIu64 ", %" PRIu64 ") mod %" PRIu64, a, b, q[i]);
            }
            T_CHECK(hepa_mod_neg(a, q[i]) == test_submod(0, a, q[i]),
                    "neg(%" PRIu64 ") mod %" PRIu64, a, q[i]);
        }
    }
}

/* Barrett reduction of any 128-bit x: the claim in the header is one correction for x < 2^128,
 * so the largest inputs (2^128 - 1, the largest multiple of q below it and its neighbours) and the
 * squares of lazy values are the interesting ones. */
Test(modarith, reduce128) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI];
    size_t nq = build_moduli(&r, q);
    mpz_t z;
    mpz_init(z);
    for (size_t i = 0; i < nq; ++i) {
        const uint64_t qi = q[i];
        hepa_modulus m = hepa_modulus_make(qi);
        const u128 all = ~(u128)0;
        const u128 topmul = all / qi * qi; /* largest multiple of q <= 2^128 - 1 */
        u128 xs[64];
        size_t nx = 0;
        xs[nx++] = 0;
        xs[nx++] = 1;
        xs[nx++] = qi - 1;
        xs[nx++] = qi;
        xs[nx++] = (u128)qi + 1;
        xs[nx++] = 2 * (u128)qi - 1;
        xs[nx++] = (u128)(qi - 1) * (qi - 1);
        xs[nx++] = (u128)(2 * qi - 1) * (2 * qi - 1);
        xs[nx++] = (u128)(4 * qi - 1) * (4 * qi - 1);
        xs[nx++] = (u128)(4 * qi - 1) * (qi - 1);
        xs[nx++] = (u128)UINT64_MAX;
        xs[nx++] = (u128)1 << 64;
        xs[nx++] = (u128)1 << 127;
        xs[nx++] = ((u128)1 << 127) - 1;
        xs[nx++] = all;
        xs[nx++] = all - 1;
        xs[nx++] = topmul;
        xs[nx++] = topmul - 1;
        xs[nx++] = topmul - qi;
        xs[nx++] = topmul - qi + 1;
        xs[nx++] = (u128)UINT64_MAX << 64;
        xs[nx++] = ((u128)UINT64_MAX << 64) - 1;
        xs[nx++] = (u128)UINT64_MAX * UINT64_MAX;
        for (size_t t = 0; t < nx + 2000; ++t) {
            u128 x;
            if (t < nx)
                x = xs[t];
            else if (t % 3 == 0) /* random multiple of q plus a small offset: the quotient edge */
                x = (all / qi - test_rand_below(&r, UINT64_MAX)) * qi + test_rand_below(&r, 3);
            else
                x = ((u128)test_rand64(&r) << 64) | test_rand64(&r);
            uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
            uint64_t got = hepa_mod_reduce128(hi, lo, &m);
            uint64_t want = (uint64_t)(x % qi);
            T_CHECK(got == want,
                    "reduce128(hi=%" PRIu64 ", lo=%" PRIu64 ") mod %" PRIu64 " = %" PRIu64
                    ", want %" PRIu64,
                    hi, lo, qi, got, want);
            if (t < nx) { /* the boundary cases once more through GMP, independently of __int128 */
                mpz_set_ui(z, hi);
                mpz_mul_2exp(z, z, 64);
                mpz_add_ui(z, z, lo);
                T_CHECK(got == mpz_fdiv_ui(z, qi), "reduce128 vs GMP, q=%" PRIu64, qi);
            }
        }
    }
    mpz_clear(z);
}

/* Barrett product for any a, b (a*b < 2^128 always holds for words): strict, lazy and full-word
 * operands. */
Test(modarith, mod_mul) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI];
    size_t nq = build_moduli(&r, q);
    for (size_t i = 0; i < nq; ++i) {
        const uint64_t qi = q[i];
        hepa_modulus m = hepa_modulus_make(qi);
        uint64_t e[16];
        size_t ne = edge_residues(qi, e);
        e[ne++] = qi;
        e[ne++] = 2 * qi - 1;
        e[ne++] = 4 * qi - 1;
        e[ne++] = UINT64_MAX;
        for (size_t s = 0; s < ne + 300; ++s) {
            uint64_t a = s < ne ? e[s] : (s & 1) ? test_rand_below(&r, qi) : test_rand64(&r);
            for (size_t t = 0; t < ne + 3; ++t) {
                uint64_t b = t < ne ? e[t] : (t & 1) ? test_rand_below(&r, 4 * qi) : test_rand64(&r);
                uint64_t got = hepa_mod_mul(a, b, &m);
                T_CHECK(got == test_mulmod(a, b, qi),
                        "mod_mul(%" PRIu64 ", %" PRIu64 ") mod %" PRIu64 " = %" PRIu64, a, b, qi,
                        got);
            }
        }
    }
}

Test(modarith, reduce64) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI];
    size_t nq = build_moduli(&r, q);
    for (size_t i = 0; i < nq; ++i) {
        const uint64_t qi = q[i];
        hepa_modulus m = hepa_modulus_make(qi);
        const uint64_t e[] = {0,         1,          qi - 1,     qi,         qi + 1,
                              2 * qi,    4 * qi - 1, UINT64_MAX, UINT64_MAX - 1,
                              UINT64_MAX / qi * qi, UINT64_MAX / qi * qi - 1};
        const size_t ne = sizeof e / sizeof e[0];
        for (size_t t = 0; t < ne + 2000; ++t) {
            uint64_t x = t < ne ? e[t] : test_rand64(&r) >> test_rand_below(&r, 64);
            T_CHECK(hepa_mod_reduce64(x, &m) == x % qi, "reduce64(%" PRIu64 ") mod %" PRIu64, x,
                    qi);
        }
    }
}

/* w' = floor(w * 2^64 / q), checked with GMP (the library's host path uses __int128 itself). */
Test(modarith, shoup_precompute) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI];
    size_t nq = build_moduli(&r, q);
    mpz_t z;
    mpz_init(z);
    for (size_t i = 0; i < nq; ++i) {
        uint64_t e[8];
        size_t ne = edge_residues(q[i], e);
        for (size_t t = 0; t < ne + 200; ++t) {
            uint64_t w = t < ne ? e[t] : test_rand_below(&r, q[i]);
            mpz_set_ui(z, w);
            mpz_mul_2exp(z, z, 64);
            mpz_fdiv_q_ui(z, z, q[i]);
            uint64_t want = mpz_get_ui(z);
            T_CHECK(mpz_sizeinbase(z, 2) <= 64 && hepa_shoup_precompute(w, q[i]) == want,
                    "shoup_precompute(%" PRIu64 ", %" PRIu64 ") = %" PRIu64 ", want %" PRIu64, w,
                    q[i], hepa_shoup_precompute(w, q[i]), want);
            T_CHECK(w != 0 || want == 0, "companion of 0");
        }
    }
    mpz_clear(z);
}

/* Shoup multiplication: the lazy result is in [0, 2q) and ≡ a*w for ANY 64-bit a (inputs of the
 * butterflies are lazy), the strict one equals a*w mod q. */
Test(modarith, mul_shoup) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI];
    size_t nq = build_moduli(&r, q);
    for (size_t i = 0; i < nq; ++i) {
        const uint64_t qi = q[i];
        uint64_t ws[8];
        size_t nw = edge_residues(qi, ws);
        const uint64_t as[] = {0,      1,          qi - 1,     qi,         2 * qi - 1,
                               2 * qi, 4 * qi - 1, 4 * qi,     UINT64_MAX, UINT64_MAX - 1,
                               UINT64_C(1) << 63,  (UINT64_C(1) << 63) - 1};
        const size_t na = sizeof as / sizeof as[0];
        for (size_t s = 0; s < nw + 60; ++s) {
            uint64_t w = s < nw ? ws[s] : test_rand_below(&r, qi);
            uint64_t wp = hepa_shoup_precompute(w, qi);
            for (size_t t = 0; t < na + 60; ++t) {
                uint64_t a = t < na ? as[t] : test_rand64(&r);
                uint64_t want = test_mulmod(a, w, qi);
                uint64_t lazy = hepa_mul_shoup_lazy(a, w, wp, qi);
                T_CHECK(lazy < 2 * qi && lazy % qi == want,
                        "mul_shoup_lazy(a=%" PRIu64 ", w=%" PRIu64 ") mod %" PRIu64 " = %" PRIu64,
                        a, w, qi, lazy);
                uint64_t strict = hepa_mul_shoup(a, w, wp, qi);
                T_CHECK(strict == want,
                        "mul_shoup(a=%" PRIu64 ", w=%" PRIu64 ") mod %" PRIu64 " = %" PRIu64, a,
                        w, qi, strict);
            }
        }
    }
}

Test(modarith, reduce_2q_4q) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI];
    size_t nq = build_moduli(&r, q);
    for (size_t i = 0; i < nq; ++i) {
        const uint64_t qi = q[i];
        const uint64_t e2[] = {0, 1, qi - 1, qi, qi + 1, 2 * qi - 2, 2 * qi - 1};
        for (size_t t = 0; t < 7 + 200; ++t) {
            uint64_t x = t < 7 ? e2[t] : test_rand_below(&r, 2 * qi);
            T_CHECK(hepa_reduce_2q(x, qi) == x % qi, "reduce_2q(%" PRIu64 ", %" PRIu64 ")", x, qi);
        }
        const uint64_t e4[] = {0,          1,          qi - 1,     qi,         2 * qi - 1, 2 * qi,
                               2 * qi + 1, 3 * qi - 1, 3 * qi,     4 * qi - 2, 4 * qi - 1};
        for (size_t t = 0; t < 11 + 200; ++t) {
            uint64_t x = t < 11 ? e4[t] : test_rand_below(&r, 4 * qi);
            T_CHECK(hepa_reduce_4q(x, qi) == x % qi, "reduce_4q(%" PRIu64 ", %" PRIu64 ")", x, qi);
        }
    }
}

/* Lazy-range edges for butterfly inputs: [0, 4q) for CT, [0, 2q) for GS. */
static uint64_t pick_lazy(test_rng *r, uint64_t q, unsigned mult, size_t t) {
    const uint64_t e[] = {0, 1, q - 1, q, 2 * q - 1, 2 * q, 3 * q - 1, 3 * q, 4 * q - 1};
    size_t ne = mult == 4 ? 9 : 5; /* the first five lie below 2q */
    if (t < ne) return e[t];
    return test_rand_below(r, mult * q);
}

Test(modarith, butterfly_ct_lazy) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI];
    size_t nq = build_moduli(&r, q);
    for (size_t i = 0; i < nq; ++i) {
        const uint64_t qi = q[i];
        uint64_t ws[8];
        size_t nw = edge_residues(qi, ws);
        for (size_t s = 0; s < nw + 8; ++s) {
            uint64_t w = s < nw ? ws[s] : test_rand_below(&r, qi);
            uint64_t wp = hepa_shoup_precompute(w, qi);
            for (size_t tx = 0; tx < 9 + 12; ++tx)
                for (size_t ty = 0; ty < 9 + 12; ++ty) {
                    uint64_t x0 = pick_lazy(&r, qi, 4, tx), y0 = pick_lazy(&r, qi, 4, ty);
                    uint64_t x = x0, y = y0;
                    hepa_butterfly_ct_lazy(&x, &y, w, wp, qi);
                    uint64_t wy = test_mulmod(y0, w, qi);
                    T_CHECK(x < 4 * qi && y < 4 * qi,
                            "CT out of [0,4q): x0=%" PRIu64 " y0=%" PRIu64 " w=%" PRIu64
                            " q=%" PRIu64 " -> %" PRIu64 ", %" PRIu64,
                            x0, y0, w, qi, x, y);
                    T_CHECK(x % qi == test_addmod(x0 % qi, wy, qi) &&
                                y % qi == test_submod(x0 % qi, wy, qi),
                            "CT wrong value: x0=%" PRIu64 " y0=%" PRIu64 " w=%" PRIu64
                            " q=%" PRIu64 " -> %" PRIu64 ", %" PRIu64,
                            x0, y0, w, qi, x, y);
                }
        }
    }
}

Test(modarith, butterfly_gs_lazy) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI];
    size_t nq = build_moduli(&r, q);
    for (size_t i = 0; i < nq; ++i) {
        const uint64_t qi = q[i];
        uint64_t ws[8];
        size_t nw = edge_residues(qi, ws);
        for (size_t s = 0; s < nw + 8; ++s) {
            uint64_t w = s < nw ? ws[s] : test_rand_below(&r, qi);
            uint64_t wp = hepa_shoup_precompute(w, qi);
            for (size_t tx = 0; tx < 5 + 12; ++tx)
                for (size_t ty = 0; ty < 5 + 12; ++ty) {
                    uint64_t x0 = pick_lazy(&r, qi, 2, tx), y0 = pick_lazy(&r, qi, 2, ty);
                    uint64_t x = x0, y = y0;
                    hepa_butterfly_gs_lazy(&x, &y, w, wp, qi);
                    T_CHECK(x < 2 * qi && y < 2 * qi,
                            "GS out of [0,2q): x0=%" PRIu64 " y0=%" PRIu64 " w=%" PRIu64
                            " q=%" PRIu64 " -> %" PRIu64 ", %" PRIu64,
                            x0, y0, w, qi, x, y);
                    uint64_t diff = test_submod(x0, y0, qi);
                    T_CHECK(x % qi == test_addmod(x0, y0, qi) &&
                                y % qi == test_mulmod(diff, w, qi),
                            "GS wrong value: x0=%" PRIu64 " y0=%" PRIu64 " w=%" PRIu64
                            " q=%" PRIu64 " -> %" PRIu64 ", %" PRIu64,
                            x0, y0, w, qi, x, y);
                }
        }
    }
}

/* a^e mod q against GMP's powm, for any 64-bit base; 0^0 = 1; Fermat for the prime moduli. */
Test(modarith, mod_pow) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI];
    size_t nq = build_moduli(&r, q);
    mpz_t zb, ze, zm, zr;
    mpz_init(zb);
    mpz_init(ze);
    mpz_init(zm);
    mpz_init(zr);
    for (size_t i = 0; i < nq; ++i) {
        const uint64_t qi = q[i];
        hepa_modulus m = hepa_modulus_make(qi);
        mpz_set_ui(zm, qi);
        const uint64_t bases[] = {0, 1, 2, qi - 1, qi, qi + 1, UINT64_MAX};
        const uint64_t exps[] = {0, 1, 2, 3, qi - 2, qi - 1, qi, UINT64_MAX};
        for (size_t s = 0; s < 7 + 20; ++s) {
            uint64_t a = s < 7 ? bases[s] : test_rand64(&r);
            for (size_t t = 0; t < 8 + 5; ++t) {
                uint64_t e = t < 8 ? exps[t] : test_rand64(&r);
                mpz_set_ui(zb, a);
                mpz_set_ui(ze, e);
                mpz_powm(zr, zb, ze, zm);
                uint64_t got = hepa_mod_pow(a, e, &m);
                T_CHECK(got == mpz_get_ui(zr),
                        "mod_pow(%" PRIu64 ", %" PRIu64 ") mod %" PRIu64 " = %" PRIu64
                        ", want %" PRIu64,
                        a, e, qi, got, mpz_get_ui(zr));
            }
        }
        cr_assert_eq(hepa_mod_pow(0, 0, &m), 1, "0^0 mod %" PRIu64 " must be 1", qi);
        if (test_gmp_is_prime(qi)) {
            uint64_t a = 1 + test_rand_below(&r, qi - 1);
            cr_assert_eq(hepa_mod_pow(a, qi - 1, &m), 1,
                         "Fermat: %" PRIu64 "^(q-1) mod %" PRIu64 " != 1 (seed %" PRIu64 ")", a, qi,
                         test_seed());
        }
    }
    mpz_clear(zb);
    mpz_clear(ze);
    mpz_clear(zm);
    mpz_clear(zr);
}

/* Modular inverse for prime and composite moduli up to 2^63 - 1 (what the header promises):
 * equals GMP's mpz_invert, and 0 exactly when gcd(a, q) != 1. */
Test(modarith, mod_inv) {
    test_rng r;
    test_rng_init(&r);
    uint64_t q[MAX_MODULI + 16];
    size_t nq = build_moduli(&r, q);
    q[nq++] = 2;
    q[nq++] = 4;
    q[nq++] = 15;
    q[nq++] = 1024;                                   /* even modulus: odd a invertible */
    q[nq++] = (UINT64_C(1) << 63) - 1;                /* composite, 7^2 * 73 * ... */
    q[nq++] = test_prev_prime_1mod(UINT64_C(1) << 63, 2, 3); /* largest prime < 2^63 */
    q[nq++] = (UINT64_C(1) << 62) + 1;
    for (int i = 0; i < 6; ++i) q[nq++] = 2 + test_rand_below(&r, (UINT64_C(1) << 63) - 2);
    for (size_t i = 0; i < nq; ++i) {
        const uint64_t qi = q[i];
        const uint64_t as[] = {0, 1, 2, 3, 5, qi - 1, qi, qi + 1, 2 * qi, UINT64_MAX};
        uint64_t spf = 0; /* smallest prime factor below 10^4, if any */
        for (uint64_t p = 2; p < 10000 && p < qi && !spf; ++p)
            if (qi % p == 0) spf = p;
        for (size_t t = 0; t < 10 + 100; ++t) {
            uint64_t a;
            if (t < 10)
                a = as[t];
            else if (t % 4 == 0 && spf && spf != qi) /* shares a factor with composite q */
                a = spf * (1 + test_rand_below(&r, qi / spf));
            else
                a = test_rand64(&r) >> test_rand_below(&r, 64);
            uint64_t got = hepa_mod_inv(a, qi);
            uint64_t want = test_invmod(a % qi, qi);
            if (qi == 1) want = 0;
            T_CHECK(got == want, "mod_inv(%" PRIu64 ", %" PRIu64 ") = %" PRIu64 ", want %" PRIu64,
                    a, qi, got, want);
            if (got) T_CHECK(test_mulmod(a % qi, got, qi) == 1 % qi, "a * a^-1 != 1");
        }
    }
    /* The documented examples. */
    cr_assert_eq(hepa_mod_inv(5, 15), 0, "5 has no inverse mod 15");
    cr_assert_eq(hepa_mod_inv(6, 15), 0, "6 has no inverse mod 15");
    cr_assert_eq(hepa_mod_inv(0, 97), 0, "0 has no inverse");
    cr_assert_eq(hepa_mod_inv(97, 97), 0, "97 ≡ 0 has no inverse mod 97");
    cr_assert_eq(hepa_mod_inv(2, 15), 8, "2^-1 mod 15 = 8");
    cr_assert_eq(hepa_mod_inv(1, 2), 1, "1^-1 mod 2 = 1");
    cr_assert_eq(hepa_mod_inv(96, 97), 96, "(-1)^-1 = -1");
}
