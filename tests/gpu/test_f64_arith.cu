// tests/gpu/test_f64_arith.cu — the exact FP64 modular arithmetic of src/ntt/f64_arith.cuh (FP64
// LIMBS: the NTT's butterflies for q < 2^47, base conversion's FP64 routes, WIDE SOURCES),
// compiled by nvcc but run on the host with the same IEEE operations (no GPU needed, so it runs
// in CI). Against __int128 references, on random values and on the edges of every stated range:
// - f64_mulmod_q: y·w mod q exactly, |r| <= (1/2 + Y/32)·q < 0.91q for |y| = Y·q <= 13q,
//   0 <= w < q, q < 2^47 (the growth per stage that FP64 LIMBS' bounds and SUM UNREDUCED use);
// - f64_reduce_q / f64_canonical_q: |r| <= q/2 + 1, and [0, q);
// - f64_wide_ok's edges, f64_wide_hw = 2^31·h mod t exactly;
// - f64_conv_sum (sources below 13t) and f64_conv_sum_wide (sources below 2^62): congruent to
//   corr + Σ v_k·hat_k mod t, within |.| < corr + 0.91·NS·t and corr + 1.82·NS·t.
// The GPU tests (test_gpu_rns, test_gpu_ring) check the kernels built on these word for word
// against the CPU backend; this checks the bounds where those tests' moduli do not reach (a
// target at f64_wide_ok's lower edge, q = 2^47 - 1, v_k = 2^62 - 1). Exit 0 on success;
// HEPA_TEST_SEED replays, HEPA_TEST_QUICK runs fewer samples.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "host_rng.h"

#include "ntt/f64_arith.cuh"

typedef __int128 i128;

