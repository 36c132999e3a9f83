/* tests/test_oom.c — host allocation failure: every malloc / calloc that a call of the library
 * makes is made to fail in turn, and the call must return HEPA_ERR_OUT_OF_MEMORY, free all it
 * had allocated, leave *out untouched (creators) or the outputs untouched (where the header
 * promises it), and work again with the right answer once allocation succeeds.
 *
 * FAILING ALLOCATOR: this executable links the static library with -Wl,--wrap=malloc,calloc,free
 * (tests/CMakeLists.txt), so the library's own calls land in __wrap_* below. arm(k) makes the
 * k-th allocation from then on return NULL; `live` counts blocks allocated through the wrappers
 * and not yet freed, so a leak on a failure path shows as a changed count (the block-exact check
 * without valgrind). GMP's allocations (ring creation, CRT, the big-prime reference) go through
 * libgmp's own allocator, which aborts on failure and is not covered here; nor is device memory.
 *
 * sweep() runs an operation with allocation 0, 1, 2, ... failing until a run makes no failed
 * allocation; that run must succeed. Each operation is checked to allocate at least once, so
 * the test cannot pass by not reaching its allocations. CPU backend, n = 64. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "hepa/bigprime.h"
#include "hepa/ckks.h"
#include "hepa/crt.h"
#include "hepa/dft.h"
#include "hepa/keyswitch.h"
#include "hepa/ntt.h"
#include "hepa/poly.h"
#include "hepa/primes.h"
#include "hepa/ring.h"
#include "hepa/rns.h"
#include "hepa/sample.h"

/* ---- FAILING ALLOCATOR ----------------------------------------------------------------------- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void __real_free(void *p);

static long fail_at = -1; /* the allocation (counted from arm) that fails; -1: none */
static long allocs;       /* allocations since arm */
static int failed;        /* 1 once the armed allocation failed */
static long live;         /* blocks from the wrappers not yet freed */

static int fail_now(void) {
    if (fail_at < 0) return 0;
    if (allocs++ != fail_at) return 0;
    failed = 1;
    return 1;
}
void *__wrap_malloc(size_t size) {
    if (fail_now()) return NULL;
    void *p = __real_malloc(size);
    if (p) ++live;
    return p;
}
void *__wrap_calloc(size_t count, size_t size) {
    if (fail_now()) return NULL;
    void *p = __real_calloc(count, size);
    if (p) ++live;
    return p;
}
void __wrap_free(void *p) {
    if (p) --live;
    __real_free(p);
}

static void arm(long k) {
    fail_at = k, allocs = 0, failed = 0;
}
/* Disarms; returns the number of allocations the call attempted. */
static long disarm(void) {
    fail_at = -1;
    return allocs;
}

/* ---- the sweep ------------------------------------------------------------------------------- */

typedef struct fixture fixture;
typedef struct op {
    const char *name;
    /* the call; its result stays in the fixture until undo */
    hepa_status (*run)(fixture *f);
    /* after a successful run: frees what run created (NULL: nothing) */
    void (*undo)(fixture *f);
    /* after a successful run: 1 when the result is the expected one (NULL: not checked) */
    int (*check)(fixture *f);
    /* after a failed run: 1 when the outputs are as they were (NULL: not promised) */
    int (*untouched)(fixture *f);
} op;

static void sweep(fixture *f, const op *o, void (*prepare)(fixture *f)) {
    long k = 0;
    for (;; ++k) {
        if (prepare) prepare(f);
        const long before = live;
        arm(k);
        const hepa_status s = o->run(f);
        const int hit = failed;
        const long tried = disarm();
        if (!hit) {
            cr_assert_eq(s, HEPA_OK, "%s: no allocation failed (%ld made), status %d (%s)", o->name,
                         tried, (int)s, hepa_last_error_message());
            if (o->check) cr_assert(o->check(f), "%s: wrong result after %ld failures", o->name, k);
            if (o->undo) o->undo(f);
            cr_assert_eq(live, before, "%s: %ld blocks left after the undo", o->name,
                         live - before);
            break;
        }
        cr_assert_eq(s, HEPA_ERR_OUT_OF_MEMORY,
                     "%s: allocation %ld of %ld failed, status %d, expected OUT_OF_MEMORY", o->name,
                     k, tried, (int)s);
        cr_assert_eq(live, before, "%s: allocation %ld failed: %ld blocks leaked", o->name, k,
                     live - before);
        if (o->untouched)
            cr_assert(o->untouched(f), "%s: allocation %ld failed: an output changed", o->name, k);
    }
    cr_assert_gt(k, 0, "%s: made no allocation to fail", o->name);
    cr_log_info("%s: %ld allocation(s), each failed once", o->name, k);
}

