/* tests/gpu/test_gpu_rns.c — the ciphertext building blocks on the device (tensor, rescale,
 * automorphisms, base conversion, sampling, key generation and key switching) against the CPU
 * backend (itself checked against GMP and noise bounds in tests/test_rns.c), bit for bit, on
 * fresh boundary-biased random inputs, outputs poisoned (0xFF bytes) before each device run.
 * Sizes cover the one-block NTT path (n <= 2^9), the one-tile path (2^10 .. 2^12) and the
 * multi-pass path (2^13 and up), which the mapped NTTs of key switching and rescale all take.
 * Without a usable GPU the program exits 77 (skipped). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "hepa/hepa.h"
#include "test_util.h"

typedef struct pair {
    hepa_ring *cpu, *gpu;
    size_t n, M;
    uint64_t q[HEPA_RING_MAX_MODULI];
} pair;

/* Both backends' rings of the L + K moduli q. */
static void pair_init_q(pair *p, size_t n, size_t L, size_t K, const uint64_t *q) {
    p->n = n, p->M = L + K;
    memmove(p->q, q, p->M * sizeof *q);
    T_OK(hepa_ring_create(&p->cpu, n, p->q, p->M, HEPA_BACKEND_CPU));
    T_OK(hepa_ring_create(&p->gpu, n, p->q, p->M, HEPA_BACKEND_CUDA));
}

/* q_0 of 60 bits, L-1 of `bits`, K of 60 bits (the shape of the issue's parameter sets). */
static void pair_init(pair *p, size_t n, size_t L, size_t K, unsigned bits) {
    test_ks_moduli(p->q, n, L, K, bits);
    pair_init_q(p, n, L, K, p->q);
}

static void pair_clear(pair *p) {
    hepa_ring_destroy(p->cpu);
    hepa_ring_destroy(p->gpu);
}

/* The same random contents on both backends. */
typedef struct twin {
    hepa_poly *h, *d;
} twin;

/* Both polynomials set to the words a (level limbs) in domain dom; frees a. */
static twin twin_set(const pair *p, size_t level, uint64_t *a, hepa_domain dom) {
    twin x;
    T_OK(hepa_poly_create(&x.h, p->cpu, level));
    T_OK(hepa_poly_create(&x.d, p->gpu, level));
    T_OK(hepa_poly_set(x.h, a, dom));
    T_OK(hepa_poly_set(x.d, a, dom));
    free(a);
    return x;
}

static twin twin_rand(test_rng *t, const pair *p, size_t level, hepa_domain dom) {
    uint64_t *a = test_alloc(level * p->n);
    for (size_t i = 0; i < level; ++i)
        for (size_t j = 0; j < p->n; ++j)
            a[i * p->n + j] = test_rand_residue_edgy(t, p->q[i]);
    return twin_set(p, level, a, dom);
}

/* Coefficients at the edges of every limb's range, cycling: 0, 1, q - 1, q - 2 and the values
 * around q/2, where a base conversion's rounding u = round(x / q) flips; in the NTT domain. */
static twin twin_edges(const pair *p, size_t level) {
    uint64_t *a = test_alloc(level * p->n);
    for (size_t i = 0; i < level; ++i) {
        const uint64_t q = p->q[i], h = q / 2, e[] = {0, 1, q - 1, q - 2, h - 1, h, h + 1, h + 2};
        for (size_t j = 0; j < p->n; ++j) a[i * p->n + j] = e[(j + i) % 8];
    }
    twin x = twin_set(p, level, a, HEPA_DOMAIN_COEFF);
    T_OK(hepa_poly_to_ntt(x.h));
    T_OK(hepa_poly_to_ntt(x.d));
    return x;
}

/* NTT-domain words at the edges of [0, q) as they are (no transform): q - 1 everywhere when
 * top, else the mix of twin_edges. */
static twin twin_ntt_edges(const pair *p, size_t level, int top) {
    uint64_t *a = test_alloc(level * p->n);
    for (size_t i = 0; i < level; ++i) {
        const uint64_t q = p->q[i], h = q / 2, e[] = {0, 1, q - 1, q - 2, h - 1, h, h + 1, h + 2};
        for (size_t j = 0; j < p->n; ++j)
            a[i * p->n + j] = top ? q - 1 : e[(3 * j + i) % 8];
    }
    return twin_set(p, level, a, HEPA_DOMAIN_NTT);
}

/* An output pair, the device one poisoned. */
static twin twin_out(const pair *p, size_t level) {
    twin x;
    T_OK(hepa_poly_create(&x.h, p->cpu, level));
    T_OK(hepa_poly_create(&x.d, p->gpu, level));
    cr_assert_eq(cudaMemset(hepa_poly_data(x.d), 0xFF, level * p->n * 8), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    return x;
}

static void twin_free(twin x) {
    hepa_poly_destroy(x.h);
    hepa_poly_destroy(x.d);
}

/* Device == host, same domain tag. */
static void twin_check(twin x, const char *what, size_t n) {
    const size_t w = hepa_poly_level(x.h) * n;
    uint64_t *a = test_alloc(w), *b = test_alloc(w);
    test_poison(b, w);
    T_OK(hepa_poly_get(x.h, a));
    T_OK(hepa_poly_get(x.d, b));
    cr_assert_eq(hepa_poly_domain(x.h), hepa_poly_domain(x.d), "%s: domain tags differ", what);
    T_ARRAY_EQ(b, a, w, "%s (n %zu)", what, n);
    free(a), free(b);
}

Test(gpu_rns, tensor_rescale_drop_automorphism) {
    test_rng t;
    test_rng_init(&t);
    /* 8192 and up take the fused NTT-domain rescale (first pass: columns up to 2^17, two column
     * passes from 2^18; rows with staged twiddles from 2^16) */
    const size_t ns[] = {256, 1024, 8192, 65536, 131072, 262144};
    for (int k = 0; k < 6; ++k) {
        const size_t n = ns[k], L = n == 65536 ? 12 : n > 65536 ? 3 : 5;
        pair p;
        pair_init(&p, n, L, 1, 40);
        const size_t l = L;
        twin a0 = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT), a1 = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT);
        twin b0 = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT), b1 = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT);
        twin d0 = twin_out(&p, l), d1 = twin_out(&p, l), d2 = twin_out(&p, l);
        T_OK(hepa_poly_tensor(d0.h, d1.h, d2.h, a0.h, a1.h, b0.h, b1.h));
        T_OK(hepa_poly_tensor(d0.d, d1.d, d2.d, a0.d, a1.d, b0.d, b1.d));
        twin_check(d0, "tensor d0", n), twin_check(d1, "tensor d1", n), twin_check(d2, "tensor d2", n);

        for (int dom = 0; dom < 2; ++dom) {
            twin a = twin_rand(&t, &p, l, dom ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF);
            for (size_t lv = l; lv >= 2; lv = lv > 2 && lv == l ? 2 : 1) { /* levels l and 2 */
                twin src = twin_out(&p, lv), o = twin_out(&p, lv - 1);
                T_OK(hepa_poly_drop(src.h, a.h));
                T_OK(hepa_poly_drop(src.d, a.d));
                twin_check(src, "drop", n);
                T_OK(hepa_poly_rescale(o.h, src.h));
                T_OK(hepa_poly_rescale(o.d, src.d));
                twin_check(o, dom ? "rescale (NTT)" : "rescale (coefficients)", n);
                /* the pair (shared launches on the device) against the host's two rescales */
                twin b = twin_rand(&t, &p, lv, dom ? HEPA_DOMAIN_NTT : HEPA_DOMAIN_COEFF);
                twin o0 = twin_out(&p, lv - 1), o1 = twin_out(&p, lv - 1);
                T_OK(hepa_poly_rescale_pair(o0.h, o1.h, src.h, b.h));
                T_OK(hepa_poly_rescale_pair(o0.d, o1.d, src.d, b.d));
                twin_check(o0, dom ? "rescale pair 0 (NTT)" : "rescale pair 0 (coefficients)", n);
                twin_check(o1, dom ? "rescale pair 1 (NTT)" : "rescale pair 1 (coefficients)", n);
                T_STATUS(hepa_poly_rescale_pair(o0.d, o0.d, src.d, b.d), HEPA_ERR_INVALID_ARGUMENT);
                T_STATUS(hepa_poly_rescale_pair(o0.d, o1.d, src.d, b.h), HEPA_ERR_MISMATCH);
                twin_free(b), twin_free(o0), twin_free(o1);
                twin_free(src), twin_free(o);
                if (lv == 2) break;
            }
            const uint64_t gs[] = {3, 5, 25, 2 * n - 1, 2 * n + 5, 1};
            for (int gi = 0; gi < 6; ++gi) {
                twin o = twin_out(&p, l);
                T_OK(hepa_poly_automorphism(o.h, a.h, gs[gi]));
                T_OK(hepa_poly_automorphism(o.d, a.d, gs[gi]));
                twin_check(o, dom ? "automorphism (NTT)" : "automorphism (coefficients)", n);
                twin_free(o);
            }
            /* in place */
            T_OK(hepa_poly_automorphism(a.h, a.h, 5));
            T_OK(hepa_poly_automorphism(a.d, a.d, 5));
            twin_check(a, "automorphism in place", n);
            twin_free(a);
        }
        T_STATUS(hepa_poly_automorphism(d0.d, a0.d, 2), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_poly_tensor(d0.d, d1.d, d2.d, a0.d, a1.h, b0.d, b1.d), HEPA_ERR_MISMATCH);
        twin_free(a0), twin_free(a1), twin_free(b0), twin_free(b1);
        twin_free(d0), twin_free(d1), twin_free(d2);
        pair_clear(&p);
    }
}