// [0, m)
static uint64_t below(uint64_t m) {
    return m ? rnd() % m : 0;
}
static long g_fail = 0;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (g_fail++ < 10) {                                                                   \
                fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                    \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fprintf(stderr, "\n");                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static uint64_t mod(i128 x, uint64_t q) { // [0, q)
    i128 r = x % (i128)q;
    return (uint64_t)(r < 0 ? r + q : r);
}
// an integer-valued double with |x| < 2^53
static bool is_int(double x) {
    return x > -0x1p53 && x < 0x1p53 && x == (double)(int64_t)x;
}

// moduli: the edges of the FP64 range and of WIDE SOURCES, then random sizes (primality does not
// matter to these functions)
static uint64_t pick_q(long it, uint64_t lo) {
    static const uint64_t edge[] = {165191050ull,     165191051ull,      (1ull << 31) - 1,
                                    1ull << 31,       (1ull << 40) - 87, 1099511480321ull,
                                    (1ull << 46) + 1, (1ull << 47) - 1,  (1ull << 47) - 2};
    const int ne = (int)(sizeof edge / sizeof edge[0]);
    if (it % 4 == 0) return edge[(it / 4) % ne] >= lo ? edge[(it / 4) % ne] : lo;
    const int b = 20 + (int)below(28); // 2^20 .. 2^47
    uint64_t q = (1ull << (b - 1)) + below(1ull << (b - 1));
    if (q >= (1ull << 47)) q = (1ull << 47) - 1;
    return q < lo ? lo + below(1ull << 20) : q;
}
static int64_t pick_y(uint64_t q) { // |y| <= 13q
    const int64_t m = 13 * (int64_t)q;
    switch (below(6)) {
    case 0:
        return m;
    case 1:
        return -m;
    case 2:
        return (int64_t)below(3) - 1;
    default:
        return (int64_t)below(2 * (uint64_t)m + 1) - m;
    }
}
static uint64_t pick_w(uint64_t q) { // [0, q)
    switch (below(5)) {
    case 0:
        return q - 1;
    case 1:
        return below(2);
    default:
        return below(q);
    }
}
static uint64_t pick_v62() { // [0, 2^62)
    static const uint64_t edge[] = {0,
                                    1,
                                    (1ull << 62) - 1,
                                    (1ull << 31) - 1,
                                    1ull << 31,
                                    (1ull << 62) - (1ull << 31),
                                    (1ull << 47) - 1};
    return below(3) ? below(1ull << 62) : edge[below(7)];
}

template <int NS> static void check_sums(uint64_t t, long n) {
    const double td = (double)t, ti = 1.0 / td;
    for (long it = 0; it < n; ++it) {
        const uint64_t c1 = below(4) ? below(t) : t - 1; // corr[1]
        const uint64_t u = below(NS + 1);                // u <= NS
        const double corr = F64_MUL((double)u, u2d(c1)); // as modupn_cols_kernel forms it
        uint64_t hat[NS], vw[NS], vn[NS];
        double hd[NS], hw[NS], vd[NS];
        i128 want_w = (i128)u * c1, want_n = want_w;
        const uint64_t vmax = t * 13 < (1ull << 47) ? t * 13 : (1ull << 47); // f64_conv_sum's
        for (int k = 0; k < NS; ++k) {
            hat[k] = pick_w(t);
            hd[k] = u2d(hat[k]);
            hw[k] = f64_wide_hw(hd[k], td, ti);
            vw[k] = pick_v62();
            vn[k] = below(3) ? below(vmax) : vmax - 1;
            vd[k] = u2d(vn[k]);
            want_w += (i128)vw[k] * hat[k];
            want_n += (i128)vn[k] * hat[k];
        }
        const double yw = f64_conv_sum_wide<NS>(corr, vw, hd, hw, td, ti);
        CHECK(is_int(yw), "wide sum not an integer, t %llu", (unsigned long long)t);
        CHECK(mod((i128)yw, t) == mod(want_w, t), "wide sum wrong mod t %llu (NS %d)",
              (unsigned long long)t, NS);
        CHECK(fabs(yw) < corr + 1.82 * NS * td && fabs(yw) < 2.82 * NS * td,
              "wide sum %.0f out of bound, t %llu", yw, (unsigned long long)t);
        const double yn = f64_conv_sum<NS>(corr, vd, hd, td, ti);
        CHECK(is_int(yn) && mod((i128)yn, t) == mod(want_n, t), "sum wrong mod t %llu",
              (unsigned long long)t);
        CHECK(fabs(yn) < corr + 0.91 * NS * td, "sum %.0f out of bound, t %llu", yn,
              (unsigned long long)t);
    }
}

int main() {
    rnd_seed("test_f64_arith");
    const bool quick = getenv("HEPA_TEST_QUICK") != NULL;
    const long moduli = quick ? 200 : 2000, per = quick ? 200 : 1000;

    // the word <-> double conversions over [0, 2^52)
    const uint64_t wedge[] = {0, 1, (1ull << 52) - 1, 1ull << 51, (1ull << 47) - 1};
    for (long it = 0; it < per * 10; ++it) {
        const uint64_t v = it < 5 ? wedge[it] : below(1ull << 52);
        CHECK(u2d(v) == (double)v && d2u(u2d(v)) == v, "u2d/d2u %llu", (unsigned long long)v);
        CHECK(bits(dbl(v)) == v, "bits/dbl");
    }
    // f64_wide_ok's edges
    CHECK(!f64_wide_ok(165191049ull) && f64_wide_ok(165191050ull), "lower edge");
    CHECK(13ull * 165191050ull >= (1ull << 31) && 13ull * 165191049ull < (1ull << 31), "ceil");
    CHECK(f64_wide_ok((1ull << 47) - 1) && !f64_wide_ok(1ull << 47), "upper edge");

    for (long m = 0; m < moduli; ++m) {
        const uint64_t q = pick_q(m, 1ull << 20);
        const double qd = (double)q, qi = 1.0 / qd;
        for (long it = 0; it < per; ++it) {
            // f64_mulmod_q
            const int64_t y = pick_y(q);
            const uint64_t w = pick_w(q);
            const double r = f64_mulmod_q((double)y, u2d(w), qd, qi);
            CHECK(is_int(r) && mod((i128)r, q) == mod((i128)y * w, q),
                  "mulmod %lld * %llu mod %llu", (long long)y, (unsigned long long)w,
                  (unsigned long long)q);
            CHECK(fabs(r) < 0.91 * qd, "mulmod |%.0f| >= 0.91 q, q %llu", r, (unsigned long long)q);
            // the per-stage growth FP64 LIMBS' bounds assume: |r| <= (1/2 + Y/32)·q, |y| = Y·q
            CHECK(fabs(r) <= 0.5 * qd + fabs((double)y) / 32, "mulmod |%.0f| above (1/2 + Y/32)q",
                  r);
            // f64_reduce_q and f64_canonical_q over |x| < 2^53 (its stated range is wider)
            const int64_t x = (int64_t)below(1ull << 54) - (1ll << 53) + 1;
            const double rx = f64_reduce_q((double)x, qd, qi);
            CHECK(is_int(rx) && mod((i128)rx, q) == mod(x, q) && fabs(rx) <= qd / 2 + 1,
                  "reduce %lld mod %llu -> %.0f", (long long)x, (unsigned long long)q, rx);
            const uint64_t cx = f64_canonical_q((double)x, qd, qi);
            CHECK(cx == mod(x, q), "canonical %lld mod %llu", (long long)x, (unsigned long long)q);
        }
        if (f64_wide_ok(q)) { // f64_wide_hw
            for (long it = 0; it < per; ++it) {
                const uint64_t h = pick_w(q);
                const double hw = f64_wide_hw(u2d(h), qd, qi);
                CHECK(hw >= 0 && hw < qd && is_int(hw) && (uint64_t)hw == mod((i128)h << 31, q),
                      "wide_hw %llu mod %llu", (unsigned long long)h, (unsigned long long)q);
            }
        }
    }
    // the conversion sums, NS = 1 .. 4, targets in WIDE SOURCES' range
    for (long m = 0; m < moduli; ++m) {
        const uint64_t t = pick_q(m, 165191050ull);
        check_sums<1>(t, per / 4);
        check_sums<2>(t, per / 4);
        check_sums<3>(t, per / 4);
        check_sums<4>(t, per / 4);
    }
    if (g_fail) {
        fprintf(stderr, "test_f64_arith: %ld checks failed\n", g_fail);
        return 1;
    }
    fprintf(stderr, "test_f64_arith: all checks passed\n");
    return 0;
}
