/* tests/gpu/test_gpu_bigprime.c — the device big prime field kernels (hepa/bigprime_cuda.h)
 * against the host raw functions (_hepa_bp_add, _hepa_bp_sub, _hepa_bp_neg, _hepa_bp_mul,
 * _hepa_bp_mul_rpow), digit for digit; and the device FFT (hepa_bp_dev_fft) against the host
 * reference hepa_bp_fft (N <= 2^16 for P3, 2^15 for P4, both directions, random + boundary
 * inputs, mixed sizes K^e·2^f) and against its own inverse at N up to 2^20; the FFT plans'
 * transforms and polynomial products (cyclic, negacyclic) and the RNS route's products against
 * the host hepa_bp_fft / hepa_bp_poly_mul, and the two product routes against each other up to
 * N = 2^17.
 *
 * Inputs: random elements (digits uniform or drawn from {0, 1, r-1, r-2}, sometimes p - 1) with
 * the boundary elements (0, 1, 2, p-1, p-2 = all digits r-1, p-3, r^i, r^i - 1, p - r^i,
 * (r-1)·r^(k-1), (p±1)/2) mixed in, every pair of boundary elements, and whole tiny fields.
 * N in {1, 7, 1024, 2^20} for P3 and P4 (2^14 with HEPA_TEST_QUICK), odd sizes for the others,
 * so the last block is partial. Every device output is poisoned (0xFF bytes: a digit above any
 * r) before the call, and every host buffer a download writes too, so an element the kernel
 * forgets to write cannot pass.
 *
 * Fields: the four named ones the kernels support (k = 8, 16), sign -1 fields at full width,
 * r = 3·2^11 (w = u + 1: the split needs many rounds), and r = 2, 4 (tiny radix: carries large
 * compared with r; whole fields swept). Each custom p was checked prime with GMP.
 *
 * Without a usable GPU the program prints why and exits 77, which CTest reports as skipped.
 * Timings live in the benchmark (hepa-bench --bp-suite, --bp-compare), not here. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "hepa/hepa.h"
#include "test_util.h"

/* ---- fields ----------------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    int named; /* >= 0: a hepa_bp_prime; -1: created from (w, u, sign, k) */
    unsigned w, u, k;
    int sign;
} dspec;

enum {
    F_P3,
    F_P4,
    F_W59_K8,
    F_W58_K16,
    F_M61_K8,
    F_M60_K16,
    F_D1_K16,
    F_R2_K8,
    F_R4_K8,
    F_R2_K16,
    F_SUPPORTED, /* the ones above have k = 8 or 16 */
    F_W56_K32 = F_SUPPORTED,
    F_W47_K64,
    F_K4,
    F_COUNT
};

static const dspec specs[F_COUNT] = {
    [F_P3] = {"P3", HEPA_BP_P3, 63, 34, 8, 1},
    [F_P4] = {"P4", HEPA_BP_P4, 62, 36, 16, 1},
    [F_W59_K8] = {"W59_K8", HEPA_BP_W59_K8, 59, 16, 8, 1},
    [F_W58_K16] = {"W58_K16", HEPA_BP_W58_K16, 58, 10, 16, 1},
    [F_M61_K8] = {"(2^61-2^9)^8+1", -1, 61, 9, 8, -1},
    [F_M60_K16] = {"(2^60-2^17)^16+1", -1, 60, 17, 16, -1},
    [F_D1_K16] = {"(2^12+2^11)^16+1", -1, 12, 11, 16, 1},
    [F_R2_K8] = {"257=2^8+1", -1, 2, 1, 8, -1},
    [F_R4_K8] = {"65537=4^8+1", -1, 3, 2, 8, -1},
    [F_R2_K16] = {"65537=2^16+1", -1, 2, 1, 16, -1},
    [F_W56_K32] = {"W56_K32", HEPA_BP_W56_K32, 56, 21, 32, 1},
    [F_W47_K64] = {"W47_K64", HEPA_BP_W47_K64, 47, 32, 64, 1},
    [F_K4] = {"(2^63-2^45)^4+1", -1, 63, 45, 4, -1},
};

typedef struct {
    const char *name;
    hepa_bp_field *f;
    unsigned k;
    uint64_t r;
    mpz_t p;
} tfield;

static void tf_init(tfield *t, int which) {
    const dspec *s = &specs[which];
    t->name = s->name;
    t->f = NULL;
    if (s->named >= 0)
        T_OK(hepa_bp_field_create_named(&t->f, (hepa_bp_prime)s->named));
    else
        T_OK(hepa_bp_field_create(&t->f, s->w, s->u, s->sign, s->k));
    t->k = hepa_bp_field_k(t->f);
    t->r = hepa_bp_field_r(t->f);
    cr_assert_eq(t->k, s->k);
    mpz_init(t->p);
    T_OK(hepa_bp_field_prime(t->f, t->p));
}

static void tf_clear(tfield *t) {
    hepa_bp_field_destroy(t->f);
    mpz_clear(t->p);
}

/* ---- elements (host, element-major) ------------------------------------------------------------ */

#define BMAX 256

/* The boundary elements (at most BMAX; k·3 + 9 of them), canonical, into out (BMAX·k words). */
static size_t boundary(const tfield *t, uint64_t *out) {
    const unsigned k = t->k;
    mpz_t v[BMAX], rz;
    size_t n = 0;
    for (size_t j = 0; j < BMAX; ++j) mpz_init(v[j]);
    mpz_init_set_ui(rz, t->r);
    mpz_set_ui(v[n++], 0);
    mpz_set_ui(v[n++], 1);
    mpz_set_ui(v[n++], 2);
    mpz_sub_ui(v[n++], t->p, 1); /* r^k: the special form */
    mpz_sub_ui(v[n++], t->p, 2); /* every digit r - 1 */
    mpz_sub_ui(v[n++], t->p, 3);
    for (unsigned i = 0; i < k; ++i) {
        mpz_pow_ui(v[n], rz, i);         /* r^i */
        mpz_sub_ui(v[n + 1], v[n], 1);   /* digits below i all r - 1 */
        mpz_sub(v[n + 2], t->p, v[n]);   /* -r^i */
        n += 3;
    }
    mpz_pow_ui(v[n], rz, k - 1);
    mpz_mul_ui(v[n], v[n], t->r - 1); /* top digit r - 1, the rest 0 */
    ++n;
    mpz_sub_ui(v[n], t->p, 1);
    mpz_fdiv_q_2exp(v[n], v[n], 1); /* (p - 1)/2 */
    mpz_add_ui(v[n + 1], v[n], 1);
    n += 2;
    cr_assert(n <= BMAX);
    for (size_t j = 0; j < n; ++j) T_OK(hepa_bp_from_mpz(t->f, out + j * k, v[j]));
    for (size_t j = 0; j < BMAX; ++j) mpz_clear(v[j]);
    mpz_clear(rz);
    return n;
}

/* A random element: p - 1 (1 in 32), all digits r - 1 or 0 (1 in 32 each), else each digit
 * uniform (5 in 8) or one of 0, 1, r - 1, r - 2. */
static void rand_elem(const tfield *t, test_rng *rng, uint64_t *x) {
    const unsigned k = t->k;
    const uint64_t r = t->r;
    const uint64_t mode = test_rand_below(rng, 32);
    for (unsigned m = 0; m < k; ++m) {
        const uint64_t c = test_rand_below(rng, 8);
        x[m] = c == 0 ? 0 : c == 1 ? 1 : c == 2 ? r - 1 : c == 3 ? r - 2 : test_rand_below(rng, r);
        if (x[m] >= r) x[m] = 0; /* r = 2: 1 and r - 1 coincide, r - 2 = 0; r >= 2 always */
    }
    if (mode == 0) {
        memset(x, 0, k * sizeof *x);
        x[k - 1] = r;
    } else if (mode == 1) {
        for (unsigned m = 0; m < k; ++m) x[m] = r - 1;
    } else if (mode == 2) {
        memset(x, 0, k * sizeof *x);
    }
    cr_assert(hepa_bp_is_valid(t->f, x));
}