/* RESCALE SPLIT and its EARLY RESCALE HALF (ntt_cuda.cu): at 2^16 the pair's forward NTTs run one
 * polynomial after the other where one polynomial's (level - 1) limbs between the passes fit in
 * half the L2 cache and two do not, here 40 and 39 limbs (21 and 20 MB: L2 caches of 42 to 81 MB,
 * such as the H100's and the H200's); the second polynomial's column pass then starts while the
 * first's row pass runs. Two pairs back to back, the second reading the first's outputs, so that
 * a launch which completed before its inputs were written or before the grid it overlapped
 * would show. */
Test(gpu_rns, rescale_pair_split) {
    test_rng t;
    test_rng_init(&t);
    const size_t n = 65536, L = 41;
    pair p;
    pair_init(&p, n, L, 1, 40);
    for (int rep = 0; rep < 2; ++rep) {
        twin a0 = twin_rand(&t, &p, L, HEPA_DOMAIN_NTT), a1 = twin_rand(&t, &p, L, HEPA_DOMAIN_NTT);
        twin o0 = twin_out(&p, L - 1), o1 = twin_out(&p, L - 1);
        twin r0 = twin_out(&p, L - 2), r1 = twin_out(&p, L - 2);
        T_OK(hepa_poly_rescale_pair(o0.h, o1.h, a0.h, a1.h));
        T_OK(hepa_poly_rescale_pair(r0.h, r1.h, o0.h, o1.h));
        T_OK(hepa_poly_rescale_pair(o0.d, o1.d, a0.d, a1.d));
        T_OK(hepa_poly_rescale_pair(r0.d, r1.d, o0.d, o1.d));
        twin_check(o0, "split rescale pair 0", n), twin_check(o1, "split rescale pair 1", n);
        twin_check(r0, "split rescale pair 0, again", n);
        twin_check(r1, "split rescale pair 1, again", n);
        twin_free(a0), twin_free(a1), twin_free(o0), twin_free(o1), twin_free(r0), twin_free(r1);
    }
    pair_clear(&p);
}