/* ---- the fixture: a ring with 3 Q primes and 2 special primes, keys, operands ---------------- */

enum { N = 64, LQ = 3, K = 2, M = LQ + K };
#define SENTINEL ((void *)(uintptr_t)0x5eed)
#define OUT (2 * M * N) /* where the host-array operations write in buf */

struct fixture {
    test_rng t;
    uint64_t mods[M];
    hepa_ring *r;
    hepa_rng *g;
    hepa_poly *s, *s2, *a0, *a1, *b0, *b1, *o0, *o1, *lo0, *lo1, *c;
    hepa_ks *ks;
    hepa_ksk *rlk;
    hepa_ckks_encoder *enc;
    hepa_bp_field *bp;
    /* results and references */
    void *made;                          /* what a creator made (SENTINEL before) */
    uint64_t want0[M * N], want1[M * N]; /* reference outputs */
    uint64_t buf[4 * M * N];             /* host operands and outputs */
    uint64_t keep[4 * M * N];            /* a copy of buf, for the untouched checks */
    uint64_t keyw[2 * 2 * M * N];        /* rlk's words (2 digits of K = 2 primes) */
    uint64_t keyb[2 * M * N];            /* a seeded key's b_j, and its seed */
    uint8_t seed[32];
    double slots[N], back[N];
    mpz_t z[N];
};

static void poly_rand(fixture *f, hepa_poly *p, hepa_domain d) {
    T_OK(hepa_sample_uniform(f->g, p, d));
}

static void setup(fixture *f) {
    memset(f, 0, sizeof *f);
    test_rng_init(&f->t);
    T_OK(hepa_primes_ntt(f->mods, LQ, 40, N));
    T_OK(hepa_primes_ntt(f->mods + LQ, K, 60, N));
    T_OK(hepa_ring_create(&f->r, N, f->mods, M, HEPA_BACKEND_CPU));
    uint8_t seed[32];
    for (int i = 0; i < 32; ++i)
        seed[i] = (uint8_t)test_rand64(&f->t);
    T_OK(hepa_rng_create(&f->g, seed));
    hepa_poly **all[] = {&f->s, &f->s2};
    for (size_t i = 0; i < 2; ++i)
        T_OK(hepa_poly_create(all[i], f->r, M));
    hepa_poly **ct[] = {&f->a0, &f->a1, &f->b0, &f->b1, &f->o0, &f->o1, &f->c};
    for (size_t i = 0; i < 7; ++i)
        T_OK(hepa_poly_create(ct[i], f->r, LQ));
    T_OK(hepa_poly_create(&f->lo0, f->r, LQ - 1));
    T_OK(hepa_poly_create(&f->lo1, f->r, LQ - 1));
    T_OK(hepa_sample_ternary(f->g, f->s));
    T_OK(hepa_poly_to_ntt(f->s));
    T_OK(hepa_poly_mul(f->s2, f->s, f->s));
    hepa_poly *ops[] = {f->a0, f->a1, f->b0, f->b1, f->c};
    for (size_t i = 0; i < 5; ++i)
        poly_rand(f, ops[i], HEPA_DOMAIN_NTT);
    T_OK(hepa_ks_create(&f->ks, f->r, K, 0));
    T_OK(hepa_ksk_create(&f->rlk, f->ks, f->s2, f->s, f->g));
    cr_assert_eq(hepa_ks_key_words(f->ks), sizeof f->keyw / sizeof *f->keyw);
    T_OK(hepa_ksk_export(f->rlk, f->keyw));
    {
        hepa_ksk *sk = NULL;
        for (int i = 0; i < 32; ++i)
            f->seed[i] = (uint8_t)test_rand64(&f->t);
        T_OK(hepa_ksk_create_seeded(&sk, f->ks, f->s2, f->s, f->g, f->seed));
        T_OK(hepa_ksk_export_seeded(sk, f->seed, f->keyb));
        hepa_ksk_destroy(sk);
    }
    T_OK(hepa_ckks_encoder_create(&f->enc, f->r));
    T_OK(hepa_bp_field_create_named(&f->bp, HEPA_BP_P3));
    for (size_t i = 0; i < N; ++i)
        mpz_init(f->z[i]);
    for (size_t i = 0; i < N; ++i)
        f->slots[i] = test_rand_unit(&f->t);
}

