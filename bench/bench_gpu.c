/* bench/bench_gpu.c — the GPU suite of hepa-bench (`hepa-bench --gpu-suite`).
 *
 * For n = 2^12 … 2^17 and L ∈ {1, 8, 34, 64} (or the sizes given), on the CUDA backend with data
 * already on the device: forward NTT, inverse NTT, pointwise product (NTT domain), negacyclic
 * product (coefficient domain in and out: two forward NTTs, the product fused into the inverse).
 *
 * Method. Each operation is enqueued on the ring's stream between two CUDA events; after a
 * warm-up, at least `reps` (default 60) such intervals are taken and the median and minimum
 * reported. Two modes:
 *   hot:  the same polynomials every time (they stay in the L2 cache when they fit);
 *   cold: rotating over enough distinct polynomials that each role (input, second input,
 *         output) spans more than 4× the L2 cache, so every operation reads from HBM.
 * The device-to-device copy bandwidth (cudaMemcpyAsync of 512 MiB, counting bytes read plus
 * bytes written) is measured in the same run. For every row:
 *   bytes  = compulsory traffic: NTT 2·8·L·n (read and write the limbs once), products 3·8·L·n;
 *   GB/s   = bytes / median time;  %copy = GB/s over the copy bandwidth;
 *   floor  = bytes / copy bandwidth (one pass); x floor = median / floor.
 * A two-kernel NTT moves its data twice, so its own floor is 2× the one-pass floor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "bench_gpu.h"
#include "hepa/hepa.h"

#define CK(call)                                                                               \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "hepa-bench: %s failed: %s\n", #call, cudaGetErrorString(e_));      \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)
#define HK(call)                                                                               \
    do {                                                                                       \
        hepa_status s_ = (call);                                                               \
        if (s_ != HEPA_OK) {                                                                   \
            fprintf(stderr, "hepa-bench: %s failed: %s %s\n", #call, hepa_status_string(s_),    \
                    hepa_last_error_message());                                                \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

/* The benchmarks' inputs: xorshift64 (13, 7, 17), fixed seeds so that runs compare. */
static uint64_t xs_next(uint64_t *s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}
/* uniform in [-1, 1) on a 2^-52 grid */
static double xs_unit(uint64_t *s) {
    return (double)(xs_next(s) >> 11) * 0x1p-52 - 1.0;
}
static void xs_fill_unit(double *z, size_t n, uint64_t *s) {
    for (size_t i = 0; i < n; ++i)
        z[i] = xs_unit(s);
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median and minimum of v[0..k) (sorts v) */
static void stats(double *v, size_t k, double *med, double *mn) {
    qsort(v, k, sizeof *v, cmp_d);
    *mn = v[0];
    *med = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* Device-to-device copy bandwidth in GB/s (bytes read + bytes written), median of 30. */
static int copy_bandwidth(cudaStream_t st, double *gbs) {
    const size_t bytes = (size_t)512 << 20;
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemsetAsync(a, 1, bytes, st));
    enum { K = 30 };
    cudaEvent_t ev[K + 1];
    for (int i = 0; i <= K; ++i) CK(cudaEventCreate(&ev[i]));
    for (int i = 0; i < 3; ++i) CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, st));
    CK(cudaEventRecord(ev[0], st));
    for (int i = 0; i < K; ++i) {
        CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, st));
        CK(cudaEventRecord(ev[i + 1], st));
    }
    CK(cudaStreamSynchronize(st));
    double t[K];
    for (int i = 0; i < K; ++i) {
        float ms;
        CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
        t[i] = ms * 1e-3;
    }
    double med, mn;
    stats(t, K, &med, &mn);
    *gbs = 2.0 * bytes / med / 1e9;
    for (int i = 0; i <= K; ++i) cudaEventDestroy(ev[i]);
    cudaFree(a);
    cudaFree(b);
    return 0;
}

enum op { OP_FWD, OP_INV, OP_PMUL, OP_NMUL, OP_COUNT };
static const char *op_name[OP_COUNT] = {"forward NTT", "inverse NTT", "pointwise mul",
                                        "negacyclic mul"};

typedef struct sizes {
    hepa_ring *ring;
    cudaStream_t st;
    size_t n, L, K; /* K polynomials per role (1 when hot) */
    hepa_poly **a, **b, **c;
} sizes;

static void free_polys(sizes *z) {
    for (size_t k = 0; k < z->K; ++k) {
        if (z->a) hepa_poly_destroy(z->a[k]);
        if (z->b) hepa_poly_destroy(z->b[k]);
        if (z->c) hepa_poly_destroy(z->c[k]);
    }
    free(z->a);
    free(z->b);
    free(z->c);
    z->a = z->b = z->c = NULL;
}

/* K polynomials per role with random residues. */
static int make_polys(sizes *z, size_t K, uint64_t *seed) {
    z->K = K;
    z->a = calloc(K, sizeof *z->a);
    z->b = calloc(K, sizeof *z->b);
    z->c = calloc(K, sizeof *z->c);
    if (!z->a || !z->b || !z->c) return 1;
    const size_t w = z->L * z->n;
    uint64_t *buf = malloc(w * sizeof *buf);
    if (!buf) return 1;
    for (size_t k = 0; k < K; ++k) {
        HK(hepa_poly_create(&z->a[k], z->ring, z->L));
        HK(hepa_poly_create(&z->b[k], z->ring, z->L));
        HK(hepa_poly_create(&z->c[k], z->ring, z->L));
        for (int r = 0; r < 2; ++r) {
            for (size_t i = 0; i < z->L; ++i) {
                const uint64_t q = hepa_ring_modulus(z->ring, i);
                for (size_t j = 0; j < z->n; ++j)
                    buf[i * z->n + j] = xs_next(seed) % q;
            }
            HK(hepa_poly_set(r ? z->b[k] : z->a[k], buf, HEPA_DOMAIN_COEFF));
        }
    }
    free(buf);
    return 0;
}

/* Times `reps` operations of kind op (after a warm-up) into t[] (seconds). For FWD/INV the
 * polynomials go forward over all K, then back over all K, so that in cold mode an inverse
 * never finds its input in the cache. */
static int time_op(sizes *z, enum op op, size_t reps, double *t) {
    cudaEvent_t *ev = malloc(2 * reps * sizeof *ev);
    if (!ev) return 1;
    for (size_t i = 0; i < 2 * reps; ++i) CK(cudaEventCreate(&ev[i]));
    if (op == OP_PMUL)
        for (size_t i = 0; i < z->K; ++i) {
            HK(hepa_poly_to_ntt(z->a[i]));
            HK(hepa_poly_to_ntt(z->b[i]));
        }
    size_t got = 0, k = 0, warm = 4 + 2 * z->K; /* untimed operations first */
    while (got < reps) {
        int timed;
        if (op == OP_FWD || op == OP_INV) {
            /* K forwards, then K inverses, ...: only the direction asked for is timed */
            const int fwd = hepa_poly_domain(z->a[k]) == HEPA_DOMAIN_COEFF;
            timed = !warm && (op == OP_FWD) == fwd;
            if (timed) CK(cudaEventRecord(ev[2 * got], z->st));
            HK(fwd ? hepa_poly_to_ntt(z->a[k]) : hepa_poly_from_ntt(z->a[k]));
        } else {
            timed = !warm;
            if (timed) CK(cudaEventRecord(ev[2 * got], z->st));
            HK(hepa_poly_mul(z->c[k], z->a[k], z->b[k]));
        }
        if (timed) CK(cudaEventRecord(ev[2 * got++ + 1], z->st));
        k = (k + 1) % z->K;
        if (warm) --warm;
    }
    CK(cudaStreamSynchronize(z->st));
    for (size_t i = 0; i < reps; ++i) {
        float ms;
        CK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        t[i] = ms * 1e-3;
    }
    /* leave everything in the coefficient domain */
    for (size_t i = 0; i < z->K; ++i) {
        if (hepa_poly_domain(z->a[i]) == HEPA_DOMAIN_NTT) HK(hepa_poly_from_ntt(z->a[i]));
        if (hepa_poly_domain(z->b[i]) == HEPA_DOMAIN_NTT) HK(hepa_poly_from_ntt(z->b[i]));
    }
    HK(hepa_ring_sync(z->ring));
    for (size_t i = 0; i < 2 * reps; ++i) cudaEventDestroy(ev[i]);
    free(ev);
    return 0;
}