Test(gpu_rns, convert) {
    test_rng t;
    test_rng_init(&t);
    const size_t n = 4096;
    pair p;
    pair_init(&p, n, 40, 4, 45);
    const size_t M = p.M;
    size_t src[64], dst[64];
    /* 1 .. 4 sources: the unrolled kernel path (conv_pair), 17 and 30 the generic one; the last
     * round repeats 3 sources with both buffers one word off 16-byte alignment (generic path) */
    const size_t sizes[] = {1, 2, 3, 4, 17, 30, 3};
    uint64_t *in = test_alloc(M * n), *want = test_alloc(M * n), *got = test_alloc(M * n);
    uint64_t *din0, *dout0;
    cr_assert_eq(cudaMalloc((void **)&din0, (M * n + 1) * 8), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&dout0, (M * n + 1) * 8), cudaSuccess);
    for (int si = 0; si < 7; ++si) {
        uint64_t *din = din0 + (si == 6), *dout = dout0 + (si == 6);
        const size_t s = sizes[si];
        for (size_t k = 0; k < s; ++k) src[k] = (5 * k + si) % M;
        size_t nt = 0;
        for (size_t i = 0; i < M; ++i) dst[nt++] = (i * 7 + 1) % M; /* all moduli, shuffled */
        for (size_t k = 0; k < s; ++k)
            for (size_t x = 0; x < n; ++x) in[k * n + x] = test_rand_residue_edgy(&t, p.q[src[k]]);
        cr_assert_eq(cudaMemcpy(din, in, s * n * 8, cudaMemcpyHostToDevice), cudaSuccess);
        for (int exact = 0; exact < 2; ++exact) {
            cr_assert_eq(cudaMemset(dout, 0xFF, M * n * 8), cudaSuccess);
            /* legacy-stream copy and memset done before the ring's non-blocking stream reads */
            cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
            T_OK(hepa_rns_convert(p.cpu, want, dst, nt, in, src, s, exact));
            T_OK(hepa_rns_convert(p.gpu, dout, dst, nt, din, src, s, exact));
            T_OK(hepa_ring_sync(p.gpu));
            cr_assert_eq(cudaMemcpy(got, dout, nt * n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
            T_ARRAY_EQ(got, want, nt * n, "conversion ns %zu exact %d round %d", s, exact, si);
        }
    }
    cudaFree(din0), cudaFree(dout0);
    free(in), free(want), free(got);
    pair_clear(&p);
}

/* Keys from the same seed on both backends, then one key switch per level: bit-identical. */
/* qx: NULL (test_ks_moduli's primes of `bits`) or the L + K moduli. */
static void check_keyswitch_q(size_t n, size_t L, size_t K, size_t alpha, unsigned bits,
                              const uint64_t *qx) {
    test_rng t;
    test_rng_init(&t);
    pair p;
    if (qx)
        pair_init_q(&p, n, L, K, qx);
    else
        pair_init(&p, n, L, K, bits);
    const size_t M = p.M;
    hepa_ks *kh = NULL, *kd = NULL;
    T_OK(hepa_ks_create(&kh, p.cpu, K, alpha));
    T_OK(hepa_ks_create(&kd, p.gpu, K, alpha));
    uint8_t seed[32];
    for (int i = 0; i < 32; ++i) seed[i] = (uint8_t)test_rand64(&t);
    hepa_rng *gh = NULL, *gd = NULL;
    T_OK(hepa_rng_create(&gh, seed));
    T_OK(hepa_rng_create(&gd, seed));
    twin s = twin_out(&p, M), s2 = twin_out(&p, M);
    T_OK(hepa_sample_ternary(gh, s.h)); T_OK(hepa_sample_ternary(gd, s.d));
    T_OK(hepa_sample_gaussian(gh, s2.h, 3.2)); T_OK(hepa_sample_gaussian(gd, s2.d, 3.2));
    twin_check(s, "ternary sample", n), twin_check(s2, "Gaussian sample", n);
    T_OK(hepa_poly_to_ntt(s.h)); T_OK(hepa_poly_to_ntt(s.d));
    T_OK(hepa_poly_to_ntt(s2.h)); T_OK(hepa_poly_to_ntt(s2.d));
    hepa_ksk *keyh = NULL, *keyd = NULL;
    T_OK(hepa_ksk_create(&keyh, kh, s2.h, s.h, gh));
    T_OK(hepa_ksk_create(&keyd, kd, s2.d, s.d, gd));
    const size_t kw = hepa_ks_num_digits(kh, L) * 2 * M * n;
    uint64_t *kk = test_alloc(kw), *kh_w = test_alloc(kw);
    memset(kk, 0xA5, kw * 8);        /* poisoned: every word must be written */
    T_OK(hepa_ksk_export(keyd, kk)); /* unpacks the device's 5-byte limbs (PACKED KEYS) */
    T_OK(hepa_ksk_export(keyh, kh_w));
    T_ARRAY_EQ(kk, kh_w, kw, "switching key words");
    /* the device stores the limbs below 2^40 in 5 bytes, the host all in 8 */
    size_t packed = 0;
    for (size_t m = 0; m < M; ++m)
        packed += p.q[m] < ((uint64_t)1 << 40);
    cr_assert_eq(hepa_ksk_bytes(keyh), kw * 8);
    cr_assert_eq(hepa_ksk_bytes(keyd), kw * 8 - hepa_ks_num_digits(kh, L) * 2 * packed * 3 * n,
                 "device key bytes %zu", hepa_ksk_bytes(keyd));
    T_STATUS(hepa_ksk_export(NULL, kk), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_ksk_export(keyd, NULL), HEPA_ERR_INVALID_ARGUMENT);
    cr_assert_eq(hepa_ksk_bytes(NULL), 0);
    { /* the host key's words imported into the device context: the same storage (export and
       * size), and the switches below run with it (keyd's words equal them, checked above) */
        hepa_ksk *keyi = NULL;
        cr_assert_eq(hepa_ks_key_words(kd), kw);
        T_OK(hepa_ksk_import(&keyi, kd, kh_w, kw));
        cr_assert_eq(hepa_ksk_bytes(keyi), hepa_ksk_bytes(keyd));
        memset(kk, 0xA5, kw * 8);
        T_OK(hepa_ksk_export(keyi, kk));
        T_ARRAY_EQ(kk, kh_w, kw, "imported switching key words");
        const uint64_t w0 = kh_w[kw - 1]; /* a word at its modulus, in the last component */
        kh_w[kw - 1] = p.q[M - 1];
        hepa_ksk *bad = NULL;
        T_STATUS(hepa_ksk_import(&bad, kd, kh_w, kw), HEPA_ERR_INVALID_ARGUMENT);
        cr_assert_null(bad);
        kh_w[kw - 1] = w0;
        hepa_ksk_destroy(keyd);
        keyd = keyi;
        /* seeded keys: made on both backends from one seed and rng state, the same words; the
         * device key's seed and b_j equal the host's, and import back to its words */
        uint8_t seed[32], sh[32], sd[32];
        for (int i = 0; i < 32; ++i)
            seed[i] = (uint8_t)test_rand64(&t);
        hepa_ksk *skh = NULL, *skd = NULL, *ski = NULL;
        T_OK(hepa_ksk_create_seeded(&skh, kh, s2.h, s.h, gh, seed));
        T_OK(hepa_ksk_create_seeded(&skd, kd, s2.d, s.d, gd, seed));
        uint64_t *bh = test_alloc(kw / 2), *bd = test_alloc(kw / 2);
        memset(bd, 0xA5, kw / 2 * 8);
        T_OK(hepa_ksk_export_seeded(skh, sh, bh));
        T_OK(hepa_ksk_export_seeded(skd, sd, bd));
        cr_assert(memcmp(sh, seed, 32) == 0 && memcmp(sd, seed, 32) == 0, "exported seeds");
        T_ARRAY_EQ(bd, bh, kw / 2, "seeded key b words");
        T_OK(hepa_ksk_import_seeded(&ski, kd, sh, bh, kw / 2));
        T_OK(hepa_ksk_export(skh, kh_w));
        memset(kk, 0xA5, kw * 8);
        T_OK(hepa_ksk_export(ski, kk));
        T_ARRAY_EQ(kk, kh_w, kw, "seeded import's words");
        memset(kk, 0xA5, kw * 8);
        T_OK(hepa_ksk_export(skd, kk));
        T_ARRAY_EQ(kk, kh_w, kw, "device seeded key's words");
        hepa_ksk_destroy(skh), hepa_ksk_destroy(skd), hepa_ksk_destroy(ski);
        free(bh), free(bd);
    }
    free(kk), free(kh_w);
    const size_t levels[] = {L, (L + 1) / 2, 1};
    for (int li = 0; li < 3; ++li) {
        const size_t l = levels[li];
        twin c = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT), o0 = twin_out(&p, l), o1 = twin_out(&p, l);
        T_OK(hepa_keyswitch(kh, o0.h, o1.h, c.h, keyh));
        T_OK(hepa_keyswitch(kd, o0.d, o1.d, c.d, keyd));
        twin_check(o0, "key switch out0", n);
        twin_check(o1, "key switch out1", n);
        /* in place on the input */
        T_OK(hepa_keyswitch(kd, c.d, o1.d, c.d, keyd));
        T_OK(hepa_poly_copy(o0.h, c.h)); /* keep the host twin in step */
        T_OK(hepa_keyswitch(kh, c.h, o1.h, o0.h, keyh));
        twin_check(c, "key switch in place", n);
        twin_free(c), twin_free(o0), twin_free(o1);
        /* the additions fused into ModDown (hepa_keyswitch_add): in place on the adds, as a
         * relinearization runs it; then into fresh (poisoned) outputs with add1 NULL, as a
         * rotation runs it. The host's is checked against key switch + hepa_poly_add in
         * test_rns.c. */
        twin c2 = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT);
        twin a0 = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT), a1 = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT);
        twin k0 = twin_out(&p, l), k1 = twin_out(&p, l);
        T_OK(hepa_keyswitch_add(kh, k0.h, k1.h, c2.h, keyh, a0.h, NULL));
        T_OK(hepa_keyswitch_add(kd, k0.d, k1.d, c2.d, keyd, a0.d, NULL));
        twin_check(k0, "key switch + add, out0", n);
        twin_check(k1, "key switch + add (none), out1", n);
        T_OK(hepa_keyswitch_add(kh, a0.h, a1.h, c2.h, keyh, a0.h, a1.h));
        T_OK(hepa_keyswitch_add(kd, a0.d, a1.d, c2.d, keyd, a0.d, a1.d));
        twin_check(a0, "key switch + add in place, out0", n);
        twin_check(a1, "key switch + add in place, out1", n);
        twin_free(c2), twin_free(a0), twin_free(a1), twin_free(k0), twin_free(k1);
        { /* hepa_automorphism_hoisted (HOISTING: one ModUp, the inner product reading the digits
           * through σ_g): five rotations (one slot, conjugation, a g above 2n, 25, g = 1) into
           * fresh (poisoned) outputs, then two (the device runs fewer than HOIST MIN one at a
           * time); the host's equals automorphism + keyswitch_add (test_rns.c) */
            const uint64_t gs[5] = {5, 2 * n - 1, 2 * n * 3 + 25, 25, 1};
            twin h0 = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT),
                 h1 = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT);
            twin u0[5], u1[5];
            hepa_poly *uh0[5], *uh1[5], *ud0[5], *ud1[5];
            const hepa_ksk *khs[5] = {keyh, keyh, keyh, keyh, keyh};
            const hepa_ksk *kds[5] = {keyd, keyd, keyd, keyd, keyd};
            for (int k = 0; k < 5; ++k) {
                u0[k] = twin_out(&p, l), u1[k] = twin_out(&p, l);
                uh0[k] = u0[k].h, uh1[k] = u1[k].h, ud0[k] = u0[k].d, ud1[k] = u1[k].d;
            }
            for (int round = 0; round < 2; ++round) {
                const size_t cnt = round ? 2 : 5;
                if (round) /* poisoned again */
                    for (size_t k = 0; k < cnt; ++k) {
                        cr_assert_eq(cudaMemset(hepa_poly_data(ud0[k]), 0xFF, l * n * 8),
                                     cudaSuccess);
                        cr_assert_eq(cudaMemset(hepa_poly_data(ud1[k]), 0xFF, l * n * 8),
                                     cudaSuccess);
                        cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
                    }
                T_OK(hepa_automorphism_hoisted(kh, uh0, uh1, h0.h, h1.h, gs + 3 * round, khs, cnt));
                T_OK(hepa_automorphism_hoisted(kd, ud0, ud1, h0.d, h1.d, gs + 3 * round, kds, cnt));
                for (size_t k = 0; k < cnt; ++k) {
                    twin_check(u0[k],
                               round ? "automorphisms one at a time, out0"
                                     : "hoisted automorphism, out0",
                               n);
                    twin_check(u1[k],
                               round ? "automorphisms one at a time, out1"
                                     : "hoisted automorphism, out1",
                               n);
                }
            }
            for (int k = 0; k < 5; ++k)
                twin_free(u0[k]), twin_free(u1[k]);
            twin_free(h0), twin_free(h1);
        }
        { /* the raw tier (hepa/keyswitch.h), device == host step by step: _hepa_ks_modup (the
           * whole ModUp, which HOISTING takes), _hepa_ks_inner, _hepa_ks_moddown; device
           * buffers poisoned */
            const size_t E = l + K, dn = hepa_ks_num_digits(kh, l);
            const size_t we = dn * E * n, wt = 2 * E * n, wo = 2 * l * n;
            twin c = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT);
            uint64_t *hb = test_alloc(we + wt + wo + 2 * l * n), *db = NULL;
            uint64_t *back = test_alloc(we + wt + wo);
            cr_assert_eq(cudaMalloc((void **)&db, (we + wt + wo + 2 * l * n) * 8), cudaSuccess);
            cr_assert_eq(cudaMemset(db, 0xFF, (we + wt + wo + 2 * l * n) * 8), cudaSuccess);
            cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess); /* (the ring's stream is not
                                                                 * the default one) */
            uint64_t *he = hb, *ht0 = he + we, *ht1 = ht0 + E * n, *ho = ht0 + wt, *htmp = ho + wo;
            uint64_t *de = db, *dt0 = de + we, *dt1 = dt0 + E * n, *dout = dt0 + wt,
                     *dtmp = dout + wo;
            T_OK(_hepa_ks_modup(kh, l, he, hepa_poly_data(c.h), htmp));
            T_OK(_hepa_ks_modup(kd, l, de, hepa_poly_data(c.d), dtmp));
            T_OK(_hepa_ks_inner(kh, l, ht0, ht1, he, keyh));
            T_OK(_hepa_ks_inner(kd, l, dt0, dt1, de, keyd));
            T_OK(hepa_ring_sync(p.gpu));
            cr_assert_eq(cudaMemcpy(back, db, (we + wt) * 8, cudaMemcpyDeviceToHost), cudaSuccess);
            T_ARRAY_EQ(back, he, we, "raw ModUp, level %zu (n %zu)", l, n);
            T_ARRAY_EQ(back + we, ht0, wt, "raw inner product, level %zu (n %zu)", l, n);
            T_OK(_hepa_ks_moddown(kh, l, ho, ho + l * n, ht0, ht1, htmp));
            T_OK(_hepa_ks_moddown(kd, l, dout, dout + l * n, dt0, dt1, dtmp));
            T_OK(hepa_ring_sync(p.gpu));
            cr_assert_eq(cudaMemcpy(back, dout, wo * 8, cudaMemcpyDeviceToHost), cudaSuccess);
            T_ARRAY_EQ(back, ho, wo, "raw ModDown, level %zu (n %zu)", l, n);
            cudaFree(db), free(hb), free(back);
            twin_free(c);
        }
        /* hepa_mul_relin (the tensor into the outputs and d2 into scratch, then
         * hepa_keyswitch_add's path): into fresh (poisoned) outputs, then in place on a, then
         * squaring with the outputs swapped onto b; the host's is checked against tensor +
         * keyswitch_add in test_rns.c */
        twin x[4];
        for (int k = 0; k < 4; ++k)
            x[k] = twin_rand(&t, &p, l, HEPA_DOMAIN_NTT);
        twin m0 = twin_out(&p, l), m1 = twin_out(&p, l);
        T_OK(hepa_mul_relin(kh, m0.h, m1.h, x[0].h, x[1].h, x[2].h, x[3].h, keyh));
        T_OK(hepa_mul_relin(kd, m0.d, m1.d, x[0].d, x[1].d, x[2].d, x[3].d, keyd));
        twin_check(m0, "mul_relin out0", n);
        twin_check(m1, "mul_relin out1", n);
        T_OK(hepa_mul_relin(kh, x[0].h, x[1].h, x[0].h, x[1].h, x[2].h, x[3].h, keyh));
        T_OK(hepa_mul_relin(kd, x[0].d, x[1].d, x[0].d, x[1].d, x[2].d, x[3].d, keyd));
        twin_check(x[0], "mul_relin in place, out0", n);
        twin_check(x[1], "mul_relin in place, out1", n);
        T_OK(hepa_mul_relin(kh, x[3].h, x[2].h, x[2].h, x[3].h, x[2].h, x[3].h, keyh));
        T_OK(hepa_mul_relin(kd, x[3].d, x[2].d, x[2].d, x[3].d, x[2].d, x[3].d, keyd));
        twin_check(x[3], "mul_relin squaring, out0", n);
        twin_check(x[2], "mul_relin squaring, out1", n);
        if (l >= 2) { /* hepa_mul_relin_rescale (MODDOWN RESCALE where the device fuses it; the
                       * host runs mul_relin then rescale_pair), then squaring */
            twin r0 = twin_out(&p, l - 1), r1 = twin_out(&p, l - 1);
            T_OK(hepa_mul_relin_rescale(kh, r0.h, r1.h, x[0].h, x[1].h, x[2].h, x[3].h, keyh));
            T_OK(hepa_mul_relin_rescale(kd, r0.d, r1.d, x[0].d, x[1].d, x[2].d, x[3].d, keyd));
            twin_check(r0, "mul_relin_rescale out0", n);
            twin_check(r1, "mul_relin_rescale out1", n);
            T_OK(hepa_mul_relin_rescale(kh, r0.h, r1.h, x[2].h, x[3].h, x[2].h, x[3].h, keyh));
            T_OK(hepa_mul_relin_rescale(kd, r0.d, r1.d, x[2].d, x[3].d, x[2].d, x[3].d, keyd));
            twin_check(r0, "mul_relin_rescale squaring, out0", n);
            twin_check(r1, "mul_relin_rescale squaring, out1", n);
            twin_free(r0), twin_free(r1);
        } else {
            twin r0 = twin_out(&p, 1), r1 = twin_out(&p, 1);
            T_STATUS(hepa_mul_relin_rescale(kd, r0.d, r1.d, x[0].d, x[1].d, x[2].d, x[3].d, keyd),
                     HEPA_ERR_RANGE);
            twin_free(r0), twin_free(r1);
        }
        for (int k = 0; k < 4; ++k)
            twin_free(x[k]);
        twin_free(m0), twin_free(m1);
    }
    { /* hepa_mul_relin's MODDOWN TENSOR (fresh outputs: d0 and d1 computed in ModDown's last
       * pass) on NTT-domain words at the edges of [0, q): q - 1 everywhere (the largest
       * products), then the edgy mix; then squaring (b = a) into fresh outputs */
        for (int top = 1; top >= 0; --top) {
            twin x[4];
            for (int k = 0; k < 4; ++k)
                x[k] = twin_ntt_edges(&p, L, top);
            twin m0 = twin_out(&p, L), m1 = twin_out(&p, L);
            T_OK(hepa_mul_relin(kh, m0.h, m1.h, x[0].h, x[1].h, x[2].h, x[3].h, keyh));
            T_OK(hepa_mul_relin(kd, m0.d, m1.d, x[0].d, x[1].d, x[2].d, x[3].d, keyd));
            twin_check(m0, top ? "mul_relin of q - 1, out0" : "mul_relin of edge words, out0", n);
            twin_check(m1, top ? "mul_relin of q - 1, out1" : "mul_relin of edge words, out1", n);
            if (L >= 2) {
                twin r0 = twin_out(&p, L - 1), r1 = twin_out(&p, L - 1);
                T_OK(hepa_mul_relin_rescale(kh, r0.h, r1.h, x[0].h, x[1].h, x[2].h, x[3].h, keyh));
                T_OK(hepa_mul_relin_rescale(kd, r0.d, r1.d, x[0].d, x[1].d, x[2].d, x[3].d, keyd));
                twin_check(r0,
                           top ? "mul_relin_rescale of q - 1, out0"
                               : "mul_relin_rescale of edge words, out0",
                           n);
                twin_check(r1,
                           top ? "mul_relin_rescale of q - 1, out1"
                               : "mul_relin_rescale of edge words, out1",
                           n);
                twin_free(r0), twin_free(r1);
            }
            if (!top) {
                T_OK(hepa_mul_relin(kh, m0.h, m1.h, x[0].h, x[1].h, x[0].h, x[1].h, keyh));
                T_OK(hepa_mul_relin(kd, m0.d, m1.d, x[0].d, x[1].d, x[0].d, x[1].d, keyd));
                twin_check(m0, "mul_relin squaring into fresh outputs, out0", n);
                twin_check(m1, "mul_relin squaring into fresh outputs, out1", n);
            }
            for (int k = 0; k < 4; ++k)
                twin_free(x[k]);
            twin_free(m0), twin_free(m1);
        }
    }
    { /* digits at the edges of their range (ModUp converts each digit's coefficients) */
        twin c = twin_edges(&p, L), o0 = twin_out(&p, L), o1 = twin_out(&p, L);
        T_OK(hepa_keyswitch(kh, o0.h, o1.h, c.h, keyh));
        T_OK(hepa_keyswitch(kd, o0.d, o1.d, c.d, keyd));
        twin_check(o0, "key switch of edge digits, out0", n);
        twin_check(o1, "key switch of edge digits, out1", n);
        twin_free(c), twin_free(o0), twin_free(o1);
    }
    hepa_poly *cx = NULL, *o0 = NULL, *o1 = NULL;
    T_OK(hepa_poly_create(&cx, p.gpu, L)); T_OK(hepa_poly_create(&o0, p.gpu, L));
    T_OK(hepa_poly_create(&o1, p.gpu, L));
    T_OK(hepa_poly_to_ntt(cx));
    T_STATUS(hepa_keyswitch(kd, o0, o1, cx, keyh), HEPA_ERR_MISMATCH); /* a CPU context's key */
    T_STATUS(hepa_keyswitch(kh, o0, o1, cx, keyh), HEPA_ERR_MISMATCH); /* device polys, CPU ring */
    hepa_poly_destroy(cx), hepa_poly_destroy(o0), hepa_poly_destroy(o1);
    hepa_ksk_destroy(keyh), hepa_ksk_destroy(keyd);
    twin_free(s), twin_free(s2);
    hepa_rng_destroy(gh), hepa_rng_destroy(gd);
    hepa_ks_destroy(kh), hepa_ks_destroy(kd);
    pair_clear(&p);
}