static void teardown(fixture *f) {
    for (size_t i = 0; i < N; ++i)
        mpz_clear(f->z[i]);
    hepa_bp_field_destroy(f->bp);
    hepa_ckks_encoder_destroy(f->enc);
    hepa_ksk_destroy(f->rlk);
    hepa_ks_destroy(f->ks);
    hepa_poly *p[] = {f->s, f->s2, f->a0, f->a1, f->b0, f->b1, f->o0, f->o1, f->lo0, f->lo1, f->c};
    for (size_t i = 0; i < sizeof p / sizeof *p; ++i)
        hepa_poly_destroy(p[i]);
    hepa_rng_destroy(f->g);
    hepa_ring_destroy(f->r);
}

static fixture F;

static int made_untouched(fixture *f) {
    return f->made == SENTINEL;
}
static void made_reset(fixture *f) {
    f->made = SENTINEL;
}

/* ---- creators -------------------------------------------------------------------------------- */

static hepa_status run_ring(fixture *f) {
    return hepa_ring_create((hepa_ring **)&f->made, N, f->mods, M, HEPA_BACKEND_CPU);
}
static void undo_ring(fixture *f) {
    hepa_ring_destroy(f->made);
}
static hepa_status run_poly(fixture *f) {
    return hepa_poly_create((hepa_poly **)&f->made, f->r, 2);
}
static void undo_poly(fixture *f) {
    hepa_poly_destroy(f->made);
}
static hepa_status run_tables(fixture *f) {
    return hepa_ntt_tables_create((hepa_ntt_tables **)&f->made, N, f->mods[0]);
}
static void undo_tables(fixture *f) {
    hepa_ntt_tables_destroy(f->made);
}
static hepa_status run_rng(fixture *f) {
    return hepa_rng_create((hepa_rng **)&f->made, NULL);
}
static void undo_rng(fixture *f) {
    hepa_rng_destroy(f->made);
}
static hepa_status run_encoder(fixture *f) {
    return hepa_ckks_encoder_create((hepa_ckks_encoder **)&f->made, f->r);
}
static void undo_encoder(fixture *f) {
    hepa_ckks_encoder_destroy(f->made);
}
static hepa_status run_ks(fixture *f) {
    return hepa_ks_create((hepa_ks **)&f->made, f->r, K, 1);
}
static void undo_ks(fixture *f) {
    hepa_ks_destroy(f->made);
}
static hepa_status run_ksk(fixture *f) {
    return hepa_ksk_create((hepa_ksk **)&f->made, f->ks, f->s2, f->s, f->g);
}
static void undo_ksk(fixture *f) {
    hepa_ksk_destroy(f->made);
}
static hepa_status run_ksk_import(fixture *f) {
    return hepa_ksk_import((hepa_ksk **)&f->made, f->ks, f->keyw, hepa_ks_key_words(f->ks));
}
static hepa_status run_ksk_seeded(fixture *f) {
    return hepa_ksk_create_seeded((hepa_ksk **)&f->made, f->ks, f->s2, f->s, f->g, f->seed);
}
static hepa_status run_ksk_import_seeded(fixture *f) {
    return hepa_ksk_import_seeded((hepa_ksk **)&f->made, f->ks, f->seed, f->keyb,
                                  hepa_ks_key_words(f->ks) / 2);
}
static hepa_status run_bp(fixture *f) {
    return hepa_bp_field_create_named((hepa_bp_field **)&f->made, HEPA_BP_W59_K8);
}
static void undo_bp(fixture *f) {
    hepa_bp_field_destroy(f->made);
}