int hepa_bench_gpu_suite(const size_t *ns, size_t n_count, const size_t *Ls, size_t L_count,
                         unsigned bits, size_t reps, int json, const char *commit) {
    if (!hepa_cuda_available()) {
        fprintf(stderr, "hepa-bench: --gpu-suite needs a usable CUDA device\n");
        return 1;
    }
    if (reps < 10) reps = 10;
    /* where the build saw no git (a copied tree on a GPU host), the caller can name the commit */
    const char *env_commit = getenv("HEPA_COMMIT");
    if (env_commit && *env_commit) commit = env_commit;
    struct cudaDeviceProp prop;
    int dev;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    cudaStream_t st0;
    CK(cudaStreamCreate(&st0));
    double bw;
    if (copy_bandwidth(st0, &bw)) return 1;
    cudaStreamDestroy(st0);
    const double l2 = (double)prop.l2CacheSize;

    if (json) {
        printf("{\"gpu\": \"%s\", \"commit\": \"%s\", \"copy_gbs\": %.1f, \"l2_bytes\": %.0f, "
               "\"bits\": %u, \"rows\": [\n", prop.name, commit, bw, l2, bits);
    } else {
        printf("# hepa-bench GPU suite\n\nGPU: %s (%d SMs, L2 %.0f MiB), commit %s\n"
               "device-to-device copy: %.0f GB/s (read + write), moduli: %u-bit primes\n\n",
               prop.name, prop.multiProcessorCount, l2 / (1 << 20), commit, bw, bits);
        printf("| op | n | L | mode | median µs | min µs | GB/s | %% copy | floor µs | x floor |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n");
    }
    int first = 1;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    double *t = malloc(reps * sizeof *t);
    for (size_t ni = 0; ni < n_count; ++ni) {
        for (size_t li = 0; li < L_count; ++li) {
            sizes z = {0};
            z.n = ns[ni];
            z.L = Ls[li];
            uint64_t moduli[64];
            HK(hepa_primes_ntt(moduli, z.L, bits, z.n));
            HK(hepa_ring_create(&z.ring, z.n, moduli, z.L, HEPA_BACKEND_CUDA));
            z.st = (cudaStream_t)hepa_ring_cuda_stream(z.ring);
            const double pbytes = 8.0 * z.L * z.n;
            for (int cold = 0; cold < 2; ++cold) {
                size_t K = cold ? (size_t)ceil(4.0 * l2 / pbytes) + 1 : 1;
                if (make_polys(&z, K, &seed)) return 1;
                for (int op = 0; op < OP_COUNT; ++op) {
                    if (time_op(&z, (enum op)op, reps, t)) return 1;
                    double med, mn;
                    stats(t, reps, &med, &mn);
                    const double bytes = (op <= OP_INV ? 2 : 3) * pbytes;
                    const double gbs = bytes / med / 1e9, floor_s = bytes / (bw * 1e9);
                    if (json)
                        printf("%s  {\"op\": \"%s\", \"n\": %zu, \"L\": %zu, \"mode\": \"%s\", "
                               "\"median_us\": %.2f, \"min_us\": %.2f, \"gbs\": %.1f, "
                               "\"copy_ratio\": %.3f, \"floor_us\": %.2f}",
                               first ? "" : ",\n", op_name[op], z.n, z.L, cold ? "cold" : "hot",
                               med * 1e6, mn * 1e6, gbs, gbs / bw, floor_s * 1e6);
                    else
                        printf("| %s | 2^%d | %zu | %s | %.1f | %.1f | %.0f | %.0f%% | %.1f | "
                               "%.2f |\n",
                               op_name[op], (int)round(log2((double)z.n)), z.L,
                               cold ? "cold" : "hot", med * 1e6, mn * 1e6, gbs, 100 * gbs / bw,
                               floor_s * 1e6, med / floor_s);
                    first = 0;
                    fflush(stdout);
                }
                free_polys(&z);
            }
            hepa_ring_destroy(z.ring);
        }
    }
    if (json) printf("\n]}\n");
    free(t);
    return 0;
}

/* ---- big-prime fields ------------------------------------------------------------------- */

/* One timed big-prime operation (--bp-suite and --bp-compare). */
enum bp_op {
    BP_FFT_FWD,  /* one-shot hepa_bp_dev_fft, forward, in place on dx */
    BP_FFT_INV,  /* the same, inverse */
    BP_PLAN_FWD, /* plan (tables built beforehand): forward FFT dy = FFT(dx) */
    BP_PLAN_INV, /* the same, inverse */
    BP_EW_MUL,   /* dx = dx ⊙ dy */
    BP_EW_ADD,   /* dx = dx + dy */
    BP_EW_SUB,   /* dx = dx - dy */
    BP_EW_NEG,   /* dx = -dx */
    BP_EW_RPOW,  /* dx = dx·r^5 (shift and subtract, no multiplication) */
    CMP_FFT_MUL, /* plan: negacyclic product dz = dx·dy */
    CMP_RNS_MUL, /* RNS route: dz = dx·dy */
    CMP_BP_FFT,  /* plan: forward FFT dz = FFT(dx) */
    CMP_NTT      /* forward NTT of poly (alternating with untimed inverses) */
};
typedef struct {
    enum bp_op op;
    const hepa_bp_field *f;
    size_t N;
    const hepa_bp_dev_plan *plan;
    const hepa_bp_rns_plan *rp;
    hepa_poly *poly;
    uint64_t *dz, *dx, *dy;
} bp_ctx;

static hepa_status bp_run(const bp_ctx *c) {
    switch (c->op) {
    case BP_FFT_FWD: return hepa_bp_dev_fft(c->f, c->dx, c->N, 0, NULL);
    case BP_FFT_INV: return hepa_bp_dev_fft(c->f, c->dx, c->N, 1, NULL);
    case BP_PLAN_FWD: return hepa_bp_dev_plan_fft(c->plan, c->dy, c->dx, 0, NULL);
    case BP_PLAN_INV: return hepa_bp_dev_plan_fft(c->plan, c->dy, c->dx, 1, NULL);
    case BP_EW_MUL: return hepa_bp_dev_mul(c->f, c->dx, c->dx, c->dy, c->N, NULL);
    case BP_EW_ADD: return hepa_bp_dev_add(c->f, c->dx, c->dx, c->dy, c->N, NULL);
    case BP_EW_SUB: return hepa_bp_dev_sub(c->f, c->dx, c->dx, c->dy, c->N, NULL);
    case BP_EW_NEG: return hepa_bp_dev_neg(c->f, c->dx, c->dx, c->N, NULL);
    case BP_EW_RPOW: return hepa_bp_dev_mul_rpow(c->f, c->dx, c->dx, c->N, 5, NULL);
    case CMP_FFT_MUL: return hepa_bp_dev_poly_mul(c->plan, c->dz, c->dx, c->dy, 1, NULL);
    case CMP_RNS_MUL: return hepa_bp_rns_poly_mul(c->rp, c->dz, c->dx, c->dy, NULL);
    case CMP_BP_FFT: return hepa_bp_dev_plan_fft(c->plan, c->dz, c->dx, 0, NULL);
    case CMP_NTT:
        return hepa_poly_domain(c->poly) == HEPA_DOMAIN_COEFF ? hepa_poly_to_ntt(c->poly)
                                                               : hepa_poly_from_ntt(c->poly);
    }
    return HEPA_ERR_INVALID_ARGUMENT;
}

/* Median and minimum (seconds) of `reps` calls of step(ctx) on stream st, each between its own
 * pair of events, after `warm` untimed calls. With is_timed, only the calls for which it returns
 * nonzero (asked before the call) are timed; the others run untimed in between. */
typedef hepa_status (*event_step)(const void *ctx);
static int event_time(cudaStream_t st, size_t reps, size_t warm, event_step step,
                      int (*is_timed)(const void *ctx), const void *ctx, double *med, double *mn) {
    cudaEvent_t *ev = malloc(2 * reps * sizeof *ev);
    double *t = malloc(reps * sizeof *t);
    if (!ev || !t) return 1;
    for (size_t i = 0; i < 2 * reps; ++i) CK(cudaEventCreate(&ev[i]));
    size_t got = 0;
    while (got < reps) {
        const int timed = !warm && (!is_timed || is_timed(ctx));
        if (timed) CK(cudaEventRecord(ev[2 * got], st));
        HK(step(ctx));
        if (timed) CK(cudaEventRecord(ev[2 * got++ + 1], st));
        if (warm) --warm;
    }
    CK(cudaStreamSynchronize(st));
    for (size_t i = 0; i < reps; ++i) {
        float ms;
        CK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        t[i] = ms * 1e-3;
    }
    stats(t, reps, med, mn);
    for (size_t i = 0; i < 2 * reps; ++i) cudaEventDestroy(ev[i]);
    free(ev);
    free(t);
    return 0;
}

static hepa_status bp_step(const void *c) { return bp_run((const bp_ctx *)c); }
/* CMP_NTT alternates forward and inverse calls; only the forward ones are timed */
static int bp_is_timed(const void *p) {
    const bp_ctx *c = p;
    return c->op != CMP_NTT || hepa_poly_domain(c->poly) == HEPA_DOMAIN_COEFF;
}

/* bp_run timed by event_time after 4 warm-up calls. */
static int bp_time(const bp_ctx *c, cudaStream_t st, size_t reps, double *med, double *mn) {
    return event_time(st, reps, 4, bp_step, bp_is_timed, c, med, mn);
}