static void check_keyswitch(size_t n, size_t L, size_t K, size_t alpha, unsigned bits) {
    check_keyswitch_q(n, L, K, alpha, bits, NULL);
}

/* One-limb digits on a ring of mixed sizes, for modup1_cols_kernel's CENTRED SOURCE routes:
 * FP64 targets (below 2^47) much smaller than their source (the reduced route: 46 and 50-bit
 * sources into 30 and 40-bit targets), and an integer target just above 2^47 that the centred
 * value of the 50-bit source exceeds (|x_c| mod q); q_0 of 60 bits keeps the plain route.
 * Q = {60, 46, 30, 50, 40 bits}, P = {the first NTT prime above 2^47}. */
static void check_keyswitch_mixed(size_t n) {
    uint64_t q[6];
    const unsigned bits[5] = {60, 46, 30, 50, 40};
    for (int i = 0; i < 5; ++i)
        cr_assert_eq(test_primes_1mod_desc(q + i, 1, bits[i], 2 * (uint64_t)n), 1);
    q[5] = test_next_prime_1mod((uint64_t)1 << 47, 2 * (uint64_t)n);
    cr_assert(q[5] > ((uint64_t)1 << 47) && q[5] < q[3] / 2, "P %llu", (unsigned long long)q[5]);
    check_keyswitch_q(n, 5, 1, 0, 0, q);
}