/* x[0..N): random, with the boundary elements B[0..nb) laid over the first ones (starting at
 * B[shift]) and over every 5th element after. */
static void fill(const tfield *t, test_rng *rng, uint64_t *x, size_t N, const uint64_t *B,
                 size_t nb, size_t shift) {
    const unsigned k = t->k;
    for (size_t j = 0; j < N; ++j) {
        if (j < nb)
            memcpy(x + j * k, B + ((j + shift) % nb) * k, k * sizeof *x);
        else if (j % 5 == 0)
            memcpy(x + j * k, B + test_rand_below(rng, nb) * k, k * sizeof *x);
        else
            rand_elem(t, rng, x + j * k);
    }
}

/* ---- device buffers ------------------------------------------------------------------------- */

static uint64_t *dalloc(size_t words) {
    void *p = NULL;
    cr_assert_eq(cudaMalloc(&p, (words ? words : 1) * sizeof(uint64_t)), cudaSuccess);
    return p;
}

static void dpoison(uint64_t *d, size_t words) {
    cr_assert_eq(cudaMemset(d, 0xFF, words * sizeof *d), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
}

/* Every word of d[0..words) still 0xFF..FF? */
static int dpoisoned(const uint64_t *d, size_t words) {
    uint64_t *h = test_alloc(words);
    cr_assert_eq(cudaMemcpy(h, d, words * sizeof *h, cudaMemcpyDeviceToHost), cudaSuccess);
    int ok = 1;
    for (size_t i = 0; i < words; ++i) ok &= h[i] == UINT64_MAX;
    free(h);
    return ok;
}

static void hpoison(uint64_t *h, size_t words) { memset(h, 0xFF, words * sizeof *h); }

/* ---- one operation on both sides ------------------------------------------------------------ */

enum { OP_ADD, OP_SUB, OP_NEG, OP_MUL, OP_RPOW, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"add", "sub", "neg", "mul", "mul_rpow"};

static hepa_status dev_op(const tfield *t, int op, unsigned i, uint64_t *z, const uint64_t *x,
                          const uint64_t *y, size_t N, void *stream) {
    switch (op) {
    case OP_ADD: return hepa_bp_dev_add(t->f, z, x, y, N, stream);
    case OP_SUB: return hepa_bp_dev_sub(t->f, z, x, y, N, stream);
    case OP_NEG: return hepa_bp_dev_neg(t->f, z, x, N, stream);
    case OP_MUL: return hepa_bp_dev_mul(t->f, z, x, y, N, stream);
    default: return hepa_bp_dev_mul_rpow(t->f, z, x, N, i, stream);
    }
}

static void host_op(const tfield *t, int op, unsigned i, uint64_t *z, const uint64_t *x,
                    const uint64_t *y, size_t N) {
    const unsigned k = t->k;
    for (size_t j = 0; j < N; ++j) {
        uint64_t *zj = z + j * k;
        const uint64_t *xj = x + j * k, *yj = y + j * k;
        switch (op) {
        case OP_ADD: _hepa_bp_add(t->f, zj, xj, yj); break;
        case OP_SUB: _hepa_bp_sub(t->f, zj, xj, yj); break;
        case OP_NEG: _hepa_bp_neg(t->f, zj, xj); break;
        case OP_MUL: _hepa_bp_mul(t->f, zj, xj, yj); break; /* the GMP reference */
        default: _hepa_bp_mul_rpow(t->f, zj, xj, i); break;
        }
    }
}

/* Buffers for comparing one field's ops on N elements. */
typedef struct {
    const tfield *t;
    size_t N, words;
    uint64_t *hx, *hy, *want, *got; /* host, element-major */
    uint64_t *dx, *dy, *dz;         /* device, digit-major */
} bench_t;

static void b_init(bench_t *b, const tfield *t, size_t N) {
    b->t = t;
    b->N = N;
    b->words = N * t->k;
    b->hx = test_alloc(b->words);
    b->hy = test_alloc(b->words);
    b->want = test_alloc(b->words);
    b->got = test_alloc(b->words);
    b->dx = dalloc(b->words);
    b->dy = dalloc(b->words);
    b->dz = dalloc(b->words);
}

static void b_upload(bench_t *b) {
    T_OK(hepa_bp_dev_upload(b->t->f, b->dx, b->hx, b->N, NULL));
    T_OK(hepa_bp_dev_upload(b->t->f, b->dy, b->hy, b->N, NULL));
}

static void b_clear(bench_t *b) {
    free(b->hx);
    free(b->hy);
    free(b->want);
    free(b->got);
    cudaFree(b->dx);
    cudaFree(b->dy);
    cudaFree(b->dz);
}

/* d_z poisoned, the op on the device, downloaded into a poisoned host buffer, compared with the
 * host function. */
static void check_op(bench_t *b, int op, unsigned i, const char *ctx) {
    const tfield *t = b->t;
    dpoison(b->dz, b->words);
    T_OK(dev_op(t, op, i, b->dz, b->dx, b->dy, b->N, NULL));
    hpoison(b->got, b->words);
    T_OK(hepa_bp_dev_download(t->f, b->got, b->dz, b->N, NULL));
    host_op(t, op, i, b->want, b->hx, b->hy, b->N);
    T_ARRAY_EQ(b->got, b->want, b->words, "%s %s i=%u N=%zu (%s)", t->name, op_names[op], i, b->N,
               ctx);
}

/* Every op (mul_rpow for every i when all_i, else for i in {0, 1, k-1, k, k+1, 2k-1} and one
 * random i) on the current buffers. */
static void check_all_ops(bench_t *b, test_rng *rng, int all_i, const char *ctx) {
    const unsigned k = b->t->k;
    for (int op = OP_ADD; op < OP_RPOW; ++op) check_op(b, op, 0, ctx);
    if (all_i) {
        for (unsigned i = 0; i < 2 * k; ++i) check_op(b, OP_RPOW, i, ctx);
    } else {
        const unsigned is[7] = {0, 1, k - 1, k, k + 1, 2 * k - 1,
                                (unsigned)test_rand_below(rng, 2 * k)};
        for (int c = 0; c < 7; ++c) check_op(b, OP_RPOW, is[c], ctx);
    }
}

/* Random vectors (boundary elements mixed in) of each size in Ns. */
static void check_field_random(int which, const size_t *Ns, size_t nN) {
    test_rng rng;
    test_rng_init(&rng);
    tfield t;
    tf_init(&t, which);
    uint64_t *B = test_alloc(BMAX * t.k);
    const size_t nb = boundary(&t, B);
    for (size_t c = 0; c < nN; ++c) {
        bench_t b;
        b_init(&b, &t, Ns[c]);
        fill(&t, &rng, b.hx, b.N, B, nb, 0);
        fill(&t, &rng, b.hy, b.N, B, nb, nb / 2 + 1);
        b_upload(&b);
        check_all_ops(&b, &rng, b.N <= 4097, "random");
        b_clear(&b);
    }
    free(B);
    tf_clear(&t);
}

static size_t big_n(void) { return test_quick() ? (size_t)1 << 14 : (size_t)1 << 20; }

Test(gpu_bigprime, random_P3, .timeout = 600) {
    const size_t Ns[] = {1, 7, 1024, big_n()};
    check_field_random(F_P3, Ns, 4);
}

Test(gpu_bigprime, random_P4, .timeout = 600) {
    const size_t Ns[] = {1, 7, 1024, big_n()};
    check_field_random(F_P4, Ns, 4);
}

Test(gpu_bigprime, random_other_fields, .timeout = 600) {
    const size_t Ns[] = {1, 7, 1000, 4097, 33333};
    for (int w = F_W59_K8; w < F_SUPPORTED; ++w) check_field_random(w, Ns, 5);
}

/* Every ordered pair of boundary elements, for every supported field. */
Test(gpu_bigprime, boundary_pairs, .timeout = 600) {
    test_rng rng;
    test_rng_init(&rng);
    for (int w = 0; w < F_SUPPORTED; ++w) {
        tfield t;
        tf_init(&t, w);
        uint64_t *B = test_alloc(BMAX * t.k);
        const size_t nb = boundary(&t, B), k = t.k;
        bench_t b;
        b_init(&b, &t, nb * nb);
        for (size_t a = 0; a < nb; ++a)
            for (size_t c = 0; c < nb; ++c) {
                memcpy(b.hx + (a * nb + c) * k, B + a * k, k * sizeof *B);
                memcpy(b.hy + (a * nb + c) * k, B + c * k, k * sizeof *B);
            }
        b_upload(&b);
        check_all_ops(&b, &rng, 1, "boundary pairs");
        b_clear(&b);
        free(B);
        tf_clear(&t);
    }
}

/* The element of value v (v < p) of a field, canonical. */
static void elem_of(const tfield *t, uint64_t *x, unsigned long v) {
    mpz_t z;
    mpz_init_set_ui(z, v);
    T_OK(hepa_bp_from_mpz(t->f, x, z));
    mpz_clear(z);
}

/* p = 257 (r = 2, k = 8): every pair of residues. */
Test(gpu_bigprime, exhaustive_257) {
    test_rng rng;
    test_rng_init(&rng);
    tfield t;
    tf_init(&t, F_R2_K8);
    const unsigned long p = mpz_get_ui(t.p);
    bench_t b;
    b_init(&b, &t, p * p);
    for (unsigned long a = 0; a < p; ++a)
        for (unsigned long c = 0; c < p; ++c) {
            elem_of(&t, b.hx + (a * p + c) * t.k, a);
            elem_of(&t, b.hy + (a * p + c) * t.k, c);
        }
    b_upload(&b);
    check_all_ops(&b, &rng, 1, "all pairs");
    b_clear(&b);
    tf_clear(&t);
}

/* p = 65537 as 4^8 + 1 and 2^16 + 1: every residue x against 4 random y (N = 4·65537). */
Test(gpu_bigprime, exhaustive_65537, .timeout = 600) {
    test_rng rng;
    test_rng_init(&rng);
    const int ws[2] = {F_R4_K8, F_R2_K16};
    for (int c = 0; c < 2; ++c) {
        tfield t;
        tf_init(&t, ws[c]);
        const unsigned long p = mpz_get_ui(t.p);
        const size_t reps = test_quick() ? 1 : 4;
        bench_t b;
        b_init(&b, &t, reps * p);
        for (size_t s = 0; s < reps; ++s) {
            uint64_t y[16];
            elem_of(&t, y, (unsigned long)test_rand_below(&rng, p));
            for (unsigned long a = 0; a < p; ++a) {
                elem_of(&t, b.hx + (s * p + a) * t.k, a);
                memcpy(b.hy + (s * p + a) * t.k, y, t.k * sizeof *y);
            }
        }
        b_upload(&b);
        check_all_ops(&b, &rng, 1, "all x");
        b_clear(&b);
        tf_clear(&t);
    }
}

/* z == x, z == y, z == x == y, x == y: the kernels read an element before writing it. */
Test(gpu_bigprime, aliasing) {
    test_rng rng;
    test_rng_init(&rng);
    const int ws[4] = {F_P3, F_P4, F_M61_K8, F_R2_K16};
    for (int c = 0; c < 4; ++c) {
        tfield t;
        tf_init(&t, ws[c]);
        uint64_t *B = test_alloc(BMAX * t.k);
        const size_t nb = boundary(&t, B);
        bench_t b;
        b_init(&b, &t, 1000);
        fill(&t, &rng, b.hx, b.N, B, nb, 0);
        fill(&t, &rng, b.hy, b.N, B, nb, 3);
        for (int op = OP_ADD; op < OP_COUNT; ++op) {
            const unsigned i = op == OP_RPOW ? (unsigned)test_rand_below(&rng, 2 * t.k) : 0;
            const int binary = op == OP_ADD || op == OP_SUB || op == OP_MUL;
            for (int mode = 0; mode < (binary ? 4 : 1); ++mode) {
                /* mode 0: z == x; 1: z == y; 2: z == x == y; 3: x == y, z separate */
                b_upload(&b);
                uint64_t *z = mode == 1 ? b.dy : mode == 3 ? b.dz : b.dx;
                const uint64_t *x = b.dx, *y = mode >= 2 ? b.dx : b.dy;
                if (mode == 3) dpoison(b.dz, b.words);
                T_OK(dev_op(&t, op, i, z, x, y, b.N, NULL));
                hpoison(b.got, b.words);
                T_OK(hepa_bp_dev_download(t.f, b.got, z, b.N, NULL));
                host_op(&t, op, i, b.want, b.hx, mode >= 2 ? b.hx : b.hy, b.N);
                T_ARRAY_EQ(b.got, b.want, b.words, "%s %s aliasing mode %d", t.name,
                           op_names[op], mode);
            }
        }
        b_clear(&b);
        free(B);
        tf_clear(&t);
    }
}

/* Upload lays the digits out digit-major, download restores element-major — for every field,
 * including those the arithmetic kernels do not support. */
Test(gpu_bigprime, layout_round_trip) {
    test_rng rng;
    test_rng_init(&rng);
    const size_t Ns[5] = {1, 7, 1024, 4097, 65536};
    for (int w = 0; w < F_COUNT; ++w) {
        tfield t;
        tf_init(&t, w);
        uint64_t *B = test_alloc(BMAX * t.k);
        const size_t nb = boundary(&t, B), k = t.k;
        for (int c = 0; c < 5; ++c) {
            const size_t N = Ns[c], words = N * k;
            uint64_t *h = test_alloc(words), *raw = test_alloc(words), *back = test_alloc(words);
            uint64_t *d = dalloc(words);
            fill(&t, &rng, h, N, B, nb, 1);
            dpoison(d, words);
            T_OK(hepa_bp_dev_upload(t.f, d, h, N, NULL));
            cr_assert_eq(cudaMemcpy(raw, d, words * sizeof *raw, cudaMemcpyDeviceToHost),
                         cudaSuccess);
            for (size_t j = 0; j < N; ++j)
                for (size_t m = 0; m < k; ++m)
                    T_CHECK(raw[j + m * N] == h[j * k + m], "%s N=%zu element %zu digit %zu",
                            t.name, N, j, m);
            hpoison(back, words);
            T_OK(hepa_bp_dev_download(t.f, back, d, N, NULL));
            T_ARRAY_EQ(back, h, words, "%s round trip N=%zu", t.name, N);
            free(h);
            free(raw);
            free(back);
            cudaFree(d);
        }
        free(B);
        tf_clear(&t);
    }
}

/* A chain of operations on one non-blocking stream, with no synchronisation between them but
 * the final download; checked and raw tiers mixed. */
Test(gpu_bigprime, stream_chain_and_raw_tier) {
    test_rng rng;
    test_rng_init(&rng);
    cudaStream_t st;
    cr_assert_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    const int ws[2] = {F_P3, F_P4};
    for (int c = 0; c < 2; ++c) {
        tfield t;
        tf_init(&t, ws[c]);
        hepa_bp_dev_field df;
        T_OK(hepa_bp_dev_field_init(t.f, &df));
        cr_assert_eq(df.r, t.r);
        cr_assert_eq(df.w, hepa_bp_field_w(t.f));
        cr_assert_eq(df.u, hepa_bp_field_u(t.f));
        cr_assert_eq(df.sign, hepa_bp_field_sign(t.f));
        cr_assert_eq(df.k, t.k);
        cr_assert(df.split_rounds >= 1);
        uint64_t *B = test_alloc(BMAX * t.k);
        const size_t nb = boundary(&t, B), N = 100003, k = t.k;
        bench_t b;
        b_init(&b, &t, N);
        fill(&t, &rng, b.hx, N, B, nb, 0);
        fill(&t, &rng, b.hy, N, B, nb, 5);
        dpoison(b.dz, b.words);
        /* z = -(((x·y + x)·r^3 - y)·y) */
        T_OK(hepa_bp_dev_upload(t.f, b.dx, b.hx, N, st));
        T_OK(hepa_bp_dev_upload(t.f, b.dy, b.hy, N, st));
        T_OK(_hepa_bp_dev_mul(df, b.dz, b.dx, b.dy, N, st));
        T_OK(hepa_bp_dev_add(t.f, b.dz, b.dz, b.dx, N, st));
        T_OK(_hepa_bp_dev_mul_rpow(df, b.dz, b.dz, N, 3, st));
        T_OK(_hepa_bp_dev_sub(df, b.dz, b.dz, b.dy, N, st));
        T_OK(hepa_bp_dev_mul(t.f, b.dz, b.dz, b.dy, N, st));
        T_OK(_hepa_bp_dev_neg(df, b.dz, b.dz, N, st));
        hpoison(b.got, b.words);
        T_OK(hepa_bp_dev_download(t.f, b.got, b.dz, N, st));
        for (size_t j = 0; j < N; ++j) {
            uint64_t *z = b.want + j * k;
            const uint64_t *x = b.hx + j * k, *y = b.hy + j * k;
            _hepa_bp_mul(t.f, z, x, y);
            _hepa_bp_add(t.f, z, z, x);
            _hepa_bp_mul_rpow(t.f, z, z, 3);
            _hepa_bp_sub(t.f, z, z, y);
            _hepa_bp_mul(t.f, z, z, y);
            _hepa_bp_neg(t.f, z, z);
        }
        T_ARRAY_EQ(b.got, b.want, b.words, "%s stream chain", t.name);
        b_clear(&b);
        free(B);
        tf_clear(&t);
    }
    cr_assert_eq(cudaStreamDestroy(st), cudaSuccess);
}

/* Bad input: exact statuses, outputs untouched. */
Test(gpu_bigprime, bad_input) {
    tfield t, t32, t64, t4;
    tf_init(&t, F_P3);
    tf_init(&t32, F_W56_K32);
    tf_init(&t64, F_W47_K64);
    tf_init(&t4, F_K4);
    const size_t N = 1000, k = t.k, words = N * k;
    uint64_t *dx = dalloc(words), *dy = dalloc(words), *dz = dalloc(words);
    uint64_t *h = test_alloc(words), *hz = test_alloc(words);
    memset(h, 0, words * sizeof *h);
    T_OK(hepa_bp_dev_upload(t.f, dx, h, N, NULL));
    T_OK(hepa_bp_dev_upload(t.f, dy, h, N, NULL));
    dpoison(dz, words);

    /* hepa_bp_dev_field_init */
    hepa_bp_dev_field df, keep;
    memset(&keep, 0x5A, sizeof keep);
    df = keep;
    T_STATUS(hepa_bp_dev_field_init(NULL, &df), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_field_init(t.f, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_field_init(t32.f, &df), HEPA_ERR_UNSUPPORTED);
    T_STATUS(hepa_bp_dev_field_init(t64.f, &df), HEPA_ERR_UNSUPPORTED);
    T_STATUS(hepa_bp_dev_field_init(t4.f, &df), HEPA_ERR_UNSUPPORTED);
    cr_assert(memcmp(&df, &keep, sizeof df) == 0, "field constants written on failure");

    /* NULL arguments, for every op (N = 0 too: NULL is checked first) */
    for (size_t n = 0; n <= N; n += N) {
        for (int op = OP_ADD; op < OP_COUNT; ++op) {
            const int binary = op == OP_ADD || op == OP_SUB || op == OP_MUL;
            T_STATUS(dev_op(&(tfield){.f = NULL}, op, 0, dz, dx, dy, n, NULL),
                     HEPA_ERR_INVALID_ARGUMENT);
            T_STATUS(dev_op(&t, op, 0, NULL, dx, dy, n, NULL), HEPA_ERR_INVALID_ARGUMENT);
            T_STATUS(dev_op(&t, op, 0, dz, NULL, dy, n, NULL), HEPA_ERR_INVALID_ARGUMENT);
            if (binary)
                T_STATUS(dev_op(&t, op, 0, dz, dx, NULL, n, NULL), HEPA_ERR_INVALID_ARGUMENT);
        }
        T_STATUS(hepa_bp_dev_upload(NULL, dz, h, n, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_dev_upload(t.f, NULL, h, n, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_dev_upload(t.f, dz, NULL, n, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_dev_download(NULL, hz, dx, n, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_dev_download(t.f, NULL, dx, n, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(hepa_bp_dev_download(t.f, hz, NULL, n, NULL), HEPA_ERR_INVALID_ARGUMENT);
    }
    /* i out of range */
    T_STATUS(hepa_bp_dev_mul_rpow(t.f, dz, dx, N, 2 * t.k, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_mul_rpow(t.f, dz, dx, N, UINT32_MAX, NULL), HEPA_ERR_INVALID_ARGUMENT);
    /* fields the kernels are not compiled for (the buffers are large enough for any of them) */
    const tfield *uns[3] = {&t32, &t64, &t4};
    for (int c = 0; c < 3; ++c)
        for (int op = OP_ADD; op < OP_COUNT; ++op) {
            T_STATUS(dev_op(uns[c], op, 1, dz, dx, dy, 8, NULL), HEPA_ERR_UNSUPPORTED);
            T_STATUS(dev_op(uns[c], op, 1, dz, dx, dy, 0, NULL), HEPA_ERR_UNSUPPORTED);
        }
    df.k = 4;
    T_STATUS(_hepa_bp_dev_add(df, dz, dx, dy, 8, NULL), HEPA_ERR_UNSUPPORTED);
    T_STATUS(_hepa_bp_dev_mul(df, dz, dx, dy, 8, NULL), HEPA_ERR_UNSUPPORTED);
    /* N so large that k·N words overflow a size_t */
    const size_t huge = SIZE_MAX / 8 + 1;
    for (int op = OP_ADD; op < OP_COUNT; ++op)
        T_STATUS(dev_op(&t, op, 0, dz, dx, dy, huge, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_upload(t.f, dz, h, huge, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_download(t.f, hz, dx, huge, NULL), HEPA_ERR_INVALID_ARGUMENT);
    /* plain host memory where device memory is needed */
    uint64_t *hostbuf = test_alloc(words);
    for (int op = OP_ADD; op < OP_COUNT; ++op) {
        T_STATUS(dev_op(&t, op, 0, hostbuf, dx, dy, N, NULL), HEPA_ERR_INVALID_ARGUMENT);
        T_STATUS(dev_op(&t, op, 0, dz, hostbuf, dy, N, NULL), HEPA_ERR_INVALID_ARGUMENT);
    }
    T_STATUS(hepa_bp_dev_add(t.f, dz, dx, hostbuf, N, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_upload(t.f, hostbuf, h, N, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_download(t.f, hz, hostbuf, N, NULL), HEPA_ERR_INVALID_ARGUMENT);
    free(hostbuf);
    /* N = 0: a no-op that succeeds, touching nothing */
    for (int op = OP_ADD; op < OP_COUNT; ++op) T_OK(dev_op(&t, op, 3, dz, dx, dy, 0, NULL));
    T_OK(hepa_bp_dev_field_init(t.f, &df));
    T_OK(_hepa_bp_dev_mul(df, dz, dx, dy, 0, NULL));
    T_OK(hepa_bp_dev_upload(t.f, dz, h, 0, NULL));
    hpoison(hz, words);
    T_OK(hepa_bp_dev_download(t.f, hz, dx, 0, NULL));
    for (size_t j = 0; j < words; ++j) T_CHECK(hz[j] == UINT64_MAX, "download N=0 wrote %zu", j);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cr_assert(dpoisoned(dz, words), "an argument error or N = 0 wrote the output");

    /* invalid digits on upload: every pattern, at the first, a middle and the last element */
    const uint64_t r = t.r;
    for (int pat = 0; pat < 5; ++pat)
        for (int pos = 0; pos < 3; ++pos) {
            const size_t j = pos == 0 ? 0 : pos == 1 ? N / 2 : N - 1;
            uint64_t *x = h + j * k;
            memset(x, 0, k * sizeof *x);
            switch (pat) {
            case 0: x[0] = r; break;                      /* a digit = r below the top */
            case 1: x[k - 1] = r + 1; break;              /* a digit > r */
            case 2: x[k - 1] = r, x[0] = 1; break;        /* top = r with another digit set */
            case 3: x[3] = UINT64_MAX; break;             /* the poison pattern */
            default: x[k - 1] = r, x[k - 2] = r - 1; break; /* top = r, digit below nonzero */
            }
            T_STATUS(hepa_bp_dev_upload(t.f, dz, h, N, NULL), HEPA_ERR_INVALID_ARGUMENT);
            memset(x, 0, k * sizeof *x);
        }
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cr_assert(dpoisoned(dz, words), "a rejected upload wrote the device buffer");
    T_OK(hepa_bp_dev_upload(t.f, dz, h, N, NULL)); /* all valid again */
    cr_assert(!dpoisoned(dz, words));

    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dz);
    free(h);
    free(hz);
    tf_clear(&t);
    tf_clear(&t32);
    tf_clear(&t64);
    tf_clear(&t4);
}

/* ---- FFT -------------------------------------------------------------------------------------- */

/* x (N elements, element-major, random with the boundary elements mixed in) through the device
 * FFT (upload, hepa_bp_dev_fft, download) against the host reference hepa_bp_fft on a copy made
 * before; both directions. */
static void check_fft(const tfield *t, test_rng *rng, const uint64_t *B, size_t nb, size_t N) {
    const size_t words = N * t->k;
    uint64_t *x = test_alloc(words), *want = test_alloc(words), *got = test_alloc(words);
    uint64_t *d = dalloc(words);
    for (int inv = 0; inv < 2; ++inv) {
        fill(t, rng, x, N, B, nb, (size_t)inv * 3);
        memcpy(want, x, words * sizeof *x);
        T_OK(hepa_bp_fft(t->f, want, N, inv));
        T_OK(hepa_bp_dev_upload(t->f, d, x, N, NULL));
        T_OK(hepa_bp_dev_fft(t->f, d, N, inv, NULL));
        hpoison(got, words);
        T_OK(hepa_bp_dev_download(t->f, got, d, N, NULL));
        T_ARRAY_EQ(got, want, words, "%s fft N=%zu inverse=%d", t->name, N, inv);
    }
    cudaFree(d);
    free(x);
    free(want);
    free(got);
}

static void check_fft_sizes(int which, const size_t *Ns, size_t nN) {
    test_rng rng;
    test_rng_init(&rng);
    tfield t;
    tf_init(&t, which);
    uint64_t *B = test_alloc(BMAX * t.k);
    const size_t nb = boundary(&t, B);
    for (size_t c = 0; c < nN; ++c) check_fft(&t, &rng, B, nb, Ns[c]);
    free(B);
    tf_clear(&t);
}

/* inverse(forward(x)) = x on the device, and forward(x) != x (the transform ran). */
static void check_fft_round_trip(int which, size_t N) {
    test_rng rng;
    test_rng_init(&rng);
    tfield t;
    tf_init(&t, which);
    uint64_t *B = test_alloc(BMAX * t.k);
    const size_t nb = boundary(&t, B), words = N * t.k;
    uint64_t *x = test_alloc(words), *got = test_alloc(words);
    uint64_t *d = dalloc(words);
    fill(&t, &rng, x, N, B, nb, 1);
    T_OK(hepa_bp_dev_upload(t.f, d, x, N, NULL));
    T_OK(hepa_bp_dev_fft(t.f, d, N, 0, NULL));
    T_OK(hepa_bp_dev_download(t.f, got, d, N, NULL));
    cr_assert(memcmp(got, x, words * sizeof *x) != 0, "%s fft N=%zu did nothing", t.name, N);
    for (size_t j = 0; j < N; ++j)
        T_CHECK(hepa_bp_is_valid(t.f, got + j * t.k), "%s fft N=%zu: element %zu not canonical",
                t.name, N, j);
    T_OK(hepa_bp_dev_fft(t.f, d, N, 1, NULL));
    hpoison(got, words);
    T_OK(hepa_bp_dev_download(t.f, got, d, N, NULL));
    T_ARRAY_EQ(got, x, words, "%s fft round trip N=%zu", t.name, N);
    cudaFree(d);
    free(x);
    free(got);
    free(B);
    tf_clear(&t);
}

/* P3 (K = 16): K^e (16, 256, 4096, 65536) and mixed K^e·2^f sizes, every N below K too. */
Test(gpu_bigprime, fft_P3_vs_host, .timeout = 600) {
    const size_t Ns[] = {2, 4, 8, 16, 32, 64, 128, 256, 512, 2048, 4096, 65536};
    check_fft_sizes(F_P3, Ns, test_quick() ? 11 : 12);
}

/* P4 (K = 32): 32, 1024, 32768 and mixed sizes. */
Test(gpu_bigprime, fft_P4_vs_host, .timeout = 600) {
    const size_t Ns[] = {2, 16, 32, 64, 512, 1024, 4096, 32768};
    check_fft_sizes(F_P4, Ns, test_quick() ? 7 : 8);
}

/* The other k = 8, 16 fields: sign -1, tiny radices (p = 257: v2 = 8, N <= 256), w = u + 1. */
Test(gpu_bigprime, fft_other_fields_vs_host, .timeout = 600) {
    const size_t Ns[] = {2, 16, 32, 256};
    for (int w = F_W59_K8; w < F_SUPPORTED; ++w) check_fft_sizes(w, Ns, 4);
}

Test(gpu_bigprime, fft_round_trip_large, .timeout = 600) {
    check_fft_round_trip(F_P3, test_quick() ? (size_t)1 << 14 : (size_t)1 << 20);
    check_fft_round_trip(F_P3, (size_t)1 << 17); /* mixed: 2·16^4 */
    check_fft_round_trip(F_P4, test_quick() ? (size_t)1 << 13 : (size_t)1 << 18);
}

/* Statuses: argument errors leave d_x untouched (poisoned), N = 1 is a no-op. */
Test(gpu_bigprime, fft_bad_input) {
    tfield t, t257, t32, t64, t4;
    tf_init(&t, F_P3);
    tf_init(&t257, F_R2_K8);
    tf_init(&t32, F_W56_K32);
    tf_init(&t64, F_W47_K64);
    tf_init(&t4, F_K4);
    const size_t N = 1024, words = N * 64;
    uint64_t *d = dalloc(words);
    dpoison(d, words);
    T_STATUS(hepa_bp_dev_fft(NULL, d, 16, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_fft(t.f, NULL, 16, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
    const size_t bad[] = {0, 3, 48, 1000, 1023};
    for (size_t c = 0; c < 5; ++c)
        for (int inv = 0; inv < 2; ++inv)
            T_STATUS(hepa_bp_dev_fft(t.f, d, bad[c], inv, NULL), HEPA_ERR_INVALID_ARGUMENT);
    /* N beyond the field's 2-adic order: p = 257 has v2 = 8 */
    T_STATUS(hepa_bp_dev_fft(t257.f, d, 512, 0, NULL), HEPA_ERR_UNSUPPORTED);
    T_STATUS(hepa_bp_dev_fft(t257.f, d, 1024, 1, NULL), HEPA_ERR_UNSUPPORTED);
    /* fields the kernels are not compiled for */
    const tfield *uns[3] = {&t32, &t64, &t4};
    for (int c = 0; c < 3; ++c) {
        T_STATUS(hepa_bp_dev_fft(uns[c]->f, d, 16, 0, NULL), HEPA_ERR_UNSUPPORTED);
        T_STATUS(hepa_bp_dev_fft(uns[c]->f, d, 64, 1, NULL), HEPA_ERR_UNSUPPORTED);
    }
    /* N beyond 2^38; plain host memory */
    T_STATUS(hepa_bp_dev_fft(t.f, d, (size_t)1 << 62, 0, NULL), HEPA_ERR_UNSUPPORTED);
    uint64_t *hostbuf = test_alloc(16 * 8);
    T_STATUS(hepa_bp_dev_fft(t.f, hostbuf, 16, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
    free(hostbuf);
    /* N = 1: nothing to do, both ways */
    T_OK(hepa_bp_dev_fft(t.f, d, 1, 0, NULL));
    T_OK(hepa_bp_dev_fft(t.f, d, 1, 1, NULL));
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cr_assert(dpoisoned(d, words), "an argument error or N = 1 wrote the vector");
    cudaFree(d);
    tf_clear(&t);
    tf_clear(&t257);
    tf_clear(&t32);
    tf_clear(&t64);
    tf_clear(&t4);
}

/* ---- plans, polynomial products, the RNS route ------------------------------------------------ */

static unsigned lg(size_t N) {
    unsigned l = 0;
    while (((size_t)1 << l) < N) ++l;
    return l;
}

/* d (N elements) downloaded into a poisoned host buffer and compared with want. */
static void expect_dev(const tfield *t, const uint64_t *d, const uint64_t *want, size_t N,
                       const char *what, size_t Nc, int neg) {
    const size_t words = N * t->k;
    uint64_t *got = test_alloc(words);
    hpoison(got, words);
    T_OK(hepa_bp_dev_download(t->f, got, d, N, NULL));
    T_ARRAY_EQ(got, want, words, "%s %s N=%zu negacyclic=%d", t->name, what, Nc, neg);
    free(got);
}

/* For each N: the plan's products (cyclic, and negacyclic where 2N | 2^v2) against the host
 * hepa_bp_poly_mul, outputs poisoned; the same through the RNS route (negacyclic, N >= 16);
 * the aliased forms z = x·y with z == x, and x == y (a square); the plan's FFT out of place
 * (input unchanged) and in place against hepa_bp_fft. */
static void check_products(int which, const size_t *Ns, size_t nN, int with_rns) {
    test_rng rng;
    test_rng_init(&rng);
    tfield t;
    tf_init(&t, which);
    uint64_t *B = test_alloc(BMAX * t.k);
    const size_t nb = boundary(&t, B);
    for (size_t c = 0; c < nN; ++c) {
        const size_t N = Ns[c], words = N * t.k;
        const int neg_ok = lg(N) + 1 <= hepa_bp_field_v2(t.f);
        hepa_bp_dev_plan *plan = NULL;
        T_OK(hepa_bp_dev_plan_create(&plan, t.f, N, neg_ok ? HEPA_BP_PLAN_NEGACYCLIC : 0));
        cr_assert_eq(hepa_bp_dev_plan_size(plan), N);
        hepa_bp_rns_plan *rp = NULL;
        if (with_rns && neg_ok && N >= 16) T_OK(hepa_bp_rns_plan_create(&rp, t.f, N));
        uint64_t *x = test_alloc(words), *y = test_alloc(words), *want = test_alloc(words);
        uint64_t *dx = dalloc(words), *dy = dalloc(words), *dz = dalloc(words);
        for (int neg = 0; neg <= neg_ok; ++neg) {
            fill(&t, &rng, x, N, B, nb, 0);
            fill(&t, &rng, y, N, B, nb, 7);
            T_OK(hepa_bp_poly_mul(t.f, want, x, y, N, neg));
            T_OK(hepa_bp_dev_upload(t.f, dx, x, N, NULL));
            T_OK(hepa_bp_dev_upload(t.f, dy, y, N, NULL));
            dpoison(dz, words);
            T_OK(hepa_bp_dev_poly_mul(plan, dz, dx, dy, neg, NULL));
            expect_dev(&t, dz, want, N, "plan product", N, neg);
            if (neg && rp) {
                dpoison(dz, words);
                T_OK(hepa_bp_rns_poly_mul(rp, dz, dx, dy, NULL));
                expect_dev(&t, dz, want, N, "RNS product", N, neg);
            }
            /* inputs untouched */
            expect_dev(&t, dx, x, N, "product input x", N, neg);
            expect_dev(&t, dy, y, N, "product input y", N, neg);
            /* z == x */
            T_OK(hepa_bp_dev_poly_mul(plan, dx, dx, dy, neg, NULL));
            expect_dev(&t, dx, want, N, "plan product z == x", N, neg);
            if (neg && rp) {
                T_OK(hepa_bp_dev_upload(t.f, dx, x, N, NULL));
                T_OK(hepa_bp_rns_poly_mul(rp, dy, dx, dy, NULL)); /* z == y */
                expect_dev(&t, dy, want, N, "RNS product z == y", N, neg);
                T_OK(hepa_bp_dev_upload(t.f, dy, y, N, NULL));
            }
            /* squares: x == y */
            T_OK(hepa_bp_poly_mul(t.f, want, y, y, N, neg));
            dpoison(dz, words);
            T_OK(hepa_bp_dev_poly_mul(plan, dz, dy, dy, neg, NULL));
            expect_dev(&t, dz, want, N, "plan square", N, neg);
            if (neg && rp) {
                dpoison(dz, words);
                T_OK(hepa_bp_rns_poly_mul(rp, dz, dy, dy, NULL));
                expect_dev(&t, dz, want, N, "RNS square", N, neg);
            }
        }
        /* the plan's FFT: out of place (input kept) and in place, both directions */
        for (int inv = 0; inv < 2; ++inv) {
            fill(&t, &rng, x, N, B, nb, 2);
            memcpy(want, x, words * sizeof *x);
            T_OK(hepa_bp_fft(t.f, want, N, inv));
            T_OK(hepa_bp_dev_upload(t.f, dx, x, N, NULL));
            dpoison(dz, words);
            T_OK(hepa_bp_dev_plan_fft(plan, dz, dx, inv, NULL));
            expect_dev(&t, dz, want, N, "plan fft out of place", N, inv);
            expect_dev(&t, dx, x, N, "plan fft input", N, inv);
            T_OK(hepa_bp_dev_plan_fft(plan, dx, dx, inv, NULL));
            expect_dev(&t, dx, want, N, "plan fft in place", N, inv);
        }
        cudaFree(dx);
        cudaFree(dy);
        cudaFree(dz);
        free(x);
        free(y);
        free(want);
        hepa_bp_rns_plan_destroy(rp);
        hepa_bp_dev_plan_destroy(plan);
    }
    free(B);
    tf_clear(&t);
}

/* CUDA GRAPHS: a plan's FFT, its negacyclic product and the RNS route's product (which forks
 * onto its ring's stream and joins back through events) captured from a stream in the strictest
 * mode (global) enqueue nothing while captured, and a replay, twice, gives the host's words. */
Test(gpu_bigprime, graph_capture) {
    test_rng rng;
    test_rng_init(&rng);
    tfield t;
    tf_init(&t, F_P3);
    uint64_t *B = test_alloc(BMAX * t.k);
    const size_t nb = boundary(&t, B), N = 4096, words = N * t.k;
    hepa_bp_dev_plan *plan = NULL;
    hepa_bp_rns_plan *rp = NULL;
    T_OK(hepa_bp_dev_plan_create(&plan, t.f, N, HEPA_BP_PLAN_NEGACYCLIC));
    T_OK(hepa_bp_rns_plan_create(&rp, t.f, N));
    uint64_t *x = test_alloc(words), *y = test_alloc(words), *wf = test_alloc(words);
    uint64_t *wp = test_alloc(words);
    fill(&t, &rng, x, N, B, nb, 0);
    fill(&t, &rng, y, N, B, nb, 7);
    memcpy(wf, x, words * sizeof *x);
    T_OK(hepa_bp_fft(t.f, wf, N, 0));
    T_OK(hepa_bp_poly_mul(t.f, wp, x, y, N, 1));
    uint64_t *dx = dalloc(words), *dy = dalloc(words), *df = dalloc(words), *dz = dalloc(words);
    uint64_t *dr = dalloc(words);
    T_OK(hepa_bp_dev_upload(t.f, dx, x, N, NULL));
    T_OK(hepa_bp_dev_upload(t.f, dy, y, N, NULL));
    cudaStream_t st = NULL;
    cr_assert_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    dpoison(df, words), dpoison(dz, words), dpoison(dr, words);
    cr_assert_eq(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
    hepa_status s = hepa_bp_dev_plan_fft(plan, df, dx, 0, st);
    if (s == HEPA_OK) s = hepa_bp_dev_poly_mul(plan, dz, dx, dy, 1, st);
    if (s == HEPA_OK) s = hepa_bp_rns_poly_mul(rp, dr, dx, dy, st);
    cudaGraph_t graph = NULL;
    const cudaError_t ce = cudaStreamEndCapture(st, &graph); /* also after a failed call */
    cr_assert_eq(s, HEPA_OK, "a call failed under capture: %s (%s)", hepa_status_string(s),
                 hepa_last_error_message());
    cr_assert_eq(ce, cudaSuccess, "cudaStreamEndCapture: %s", cudaGetErrorString(ce));
    cudaGraphExec_t exec = NULL;
    cr_assert_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    cr_assert(dpoisoned(df, words) && dpoisoned(dz, words) && dpoisoned(dr, words),
              "an output was written under capture");
    for (int rep = 0; rep < 2; ++rep) {
        if (rep) dpoison(df, words), dpoison(dz, words), dpoison(dr, words);
        cr_assert_eq(cudaGraphLaunch(exec, st), cudaSuccess);
        cr_assert_eq(cudaStreamSynchronize(st), cudaSuccess);
        expect_dev(&t, df, wf, N, "graph: plan fft", N, rep);
        expect_dev(&t, dz, wp, N, "graph: plan product", N, rep);
        expect_dev(&t, dr, wp, N, "graph: RNS product", N, rep);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(st);
    cudaFree(dx), cudaFree(dy), cudaFree(df), cudaFree(dz), cudaFree(dr);
    free(x), free(y), free(wf), free(wp), free(B);
    hepa_bp_rns_plan_destroy(rp);
    hepa_bp_dev_plan_destroy(plan);
    tf_clear(&t);
}

Test(gpu_bigprime, products_P3_vs_host, .timeout = 600) {
    const size_t Ns[] = {1, 2, 8, 16, 32, 64, 256, 512, 4096};
    check_products(F_P3, Ns, test_quick() ? 8 : 9, 1);
}

Test(gpu_bigprime, products_P4_vs_host, .timeout = 600) {
    const size_t Ns[] = {1, 2, 16, 32, 64, 1024, 2048};
    check_products(F_P4, Ns, test_quick() ? 6 : 7, 1);
}

/* The other fields: p = 257 (v2 = 8: negacyclic up to N = 128, cyclic up to 256) and the rest. */
Test(gpu_bigprime, products_other_fields_vs_host, .timeout = 600) {
    const size_t Ns[] = {4, 16, 64, 256};
    for (int w = F_W59_K8; w < F_SUPPORTED; ++w) check_products(w, Ns, 4, 1);
}

/* Large N: the FFT route against the RNS route (two independent computations; the host reference
 * is too slow here) on random inputs and on the extreme ones, every coefficient p - 1 (the
 * largest coefficients of the integer product, N·(p-1)^2 and (2 - N)·(p-1)^2, the bound the RNS
 * route's prime count is chosen for). */
static void check_routes_agree(int which, size_t N) {
    test_rng rng;
    test_rng_init(&rng);
    tfield t;
    tf_init(&t, which);
    uint64_t *B = test_alloc(BMAX * t.k);
    const size_t nb = boundary(&t, B), words = N * t.k;
    hepa_bp_dev_plan *plan = NULL;
    hepa_bp_rns_plan *rp = NULL;
    T_OK(hepa_bp_dev_plan_create(&plan, t.f, N, HEPA_BP_PLAN_NEGACYCLIC));
    T_OK(hepa_bp_rns_plan_create(&rp, t.f, N));
    uint64_t *x = test_alloc(words), *y = test_alloc(words), *a = test_alloc(words),
             *b = test_alloc(words);
    uint64_t *dx = dalloc(words), *dy = dalloc(words), *dz = dalloc(words);
    for (int mode = 0; mode < 2; ++mode) {
        if (mode == 0) {
            fill(&t, &rng, x, N, B, nb, 0);
            fill(&t, &rng, y, N, B, nb, 5);
        } else {
            for (size_t j = 0; j < N; ++j) {
                memcpy(x + j * t.k, B + 3 * t.k, t.k * sizeof *x); /* boundary #3 = p - 1 */
                memcpy(y + j * t.k, B + 3 * t.k, t.k * sizeof *y);
            }
        }
        T_OK(hepa_bp_dev_upload(t.f, dx, x, N, NULL));
        T_OK(hepa_bp_dev_upload(t.f, dy, y, N, NULL));
        dpoison(dz, words);
        T_OK(hepa_bp_dev_poly_mul(plan, dz, dx, dy, 1, NULL));
        hpoison(a, words);
        T_OK(hepa_bp_dev_download(t.f, a, dz, N, NULL));
        dpoison(dz, words);
        T_OK(hepa_bp_rns_poly_mul(rp, dz, dx, dy, NULL));
        hpoison(b, words);
        T_OK(hepa_bp_dev_download(t.f, b, dz, N, NULL));
        T_ARRAY_EQ(b, a, words, "%s RNS vs FFT route N=%zu mode=%d", t.name, N, mode);
        for (size_t j = 0; j < N; ++j)
            T_CHECK(hepa_bp_is_valid(t.f, a + j * t.k), "%s N=%zu: element %zu not canonical",
                    t.name, N, j);
        if (mode == 1) {
            /* (p-1)^2 = 1: coefficient j of the negacyclic product of all-ones is
             * (j + 1) - (N - 1 - j) = 2j + 2 - N (mod p) */
            mpz_t v, e;
            mpz_inits(v, e, NULL);
            for (size_t j = 0; j < N; j += N / 8) {
                mpz_set_si(e, (long)(2 * j + 2) - (long)N);
                mpz_mod(e, e, t.p);
                T_OK(hepa_bp_to_mpz(t.f, v, a + j * t.k));
                cr_assert(mpz_cmp(v, e) == 0, "%s N=%zu all p-1: coefficient %zu wrong", t.name,
                          N, j);
            }
            mpz_clears(v, e, NULL);
        }
    }
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dz);
    free(x);
    free(y);
    free(a);
    free(b);
    free(B);
    hepa_bp_rns_plan_destroy(rp);
    hepa_bp_dev_plan_destroy(plan);
    tf_clear(&t);
}

Test(gpu_bigprime, routes_agree_large, .timeout = 600) {
    const size_t N = test_quick() ? (size_t)1 << 12 : HEPA_RING_MAX_N;
    check_routes_agree(F_P3, N);
    check_routes_agree(F_P4, N);
    check_routes_agree(F_M60_K16, (size_t)1 << 10);
}

/* The prime counts the header states: 17 (P3) and 33 (P4) at N = 2^16. */
Test(gpu_bigprime, rns_prime_counts) {
    tfield t3, t4;
    tf_init(&t3, F_P3);
    tf_init(&t4, F_P4);
    hepa_bp_rns_plan *a = NULL, *b = NULL;
    T_OK(hepa_bp_rns_plan_create(&a, t3.f, (size_t)1 << 16));
    T_OK(hepa_bp_rns_plan_create(&b, t4.f, (size_t)1 << 16));
    cr_assert_eq(hepa_bp_rns_plan_primes(a), 17);
    cr_assert_eq(hepa_bp_rns_plan_primes(b), 33);
    const uint64_t *q = hepa_bp_rns_plan_moduli(a);
    for (size_t i = 0; i < 17; ++i) {
        cr_assert(q[i] < HEPA_MODULUS_LIMIT && (q[i] - 1) % ((uint64_t)1 << 17) == 0);
        if (i) cr_assert(q[i] < q[i - 1]);
    }
    hepa_bp_rns_plan_destroy(a);
    hepa_bp_rns_plan_destroy(b);
    tf_clear(&t3);
    tf_clear(&t4);
}

/* Statuses of the plan and RNS calls; rejected calls leave the output untouched (poisoned). */
Test(gpu_bigprime, products_bad_input) {
    tfield t, t257, t32;
    tf_init(&t, F_P3);
    tf_init(&t257, F_R2_K8);
    tf_init(&t32, F_W56_K32);
    hepa_bp_dev_plan *plan = NULL, *cyc = NULL;
    hepa_bp_rns_plan *rp = NULL;
    T_STATUS(hepa_bp_dev_plan_create(NULL, t.f, 16, 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_plan_create(&plan, NULL, 16, 0), HEPA_ERR_INVALID_ARGUMENT);
    const size_t bad[] = {0, 3, 48, 1000};
    for (int c = 0; c < 4; ++c)
        T_STATUS(hepa_bp_dev_plan_create(&plan, t.f, bad[c], 0), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_plan_create(&plan, t.f, 16, 2), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_plan_create(&plan, t257.f, 512, 0), HEPA_ERR_UNSUPPORTED);
    T_STATUS(hepa_bp_dev_plan_create(&plan, t257.f, 256, HEPA_BP_PLAN_NEGACYCLIC),
             HEPA_ERR_UNSUPPORTED);
    T_STATUS(hepa_bp_dev_plan_create(&plan, t32.f, 64, 0), HEPA_ERR_UNSUPPORTED);
    T_STATUS(hepa_bp_dev_plan_create(&plan, t.f, (size_t)1 << 40, 0), HEPA_ERR_UNSUPPORTED);
    cr_assert_null(plan, "a failed create wrote *plan");
    T_STATUS(hepa_bp_rns_plan_create(NULL, t.f, 64), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_rns_plan_create(&rp, NULL, 64), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_rns_plan_create(&rp, t.f, 48), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_rns_plan_create(&rp, t.f, 8), HEPA_ERR_UNSUPPORTED);
    T_STATUS(hepa_bp_rns_plan_create(&rp, t.f, HEPA_RING_MAX_N * 2), HEPA_ERR_UNSUPPORTED);
    T_STATUS(hepa_bp_rns_plan_create(&rp, t32.f, 64), HEPA_ERR_UNSUPPORTED);
    cr_assert_null(rp, "a failed create wrote *plan");
    hepa_bp_dev_plan_destroy(NULL);
    hepa_bp_rns_plan_destroy(NULL);
    cr_assert_eq(hepa_bp_dev_plan_size(NULL), 0);
    cr_assert_eq(hepa_bp_rns_plan_primes(NULL), 0);

    const size_t N = 64, words = N * t.k;
    T_OK(hepa_bp_dev_plan_create(&plan, t.f, N, HEPA_BP_PLAN_NEGACYCLIC));
    T_OK(hepa_bp_dev_plan_create(&cyc, t.f, N, 0));
    T_OK(hepa_bp_rns_plan_create(&rp, t.f, N));
    uint64_t *dx = dalloc(words), *dz = dalloc(words), *h = test_alloc(words);
    cr_assert_eq(cudaMemset(dx, 0, words * 8), cudaSuccess);
    dpoison(dz, words);
    T_STATUS(hepa_bp_dev_poly_mul(NULL, dz, dx, dx, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_poly_mul(plan, NULL, dx, dx, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_poly_mul(plan, dz, NULL, dx, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_poly_mul(plan, dz, dx, NULL, 1, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_poly_mul(plan, h, dx, dx, 1, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_poly_mul(plan, dz, h, dx, 1, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_poly_mul(cyc, dz, dx, dx, 1, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_plan_fft(NULL, dz, dx, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_plan_fft(plan, dz, NULL, 0, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_dev_plan_fft(plan, dz, h, 1, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_rns_poly_mul(NULL, dz, dx, dx, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_rns_poly_mul(rp, dz, NULL, dx, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_rns_poly_mul(rp, dz, dx, h, NULL), HEPA_ERR_INVALID_ARGUMENT);
    T_STATUS(hepa_bp_rns_poly_mul(rp, h, dx, dx, NULL), HEPA_ERR_INVALID_ARGUMENT);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cr_assert(dpoisoned(dz, words), "a rejected call wrote the output");
    /* the cyclic plan still does cyclic products */
    T_OK(hepa_bp_dev_poly_mul(cyc, dz, dx, dx, 0, NULL));
    cr_assert(!dpoisoned(dz, words));
    cudaFree(dx);
    cudaFree(dz);
    free(h);
    hepa_bp_rns_plan_destroy(rp);
    hepa_bp_dev_plan_destroy(plan);
    hepa_bp_dev_plan_destroy(cyc);
    tf_clear(&t);
    tf_clear(&t257);
    tf_clear(&t32);
}