/* The common start of the big-prime suites: a usable GPU, the commit to print (HEPA_COMMIT
 * overrides the build's), the device properties and the copy bandwidth. Returns 0 on success. */
static int bp_prologue(const char *flag, const char **commit, struct cudaDeviceProp *prop,
                       double *bw) {
    if (!hepa_cuda_available()) {
        fprintf(stderr, "hepa-bench: %s needs a usable CUDA device\n", flag);
        return 1;
    }
    const char *env_commit = getenv("HEPA_COMMIT");
    if (env_commit && *env_commit) *commit = env_commit;
    int dev;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(prop, dev));
    return copy_bandwidth(0, bw);
}

/* The Markdown header every device benchmark starts with: "# hepa-bench<title>", the GPU, the
 * commit and the copy bandwidth measured by bp_prologue. */
static void bench_header(const char *title, const struct cudaDeviceProp *prop, const char *commit,
                         double bw) {
    printf("# hepa-bench%s\n\nGPU: %s, commit %s\ndevice-to-device copy: %.0f GB/s (read + "
           "write)\n\n",
           title, prop->name, commit, bw);
}

int hepa_bench_bp_suite(size_t reps, int json, const char *commit) {
    struct cudaDeviceProp prop;
    double bw;
    if (bp_prologue("--bp-suite", &commit, &prop, &bw)) return 1;
    if (json)
        printf("{\"gpu\": \"%s\", \"commit\": \"%s\", \"copy_gbs\": %.1f, \"rows\": [\n",
               prop.name, commit, bw);
    else {
        bench_header(" big-prime suite", &prop, commit, bw);
        printf("| field | op | N | median µs | min µs | one-pass floor µs | x floor |\n"
               "|---|---|---|---|---|---|---|\n");
    }
    static const hepa_bp_prime fields[2] = {HEPA_BP_P3, HEPA_BP_P4};
    static const char *names[2] = {"P3", "P4"};
    enum { NOPS = 9, NFFT = 4 }; /* the first NFFT ops are transforms, timed from N = 2^10 */
    static const char *ops[NOPS] = {"forward FFT (plan)", "inverse FFT (plan)",
                                    "forward FFT (one-shot)", "inverse FFT (one-shot)",
                                    "element-wise mul", "element-wise add", "element-wise sub",
                                    "element-wise neg", "element-wise x r^5"};
    static const enum bp_op bop[NOPS] = {BP_PLAN_FWD, BP_PLAN_INV, BP_FFT_FWD, BP_FFT_INV,
                                         BP_EW_MUL,   BP_EW_ADD,   BP_EW_SUB,  BP_EW_NEG,
                                         BP_EW_RPOW};
    /* vectors read and written per element: the binary ops read y too */
    static const double passes[NOPS] = {2, 2, 2, 2, 3, 3, 3, 2, 2};
    int first = 1;
    uint64_t seed = 0x243F6A8885A308D3ull;
    for (int fi = 0; fi < 2; ++fi) {
        hepa_bp_field *f;
        HK(hepa_bp_field_create_named(&f, fields[fi]));
        const size_t k = hepa_bp_field_k(f), Nmax = (size_t)1 << 20;
        uint64_t *h = malloc(Nmax * k * sizeof *h), *dx, *dy;
        if (!h) return 1;
        mpz_t v, p;
        mpz_inits(v, p, NULL);
        HK(hepa_bp_field_prime(f, p));
        gmp_randstate_t rs;
        gmp_randinit_default(rs);
        gmp_randseed_ui(rs, (unsigned long)seed);
        for (size_t j = 0; j < Nmax; ++j) {
            mpz_urandomm(v, rs, p);
            HK(hepa_bp_from_mpz(f, h + j * k, v));
        }
        CK(cudaMalloc((void **)&dx, Nmax * k * sizeof *dx));
        CK(cudaMalloc((void **)&dy, Nmax * k * sizeof *dy));
        for (int op = 0; op < NOPS; ++op) {
            for (int lg = op >= NFFT ? 20 : 10; lg <= 20; lg += 2) {
                const size_t N = (size_t)1 << lg;
                HK(hepa_bp_dev_upload(f, dx, h, N, NULL));
                HK(hepa_bp_dev_upload(f, dy, h, N, NULL));
                hepa_bp_dev_plan *plan = NULL;
                if (bop[op] == BP_PLAN_FWD || bop[op] == BP_PLAN_INV)
                    HK(hepa_bp_dev_plan_create(&plan, f, N, 0));
                const bp_ctx c = {bop[op], f, N, plan, NULL, NULL, NULL, dx, dy};
                double med, mn;
                const int bad_time = bp_time(&c, 0, reps, &med, &mn);
                hepa_bp_dev_plan_destroy(plan);
                if (bad_time) return 1;
                /* one pass: read and write the vector once (the binary ops also read y) */
                const double bytes = passes[op] * 8.0 * (double)(N * k);
                const double floor_s = bytes / (bw * 1e9);
                if (json)
                    printf("%s  {\"field\": \"%s\", \"op\": \"%s\", \"N\": %zu, \"median_us\": %.2f, "
                           "\"min_us\": %.2f, \"floor_us\": %.2f}",
                           first ? "" : ",\n", names[fi], ops[op], N, med * 1e6, mn * 1e6,
                           floor_s * 1e6);
                else
                    printf("| %s | %s | 2^%d | %.1f | %.1f | %.1f | %.1f |\n", names[fi], ops[op], lg,
                           med * 1e6, mn * 1e6, floor_s * 1e6, med / floor_s);
                first = 0;
                fflush(stdout);
            }
        }
        cudaFree(dx);
        cudaFree(dy);
        gmp_randclear(rs);
        mpz_clears(v, p, NULL);
        free(h);
        hepa_bp_field_destroy(f);
    }
    if (json) printf("\n]}\n");
    return 0;
}

/* ---- big-prime FFT route vs RNS route (--bp-compare) ------------------------------------------ */