/* Digits of two limbs on a ring of mixed sizes, for modupn_cols_kernel's routes (the conversion
 * fused into ModUp's column pass, n = 2^15 .. 2^17): Q = {60, 40, 44, 30, 46 bits}, P = {the
 * first NTT prime above 2^47}, digits {60, 40} (a source above 2^47: every target by the integer
 * sum), {44, 30} (FP64 sources: the FP64 sum into the 46-bit target; the 40-bit target, which
 * the 44-bit source exceeds 13-fold, by the integer sum on an FP64 limb; 60 bits and P by the
 * integer sum on integer limbs) and the one-limb last digit {46}. The 40-bit target is stored
 * in PACKED COLUMNS, the 44- and 46-bit FP64 targets not. */
static void check_keyswitch_mixed2(size_t n) {
    uint64_t q[6];
    const unsigned bits[5] = {60, 40, 44, 30, 46};
    for (int i = 0; i < 5; ++i)
        cr_assert_eq(test_primes_1mod_desc(q + i, 1, bits[i], 2 * (uint64_t)n), 1);
    cr_assert(q[2] > 13 * q[1], "44-bit %llu", (unsigned long long)q[2]);
    q[5] = test_next_prime_1mod((uint64_t)1 << 47, 2 * (uint64_t)n);
    check_keyswitch_q(n, 5, 1, 2, 0, q);
}