Test(oom, creators) {
    setup(&F);
    const op ops[] = {
        {"hepa_ring_create", run_ring, undo_ring, NULL, made_untouched},
        {"hepa_poly_create", run_poly, undo_poly, NULL, made_untouched},
        {"hepa_ntt_tables_create", run_tables, undo_tables, NULL, made_untouched},
        {"hepa_rng_create", run_rng, undo_rng, NULL, made_untouched},
        {"hepa_ckks_encoder_create", run_encoder, undo_encoder, NULL, made_untouched},
        {"hepa_ks_create", run_ks, undo_ks, NULL, made_untouched},
        {"hepa_ksk_create", run_ksk, undo_ksk, NULL, made_untouched},
        {"hepa_ksk_import", run_ksk_import, undo_ksk, NULL, made_untouched},
        {"hepa_ksk_create_seeded", run_ksk_seeded, undo_ksk, NULL, made_untouched},
        {"hepa_ksk_import_seeded", run_ksk_import_seeded, undo_ksk, NULL, made_untouched},
        {"hepa_bp_field_create_named", run_bp, undo_bp, NULL, made_untouched},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; ++i)
        sweep(&F, &ops[i], made_reset);
    teardown(&F);
}

/* ---- operations with scratch: each compared with its result computed before, unarmed ------- */

static size_t words(hepa_poly *p) {
    return hepa_poly_level(p) * N;
}
static int eq_poly(hepa_poly *p, const uint64_t *want) {
    return memcmp(hepa_poly_data(p), want, words(p) * sizeof *want) == 0;
}
static int eq_pair(fixture *f, hepa_poly *p0, hepa_poly *p1) {
    return eq_poly(p0, f->want0) && eq_poly(p1, f->want1);
}
/* records p0 (and p1) as the expected results of a run made now, unarmed */
static void expect(fixture *f, const op *o, hepa_poly *p0, hepa_poly *p1) {
    T_OK(o->run(f));
    memcpy(f->want0, hepa_poly_data(p0), words(p0) * sizeof *f->want0);
    if (p1) memcpy(f->want1, hepa_poly_data(p1), words(p1) * sizeof *f->want1);
}

static hepa_status run_keyswitch(fixture *f) {
    return hepa_keyswitch(f->ks, f->o0, f->o1, f->c, f->rlk);
}
static int check_o(fixture *f) {
    return eq_pair(f, f->o0, f->o1);
}
static hepa_status run_hoisted(fixture *f) {
    hepa_poly *o0[1] = {f->o0}, *o1[1] = {f->o1};
    const uint64_t g[1] = {5};
    const hepa_ksk *k[1] = {f->rlk};
    return hepa_automorphism_hoisted(f->ks, o0, o1, f->a0, f->a1, g, k, 1);
}
static hepa_status run_mul_relin(fixture *f) {
    return hepa_mul_relin(f->ks, f->o0, f->o1, f->a0, f->a1, f->b0, f->b1, f->rlk);
}
static hepa_status run_mul_relin_rescale(fixture *f) {
    return hepa_mul_relin_rescale(f->ks, f->lo0, f->lo1, f->a0, f->a1, f->b0, f->b1, f->rlk);
}
static int check_lo(fixture *f) {
    return eq_pair(f, f->lo0, f->lo1);
}
static hepa_status run_rescale_pair(fixture *f) {
    return hepa_poly_rescale_pair(f->lo0, f->lo1, f->a0, f->a1);
}
static hepa_status run_rescale(fixture *f) {
    return hepa_poly_rescale(f->lo0, f->a0);
}
static int check_lo0(fixture *f) {
    return eq_poly(f->lo0, f->want0);
}
static hepa_status run_automorphism(fixture *f) {
    /* in place: the permutation reads from a scratch copy */
    T_OK(hepa_poly_copy(f->o0, f->a0));
    return hepa_poly_automorphism(f->o0, f->o0, 5);
}
static int check_o0(fixture *f) {
    return eq_poly(f->o0, f->want0);
}
static hepa_status run_poly_mul_coeff(fixture *f) {
    T_OK(hepa_poly_copy(f->o0, f->a0));
    T_OK(hepa_poly_copy(f->o1, f->b0));
    T_OK(hepa_poly_from_ntt(f->o0));
    T_OK(hepa_poly_from_ntt(f->o1));
    return hepa_poly_mul(f->o0, f->o0, f->o1);
}