int hepa_bench_bp_compare(size_t reps, int json, const char *commit) {
    struct cudaDeviceProp prop;
    double bw;
    if (bp_prologue("--bp-compare", &commit, &prop, &bw)) return 1;
    if (json)
        printf("{\"gpu\": \"%s\", \"commit\": \"%s\", \"copy_gbs\": %.1f, \"rows\": [\n",
               prop.name, commit, bw);
    else {
        bench_header(": negacyclic products mod a big prime, big-prime FFT vs RNS", &prop, commit,
                     bw);
        printf("| field | N | s primes | FFT route µs | RNS route µs | RNS / FFT | equal | "
               "big-prime FFT µs | x floor | s NTTs µs | NTTs / FFT |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n");
    }
    static const hepa_bp_prime fields[2] = {HEPA_BP_P3, HEPA_BP_P4};
    static const char *names[2] = {"P3", "P4"};
    int first = 1, bad = 0;
    uint64_t seed = 0x13198A2E03707344ull;
    for (int fi = 0; fi < 2; ++fi) {
        hepa_bp_field *f;
        HK(hepa_bp_field_create_named(&f, fields[fi]));
        const size_t k = hepa_bp_field_k(f), Nmax = (size_t)1 << 20;
        uint64_t *h = malloc(Nmax * k * sizeof *h), *ha = malloc(Nmax * k * sizeof *ha),
                 *hb = malloc(Nmax * k * sizeof *hb), *dx, *dy, *dz, *dz2;
        if (!h || !ha || !hb) return 1;
        const uint64_t r = hepa_bp_field_r(f);
        CK(cudaMalloc((void **)&dx, Nmax * k * sizeof *dx));
        CK(cudaMalloc((void **)&dy, Nmax * k * sizeof *dy));
        CK(cudaMalloc((void **)&dz, Nmax * k * sizeof *dz));
        CK(cudaMalloc((void **)&dz2, Nmax * k * sizeof *dz2));
        for (int lg = 10; lg <= 20; ++lg) {
            const size_t N = (size_t)1 << lg;
            /* random canonical elements: digits uniform in [0, r) */
            for (int v = 0; v < 2; ++v) {
                for (size_t j = 0; j < N * k; ++j)
                    h[j] = xs_next(&seed) % r;
                HK(hepa_bp_dev_upload(f, v ? dy : dx, h, N, NULL));
            }
            hepa_bp_dev_plan *plan;
            HK(hepa_bp_dev_plan_create(&plan, f, N, HEPA_BP_PLAN_NEGACYCLIC));
            bp_ctx c = {CMP_FFT_MUL, f, N, plan, NULL, NULL, dz, dx, dy};
            double fft_mul, fft_mul_min, bpf, bpf_min;
            if (bp_time(&c, 0, reps, &fft_mul, &fft_mul_min)) return 1;
            c.op = CMP_BP_FFT;
            c.dz = dz2; /* out of place: dx stays the input */
            if (bp_time(&c, 0, reps, &bpf, &bpf_min)) return 1;
            const double floor_s = 2.0 * 8.0 * (double)(N * k) / (bw * 1e9);
            double rns_mul = NAN, ntt = NAN;
            size_t s = 0;
            const char *equal = "n/a";
            if (N <= HEPA_RING_MAX_N) {
                hepa_bp_rns_plan *rp;
                HK(hepa_bp_rns_plan_create(&rp, f, N));
                s = hepa_bp_rns_plan_primes(rp);
                c.op = CMP_FFT_MUL; /* the FFT route's product into dz once more */
                c.dz = dz;
                HK(bp_run(&c));
                c.op = CMP_RNS_MUL;
                c.rp = rp;
                c.dz = dz2;
                double mn;
                if (bp_time(&c, 0, reps, &rns_mul, &mn)) return 1;
                HK(hepa_bp_dev_download(f, ha, dz, N, NULL));
                HK(hepa_bp_dev_download(f, hb, dz2, N, NULL));
                const int eq = memcmp(ha, hb, N * k * sizeof *ha) == 0;
                equal = eq ? "yes" : "NO";
                bad |= !eq;
                /* the s small-prime NTTs a big-prime FFT replaces: forward NTT of s limbs */
                hepa_ring *ring;
                hepa_poly *poly;
                HK(hepa_ring_create(&ring, N, hepa_bp_rns_plan_moduli(rp), s, HEPA_BACKEND_CUDA));
                HK(hepa_poly_create(&poly, ring, s));
                /* s·N words: more than h holds once s > k */
                uint64_t *hl = malloc(s * N * sizeof *hl);
                if (!hl) return 1;
                for (size_t i = 0; i < s; ++i) {
                    const uint64_t q = hepa_bp_rns_plan_moduli(rp)[i];
                    for (size_t j = 0; j < N; ++j)
                        hl[i * N + j] = xs_next(&seed) % q;
                }
                HK(hepa_poly_set(poly, hl, HEPA_DOMAIN_COEFF));
                free(hl);
                bp_ctx cn = {CMP_NTT, f, N, NULL, NULL, poly, NULL, NULL, NULL};
                if (bp_time(&cn, (cudaStream_t)hepa_ring_cuda_stream(ring), reps, &ntt, &mn))
                    return 1;
                hepa_poly_destroy(poly);
                hepa_ring_destroy(ring);
                hepa_bp_rns_plan_destroy(rp);
            }
            hepa_bp_dev_plan_destroy(plan);
            if (json)
                printf("%s  {\"field\": \"%s\", \"N\": %zu, \"primes\": %zu, \"fft_mul_us\": %.2f, "
                       "\"rns_mul_us\": %.2f, \"equal\": \"%s\", \"bp_fft_us\": %.2f, "
                       "\"bp_fft_floor_us\": %.2f, \"ntt_us\": %.2f}",
                       first ? "" : ",\n", names[fi], N, s, fft_mul * 1e6, rns_mul * 1e6, equal,
                       bpf * 1e6, floor_s * 1e6, ntt * 1e6);
            else if (s)
                printf("| %s | 2^%d | %zu | %.1f | %.1f | %.2f | %s | %.1f | %.1f | %.1f | %.2f |\n",
                       names[fi], lg, s, fft_mul * 1e6, rns_mul * 1e6, rns_mul / fft_mul, equal,
                       bpf * 1e6, bpf / floor_s, ntt * 1e6, ntt / bpf);
            else
                printf("| %s | 2^%d | - | %.1f | - | - | n/a | %.1f | %.1f | - | - |\n", names[fi],
                       lg, fft_mul * 1e6, bpf * 1e6, bpf / floor_s);
            first = 0;
            fflush(stdout);
        }
        cudaFree(dx);
        cudaFree(dy);
        cudaFree(dz);
        cudaFree(dz2);
        free(h);
        free(ha);
        free(hb);
        hepa_bp_field_destroy(f);
    }
    if (json) printf("\n]}\n");
    if (bad) fprintf(stderr, "hepa-bench: the two routes DISAGREE (see the 'equal' column)\n");
    return bad;
}

/* ---- CKKS encode / decode and FP64 DFT plans (--ckks) ---------------------------------------- */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Median and minimum host wall time (s) of one encode/decode operation over reps calls after 3
 * warm-ups: op 0 encode from device slots dz, 1 from host slots hz, 2 decode to device memory
 * dout (+ hepa_ring_sync), 3 decode to host memory hout. */
static int ckks_time(hepa_ckks_encoder *enc, hepa_ring *ring, hepa_poly *pt, double scale, int op,
                     const double *dz, const double *hz, double *dout, double *hout, size_t reps,
                     double *t, double *med, double *mn) {
    for (size_t i = 0; i < reps + 3; ++i) {
        HK(hepa_ring_sync(ring));
        const double t0 = now_s();
        switch (op) {
        case 0:
            HK(hepa_ckks_encode(enc, pt, dz, scale));
            break;
        case 1:
            HK(hepa_ckks_encode(enc, pt, hz, scale));
            break;
        case 2:
            HK(hepa_ckks_decode(enc, pt, scale, dout));
            HK(hepa_ring_sync(ring));
            break;
        default:
            HK(hepa_ckks_decode(enc, pt, scale, hout));
            break;
        }
        const double t1 = now_s();
        if (i >= 3) t[i - 3] = t1 - t0;
    }
    stats(t, reps, med, mn);
    return 0;
}

/* One prime chain: encode and decode timings and a round-trip check. */
static int ckks_chain(size_t reps, const char *title, const uint64_t *q, size_t L) {
    const size_t n = 65536, h = n / 2;
    hepa_ring *ring;
    HK(hepa_ring_create(&ring, n, q, L, HEPA_BACKEND_CUDA));
    hepa_ckks_encoder *enc;
    HK(hepa_ckks_encoder_create(&enc, ring));
    double *hz = malloc(2 * h * sizeof *hz), *dz, *dout, *hout;
    double *t = malloc(reps * sizeof *t);
    if (!hz || !t) return 1;
    uint64_t seed = 0xA4093822299F31D0ull;
    xs_fill_unit(hz, 2 * h, &seed);
    CK(cudaMalloc((void **)&dz, 2 * h * sizeof *dz));
    CK(cudaMalloc((void **)&dout, 2 * h * sizeof *dout));
    HK(hepa_host_alloc((void **)&hout, 2 * h * sizeof *hout));
    CK(cudaMemcpy(dz, hz, 2 * h * sizeof *dz, cudaMemcpyHostToDevice));
    hepa_poly *pt;
    HK(hepa_poly_create(&pt, ring, L));
    const double scale = 0x1p40;
    static const char *what[4] = {"encode (device slots in, NTT-domain plaintext out)",
                                  "encode (host slots in)",
                                  "decode to device memory (waits for the result)",
                                  "decode to host memory (pinned)"};
    printf("## %s\n\nN = 2^16, %zu limbs, scale 2^40; host wall time of the call (encode waits "
           "for its own check; decode + hepa_ring_sync), median of %zu after 3 warm-ups; decode "
           "reads %zu limbs\n\n| operation | median µs | min µs |\n|---|---|---|\n",
           title, L, reps, hepa_ckks_decode_limbs(enc, L, scale));
    for (int op = 0; op < 4; ++op) {
        double med, mn;
        if (ckks_time(enc, ring, pt, scale, op, dz, hz, dout, hout, reps, t, &med, &mn)) return 1;
        printf("| %s | %.1f | %.1f |\n", what[op], med * 1e6, mn * 1e6);
    }
    /* check the round trip once */
    HK(hepa_ckks_encode(enc, pt, dz, scale));
    HK(hepa_ckks_decode(enc, pt, scale, hout));
    double worst = 0;
    for (size_t i = 0; i < 2 * h; ++i) worst = fmax(worst, fabs(hout[i] - hz[i]));
    printf("\nround trip max |error| = %.3g (bound N/Δ = %.3g)\n\n", worst, (double)n / scale);
    hepa_poly_destroy(pt);
    hepa_host_free(hout);
    cudaFree(dz);
    cudaFree(dout);
    free(hz);
    free(t);
    hepa_ckks_encoder_destroy(enc);
    hepa_ring_destroy(ring);
    return worst > (double)n / scale;
}

/* Encode and decode (device slots) with each DFT mode forced (hepa_ckks_encoder_set_dft_mode), for
 * N = 2^12 ... 2^17 with 4 primes of 40 bits: the cost order behind HEPA_CKKS_DFT_AUTO. */