/* keyswitch_small's cases are split by n into four tests so that Criterion's -j runs them side
 * by side: under compute-sanitizer's racecheck the single test did not finish in 300 s on an H100
 * (bench/results/2026-12-06-h100-f64-shoup-96374b2.md), and the device calls are capped at
 * 600 s. Together the four run the same cases as before. */
Test(gpu_rns, keyswitch_small) {
    check_keyswitch(256, 3, 2, 0, 40);   /* one-block NTTs, a short last digit */
    check_keyswitch(1024, 20, 1, 0, 40); /* 20 digits: the inner product folds past 16 */
    check_keyswitch(4096, 7, 3, 2, 40);  /* digit size below K */
    /* one-limb digits: n < 2^10 converts then transforms; from 2^10 the NTT's first pass
     * converts as it loads (_hepa_dev_ks_modup1); q_0 and the special primes have 60 bits, the
     * others 40: digit 0 into the 40-bit limbs takes its Barrett step, and half of all
     * coefficients its rounding (u = 1) */
    check_keyswitch(256, 4, 1, 0, 40);
    check_keyswitch(8192, 6, 1, 0, 40);
    /* digits of 3 limbs, 7 = 3 + 3 + 1: a one-limb last digit among longer ones */
    check_keyswitch(8192, 7, 3, 0, 40);
    /* from n = 2^13 (the two n = 8192 cases above, and those below) ModUp's last NTT pass and
     * the inner product run as one kernel (_hepa_dev_ks_rows_inner); 62-bit Q primes: */
    check_keyswitch(8192, 5, 2, 0, 62);
    /* one-limb digits on a ring without FP64 limbs: ntt_tile_kernel's XF 4 columns (rings with
     * FP64 limbs take modup1_cols_kernel, several targets per block) */
    check_keyswitch(8192, 4, 1, 0, 62);
    check_keyswitch_mixed(8192); /* the column pass of one n = 2^13 ... 2^17 */
}

/* n = 2^15 (issue 6's smallest size). Key switching runs ModDown on the helper stream here and at
 * 2^16 (HELPER AT 2^15, keyswitch.c), on the one stream at 2^13, 2^14 and 2^17. From here to
 * 2^17 the mul_relin_rescale checks run MODDOWN RESCALE, on the helper stream (RESCALE ON THE
 * HELPER); below 2^15 and above 2^17 hepa_mul_relin_rescale runs its two steps */
Test(gpu_rns, keyswitch_small_n15) {
    /* one-limb digits at quick sizes */
    check_keyswitch(32768, 5, 1, 0, 40);
    /* digits of 3 limbs: the conversion kernel and the column pass keep the 40-bit targets in
     * PACKED COLUMNS (ntt_cuda.cu), the 60-bit ones (q_0, P) not; 7 = 3 + 3 + 1: a one-limb last
     * digit among longer ones */
    check_keyswitch(32768, 7, 3, 0, 40);
    /* digits of 4 limbs (9 = 4 + 4 + 1) and K = 4: modupn_cols_kernel<GB, 4> for ModUp and
     * ModDown (the conversion kernel where HEPA_DEV_FUSED_CONV_MAX is 3) */
    check_keyswitch(32768, 9, 4, 0, 40);
    /* digits of 4 limbs (6 = 4 + 2: the conversion kernel and XF 6, for ModUp and for ModDown's
     * K = 4) and the mixed routes of modupn_cols_kernel */
    check_keyswitch(32768, 6, 4, 0, 40);
    /* K = 5: MODDOWN RESCALE's 6 sources exceed modupn_cols_kernel's 5 (HEPA_DEV_RESCALE_CONV_MAX),
     * so its conversion kernel and separate column pass run; digits of 5 limbs (6 = 5 + 1) */
    check_keyswitch(32768, 6, 5, 0, 40);
    check_keyswitch_mixed2(32768);
}

/* n = 2^16 (issue 6's main size), where key switching runs ModDown on the helper stream too;
 * from 2^16 the fused row pass runs the 40-bit limbs on the FP64 pipe, q_0 and P on the integer
 * path */
Test(gpu_rns, keyswitch_small_n16) {
    check_keyswitch_mixed(65536);         /* the helper-stream path on mixed prime sizes */
    check_keyswitch(65536, 3, 1, 0, 40);  /* one-limb digits at quick sizes */
    check_keyswitch(65536, 5, 2, 0, 40);  /* digits of 2 limbs, 5 = 2 + 2 + 1 */
}
Test(gpu_rns, keyswitch_small_n16_k34) {
    check_keyswitch(65536, 7, 3, 0, 40); /* ModDown's K = 3 conversion beside the helper stream */
    /* digits of 4 limbs (5 = 4 + 1) and ModDown's K = 4, beside the helper stream */
    check_keyswitch(65536, 5, 4, 0, 40);
    /* K = 5 beside the helper stream: MODDOWN RESCALE through the conversion kernel */
    check_keyswitch(65536, 6, 5, 0, 40);
}

/* KS GRAPH (keyswitch.c) is on by default, so the other key-switch tests run through its cache
 * (one graph per call shape and level: levels L, (L + 1)/2 and 1 take turns in each check). This
 * one runs the same checks with it off (HEPA_KS_GRAPH=0, set before this test's process, as
 * Criterion runs each test in its own, first reads it): the eager launches at 2^15 and 2^16. */
Test(gpu_rns, keyswitch_eager) {
    cr_assert_eq(setenv("HEPA_KS_GRAPH", "0", 1), 0);
    check_keyswitch(32768, 7, 3, 0, 40);
    check_keyswitch_mixed(65536);
    check_keyswitch(65536, 5, 2, 0, 40);
}

/* Issue 6's full shapes. Their host twins take most of the time (each case runs about 35 key
 * switches on the CPU backend; at 2^16/33 with one-limb digits, 33 digits each), so they are split
 * over four tests that Criterion's -j runs side by side. As one test (without the P = 3 and 4
 * shapes) it set test_gpu_rns's wall time: the suite took 114 s on one H100 host, and the test
 * alone did not finish in 140 s on a slower one. */
