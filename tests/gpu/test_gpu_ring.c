/* tests/gpu/test_gpu_ring.c — the CUDA backend against the CPU backend, bit for bit.
 *
 * Every device operation runs on fresh random inputs (boundary-biased: 0, 1, q-1, ... appear
 * often) and its result must equal the CPU backend's on the same inputs and the same moduli.
 * Outputs of out-of-place operations are poisoned (0xFF bytes, never a residue) before the
 * device run, so an element the kernel forgets to write cannot pass.
 *
 * Without a usable GPU the program prints why and exits 77, which CTest reports as skipped. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "hepa/hepa.h"
#include "test_util.h"

/* Both backends on one set of moduli. */
typedef struct pair {
    hepa_ring *cpu, *gpu;
    size_t n, L;
    uint64_t moduli[64];
} pair;

static void pair_init(pair *p, size_t n, size_t L, unsigned bits) {
    p->n = n;
    p->L = L;
    T_OK(hepa_primes_ntt(p->moduli, L, bits, n));
    T_OK(hepa_ring_create(&p->cpu, n, p->moduli, L, HEPA_BACKEND_CPU));
    T_OK(hepa_ring_create(&p->gpu, n, p->moduli, L, HEPA_BACKEND_CUDA));
    cr_assert_eq(hepa_ring_backend(p->gpu), HEPA_BACKEND_CUDA);
}

static void pair_clear(pair *p) {
    hepa_ring_destroy(p->cpu);
    hepa_ring_destroy(p->gpu);
}

/* A polynomial on the device with the given host contents. */
static hepa_poly *dev_poly(const pair *p, size_t level, const uint64_t *src, hepa_domain d) {
    hepa_poly *x;
    T_OK(hepa_poly_create(&x, p->gpu, level));
    T_OK(hepa_poly_set(x, src, d));
    return x;
}

static hepa_poly *host_poly(const pair *p, size_t level, const uint64_t *src, hepa_domain d) {
    hepa_poly *x;
    T_OK(hepa_poly_create(&x, p->cpu, level));
    T_OK(hepa_poly_set(x, src, d));
    return x;
}