static int ckks_modes(size_t reps) {
    static const int modes[3] = {HEPA_DFT_FP64, HEPA_DFT_FP16X2, HEPA_DFT_FP16};
    static const char *names[3] = {"FP64", "FP16X2", "FP16"};
    printf(
        "## DFT modes forced (hepa_ckks_encoder_set_dft_mode), 4 primes of 40 bits, scale 2^20\n\n"
        "Host wall time of the call, median of %zu after 3 warm-ups, slots in device memory; "
        "error: max |decode(encode(z)) - z| over the slots, |z| < 1, both in the mode\n\n"
        "| N | mode | encode µs | decode µs | max error |\n|---|---|---|---|---|\n",
        reps);
    double *t = malloc(reps * sizeof *t);
    if (!t) return 1;
    for (unsigned lg = 12; lg <= 17; ++lg) {
        const size_t n = (size_t)1 << lg, h = n / 2, L = 4;
        uint64_t q[4];
        HK(hepa_primes_ntt(q, L, 40, n));
        hepa_ring *ring;
        HK(hepa_ring_create(&ring, n, q, L, HEPA_BACKEND_CUDA));
        hepa_ckks_encoder *enc;
        HK(hepa_ckks_encoder_create(&enc, ring));
        double *hz = malloc(2 * h * sizeof *hz), *hout = malloc(2 * h * sizeof *hout), *dz, *dout;
        if (!hz || !hout) return 1;
        uint64_t seed = 0x5DEECE66Dull + lg;
        xs_fill_unit(hz, 2 * h, &seed);
        CK(cudaMalloc((void **)&dz, 2 * h * sizeof *dz));
        CK(cudaMalloc((void **)&dout, 2 * h * sizeof *dout));
        CK(cudaMemcpy(dz, hz, 2 * h * sizeof *dz, cudaMemcpyHostToDevice));
        hepa_poly *pt;
        HK(hepa_poly_create(&pt, ring, L));
        const double scale = 0x1p20;
        for (int m = 0; m < 3; ++m) {
            HK(hepa_ckks_encoder_set_dft_mode(enc, modes[m]));
            double med[2], mn;
            for (int op = 0; op < 2; ++op) /* encode from dz, decode to dout */
                if (ckks_time(enc, ring, pt, scale, 2 * op, dz, hz, dout, hout, reps, t, &med[op],
                              &mn))
                    return 1;
            HK(hepa_ckks_encode(enc, pt, dz, scale));
            HK(hepa_ckks_decode(enc, pt, scale, dout));
            HK(hepa_ring_sync(ring));
            CK(cudaMemcpy(hout, dout, 2 * h * sizeof *hout, cudaMemcpyDeviceToHost));
            double worst = 0;
            for (size_t i = 0; i < 2 * h; ++i)
                worst = fmax(worst, fabs(hout[i] - hz[i]));
            printf("| 2^%u | %s | %.1f | %.1f | %.2g |\n", lg, names[m], med[0] * 1e6, med[1] * 1e6,
                   worst);
            fflush(stdout);
        }
        hepa_poly_destroy(pt);
        cudaFree(dz);
        cudaFree(dout);
        free(hz);
        free(hout);
        hepa_ckks_encoder_destroy(enc);
        hepa_ring_destroy(ring);
    }
    free(t);
    printf("\n");
    return 0;
}

int hepa_bench_ckks(size_t reps, const char *commit) {
    struct cudaDeviceProp prop;
    double bw;
    if (bp_prologue("--ckks", &commit, &prop, &bw)) return 1;
    bench_header(" CKKS encode/decode", &prop, commit, bw);
    /* encode / decode at N = 2^16, 34 limbs, Δ = 2^40: all primes of 60 bits, and the chain a
     * CKKS user picks for Δ = 2^40 (one 60-bit prime, 33 of 40 bits; issue 6's parameters, as in
     * Phantom's and SEAL's examples), whose 40-bit limbs take the FP64 NTT path */
    const size_t L = 34;
    uint64_t q[34];
    HK(hepa_primes_ntt(q, L, 60, 65536));
    int bad = ckks_chain(reps, "34 primes of 60 bits", q, L);
    HK(hepa_primes_ntt(q, 1, 60, 65536));
    HK(hepa_primes_ntt(q + 1, L - 1, 40, 65536));
    bad |= ckks_chain(reps, "one 60-bit prime and 33 of 40 bits", q, L);
    bad |= ckks_modes(reps);
    return bad;
}

/* ---- batched DFT plans against cuFFT (--dft) ---------------------------------------------------
 * Each mode next to cuFFT of matching accuracy (FP16 ↔ half, FP16X2 and FP32 ↔ single, FP64 ↔
 * double),
 * same batch (1 GiB of data), same buffers, forward, out of place, in the same run; GB/s counts one
 * read + one write. Then both libraries' relative L2 error at n = 2^15 against hepa_dft_host_ld. */