Test(gpu_rns, keyswitch_issue_shapes) {
    if (test_quick()) return; /* minutes under compute-sanitizer */
    check_keyswitch(8192, 9, 4, 0, 40);
    check_keyswitch(32768, 17, 1, 0, 40);  /* issue 6's 2^15 shape, fused ModUp */
    check_keyswitch(1 << 18, 3, 1, 0, 50); /* fused ModUp through a three-pass NTT */
    check_keyswitch(1 << 18, 4, 2, 0, 50); /* digits of 2 limbs through a three-pass NTT */
    check_keyswitch(1 << 17, 5, 3, 0, 40); /* digits of 3 + 2 limbs at 2^17 (modupn_cols_kernel) */
    /* K = 4 at 2^17: ModDown's conversion in the column pass, and MODDOWN RESCALE's 5 sources
     * (modupn_cols_kernel<9, 5>: one block per SM) */
    check_keyswitch(1 << 17, 6, 4, 0, 40);
}
Test(gpu_rns, keyswitch_issue_n16_k1) {
    if (test_quick()) return;
    check_keyswitch(65536, 33, 1, 0, 40); /* issue 6's 2^16 shape, fused ModUp */
}
Test(gpu_rns, keyswitch_issue_n16_k2) {
    if (test_quick()) return;
    check_keyswitch(65536, 33, 2, 0, 40); /* 33 = 16·2 + 1: Phantom's crashing split */
    check_keyswitch_mixed2(65536);        /* its mixed routes beside the helper stream */
}
/* hepa-bench --ks's P = 3 and 4 at their full size: 11 digits of 3 limbs; 8 of 4 and a one-limb
 * last digit, with MODDOWN RESCALE's 5-source conversion */
Test(gpu_rns, keyswitch_issue_n16_k34) {
    if (test_quick()) return;
    check_keyswitch(65536, 33, 3, 0, 40);
    check_keyswitch(65536, 33, 4, 0, 40);
}

/* A CUDA ring of L + K moduli (test_ks_moduli, 40-bit Q primes), its key-switching context with
 * K special primes, a generator seeded from t, and a relinearization key (s2 -> s, s ternary,
 * s2 Gaussian), shared by the tests below. */
typedef struct ks_env {
    uint64_t q[HEPA_RING_MAX_MODULI];
    hepa_ring *ring;
    hepa_ks *ks;
    hepa_rng *g;
    hepa_poly *s, *s2;
    hepa_ksk *key;
} ks_env;

static void ks_env_init(ks_env *e, test_rng *t, size_t n, size_t L, size_t K) {
    memset(e, 0, sizeof *e);
    test_ks_moduli(e->q, n, L, K, 40);
    T_OK(hepa_ring_create(&e->ring, n, e->q, L + K, HEPA_BACKEND_CUDA));
    T_OK(hepa_ks_create(&e->ks, e->ring, K, 0));
    uint8_t seed[32];
    for (int i = 0; i < 32; ++i)
        seed[i] = (uint8_t)test_rand64(t);
    T_OK(hepa_rng_create(&e->g, seed));
    T_OK(hepa_poly_create(&e->s, e->ring, L + K));
    T_OK(hepa_poly_create(&e->s2, e->ring, L + K));
    T_OK(hepa_sample_ternary(e->g, e->s));
    T_OK(hepa_sample_gaussian(e->g, e->s2, 3.2));
    T_OK(hepa_poly_to_ntt(e->s));
    T_OK(hepa_poly_to_ntt(e->s2));
    T_OK(hepa_ksk_create(&e->key, e->ks, e->s2, e->s, e->g));
}

static void ks_env_clear(ks_env *e) {
    hepa_ksk_destroy(e->key);
    hepa_poly_destroy(e->s), hepa_poly_destroy(e->s2);
    hepa_rng_destroy(e->g);
    hepa_ks_destroy(e->ks);
    hepa_ring_destroy(e->ring);
}

/* ring.h: several host threads may call into one CUDA ring; their work goes to the ring's
 * stream in call order. Here each thread multiplies + relinearizes and rescales its own
 * ciphertexts on one shared ring, key-switching context and key, several times; every result
 * must equal the one computed before on the main thread. n = 2^16 takes key switching's HELPER
 * STREAM (keyswitch.c), whose fork and join events belong to the ring and are re-recorded by
 * each thread's calls. Its last digit has one limb (7 = 3 + 3 + 1), so it also runs ModUp's
 * EARLY LAST DIGIT launch from several threads. */
#define KS_THREADS 4
typedef struct ks_job {
    const hepa_ks *ks;
    const hepa_ksk *key;
    hepa_poly *x[4], *m0, *m1, *r0, *r1;
    uint64_t *got; /* 2 (l - 1) n words: r0 then r1 of the first repetition */
    size_t half;   /* (l - 1) n */
    int reps;
    hepa_status status;
    char msg[256]; /* hepa_last_error_message of a failing call (it is per thread) */
    int mismatch;
} ks_job;

static hepa_status ks_job_step(ks_job *j, uint64_t *dst) {
    hepa_status s = hepa_mul_relin(j->ks, j->m0, j->m1, j->x[0], j->x[1], j->x[2], j->x[3], j->key);
    if (s == HEPA_OK) s = hepa_poly_rescale_pair(j->r0, j->r1, j->m0, j->m1);
    if (s == HEPA_OK) s = hepa_poly_get(j->r0, dst);
    if (s == HEPA_OK) s = hepa_poly_get(j->r1, dst + j->half);
    return s;
}

static void *ks_thread(void *arg) {
    ks_job *j = arg;
    uint64_t *tmp = malloc(2 * j->half * sizeof *tmp);
    j->status = tmp ? HEPA_OK : HEPA_ERR_OUT_OF_MEMORY;
    for (int r = 0; r < j->reps && tmp && j->status == HEPA_OK; ++r) {
        j->status = ks_job_step(j, tmp);
        if (j->status != HEPA_OK)
            snprintf(j->msg, sizeof j->msg, "%s", hepa_last_error_message());
        if (j->status == HEPA_OK && memcmp(tmp, j->got, 2 * j->half * sizeof *tmp) != 0)
            j->mismatch = 1;
    }
    free(tmp);
    return NULL;
}

Test(gpu_rns, threads_share_ring) {
    test_rng t;
    test_rng_init(&t);
    const size_t n = 65536, L = 7, K = 3;
    ks_env env;
    ks_env_init(&env, &t, n, L, K);
    hepa_ring *ring = env.ring;
    const uint64_t *q = env.q;
    const size_t half = (L - 1) * n;
    ks_job jobs[KS_THREADS];
    uint64_t *a = test_alloc(L * n);
    for (int k = 0; k < KS_THREADS; ++k) {
        ks_job *j = &jobs[k];
        memset(j, 0, sizeof *j);
        j->ks = env.ks, j->key = env.key, j->half = half, j->reps = test_quick() ? 2 : 4;
        for (int i = 0; i < 4; ++i) {
            for (size_t m = 0; m < L; ++m)
                for (size_t x = 0; x < n; ++x)
                    a[m * n + x] = test_rand_residue_edgy(&t, q[m]);
            T_OK(hepa_poly_create(&j->x[i], ring, L));
            T_OK(hepa_poly_set(j->x[i], a, HEPA_DOMAIN_NTT));
        }
        T_OK(hepa_poly_create(&j->m0, ring, L));
        T_OK(hepa_poly_create(&j->m1, ring, L));
        T_OK(hepa_poly_create(&j->r0, ring, L - 1));
        T_OK(hepa_poly_create(&j->r1, ring, L - 1));
        hepa_poly *outs[4] = {j->m0, j->m1, j->r0, j->r1};
        for (int i = 0; i < 4; ++i) /* poisoned */
            cr_assert_eq(
                cudaMemset(hepa_poly_data(outs[i]), 0xFF, hepa_poly_level(outs[i]) * n * 8),
                cudaSuccess);
        cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
        j->got = test_alloc(2 * half);
        T_OK(ks_job_step(j, j->got)); /* the reference, on this thread alone */
    }
    free(a);
    pthread_t tid[KS_THREADS];
    for (int k = 0; k < KS_THREADS; ++k)
        cr_assert_eq(pthread_create(&tid[k], NULL, ks_thread, &jobs[k]), 0);
    for (int k = 0; k < KS_THREADS; ++k)
        pthread_join(tid[k], NULL);
    for (int k = 0; k < KS_THREADS; ++k) {
        ks_job *j = &jobs[k];
        cr_assert_eq(j->status, HEPA_OK, "thread %d: status %d (%s: %s)", k, (int)j->status,
                     hepa_status_string(j->status), j->msg);
        cr_assert_eq(j->mismatch, 0, "thread %d: a result differs from the single-threaded one", k);
        for (int i = 0; i < 4; ++i)
            hepa_poly_destroy(j->x[i]);
        hepa_poly_destroy(j->m0), hepa_poly_destroy(j->m1);
        hepa_poly_destroy(j->r0), hepa_poly_destroy(j->r1);
        free(j->got);
    }
    ks_env_clear(&env);
}

