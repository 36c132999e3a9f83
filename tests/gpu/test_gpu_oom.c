/* tests/gpu/test_gpu_oom.c — the CUDA backend when the device runs out of memory.
 *
 * Its own program (and CTest entry, under the GPU tests' RESOURCE_LOCK) because it fills the
 * device: a test running beside it, in the same Criterion run (-j) or in another GPU test
 * program, would fail its own allocations. The filled memory stays reserved in this process's
 * pool until it exits. Without a usable GPU the program exits 77 (skipped).
 *
 * Sanitizer runs leave it out (scripts/gpu-check.sh): filling the device under them is slow and
 * tests nothing they check. */
#include <stdlib.h>

#include "hepa/hepa.h"
#include "test_util.h"

/* Device out of memory: keep allocating the largest polynomials (64 MiB each) until the device
 * refuses; the refusal must be HEPA_ERR_OUT_OF_MEMORY, and everything must still work after the
 * memory is given back. */
Test(gpu_oom, out_of_memory, .timeout = 300) {
    uint64_t moduli[64];
    T_OK(hepa_primes_ntt(moduli, 64, 60, 1 << 17));
    hepa_ring *r;
    T_OK(hepa_ring_create(&r, 1 << 17, moduli, 64, HEPA_BACKEND_CUDA));
    enum { MAX = 4096 }; /* 256 GiB: more than any single GPU here */
    hepa_poly **ps = calloc(MAX, sizeof *ps);
    hepa_status s = HEPA_OK;
    size_t count = 0;
    while (count < MAX && (s = hepa_poly_create(&ps[count], r, 64)) == HEPA_OK)
        ++count;
    cr_assert_eq(s, HEPA_ERR_OUT_OF_MEMORY, "after %zu polys: %s", count, hepa_status_string(s));
    cr_assert_neq(hepa_last_error_message()[0], '\0');
    for (size_t i = 0; i < count; ++i)
        hepa_poly_destroy(ps[i]);
    T_OK(hepa_ring_sync(r));
    hepa_poly *x;
    T_OK(hepa_poly_create(&x, r, 64));
    T_OK(hepa_poly_to_ntt(x));
    T_OK(hepa_ring_sync(r));
    hepa_poly_destroy(x);
    hepa_ring_destroy(r);
    free(ps);
}