static void poison_dev(hepa_poly *x) {
    const hepa_ring *r = hepa_poly_ring(x);
    size_t bytes = hepa_poly_level(x) * hepa_ring_n(r) * sizeof(uint64_t);
    cr_assert_eq(cudaMemset(hepa_poly_data(x), 0xFF, bytes), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
}

static void fill(test_rng *rng, const pair *p, size_t level, uint64_t *a) {
    for (size_t i = 0; i < level; ++i)
        for (size_t j = 0; j < p->n; ++j)
            a[i * p->n + j] = test_rand_residue_edgy(rng, p->moduli[i]);
}

/* Forward and inverse NTT, multiply (coefficient domain, squaring too), add, sub, neg, pointwise
 * and scalar products: device == host for one (n, L, bits). */
static void check_ops_on(pair *pp, unsigned bits) {
    const pair p = *pp;
    const size_t n = p.n, L = p.L;
    test_rng rng;
    test_rng_init(&rng);
    const size_t level = L, w = level * n;
    uint64_t *a = test_alloc(w), *b = test_alloc(w), *want = test_alloc(w), *got = test_alloc(w);
    fill(&rng, &p, level, a);
    fill(&rng, &p, level, b);

    /* NTT forward / inverse, in place */
    hepa_poly *ha = host_poly(&p, level, a, HEPA_DOMAIN_COEFF);
    hepa_poly *da = dev_poly(&p, level, a, HEPA_DOMAIN_COEFF);
    T_OK(hepa_poly_to_ntt(ha));
    T_OK(hepa_poly_to_ntt(da));
    T_OK(hepa_poly_get(ha, want));
    test_poison(got, w);
    T_OK(hepa_poly_get(da, got));
    T_ARRAY_EQ(got, want, w, "forward NTT n=%zu L=%zu bits=%u", n, L, bits);
    T_OK(hepa_poly_from_ntt(da));
    T_OK(hepa_poly_get(da, got));
    T_ARRAY_EQ(got, a, w, "inverse(forward) n=%zu L=%zu bits=%u", n, L, bits);
    T_OK(hepa_poly_from_ntt(ha));

    /* both transforms of words at the edges of their range (the forward's outputs above are close
     * to uniform, the inverse's input there): b's mix of 0, 1, q - 1 and random words, then q - 1
     * everywhere, whose runs of sums are the largest the FP64 path's bounds allow for (ntt_cuda.cu,
     * FP64 LIMBS) */
    for (int k = 0; k < 4; ++k) {
        const int inv = k & 1;
        if (k >= 2)
            for (size_t i = 0; i < level; ++i)
                for (size_t j = 0; j < n; ++j)
                    want[i * n + j] = p.moduli[i] - 1;
        else
            memcpy(want, b, w * sizeof *want);
        const hepa_domain d = inv ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF;
        hepa_poly *hx = host_poly(&p, level, want, d);
        hepa_poly *dx = dev_poly(&p, level, want, d);
        T_OK(inv ? hepa_poly_from_ntt(hx) : hepa_poly_to_ntt(hx));
        T_OK(inv ? hepa_poly_from_ntt(dx) : hepa_poly_to_ntt(dx));
        T_OK(hepa_poly_get(hx, want));
        test_poison(got, w);
        T_OK(hepa_poly_get(dx, got));
        T_ARRAY_EQ(got, want, w, "%s NTT of edge words (%d) n=%zu L=%zu bits=%u",
                   inv ? "inverse" : "forward", k >> 1, n, L, bits);
        hepa_poly_destroy(hx);
        hepa_poly_destroy(dx);
    }

    /* negacyclic product (coefficient domain) into a poisoned output, and squaring */
    hepa_poly *hb = host_poly(&p, level, b, HEPA_DOMAIN_COEFF);
    hepa_poly *db = dev_poly(&p, level, b, HEPA_DOMAIN_COEFF);
    hepa_poly *hc, *dc;
    T_OK(hepa_poly_create(&hc, p.cpu, level));
    T_OK(hepa_poly_create(&dc, p.gpu, level));
    T_OK(hepa_poly_mul(hc, ha, hb));
    poison_dev(dc);
    T_OK(hepa_poly_mul(dc, da, db));
    T_OK(hepa_poly_get(hc, want));
    T_OK(hepa_poly_get(dc, got));
    T_ARRAY_EQ(got, want, w, "mul n=%zu L=%zu bits=%u", n, L, bits);
    T_OK(hepa_poly_mul(hc, ha, ha));
    poison_dev(dc);
    T_OK(hepa_poly_mul(dc, da, da));
    T_OK(hepa_poly_get(hc, want));
    T_OK(hepa_poly_get(dc, got));
    T_ARRAY_EQ(got, want, w, "square n=%zu L=%zu bits=%u", n, L, bits);

    /* element-wise ops, each into a poisoned output */
    for (int op = 0; op < 4; ++op) {
        poison_dev(dc);
        switch (op) {
        case 0: T_OK(hepa_poly_add(hc, ha, hb)); T_OK(hepa_poly_add(dc, da, db)); break;
        case 1: T_OK(hepa_poly_sub(hc, ha, hb)); T_OK(hepa_poly_sub(dc, da, db)); break;
        case 2: T_OK(hepa_poly_neg(hc, ha)); T_OK(hepa_poly_neg(dc, da)); break;
        default: {
            uint64_t sc[64];
            for (size_t i = 0; i < level; ++i) sc[i] = test_rand_residue_edgy(&rng, p.moduli[i]);
            T_OK(hepa_poly_mul_scalar(hc, ha, sc));
            T_OK(hepa_poly_mul_scalar(dc, da, sc));
        }
        }
        T_OK(hepa_poly_get(hc, want));
        T_OK(hepa_poly_get(dc, got));
        T_ARRAY_EQ(got, want, w, "element-wise op %d n=%zu L=%zu", op, n, L);
    }

    /* pointwise product in the NTT domain, output aliasing an input */
    T_OK(hepa_poly_to_ntt(ha));
    T_OK(hepa_poly_to_ntt(hb));
    T_OK(hepa_poly_to_ntt(da));
    T_OK(hepa_poly_to_ntt(db));
    T_OK(hepa_poly_mul(ha, ha, hb));
    T_OK(hepa_poly_mul(da, da, db));
    T_OK(hepa_poly_get(ha, want));
    T_OK(hepa_poly_get(da, got));
    T_ARRAY_EQ(got, want, w, "pointwise n=%zu L=%zu", n, L);
    cr_assert_eq(hepa_poly_domain(da), HEPA_DOMAIN_NTT);

    /* the host-array entry point */
    T_OK(hepa_negacyclic_mul(p.cpu, want, a, b));
    test_poison(got, w);
    T_OK(hepa_negacyclic_mul(p.gpu, got, a, b));
    T_ARRAY_EQ(got, want, w, "hepa_negacyclic_mul n=%zu L=%zu", n, L);

    hepa_poly_destroy(ha);
    hepa_poly_destroy(hb);
    hepa_poly_destroy(hc);
    hepa_poly_destroy(da);
    hepa_poly_destroy(db);
    hepa_poly_destroy(dc);
    T_OK(hepa_ring_sync(p.gpu));
    free(a);
    free(b);
    free(want);
    free(got);
}

static void check_all_ops(size_t n, size_t L, unsigned bits) {
    pair p;
    pair_init(&p, n, L, bits);
    check_ops_on(&p, bits);
    pair_clear(&p);
}

/* Every n from 2^4 to 2^20 with L in {1, 3} (quick runs stop at 2^18, the first three-pass
 * size); the L in {34, 64} for n = 2^10 .. 2^17 and 16 limbs at 2^20 (62-bit primes: the
 * largest allowed, where the lazy ranges are tightest; 50- and 55-bit for variety). */
Test(gpu_ring, all_sizes_small_L, .timeout = 600) {
    const unsigned top = test_quick() ? 18 : 20;
    for (unsigned logn = 4; logn <= top; ++logn) {
        check_all_ops((size_t)1 << logn, 1, 62);
        check_all_ops((size_t)1 << logn, 3, logn % 2 ? 50 : 62);
    }
}

Test(gpu_ring, large_L, .timeout = 600) {
    const unsigned top = test_quick() ? 12 : 17;
    for (unsigned logn = 10; logn <= top; ++logn) {
        check_all_ops((size_t)1 << logn, 34, 62);
        check_all_ops((size_t)1 << logn, 64, logn % 2 ? 55 : 62);
    }
    if (!test_quick()) check_all_ops((size_t)1 << 20, 16, 62);
}

/* Primes below 2^47 run the FP64 butterflies (ntt_cuda.cu, FP64 LIMBS): 30-, 40- and 47-bit
 * primes (47: the largest, where the bounds are tightest) at every size, 48-bit ones (the integer
 * path again) beside them, and a ring mixing both kinds at the 34 limbs. */
Test(gpu_ring, fp64_limbs, .timeout = 600) {
    const unsigned top = test_quick() ? 18 : 20;
    for (unsigned logn = 4; logn <= top; ++logn) {
        check_all_ops((size_t)1 << logn, 3, 47);
        check_all_ops((size_t)1 << logn, 1, logn % 2 ? 40 : 30);
        if (logn % 4 == 0) check_all_ops((size_t)1 << logn, 2, 48);
    }
    check_all_ops((size_t)1 << 16, 34, 40);
    if (!test_quick()) check_all_ops((size_t)1 << 17, 64, 40);
}

/* A ring mixing FP64 limbs (40-bit) and integer ones (60-bit): the kernels built for FP64 limbs
 * run both paths in one launch, and the fused product rows (ntt_cuda.cu, FUSED PRODUCT ROWS)
 * size their shared memory for the integer path; with and without staged twiddles. */
Test(gpu_ring, mixed_limbs) {
    for (unsigned logn = 13; logn <= 17; ++logn) {
        pair p;
        p.n = (size_t)1 << logn;
        p.L = 5;
        T_OK(hepa_primes_ntt(p.moduli, 3, 40, p.n));
        T_OK(hepa_primes_ntt(p.moduli + 3, 2, 60, p.n));
        const uint64_t t = p.moduli[1]; /* interleave the kinds: 40, 60, 40, 60, 40 */
        p.moduli[1] = p.moduli[3];
        p.moduli[3] = t;
        T_OK(hepa_ring_create(&p.cpu, p.n, p.moduli, p.L, HEPA_BACKEND_CPU));
        T_OK(hepa_ring_create(&p.gpu, p.n, p.moduli, p.L, HEPA_BACKEND_CUDA));
        check_ops_on(&p, 0);
        pair_clear(&p);
    }
}

/* Partial levels: operations use only the live limbs. */
Test(gpu_ring, partial_level) {
    test_rng rng;
    test_rng_init(&rng);
    pair p;
    pair_init(&p, 1 << 13, 8, 60);
    const size_t level = 5, w = level * p.n;
    uint64_t *a = test_alloc(w), *want = test_alloc(w), *got = test_alloc(w);
    fill(&rng, &p, level, a);
    hepa_poly *h = host_poly(&p, level, a, HEPA_DOMAIN_COEFF);
    hepa_poly *d = dev_poly(&p, level, a, HEPA_DOMAIN_COEFF);
    T_OK(hepa_poly_mul(h, h, h));
    T_OK(hepa_poly_mul(d, d, d));
    T_OK(hepa_poly_get(h, want));
    T_OK(hepa_poly_get(d, got));
    T_ARRAY_EQ(got, want, w, "square at level %zu", level);
    hepa_poly_destroy(h);
    hepa_poly_destroy(d);
    pair_clear(&p);
    free(a);
    free(want);
    free(got);
}

/* Asynchronous copies from and to pinned memory: set_async, transforms and get_async enqueued
 * back to back, one wait at the end; the results equal the CPU backend's. */
Test(gpu_ring, async_pinned_copies) {
    test_rng rng;
    test_rng_init(&rng);
    pair p;
    pair_init(&p, 1 << 14, 4, 60);
    const size_t w = p.L * p.n;
    uint64_t *src, *dst;
    T_OK(hepa_host_alloc((void **)&src, w * sizeof *src));
    T_OK(hepa_host_alloc((void **)&dst, w * sizeof *dst));
    uint64_t *want = test_alloc(w);
    fill(&rng, &p, p.L, src);
    hepa_poly *h = host_poly(&p, p.L, src, HEPA_DOMAIN_COEFF);
    T_OK(hepa_poly_to_ntt(h));
    T_OK(hepa_poly_get(h, want));
    hepa_poly *d;
    T_OK(hepa_poly_create(&d, p.gpu, p.L));
    test_poison(dst, w);
    T_OK(hepa_poly_set_async(d, src, HEPA_DOMAIN_COEFF));
    T_OK(hepa_poly_to_ntt(d));
    T_OK(hepa_poly_get_async(d, dst));
    T_OK(hepa_ring_sync(p.gpu));
    T_ARRAY_EQ(dst, want, w, "async pinned round trip");
    /* the synchronous set from pinned memory must not let a later change of src leak in */
    T_OK(hepa_poly_set(d, src, HEPA_DOMAIN_COEFF));
    for (size_t i = 0; i < w; ++i) src[i] = 0;
    T_OK(hepa_poly_to_ntt(d));
    T_OK(hepa_poly_get(d, dst));
    T_ARRAY_EQ(dst, want, w, "set from pinned memory, then src cleared");
    hepa_poly_destroy(h);
    hepa_poly_destroy(d);
    pair_clear(&p);
    hepa_host_free(src);
    hepa_host_free(dst);
    free(want);
}

/* Bad input: mixing backends or rings, levels, domains; exact statuses, outputs untouched. */
Test(gpu_ring, bad_input) {
    pair p;
    pair_init(&p, 1 << 12, 3, 60);
    hepa_poly *h, *d, *d2, *dlow;
    T_OK(hepa_poly_create(&h, p.cpu, 3));
    T_OK(hepa_poly_create(&d, p.gpu, 3));
    T_OK(hepa_poly_create(&d2, p.gpu, 3));
    T_OK(hepa_poly_create(&dlow, p.gpu, 2));
    /* a host polynomial where a device one is needed: a different ring */
    T_STATUS(hepa_poly_add(d, d2, h), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_mul(d, h, d2), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_copy(d, h), HEPA_ERR_MISMATCH);
    T_STATUS(hepa_poly_add(d, d2, dlow), HEPA_ERR_MISMATCH);
    T_OK(hepa_poly_to_ntt(d2));
    T_STATUS(hepa_poly_mul(d, d, d2), HEPA_ERR_DOMAIN);
    T_STATUS(hepa_poly_to_ntt(d2), HEPA_ERR_DOMAIN);
    T_STATUS(hepa_poly_from_ntt(d), HEPA_ERR_DOMAIN);
    uint64_t bad[3 << 12];
    memset(bad, 0, sizeof bad);
    bad[5] = p.moduli[0];
    T_STATUS(hepa_poly_set(d, bad, HEPA_DOMAIN_COEFF), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_negacyclic_mul(p.gpu, bad, bad, bad), HEPA_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bad[5], p.moduli[0], "output touched on error");
    hepa_poly_destroy(h);
    hepa_poly_destroy(d);
    hepa_poly_destroy(d2);
    hepa_poly_destroy(dlow);
    pair_clear(&p);
}