/* CUDA GRAPHS (README, Asynchrony): a ring's calls captured from its stream into a CUDA graph,
 * in the strictest capture mode (global: a call that synchronises, queries the stream or
 * allocates outside the stream-ordered pool fails the capture), enqueue nothing while captured
 * and, replayed twice, give the words of the same calls run eagerly. The sequence is a CKKS
 * multiply (tensor + relinearize), rescale, rotation (two automorphisms, key switch with the
 * add) and an inverse NTT; at 2^16 key switching forks onto the ring's HELPER STREAM and joins
 * back (events, captured as graph edges), at 2^13 it runs on the one stream. */
enum { GR_OUTS = 8 };
static hepa_status graph_seq(const hepa_ks *ks, const hepa_ksk *key, hepa_poly *const *x,
                             hepa_poly *const *o) {
    hepa_status s;
    if ((s = hepa_mul_relin(ks, o[0], o[1], x[0], x[1], x[2], x[3], key)) != HEPA_OK ||
        (s = hepa_poly_rescale_pair(o[2], o[3], o[0], o[1])) != HEPA_OK ||
        (s = hepa_poly_automorphism(o[4], o[2], 5)) != HEPA_OK ||
        (s = hepa_poly_automorphism(o[5], o[3], 5)) != HEPA_OK ||
        (s = hepa_keyswitch_add(ks, o[6], o[7], o[5], key, o[4], NULL)) != HEPA_OK)
        return s;
    return hepa_poly_from_ntt(o[6]);
}

/* Every output's words, o then want: equal. */
static void graph_check(hepa_poly *const *o, hepa_poly *const *want, size_t n, const char *what) {
    for (int i = 0; i < GR_OUTS; ++i) {
        const size_t w = hepa_poly_level(o[i]) * n;
        uint64_t *a = test_alloc(w), *b = test_alloc(w);
        test_poison(b, w);
        T_OK(hepa_poly_get(want[i], a));
        T_OK(hepa_poly_get(o[i], b));
        T_ARRAY_EQ(b, a, w, "%s: output %d (n %zu)", what, i, n);
        free(a), free(b);
    }
}

static void poison_async(hepa_poly *const *o, size_t n, cudaStream_t st) {
    for (int i = 0; i < GR_OUTS; ++i)
        cr_assert_eq(cudaMemsetAsync(hepa_poly_data(o[i]), 0xFF, hepa_poly_level(o[i]) * n * 8, st),
                     cudaSuccess);
}

static void check_graph(size_t n, size_t L, size_t K) {
    test_rng t;
    test_rng_init(&t);
    ks_env env;
    ks_env_init(&env, &t, n, L, K);
    hepa_ring *ring = env.ring;
    const uint64_t *q = env.q;
    const hepa_ks *ks = env.ks;
    const hepa_ksk *key = env.key;
    cudaStream_t st = (cudaStream_t)hepa_ring_cuda_stream(ring);
    hepa_poly *x[4], *want[GR_OUTS], *o[GR_OUTS];
    uint64_t *a = test_alloc(L * n);
    for (int i = 0; i < 4; ++i) {
        for (size_t m = 0; m < L; ++m)
            for (size_t j = 0; j < n; ++j)
                a[m * n + j] = test_rand_residue_edgy(&t, q[m]);
        T_OK(hepa_poly_create(&x[i], ring, L));
        T_OK(hepa_poly_set(x[i], a, HEPA_DOMAIN_NTT));
    }
    free(a);
    for (int i = 0; i < GR_OUTS; ++i) { /* o[0], o[1] at level L, the others at L - 1 */
        T_OK(hepa_poly_create(&want[i], ring, i < 2 ? L : L - 1));
        T_OK(hepa_poly_create(&o[i], ring, i < 2 ? L : L - 1));
    }
    poison_async(o, n, st);
    T_OK(graph_seq(ks, key, x, want)); /* eagerly */
    T_OK(hepa_ring_sync(ring));

    cr_assert_eq(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
    const hepa_status cs = graph_seq(ks, key, x, o);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", hepa_last_error_message());
    cudaGraph_t graph = NULL;
    const cudaError_t ce = cudaStreamEndCapture(st, &graph); /* also after a failed call */
    cr_assert_eq(cs, HEPA_OK, "n %zu: a call failed under capture: %s (%s)", n,
                 hepa_status_string(cs), msg);
    cr_assert_eq(ce, cudaSuccess, "n %zu: cudaStreamEndCapture: %s", n, cudaGetErrorString(ce));
    size_t nodes = 0;
    cr_assert_eq(cudaGraphGetNodes(graph, NULL, &nodes), cudaSuccess);
    cr_assert_gt(nodes, 10, "n %zu: the graph holds %zu nodes", n, nodes);
    cudaGraphExec_t exec = NULL;
    cr_assert_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    /* nothing ran while captured: the outputs still hold the poison */
    for (int i = 0; i < GR_OUTS; ++i) {
        const size_t w = hepa_poly_level(o[i]) * n;
        uint64_t *b = test_alloc(w);
        T_OK(hepa_poly_get(o[i], b));
        for (size_t j = 0; j < w; j += 4099)
            T_CHECK(b[j] == ~(uint64_t)0, "n %zu: output %d word %zu written under capture", n,
                    i, j);
        free(b);
    }
    for (int rep = 0; rep < 2; ++rep) {
        if (rep) poison_async(o, n, st);
        cr_assert_eq(cudaGraphLaunch(exec, st), cudaSuccess);
        T_OK(hepa_ring_sync(ring));
        graph_check(o, want, n, rep ? "graph, second replay" : "graph, first replay");
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    for (int i = 0; i < 4; ++i)
        hepa_poly_destroy(x[i]);
    for (int i = 0; i < GR_OUTS; ++i)
        hepa_poly_destroy(want[i]), hepa_poly_destroy(o[i]);
    ks_env_clear(&env);
}

Test(gpu_rns, graph_capture) {
    check_graph(8192, 5, 2);  /* one stream */
    check_graph(65536, 7, 3); /* the helper stream, PDL launches, 7 = 3 + 3 + 1 */
    /* K = 1: captured, the helper's launches take the default priority (keyswitch.c, HELPER
     * PRIORITY IN GRAPHS) */
    check_graph(65536, 5, 1);
}

/* The CKKS example end to end on the device, within the example's noise bounds. */
#include "ckks_scheme_checks.h"

Test(gpu_rns, ckks_example) { ckks_scheme_checks(HEPA_BACKEND_CUDA); }