#ifdef HEPA_BENCH_HAVE_CUFFT
#include <cufft.h>
#include <cufftXt.h>
#define CF(call)                                                                               \
    do {                                                                                       \
        cufftResult r_ = (call);                                                               \
        if (r_ != CUFFT_SUCCESS) {                                                             \
            fprintf(stderr, "%s:%d: %s: cuFFT error %d\n", __FILE__, __LINE__, #call, (int)r_); \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

/* cuFFT plan for `batch` C2C transforms of size n in the precision matching `mode` */
static int cufft_plan(cufftHandle *h, hepa_dft_mode mode, long long n, long long batch) {
    CF(cufftCreate(h));
    size_t ws;
    const cudaDataType t = mode == HEPA_DFT_FP16                              ? CUDA_C_16F
                           : mode == HEPA_DFT_FP16X2 || mode == HEPA_DFT_FP32 ? CUDA_C_32F
                                                                              : CUDA_C_64F;
    CF(cufftXtMakePlanMany(*h, 1, &n, NULL, 1, n, t, NULL, 1, n, t, batch, &ws, t));
    return 0;
}
static int cufft_run(cufftHandle h, void *out, void *in, int inverse) {
    CF(cufftXtExec(h, in, out, inverse ? CUFFT_INVERSE : CUFFT_FORWARD));
    return 0;
}
#endif

static const char *dft_mode_name(hepa_dft_mode m) {
    return m == HEPA_DFT_FP64     ? "FP64"
           : m == HEPA_DFT_FP32   ? "FP32"
           : m == HEPA_DFT_FP16X2 ? "FP16X2"
                                  : "FP16";
}
/* FP16X2 and FP32: complex float */
static int dft_float(hepa_dft_mode m) {
    return m == HEPA_DFT_FP16X2 || m == HEPA_DFT_FP32;
}
static size_t dft_elem(hepa_dft_mode m) {
    return m == HEPA_DFT_FP64 ? 16 : dft_float(m) ? 8 : 4;
}

/* host float <-> binary16 for the error check (round to nearest even; normal range suffices) */
static unsigned short f2h(float f) {
    unsigned int x;
    memcpy(&x, &f, 4);
    const unsigned short sign = (unsigned short)((x >> 16) & 0x8000u);
    const int e = (int)((x >> 23) & 0xffu) - 127 + 15;
    if (e <= 0) return sign; /* below 2^-14: flushed (inputs here are >= 2^-11 or 0) */
    unsigned int h = ((unsigned int)e << 10) | ((x & 0x7fffffu) >> 13);
    const unsigned int rem = x & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return (unsigned short)(sign | h);
}
static double h2d(unsigned short h) {
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const double v = e ? ldexp((double)(m | 0x400), e - 25) : ldexp((double)m, -24);
    return (h & 0x8000u) ? -v : v;
}
static void dft_put(void *dst, long double *v, size_t count, hepa_dft_mode m) {
    for (size_t i = 0; i < count; ++i) {
        if (m == HEPA_DFT_FP64) v[i] = ((double *)dst)[i] = (double)v[i];
        else if (dft_float(m))
            v[i] = ((float *)dst)[i] = (float)v[i];
        else v[i] = h2d(((unsigned short *)dst)[i] = f2h((float)v[i]));
    }
}
static long double dft_get(const void *src, size_t i, hepa_dft_mode m) {
    if (m == HEPA_DFT_FP64) return ((const double *)src)[i];
    if (dft_float(m)) return ((const float *)src)[i];
    return h2d(((const unsigned short *)src)[i]);
}

int hepa_bench_dft(size_t reps, const char *commit) {
    struct cudaDeviceProp prop;
    double bw;
    if (bp_prologue("--dft", &commit, &prop, &bw)) return 1;
    bench_header(" batched complex DFT plans vs cuFFT", &prop, commit, bw);
#ifdef HEPA_BENCH_HAVE_CUFFT
    int cv = 0;
    CF(cufftGetVersion(&cv));
    printf("cuFFT version %d. ", cv);
#else
    printf("cuFFT not found at build time: hepa columns only. ");
#endif
    printf("Forward, out of place, batch = 1 GiB / (n·element size), CUDA events, median of %zu "
           "after 3 warm-ups; GB/s counts one read + one write of the batch.\n\n"
           "| mode | n | passes | hepa µs | hepa GB/s | %% of copy | cuFFT µs | cuFFT GB/s | "
           "hepa / cuFFT speed |\n|---|---|---|---|---|---|---|---|---|\n", reps);
    const size_t bytes = (size_t)1 << 30;
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    double *t = malloc(reps * sizeof *t);
    const size_t chunk = (size_t)1 << 24; /* random values in [-1, 1), repeated over the batch */
    long double *vals = malloc(chunk / 2 * sizeof *vals); /* up to 2-byte reals */
    unsigned char *hchunk = malloc(chunk);
    if (!t || !vals || !hchunk) return 1;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    static const hepa_dft_mode modes[4] = {HEPA_DFT_FP16, HEPA_DFT_FP16X2, HEPA_DFT_FP32,
                                           HEPA_DFT_FP64};
    for (int mi = 0; mi < 4; ++mi) {
        const hepa_dft_mode m = modes[mi];
        uint64_t sd = 0xD1B54A32D192ED03ull;
        const size_t nv = chunk / (dft_elem(m) / 2);
        for (size_t i = 0; i < nv; ++i)
            vals[i] = (long double)xs_unit(&sd);
        dft_put(hchunk, vals, nv, m);
        for (size_t off = 0; off < bytes; off += chunk)
            CK(cudaMemcpy((unsigned char *)a + off, hchunk, chunk, cudaMemcpyHostToDevice));
        for (unsigned lg = 10; lg <= 16; ++lg) {
            const size_t n = (size_t)1 << lg, batch = bytes / dft_elem(m) / n;
            double med[2] = {0, 0}, mn;
            int passes = 0;
            for (int lib = 0; lib < 2; ++lib) {
                hepa_dft_plan *p = NULL;
#ifdef HEPA_BENCH_HAVE_CUFFT
                cufftHandle h = 0;
#endif
                if (lib == 0) {
                    HK(hepa_dft_plan_create(&p, n, batch, m));
                    passes = _hepa_dft_plan_passes(p);
                } else {
#ifdef HEPA_BENCH_HAVE_CUFFT
                    if (cufft_plan(&h, m, (long long)n, (long long)batch)) return 1;
#else
                    continue;
#endif
                }
                for (size_t i = 0; i < reps + 3; ++i) {
                    CK(cudaEventRecord(e0, 0));
                    if (lib == 0) HK(hepa_dft_exec(p, b, a, 0, NULL));
#ifdef HEPA_BENCH_HAVE_CUFFT
                    else if (cufft_run(h, b, a, 0)) return 1;
#endif
                    CK(cudaEventRecord(e1, 0));
                    CK(cudaEventSynchronize(e1));
                    float ms;
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    if (i >= 3) t[i - 3] = ms * 1e-3;
                }
                stats(t, reps, &med[lib], &mn);
                if (p) hepa_dft_plan_destroy(p);
#ifdef HEPA_BENCH_HAVE_CUFFT
                if (lib == 1) cufftDestroy(h);
#endif
            }
            const double gb = 2.0 * (double)bytes / 1e9;
            printf("| %s | 2^%u | %d | %.1f | %.0f | %.0f%% |", dft_mode_name(m), lg, passes,
                   med[0] * 1e6, gb / med[0], 100.0 * gb / med[0] / bw);
            if (med[1] > 0)
                printf(" %.1f | %.0f | %.2f |\n", med[1] * 1e6, gb / med[1], med[1] / med[0]);
            else
                printf(" - | - | - |\n");
        }
    }
    /* accuracy at n = 2^15: one vector, inputs uniform in [-1, 1) rounded to the type */
    const size_t n = (size_t)1 << 15;
    printf("\nRelative L2 error at n = 2^15 against a long double FFT (hepa_dft_host_ld) of the "
           "same rounded inputs, forward, 4 vectors uniform in [-1, 1):\n\n"
           "| mode | hepa | cuFFT (same precision) |\n|---|---|---|\n");
    long double *ref = malloc(4 * 2 * n * sizeof *ref);
    unsigned char *hx = malloc(4 * n * 16), *hy = malloc(4 * n * 16);
    if (!ref || !hx || !hy) return 1;
    for (int mi = 0; mi < 4; ++mi) {
        const hepa_dft_mode m = modes[mi];
        uint64_t seed = 0x9E3779B97F4A7C15ull;
        for (size_t i = 0; i < 8 * n; ++i)
            ref[i] = (long double)xs_unit(&seed);
        dft_put(hx, ref, 8 * n, m);
        HK(hepa_dft_host_ld(ref, n, 4, 0));
        CK(cudaMemcpy(a, hx, 4 * n * dft_elem(m), cudaMemcpyHostToDevice));
        double err[2] = {-1, -1};
        for (int lib = 0; lib < 2; ++lib) {
            CK(cudaMemset(b, 0xff, 4 * n * dft_elem(m)));
            if (lib == 0) {
                hepa_dft_plan *p;
                HK(hepa_dft_plan_create(&p, n, 4, m));
                HK(hepa_dft_exec(p, b, a, 0, NULL));
                CK(cudaDeviceSynchronize());
                hepa_dft_plan_destroy(p);
            } else {
#ifdef HEPA_BENCH_HAVE_CUFFT
                cufftHandle h;
                if (cufft_plan(&h, m, (long long)n, 4) || cufft_run(h, b, a, 0)) return 1;
                CK(cudaDeviceSynchronize());
                cufftDestroy(h);
#else
                continue;
#endif
            }
            CK(cudaMemcpy(hy, b, 4 * n * dft_elem(m), cudaMemcpyDeviceToHost));
            long double num = 0, den = 0;
            for (size_t i = 0; i < 8 * n; ++i) {
                const long double d = dft_get(hy, i, m) - ref[i];
                num += d * d;
                den += ref[i] * ref[i];
            }
            err[lib] = (double)sqrtl(num / den);
        }
        printf("| %s | %.3g | %.3g |\n", dft_mode_name(m), err[0], err[1]);
    }
    free(ref);
    free(hx);
    free(hy);
    free(vals);
    free(hchunk);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    free(t);
    return 0;
}

/* ---- --ks: ciphertext multiply, key switching, rescale, rotation (issue 6) ------------------ */

typedef enum {
    KS_TENSOR,
    KS_SWITCH,
    KS_MULRELIN,
    KS_MULRELIN_TWO,
    KS_MULRELIN_RESCALE,
    KS_MULRELIN_RESCALE_TWO,
    KS_RESCALE,
    KS_RESCALE_TWO,
    KS_RESCALE_COEFF,
    KS_ROTATE,
    KS_HOIST,
    KS_ROT_EACH,
    KS_UPINNER,
    KS_MODUP,
    KS_INNER,
    KS_MODDOWN,
    KS_NOPS
} ks_op;

typedef struct ks_ctx {
    const hepa_ks *ks;
    const hepa_ksk *key;
    size_t l, n, K, dn;
    hepa_poly *a0, *a1, *b0, *b1, *d0, *d1, *d2, *k0, *k1, *r0, *r1, *c0c;
    uint64_t *ext, *t0, *t1, *tmp; /* raw buffers for the three steps */
    /* KS_HOIST: KS_HOIST_N rotations of (a0, a1) by 1 .. KS_HOIST_N slots, into (h0, h1) */
    hepa_poly *h0[8], *h1[8];
    uint64_t hg[8];
    const hepa_ksk *hk[8];
} ks_ctx;
#define KS_HOIST_N 8

static hepa_status ks_run(const ks_ctx *c, ks_op op) {
    hepa_status s;
    switch (op) {
    case KS_TENSOR: return hepa_poly_tensor(c->d0, c->d1, c->d2, c->a0, c->a1, c->b0, c->b1);
    case KS_SWITCH: return hepa_keyswitch(c->ks, c->k0, c->k1, c->d2, c->key);
    case KS_MULRELIN: /* what a scheme's multiply + relinearize does (examples/ckks) */
        return hepa_mul_relin(c->ks, c->d0, c->d1, c->a0, c->a1, c->b0, c->b1, c->key);
    case KS_MULRELIN_TWO: /* the same words in two calls */
        if ((s = hepa_poly_tensor(c->d0, c->d1, c->d2, c->a0, c->a1, c->b0, c->b1)) != HEPA_OK)
            return s;
        return hepa_keyswitch_add(c->ks, c->d0, c->d1, c->d2, c->key, c->d0, c->d1);
    case KS_MULRELIN_RESCALE: /* multiply + relinearize + rescale (MODDOWN RESCALE) */
        return hepa_mul_relin_rescale(c->ks, c->r0, c->r1, c->a0, c->a1, c->b0, c->b1, c->key);
    case KS_MULRELIN_RESCALE_TWO: /* the same words in two calls */
        if ((s = hepa_mul_relin(c->ks, c->d0, c->d1, c->a0, c->a1, c->b0, c->b1, c->key)) !=
            HEPA_OK)
            return s;
        return hepa_poly_rescale_pair(c->r0, c->r1, c->d0, c->d1);
    case KS_RESCALE: /* both polynomials of a ciphertext, NTT domain */
        return hepa_poly_rescale_pair(c->r0, c->r1, c->a0, c->a1);
    case KS_RESCALE_TWO: /* the same as two calls */
        if ((s = hepa_poly_rescale(c->r0, c->a0)) != HEPA_OK) return s;
        return hepa_poly_rescale(c->r1, c->a1);
    case KS_RESCALE_COEFF:
        return hepa_poly_rescale_pair(c->r0, c->r1, c->c0c, c->c0c);
    case KS_ROTATE: /* σ_g on both, switch the second and add the first (examples/ckks) */
        if ((s = hepa_poly_automorphism(c->d0, c->a0, 5)) != HEPA_OK ||
            (s = hepa_poly_automorphism(c->d2, c->a1, 5)) != HEPA_OK)
            return s;
        return hepa_keyswitch_add(c->ks, c->d0, c->d1, c->d2, c->key, c->d0, NULL);
    case KS_ROT_EACH: /* the same rotations one at a time, as KS_ROTATE */
        for (size_t k = 0; k < KS_HOIST_N; ++k) {
            if ((s = hepa_poly_automorphism(c->d0, c->a0, c->hg[k])) != HEPA_OK ||
                (s = hepa_poly_automorphism(c->d2, c->a1, c->hg[k])) != HEPA_OK ||
                (s = hepa_keyswitch_add(c->ks, c->h0[k], c->h1[k], c->d2, c->key, c->d0, NULL)) !=
                    HEPA_OK)
                return s;
        }
        return HEPA_OK;
    case KS_HOIST: /* one ModUp for all (HOISTING) */
        return hepa_automorphism_hoisted(c->ks, c->h0, c->h1, c->a0, c->a1, c->hg, c->hk,
                                         KS_HOIST_N);
    case KS_UPINNER:
        return _hepa_ks_modup_inner(c->ks, c->l, c->t0, c->t1, c->ext, hepa_poly_data(c->d2), c->tmp,
                                    c->key);
    case KS_MODUP: return _hepa_ks_modup(c->ks, c->l, c->ext, hepa_poly_data(c->d2), c->tmp);
    case KS_INNER: return _hepa_ks_inner(c->ks, c->l, c->t0, c->t1, c->ext, c->key);
    case KS_MODDOWN:
        return _hepa_ks_moddown(c->ks, c->l, hepa_poly_data(c->k0), hepa_poly_data(c->k1), c->t0,
                                c->t1, c->tmp);
    default: return HEPA_ERR_INVALID_ARGUMENT;
    }
}

typedef struct ks_call {
    const ks_ctx *c;
    ks_op op;
} ks_call;

static hepa_status ks_step(const void *p) {
    const ks_call *k = p;
    return ks_run(k->c, k->op);
}

/* CUDA GRAPHS: one launch of a graph captured from a ring's stream */
typedef struct graph_call {
    cudaGraphExec_t exec;
    cudaStream_t st;
} graph_call;
static hepa_status graph_step(const void *p) {
    const graph_call *g = p;
    return cudaGraphLaunch(g->exec, g->st) == cudaSuccess ? HEPA_OK : HEPA_ERR_DEVICE;
}

/* The nodes of a captured graph: kernels, and all others (memory, event, memset, copy nodes) */
static int graph_node_counts(cudaGraph_t g, size_t *kernels, size_t *others) {
    size_t num = 0;
    CK(cudaGraphGetNodes(g, NULL, &num));
    cudaGraphNode_t *nodes = malloc((num ? num : 1) * sizeof *nodes);
    if (!nodes) return 1;
    *kernels = *others = 0;
    if (cudaGraphGetNodes(g, nodes, &num) != cudaSuccess) {
        free(nodes);
        return 1;
    }
    for (size_t i = 0; i < num; ++i) {
        enum cudaGraphNodeType ty;
        if (cudaGraphNodeGetType(nodes[i], &ty) != cudaSuccess) {
            free(nodes);
            return 1;
        }
        ++*(ty == cudaGraphNodeTypeKernel ? kernels : others);
    }
    free(nodes);
    return 0;
}

/* Host seconds to enqueue one step(ctx) (median of reps rounds of 8 calls each, no wait inside a
 * round; the stream is drained between rounds so the launch queue never fills). */
static int host_enqueue_time(cudaStream_t st, size_t reps, event_step step, const void *ctx,
                             double *med, double *mn) {
    double *t = malloc(reps * sizeof *t);
    if (!t) return 1;
    for (size_t i = 0; i < reps; ++i) {
        const double t0 = now_s();
        for (int k = 0; k < 8; ++k) HK(step(ctx));
        t[i] = (now_s() - t0) / 8;
        CK(cudaStreamSynchronize(st));
    }
    stats(t, reps, med, mn);
    free(t);
    return 0;
}

/* median / min seconds of reps runs between events on st, after 3 warm-ups */
static int ks_time(const ks_ctx *c, ks_op op, cudaStream_t st, size_t reps, double *med,
                   double *mn) {
    const ks_call k = {c, op};
    return event_time(st, reps, 3, ks_step, NULL, &k, med, mn);
}

static int ks_set(size_t logn, size_t L, size_t K, size_t reps, double bw) {
    const size_t n = (size_t)1 << logn, M = L + K;
    uint64_t q[HEPA_RING_MAX_MODULI], big[HEPA_RING_MAX_MODULI];
    HK(hepa_primes_ntt(big, K + 1, 60, n)); /* q_0 and P: 60 bits; the rest of Q: 40 bits */
    HK(hepa_primes_ntt(q + 1, L - 1, 40, n));
    q[0] = big[0];
    for (size_t k = 0; k < K; ++k) q[L + k] = big[1 + k];
    hepa_ring *ring;
    HK(hepa_ring_create(&ring, n, q, M, HEPA_BACKEND_CUDA));
    cudaStream_t st = (cudaStream_t)hepa_ring_cuda_stream(ring);
    hepa_ks *ks;
    HK(hepa_ks_create(&ks, ring, K, 0));
    uint8_t seed[32] = {6};
    hepa_rng *rng;
    HK(hepa_rng_create(&rng, seed));
    hepa_poly *s, *s2;
    HK(hepa_poly_create(&s, ring, M));
    HK(hepa_poly_create(&s2, ring, M));
    HK(hepa_sample_ternary(rng, s));
    HK(hepa_poly_to_ntt(s));
    HK(hepa_poly_mul(s2, s, s));
    const double tk = now_s();
    hepa_ksk *key;
    HK(hepa_ksk_create(&key, ks, s2, s, rng));
    HK(hepa_ring_sync(ring));
    const double t_keygen = now_s() - tk;
    ks_ctx c = {.ks = ks, .key = key, .l = L, .n = n, .K = K, .dn = hepa_ks_num_digits(ks, L)};
    hepa_poly **polys[] = {&c.a0, &c.a1, &c.b0, &c.b1, &c.d0, &c.d1, &c.d2, &c.k0, &c.k1};
    for (size_t i = 0; i < sizeof polys / sizeof *polys; ++i) {
        HK(hepa_poly_create(polys[i], ring, L));
        HK(hepa_sample_uniform(rng, *polys[i], HEPA_DOMAIN_NTT));
    }
    HK(hepa_poly_create(&c.r0, ring, L - 1));
    HK(hepa_poly_create(&c.r1, ring, L - 1));
    HK(hepa_poly_create(&c.c0c, ring, L));
    HK(hepa_sample_uniform(rng, c.c0c, HEPA_DOMAIN_COEFF));
    for (size_t k = 0; k < KS_HOIST_N; ++k) { /* (the relinearization key: same shape and cost) */
        HK(hepa_poly_create(&c.h0[k], ring, L));
        HK(hepa_poly_create(&c.h1[k], ring, L));
        c.hg[k] = k ? c.hg[k - 1] * 5 % (2 * n) : 5;
        c.hk[k] = key;
    }
    const size_t E = L + K, limb = n * sizeof(uint64_t);
    CK(cudaMalloc((void **)&c.ext, c.dn * E * limb));
    CK(cudaMalloc((void **)&c.t0, 2 * E * limb));
    CK(cudaMalloc((void **)&c.tmp, 2 * L * limb));
    c.t1 = c.t0 + E * n;
    /* inputs for the raw steps: one ModUp and inner product, so ModDown sees real data */
    HK(ks_run(&c, KS_MODUP));
    HK(ks_run(&c, KS_INNER));
    HK(hepa_ring_sync(ring));

    const double key_b = (double)hepa_ksk_bytes(key), ct_b = 2.0 * L * limb;
    struct { ks_op op; const char *what; double bytes;
    } rows[] = {
        {KS_MULRELIN, "multiply + relinearize (hepa_mul_relin)", 2 * ct_b + key_b + ct_b},
        {KS_MULRELIN_TWO, "  the same as hepa_poly_tensor, then hepa_keyswitch_add (2 adds fused)",
         2 * ct_b + key_b + ct_b},
        {KS_MULRELIN_RESCALE,
         "multiply + relinearize + rescale (hepa_mul_relin_rescale: ModDown by P·q_(l-1))",
         2 * ct_b + key_b + ct_b - 2.0 * limb},
        {KS_MULRELIN_RESCALE_TWO, "  the same as hepa_mul_relin, then hepa_poly_rescale_pair",
         2 * ct_b + key_b + ct_b - 2.0 * limb},
        {KS_TENSOR, "tensor (a0,a1)x(b0,b1) -> (d0,d1,d2)", 2 * ct_b + 1.5 * ct_b},
        {KS_SWITCH, "key switch of d2 (ModUp, inner product, ModDown)", 0.5 * ct_b + key_b + ct_b},
        {KS_UPINNER,
         "  ModUp + inner product (as key switching runs them: the last NTT pass and the inner "
         "product fused)",
         0.5 * ct_b + key_b + 2.0 * E * limb},
        {KS_MODUP, "  ModUp alone (INTT, conversion of every digit, NTTs)",
         0.5 * ct_b + c.dn * E * limb},
        {KS_INNER, "  inner product alone, with the key", c.dn * E * limb + key_b + 2.0 * E * limb},
        {KS_MODDOWN, "  ModDown (INTT of P, conversion, NTT, subtract-scale)",
         2.0 * E * limb + ct_b},
        {KS_RESCALE, "rescale of a ciphertext (NTT domain)", ct_b + 2.0 * (L - 1) * limb},
        {KS_RESCALE_TWO, "  the same as two hepa_poly_rescale calls", ct_b + 2.0 * (L - 1) * limb},
        {KS_RESCALE_COEFF, "rescale of a ciphertext (coefficient domain)",
         ct_b + 2.0 * (L - 1) * limb},
        {KS_ROTATE, "rotate (2 automorphisms, key switch with the add)", ct_b + key_b + ct_b},
        {KS_ROT_EACH, "8 rotations of one ciphertext, one at a time (as the row above)",
         KS_HOIST_N * (ct_b + key_b + ct_b)},
        {KS_HOIST, "8 rotations of one ciphertext, hoisted (hepa_automorphism_hoisted; per call)",
         ct_b + KS_HOIST_N * (key_b + ct_b)},
    };
    printf("\n### N = 2^%zu, Q = %zu primes (60 + 40·%zu bits), P = %zu × 60 bits: dnum = %zu, "
           "key %.0f MiB (generated in %.1f s)\n\n"
           "| operation | median µs | min µs | floor µs | × floor |\n|---|---|---|---|---|\n",
           logn, L, L - 1, K, c.dn, key_b / 1048576.0, t_keygen);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; ++i) {
        double med, mn;
        if (ks_time(&c, rows[i].op, st, reps, &med, &mn)) return 1;
        const double floor_s = rows[i].bytes / (bw * 1e9);
        printf("| %s | %.1f | %.1f | %.1f | %.2f |\n", rows[i].what, med * 1e6, mn * 1e6,
               floor_s * 1e6, med / floor_s);
    }
    {
        /* CUDA GRAPHS: hepa_mul_relin captured once (global mode) and replayed, against the
         * eager call: device time between events, and the host's time to enqueue either */
        const ks_call k = {&c, KS_MULRELIN};
        /* two captures: a graph with memory nodes (key switching's scratch) may have only one
         * executable instance at a time */
        cudaGraph_t g = NULL, g2 = NULL;
        graph_call gc = {NULL, st}, gp = {NULL, st};
        for (int i = 0; i < 2; ++i) {
            CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
            const hepa_status hs = ks_step(&k);
            CK(cudaStreamEndCapture(st, i ? &g2 : &g));
            HK(hs);
        }
        CK(cudaGraphInstantiate(&gc.exec, g, 0));
        /* the helper stream's priority is copied into its kernel nodes at capture; a graph
         * instantiated with cudaGraphInstantiateFlagUseNodePriority runs them at it */
        cudaGraphInstantiateParams ip;
        memset(&ip, 0, sizeof ip);
        ip.flags = cudaGraphInstantiateFlagUseNodePriority;
        const cudaError_t pe = cudaGraphInstantiateWithParams(&gp.exec, g2, &ip);
        int bad_node = -1;
        if (pe != cudaSuccess) {
            enum cudaGraphNodeType ty;
            if (ip.errNode_out && cudaGraphNodeGetType(ip.errNode_out, &ty) == cudaSuccess)
                bad_node = (int)ty;
            (void)cudaGetLastError();
            gp.exec = NULL;
        }
        double med, mn, mp = 0, mpn = 0, he, hen, hg, hgn;
        size_t nk, no;
        if (graph_node_counts(g, &nk, &no) ||
            event_time(st, reps, 3, graph_step, NULL, &gc, &med, &mn) ||
            (gp.exec && event_time(st, reps, 3, graph_step, NULL, &gp, &mp, &mpn)) ||
            host_enqueue_time(st, reps, ks_step, &k, &he, &hen) ||
            host_enqueue_time(st, reps, graph_step, &gc, &hg, &hgn))
            return 1;
        const double floor_s = rows[0].bytes / (bw * 1e9);
        printf("| multiply + relinearize as a CUDA graph (captured once, replayed) | %.1f | %.1f | "
               "%.1f | %.2f |\n",
               med * 1e6, mn * 1e6, floor_s * 1e6, med / floor_s);
        if (gp.exec)
            printf("|   the same graph instantiated with cudaGraphInstantiateFlagUseNodePriority | "
                   "%.1f | %.1f | %.1f | %.2f |\n",
                   mp * 1e6, mpn * 1e6, floor_s * 1e6, mp / floor_s);
        else
            printf("\nThe graph instantiated with cudaGraphInstantiateFlagUseNodePriority: %s "
                   "(instantiate result %d, node type %d).\n",
                   cudaGetErrorString(pe), (int)ip.result_out, bad_node);
        printf("\nHost time to enqueue (median of %zu rounds of 8, min): hepa_mul_relin %.1f µs "
               "(%.1f), cudaGraphLaunch of its graph %.1f µs (%.1f). The graph has %zu kernel "
               "nodes and %zu others (memory, event, memset and copy nodes): %.2f µs of "
               "eager enqueue per kernel.\n",
               reps, he * 1e6, hen * 1e6, hg * 1e6, hgn * 1e6, nk, no, he * 1e6 / (double)nk);
        cudaGraphExecDestroy(gc.exec);
        if (gp.exec) cudaGraphExecDestroy(gp.exec);
        cudaGraphDestroy(g);
        cudaGraphDestroy(g2);
    }
    fflush(stdout);
    cudaFree(c.ext), cudaFree(c.t0), cudaFree(c.tmp);
    for (size_t i = 0; i < sizeof polys / sizeof *polys; ++i) hepa_poly_destroy(*polys[i]);
    hepa_poly_destroy(c.r0), hepa_poly_destroy(c.r1), hepa_poly_destroy(c.c0c);
    for (size_t k = 0; k < KS_HOIST_N; ++k)
        hepa_poly_destroy(c.h0[k]), hepa_poly_destroy(c.h1[k]);
    hepa_poly_destroy(s), hepa_poly_destroy(s2);
    hepa_ksk_destroy(key);
    hepa_rng_destroy(rng);
    hepa_ks_destroy(ks);
    hepa_ring_destroy(ring);
    return 0;
}

int hepa_bench_ks(size_t reps, const char *commit, size_t only_n, size_t only_l) {
    struct cudaDeviceProp prop;
    double bw;
    if (bp_prologue("--ks", &commit, &prop, &bw)) return 1;
    bench_header(" ciphertext multiply, key switching, rescale, rotation", &prop, commit, bw);
    printf(
        "Everything on the device, NTT domain, level = all of Q. CUDA events around each call on "
        "the ring's stream, median of %zu after 3 warm-ups. Floor: the bytes that must move "
        "(ciphertexts and keys read once, results written once; for the steps, their own inputs "
        "and outputs) at the copy bandwidth. Key switching allocates its scratch from the "
        "stream-ordered pool inside the timed call. Rotation is timed with the relinearization "
        "key (same shape and cost as a rotation key).\n",
        reps);
    static const size_t sets[][3] = {{16, 33, 1}, {16, 33, 3}, {16, 33, 2}, {16, 33, 4},
                                     {15, 17, 1}, {17, 61, 1}, {14, 8, 1}, {13, 4, 1}};
    size_t ran = 0;
    for (size_t i = 0; i < sizeof sets / sizeof *sets; ++i) {
        if ((only_n && only_n != (size_t)1 << sets[i][0]) || (only_l && only_l != sets[i][1]))
            continue;
        if (ks_set(sets[i][0], sets[i][1], sets[i][2], reps, bw)) return 1;
        ++ran;
    }
    if (!ran) fprintf(stderr, "hepa-bench --ks: no parameter set has that --n / --limbs\n");
    return ran ? 0 : 1;
}
