// tests/gpu/test_bp_digits.cu — the big-prime digit arithmetic of src/ntt/bigprime_digits.cuh,
// compiled by nvcc but run on the host (no GPU needed, so it runs in CI): mul_bal64, the P3 FFT's
// twiddle multiply in 64-bit words, against mul_cols_sums + normalize (the 128-bit path, itself
// checked against GMP through the FFT tests), on random words and on the extremes that maximize
// its column sums (every digit 2^64 - 1, r - 1, 2^63, 0). Checks the value mod p and the balanced
// bound |d| <= 2^62 + 2^53 the derivation promises. Exit 0 on success; HEPA_TEST_SEED replays.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "host_rng.h"

#include "ntt/bigprime_digits.cuh"

using namespace hepa_bp;

static uint64_t pick(int mode) {
    const uint64_t r = FieldP3::r;
    static const uint64_t edge[] = {0, 1, ~0ull, r - 1, r, 1ull << 63, (1ull << 63) - 1};
    switch (mode) {
    case 0:
        return rnd();
    case 1:
        return ~0ull;
    default:
        return rnd() % 3 ? edge[rnd() % 7] : rnd();
    }
}
struct Arr {
    const uint64_t *a;
    __host__ __device__ uint64_t operator()(int i) const { return a[i]; }
};

int main() {
    rnd_seed("test_bp_digits");
    const FieldP3 f;
    const int64_t bound = (int64_t)((1ull << 62) + (1ull << 53));
    const long n = getenv("HEPA_TEST_QUICK") ? 20000 : 300000;
    int64_t maxd = 0;
    for (long it = 0; it < n; ++it) {
        const int mode = (int)(it % 3);
        uint64_t x[8], y[8];
        for (int m = 0; m < 8; ++m) {
            x[m] = pick(mode);
            y[m] = pick(mode);
        }
        i128 t[8];
        uint64_t z0[8], z1[8];
        mul_cols_sums<8>(f, t, Arr{x}, y);
        normalize<8>(f, z0, t);
        int64_t d[8];
        mul_bal64(f, d, Arr{x}, y);
        for (int m = 0; m < 8; ++m) {
            const int64_t a = d[m] < 0 ? -d[m] : d[m];
            if (a > maxd) maxd = a;
            if (a > bound) {
                fprintf(stderr, "FAIL: iteration %ld digit %d outside the balanced bound\n", it, m);
                return 1;
            }
            t[m] = d[m];
        }
        normalize<8>(f, z1, t);
        for (int m = 0; m < 8; ++m)
            if (z0[m] != z1[m]) {
                fprintf(stderr, "FAIL: iteration %ld (mode %d): x·y differs mod p\n", it, mode);
                return 1;
            }
    }
    printf("mul_bal64: %ld products equal mod p; max |d| - 2^62 = %lld\n", n,
           (long long)(maxd - (1ll << 62)));
    return 0;
}
