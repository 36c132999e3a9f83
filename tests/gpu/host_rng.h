// tests/gpu/host_rng.h — the random words of the host-run checks of device arithmetic headers
// (test_bp_digits.cu, test_f64_arith.cu): xorshift64, seeded from HEPA_TEST_SEED when set (to
// replay a failure) or from the clock, the seed printed first.
#ifndef HEPA_TESTS_GPU_HOST_RNG_H
#define HEPA_TESTS_GPU_HOST_RNG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t g_s;
static uint64_t rnd() { // xorshift64
    g_s ^= g_s << 13;
    g_s ^= g_s >> 7;
    g_s ^= g_s << 17;
    return g_s;
}
static void rnd_seed(const char *test) {
    const char *env = getenv("HEPA_TEST_SEED");
    g_s = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 1;
    if (!g_s) g_s = 1;
    fprintf(stderr, "%s: HEPA_TEST_SEED=%llu\n", test, (unsigned long long)g_s);
}

#endif