Test(oom, ring_operations) {
    setup(&F);
    const struct {
        op o;
        hepa_poly *p0, *p1; /* the outputs (p1 NULL: one) */
    } cases[] = {
        {{"hepa_keyswitch", run_keyswitch, NULL, check_o, NULL}, F.o0, F.o1},
        {{"hepa_mul_relin", run_mul_relin, NULL, check_o, NULL}, F.o0, F.o1},
        /* (the outputs hold the unarmed run's words, which a failed run must leave) */
        {{"hepa_automorphism_hoisted", run_hoisted, NULL, check_o, check_o}, F.o0, F.o1},
        {{"hepa_mul_relin_rescale", run_mul_relin_rescale, NULL, check_lo, NULL}, F.lo0, F.lo1},
        {{"hepa_poly_rescale_pair (NTT domain)", run_rescale_pair, NULL, check_lo, NULL},
         F.lo0,
         F.lo1},
        {{"hepa_poly_rescale (NTT domain)", run_rescale, NULL, check_lo0, NULL}, F.lo0, NULL},
        {{"hepa_poly_automorphism (in place)", run_automorphism, NULL, check_o0, NULL}, F.o0, NULL},
        {{"hepa_poly_mul (coefficient domain)", run_poly_mul_coeff, NULL, check_o0, NULL},
         F.o0,
         NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        expect(&F, &cases[i].o, cases[i].p0, cases[i].p1);
        sweep(&F, &cases[i].o, NULL);
    }
    teardown(&F);
}

/* ---- host-array operations: outputs in buf, compared with the unarmed run ------------------- */

static hepa_status run_negacyclic(fixture *f) {
    return hepa_negacyclic_mul(f->r, f->buf + OUT, f->buf, f->buf + M * N);
}
static int check_negacyclic(fixture *f) {
    return memcmp(f->buf + OUT, f->want0, M * N * sizeof *f->want0) == 0;
}
static hepa_status run_convert(fixture *f) {
    const size_t src[] = {0, 1, 2}, dst[] = {3, 4};
    return hepa_rns_convert(f->r, f->buf + OUT, dst, 2, f->buf, src, 3, 1);
}
static int check_convert(fixture *f) {
    return memcmp(f->buf + OUT, f->want0, 2 * N * sizeof *f->want0) == 0;
}
static hepa_status run_crt(fixture *f) {
    return hepa_crt_compose(f->r, LQ, f->z, f->buf, 1);
}
static int check_crt(fixture *f) {
    /* the composed value, reduced mod q_i, gives limb i back */
    for (size_t i = 0; i < LQ; ++i)
        for (size_t j = 0; j < N; ++j)
            if (mpz_fdiv_ui(f->z[j], f->mods[i]) != f->buf[i * N + j]) return 0;
    return 1;
}
static hepa_status run_encode(fixture *f) {
    return hepa_ckks_encode(f->enc, f->o0, f->slots, 1099511627776.0);
}
static hepa_status run_decode(fixture *f) {
    return hepa_ckks_decode(f->enc, f->o0, 1099511627776.0, f->back);
}
static int check_decode(fixture *f) {
    for (size_t i = 0; i < N; ++i)
        if (fabs(f->back[i] - f->slots[i]) > 1e-6) return 0;
    return 1;
}
static hepa_status run_gaussian(fixture *f) {
    return hepa_sample_gaussian(f->g, f->o0, 3.2);
}
static hepa_status run_ternary(fixture *f) {
    return hepa_sample_ternary(f->g, f->o0);
}
static hepa_status run_dft(fixture *f) {
    memcpy(f->back, f->slots, sizeof f->back);
    return hepa_dft_host(f->back, N / 2, 1, 0);
}
static int check_dft(fixture *f) {
    return memcmp(f->back, f->want0, sizeof f->back) == 0;
}
/* big-prime P3: a, b (2 elements of k words each) at buf, buf + 2k; the output at OUT */
static size_t bpk(fixture *f) {
    return hepa_bp_field_k(f->bp);
}
static hepa_status run_bp_fft(fixture *f) {
    memcpy(f->buf + OUT, f->buf, 2 * bpk(f) * sizeof *f->buf);
    return hepa_bp_fft(f->bp, f->buf + OUT, 2, 0);
}
static int check_bp(fixture *f) {
    return memcmp(f->buf + OUT, f->want0, 2 * bpk(f) * sizeof *f->want0) == 0;
}
/* the transform's input (a) is still there: hepa_bp_fft leaves x untouched on failure */
static int bp_fft_untouched(fixture *f) {
    return memcmp(f->buf + OUT, f->buf, 2 * bpk(f) * sizeof *f->buf) == 0;
}
static hepa_status run_bp_mul(fixture *f) {
    memcpy(f->buf + OUT, f->keep + OUT, 2 * bpk(f) * sizeof *f->buf);
    return hepa_bp_poly_mul(f->bp, f->buf + OUT, f->buf, f->buf + 2 * bpk(f), 2, 1);
}
static int bp_mul_untouched(fixture *f) {
    return memcmp(f->buf + OUT, f->keep + OUT, 2 * bpk(f) * sizeof *f->buf) == 0;
}

Test(oom, host_operations) {
    setup(&F);
    /* buf: a (M·N residues), b (M·N), output; keep: its copy */
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            F.buf[i * N + j] = test_rand_residue_edgy(&F.t, F.mods[i]);
            F.buf[(M + i) * N + j] = test_rand_residue_edgy(&F.t, F.mods[i]);
        }
    memcpy(F.keep, F.buf, sizeof F.buf);

    const op negacyclic = {"hepa_negacyclic_mul", run_negacyclic, NULL, check_negacyclic, NULL};
    T_OK(run_negacyclic(&F));
    memcpy(F.want0, F.buf + OUT, M * N * sizeof *F.want0);
    sweep(&F, &negacyclic, NULL);

    const op convert = {"hepa_rns_convert", run_convert, NULL, check_convert, NULL};
    T_OK(run_convert(&F));
    memcpy(F.want0, F.buf + OUT, 2 * N * sizeof *F.want0);
    sweep(&F, &convert, NULL);

    const op crt = {"hepa_crt_compose", run_crt, NULL, check_crt, NULL};
    sweep(&F, &crt, NULL);

    const op encode = {"hepa_ckks_encode", run_encode, NULL, NULL, NULL};
    sweep(&F, &encode, NULL);
    const op decode = {"hepa_ckks_decode", run_decode, NULL, check_decode, NULL};
    sweep(&F, &decode, NULL);

    const op gaussian = {"hepa_sample_gaussian", run_gaussian, NULL, NULL, NULL};
    sweep(&F, &gaussian, NULL);
    const op ternary = {"hepa_sample_ternary", run_ternary, NULL, NULL, NULL};
    sweep(&F, &ternary, NULL);

    const op dft = {"hepa_dft_host", run_dft, NULL, check_dft, NULL};
    T_OK(run_dft(&F));
    memcpy(F.want0, F.back, sizeof F.back);
    sweep(&F, &dft, NULL);

    /* canonical P3 elements: digits below 2^20 (< r) */
    const size_t k = bpk(&F);
    cr_assert(4 * k <= OUT && OUT + 2 * k <= sizeof F.buf / sizeof *F.buf && 2 * k <= M * N);
    for (size_t i = 0; i < 4 * k; ++i)
        F.buf[i] = test_rand_below(&F.t, 1u << 20);
    for (size_t i = 0; i < 2 * k; ++i)
        F.buf[OUT + i] = test_rand_below(&F.t, 1u << 20);
    memcpy(F.keep, F.buf, sizeof F.buf);
    const op bp_fft = {"hepa_bp_fft", run_bp_fft, NULL, check_bp, bp_fft_untouched};
    T_OK(run_bp_fft(&F));
    memcpy(F.want0, F.buf + OUT, 2 * k * sizeof *F.want0);
    sweep(&F, &bp_fft, NULL);
    const op bp_mul = {"hepa_bp_poly_mul", run_bp_mul, NULL, check_bp, bp_mul_untouched};
    T_OK(run_bp_mul(&F));
    memcpy(F.want0, F.buf + OUT, 2 * k * sizeof *F.want0);
    sweep(&F, &bp_mul, NULL);
    teardown(&F);
}
