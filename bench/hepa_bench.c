/* hepa-bench — timings of the negacyclic NTT and of negacyclic multiplication in
 * Z_Q[x]/(x^n + 1) on the backend a ring reports, optionally against FLINT's nmod_poly_mul.
 *
 * Method (CPU backend): every call is timed on its own with clock_gettime(CLOCK_MONOTONIC)
 * after a warm-up; each row is the median (and minimum) of at least 50 runs and at least
 * 0.5 s of runs (or exactly --reps runs). Inputs are uniform random residues from a fixed seed.
 * Besides timing, the program checks what it can cheaply check (NTT round trips, the poly route
 * against hepa_negacyclic_mul, FLINT against hepa) and exits nonzero when a check fails.
 *
 * Exit status: 0 success, 1 library error or failed check, 2 bad command line. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hepa/hepa.h>

#ifdef HEPA_BENCH_HAVE_FLINT
#include <flint/flint.h>
#include <flint/nmod_poly.h>
#define FLINT_VERSION_STRING FLINT_VERSION
#else
#define FLINT_VERSION_STRING "none"
#endif

#ifdef HEPA_BENCH_HAVE_GPU_SUITE
#include "bench_gpu.h"
#endif

#ifndef HEPA_GIT_COMMIT
#define HEPA_GIT_COMMIT "unknown"
#endif

/* ---------------------------------------------------------------------------------------------
 * Command line */

typedef struct {
    size_t n;
    size_t limbs;
    unsigned bits;
    hepa_backend backend;
    int json;
    size_t reps;     /* 0: adaptive (>= min_runs and >= min_time) */
    double min_time; /* seconds per row in adaptive mode */
    uint64_t seed;
    int gpu_suite;                  /* --gpu-suite */
    int bp_suite;                   /* --bp-suite */
    int bp_compare;                 /* --bp-compare */
    int ckks;                       /* --ckks */
    int dft;                        /* --dft */
    int ks;                         /* --ks */
    int n_set, limbs_set, bits_set; /* given on the command line */
} bench_options;

enum { MIN_RUNS = 50, MAX_RUNS = 200000 };

static const char *prog = "hepa-bench";

static void usage(FILE *f) {
    fprintf(f,
            "usage: %s [options]\n"
            "\n"
            "Times the negacyclic NTT and negacyclic multiplication in Z_Q[x]/(x^n+1) on the\n"
            "backend in use (median and minimum of many runs, after warm-up).\n"
            "\n"
            "options:\n"
            "  --n N              ring degree, a power of two in [16, 131072] (default 65536)\n"
            "  --limbs L          number of RNS primes (default 8)\n"
            "  --bits B           bits of each prime, in [20, 62] (default 50)\n"
            "  --backend NAME     cpu, cuda or auto (default auto: the GPU when usable)\n"
            "  --reps R           exactly R timed runs per row (default: at least %d runs\n"
            "                     and at least --min-time seconds)\n"
            "  --min-time S       seconds per row in the default mode (default 0.5)\n"
            "  --seed S           seed of the random inputs (default 1)\n"
            "  --json             print the results as JSON instead of a table\n"
            "  --gpu-suite        CUDA builds: time the device kernels with CUDA events against\n"
            "                     the measured copy bandwidth, for n = 2^12..2^17 and\n"
            "                     L = 1, 8, 34, 64 (or the --n/--limbs given), 60-bit primes\n"
            "                     (or --bits), --reps runs (default 60)\n"
            "  --bp-suite         CUDA builds: big-prime fields P3 and P4 on the device: FFT\n"
            "                     (forward, inverse; plan and one-shot) for N = 2^10..2^20\n"
            "                     and element-wise\n"
            "                     products, CUDA events, --reps runs (default 30)\n"
            "  --bp-compare       CUDA builds: negacyclic products mod P3 and P4 for\n"
            "                     N = 2^10..2^20 through the big-prime FFT and through RNS\n"
            "                     (N <= 2^17), outputs compared; one big-prime FFT vs the s\n"
            "                     small-prime NTTs it replaces; --reps runs (default 20)\n"
            "  --ckks             CUDA builds: CKKS encode and decode latency at N = 2^16,\n"
            "                     34 limbs, scale 2^40\n"
            "  --dft              CUDA builds: DFT plans in every precision mode for\n"
            "                     n = 2^10..2^16 next to cuFFT, and both errors at 2^15\n"
            "  --ks               CUDA builds: multiply + relinearize, key switching, rescale\n"
            "                     and rotation at issue 6's parameter sets and 2^14/8/1,\n"
            "                     2^13/4/1, against byte floors\n"
            "                     (only the sets with the --n and --limbs (Q primes) given);\n"
            "                     with --backend cpu or without a usable GPU: the host\n"
            "                     backend's key switch, multiply + relinearize and rotations\n"
            "                     (8 one at a time and hoisted) at 2^13 (8 + 2 primes) and\n"
            "                     2^14 (16 + 4), or at --n with --limbs Q primes + 2\n"
            "  --help             print this message\n"
            "\n"
            "Issue targets: %s --n 65536 --limbs 1 --bits 60 shows the forward NTT of one\n"
            "limb and the speed-up of hepa_negacyclic_mul over FLINT's nmod_poly_mul + fold.\n",
            prog, MIN_RUNS, prog);
}

static int bad_usage(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n\n");
    usage(stderr);
    return 2;
}

/* Parses a whole decimal (or 0x hex) unsigned number; 0 on success. */
static int parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-' || *s == '+') return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || !end || *end) return -1;
    *out = (uint64_t)v;
    return 0;
}

static int parse_double(const char *s, double *out) {
    if (!s || !*s) return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || !end || *end || !(v >= 0.0) || v > 3600.0) return -1;
    *out = v;
    return 0;
}

/* Returns -1 to continue, else an exit status. */
static int parse_args(int argc, char **argv, bench_options *o) {
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(arg, "--json")) {
            o->json = 1;
            continue;
        }
        if (!strcmp(arg, "--gpu-suite")) {
            o->gpu_suite = 1;
            continue;
        }
        if (!strcmp(arg, "--bp-suite")) {
            o->bp_suite = 1;
            continue;
        }
        if (!strcmp(arg, "--ckks")) {
            o->ckks = 1;
            continue;
        }
        if (!strcmp(arg, "--ks")) {
            o->ks = 1;
            continue;
        }
        if (!strcmp(arg, "--dft")) {
            o->dft = 1;
            continue;
        }
        if (!strcmp(arg, "--bp-compare")) {
            o->bp_compare = 1;
            continue;
        }
        /* options with a value: "--opt VALUE" or "--opt=VALUE" */
        static const char *const with_value[] = {"--n",    "--limbs",    "--bits", "--backend",
                                                 "--reps", "--min-time", "--seed"};
        const char *name = NULL, *val = NULL;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; ++k) {
            size_t len = strlen(with_value[k]);
            if (!strncmp(arg, with_value[k], len) && (arg[len] == '\0' || arg[len] == '=')) {
                name = with_value[k];
                if (arg[len] == '=') {
                    val = arg + len + 1;
                } else {
                    if (i + 1 >= argc) return bad_usage("option %s needs a value", name);
                    val = argv[++i];
                }
                break;
            }
        }
        if (!name) return bad_usage("unknown option '%s'", arg);

        uint64_t v = 0;
        if (!strcmp(name, "--backend")) {
            if (!strcmp(val, "cpu"))
                o->backend = HEPA_BACKEND_CPU;
            else if (!strcmp(val, "cuda"))
                o->backend = HEPA_BACKEND_CUDA;
            else if (!strcmp(val, "auto"))
                o->backend = HEPA_BACKEND_AUTO;
            else
                return bad_usage("--backend must be cpu, cuda or auto, not '%s'", val);
        } else if (!strcmp(name, "--min-time")) {
            if (parse_double(val, &o->min_time))
                return bad_usage("--min-time needs seconds in [0, 3600], not '%s'", val);
        } else if (parse_u64(val, &v)) {
            return bad_usage("%s needs a non-negative integer, not '%s'", name, val);
        } else if (!strcmp(name, "--n")) {
            if (v < 1 || v > ((uint64_t)1 << 30)) return bad_usage("--n %s is out of range", val);
            o->n = (size_t)v;
            o->n_set = 1;
        } else if (!strcmp(name, "--limbs")) {
            if (v < 1 || v > 4096) return bad_usage("--limbs %s is out of range", val);
            o->limbs = (size_t)v;
            o->limbs_set = 1;
        } else if (!strcmp(name, "--bits")) {
            if (v < 1 || v > 64) return bad_usage("--bits %s is out of range", val);
            o->bits = (unsigned)v;
            o->bits_set = 1;
        } else if (!strcmp(name, "--reps")) {
            if (v < 1 || v > MAX_RUNS) return bad_usage("--reps must be in [1, %d]", MAX_RUNS);
            o->reps = (size_t)v;
        } else if (!strcmp(name, "--seed")) {
            o->seed = v;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------------------------------------
 * Small helpers */

static const char *backend_name(hepa_backend b) {
    switch (b) {
    case HEPA_BACKEND_AUTO:
        return "auto";
    case HEPA_BACKEND_CPU:
        return "cpu";
    case HEPA_BACKEND_CUDA:
        return "cuda";
    }
    return "unknown";
}

/* Reports a failed library call; returns the exit status 1 for convenience. */
static int lib_error(const char *what, hepa_status st) {
    const char *detail = st == HEPA_ERR_DEVICE ? hepa_last_error_message() : "";
    fprintf(stderr, "%s: %s failed: %s%s%s\n", prog, what, hepa_status_string(st),
            *detail ? " - " : "", detail);
    return 1;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        hepa_status st_ = (call);                                                                  \
        if (st_ != HEPA_OK) {                                                                      \
            rc = lib_error(#call, st_);                                                            \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

static void *xmalloc(size_t count, size_t size) {
    if (count && size > SIZE_MAX / count) return NULL;
    size_t bytes = count * size;
    return malloc(bytes > 0 ? bytes : 1);
}

/* Seconds since the first call, from CLOCK_MONOTONIC. Relative to a base so that a double keeps
 * sub-nanosecond resolution whatever the uptime. */
static double now_s(void) {
    static time_t base = -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (base < 0) base = ts.tv_sec;
    return (double)(ts.tv_sec - base) + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: a small, good generator for benchmark inputs. */
static uint64_t rng_next(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform-enough residue in [0, q): high word of a 64x64 product (bias < q/2^64). */
static uint64_t rng_mod(uint64_t *state, uint64_t q) {
    return (uint64_t)(((unsigned __int128)rng_next(state) * q) >> 64);
}

/* limbs·n residues, limb i reduced mod the ring's q_i. */
static void fill_random(uint64_t *dst, const hepa_ring *ring, size_t limbs, uint64_t *state) {
    size_t n = hepa_ring_n(ring);
    for (size_t i = 0; i < limbs; ++i) {
        uint64_t q = hepa_ring_modulus(ring, i);
        for (size_t j = 0; j < n; ++j)
            dst[i * n + j] = rng_mod(state, q);
    }
}

static unsigned log2_size(size_t n) {
    unsigned k = 0;
    while (((size_t)1 << k) < n)
        ++k;
    return k;
}

/* CPU model from /proc/cpuinfo ("model name", else "Hardware"/"Processor"), else "unknown". */
static void cpu_model(char *buf, size_t size) {
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        const char *keys[] = {"model name", "Hardware", "Processor", "cpu model"};
        for (size_t k = 0; k < sizeof keys / sizeof *keys && !found; ++k) {
            size_t len = strlen(keys[k]);
            if (strncmp(line, keys[k], len)) continue;
            const char *colon = strchr(line, ':');
            if (!colon) continue;
            const char *v = colon + 1;
            while (*v == ' ' || *v == '\t')
                ++v;
            size_t vl = strcspn(v, "\r\n");
            if (vl == 0) continue;
            if (vl >= size) vl = size - 1;
            memcpy(buf, v, vl);
            buf[vl] = '\0';
            found = 1;
        }
        if (found) break;
    }
    fclose(f);
}

/* 1 if /proc/cpuinfo lists the flag (whole word) for the first CPU, else 0. */
static int cpu_has_flag(const char *flag) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[8192];
    int has = 0;
    size_t fl = strlen(flag);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5)) continue;
        for (const char *p = strstr(line, flag); p; p = strstr(p + 1, flag))
            if ((p == line || p[-1] == ' ' || p[-1] == ':') &&
                (p[fl] == ' ' || p[fl] == '\n' || p[fl] == '\0'))
                has = 1;
        break;
    }
    fclose(f);
    return has;
}

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* ---------------------------------------------------------------------------------------------
 * Timing harness */

/* One step runs the timed operation(s) once and writes one duration in seconds per series.
 * Steps that pair two operations (forward then inverse) keep their data valid across runs. */
typedef hepa_status (*step_fn)(void *ctx, double *seconds);

typedef struct {
    const char *key;   /* JSON key, e.g. "ntt_forward" */
    const char *label; /* table label */
    size_t limbs;
    size_t runs;
    double median_us, min_us;
    const char *derived_unit; /* "ns/butterfly", "ns/coeff" */
    double derived;           /* median in ns divided by the work count */
} row;

static row new_row(const char *key, const char *label, size_t limbs, const char *unit) {
    row w;
    memset(&w, 0, sizeof w);
    w.key = key;
    w.label = label;
    w.limbs = limbs;
    w.derived_unit = unit;
    return w;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, size_t count) {
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

/* Runs `step` (which produces `series` durations per call) after a warm-up, then until the
 * stopping rule holds, and fills rows[0..series) with median and min in µs and the run count. */
static hepa_status measure(const bench_options *o, step_fn step, void *ctx, size_t series,
                           row *rows) {
    double d[4];
    hepa_status st;
    /* warm-up: caches, page faults, frequency; at least 3 runs, up to 0.05 s */
    double t_start = now_s();
    for (size_t r = 0; r < 3 || (now_s() - t_start < 0.05 && r < 10000); ++r)
        if ((st = step(ctx, d)) != HEPA_OK) return st;

    double *samples = xmalloc(series * (size_t)MAX_RUNS, sizeof *samples);
    if (!samples) return HEPA_ERR_OUT_OF_MEMORY;
    size_t runs = 0;
    t_start = now_s();
    for (;;) {
        if ((st = step(ctx, d)) != HEPA_OK) {
            free(samples);
            return st;
        }
        for (size_t s = 0; s < series; ++s)
            samples[s * MAX_RUNS + runs] = d[s];
        ++runs;
        if (o->reps) {
            if (runs >= o->reps) break;
        } else if ((runs >= MIN_RUNS && now_s() - t_start >= o->min_time) || runs >= MAX_RUNS) {
            break;
        }
    }
    for (size_t s = 0; s < series; ++s) {
        double *v = samples + s * MAX_RUNS;
        qsort(v, runs, sizeof *v, cmp_double);
        rows[s].runs = runs;
        rows[s].median_us = 1e6 * median_sorted(v, runs);
        rows[s].min_us = 1e6 * v[0];
    }
    free(samples);
    return HEPA_OK;
}

/* Median time between two back-to-back clock readings, in ns: included in every sample, so rows
 * whose median is within a few times this value are dominated by it. */
static double timer_overhead_ns(void) {
    enum { K = 1001 };
    static double v[K];
    for (int i = 0; i < K; ++i) {
        double t0 = now_s();
        v[i] = now_s() - t0;
    }
    qsort(v, K, sizeof *v, cmp_double);
    return 1e9 * v[K / 2];
}

/* ---------------------------------------------------------------------------------------------
 * The timed operations */

typedef struct {
    const hepa_ntt_tables *tables;
    uint64_t *a;
} ntt_ctx;

static hepa_status step_ntt(void *p, double *d) {
    ntt_ctx *c = p;
    double t0 = now_s();
    hepa_status st = hepa_ntt_forward(c->tables, c->a);
    double t1 = now_s();
    if (st != HEPA_OK) return st;
    st = hepa_ntt_inverse(c->tables, c->a);
    double t2 = now_s();
    d[0] = t1 - t0;
    d[1] = t2 - t1;
    return st;
}

static hepa_status step_ntt_raw(void *p, double *d) {
    ntt_ctx *c = p;
    double t0 = now_s();
    _hepa_ntt_forward(c->tables, c->a); /* [0, q) in, [0, q) out */
    double t1 = now_s();
    _hepa_ntt_inverse(c->tables, c->a); /* [0, q) in, [0, q) out */
    double t2 = now_s();
    d[0] = t1 - t0;
    d[1] = t2 - t1;
    return HEPA_OK;
}

/* Ring-level operations are timed as the call plus hepa_ring_sync: on the CPU backend the sync
 * returns at once; on the CUDA backend it waits for the enqueued work, so a row is the host's
 * wall time of the whole operation, launches included. */
static hepa_status then_sync(hepa_status st, const hepa_ring *ring) {
    return st != HEPA_OK ? st : hepa_ring_sync(ring);
}

typedef struct {
    hepa_poly *p;
} poly_ntt_ctx;

static hepa_status step_poly_ntt(void *p, double *d) {
    poly_ntt_ctx *c = p;
    const hepa_ring *ring = hepa_poly_ring(c->p);
    double t0 = now_s();
    hepa_status st = then_sync(hepa_poly_to_ntt(c->p), ring);
    double t1 = now_s();
    if (st != HEPA_OK) return st;
    st = then_sync(hepa_poly_from_ntt(c->p), ring);
    double t2 = now_s();
    d[0] = t1 - t0;
    d[1] = t2 - t1;
    return st;
}

typedef struct {
    hepa_poly *out;
    const hepa_poly *a, *b;
} poly_mul_ctx;

static hepa_status step_poly_mul(void *p, double *d) {
    poly_mul_ctx *c = p;
    double t0 = now_s();
    hepa_status st = then_sync(hepa_poly_mul(c->out, c->a, c->b), hepa_poly_ring(c->out));
    d[0] = now_s() - t0;
    return st;
}

typedef struct {
    const hepa_ring *ring;
    uint64_t *out;
    const uint64_t *a, *b;
} negmul_ctx;

static hepa_status step_negmul(void *p, double *d) {
    negmul_ctx *c = p;
    double t0 = now_s();
    hepa_status st = then_sync(hepa_negacyclic_mul(c->ring, c->out, c->a, c->b), c->ring);
    d[0] = now_s() - t0;
    return st;
}

#ifdef HEPA_BENCH_HAVE_FLINT
typedef struct {
    nmod_poly_struct *r;
    const nmod_poly_struct *a, *b;
    uint64_t *out;
    size_t n;
    uint64_t q;
} flint_ctx;

/* FLINT's product of length-n polynomials (degree <= 2n-2), then the fold mod x^n + 1:
 * out[i] = c[i] - c[i+n] mod q. */
static void flint_mul_fold(flint_ctx *c) {
    nmod_poly_mul(c->r, c->a, c->b);
    const mp_limb_t *coef = c->r->coeffs;
    size_t len = c->r->length > 0 ? (size_t)c->r->length : 0, n = c->n;
    uint64_t q = c->q;
    for (size_t i = 0; i < n; ++i) {
        uint64_t lo = i < len ? (uint64_t)coef[i] : 0;
        uint64_t hi = i + n < len ? (uint64_t)coef[i + n] : 0;
        c->out[i] = lo >= hi ? lo - hi : lo + q - hi;
    }
}

typedef struct {
    flint_ctx flint;
    negmul_ctx hepa;
} compare_ctx;

/* One run of each, back to back, so that both see the same machine state (frequency, load of
 * other processes): d[0] FLINT, d[1] hepa. */
static hepa_status step_compare(void *p, double *d) {
    compare_ctx *c = p;
    double t0 = now_s();
    flint_mul_fold(&c->flint);
    double t1 = now_s();
    hepa_status st = hepa_negacyclic_mul(c->hepa.ring, c->hepa.out, c->hepa.a, c->hepa.b);
    double t2 = now_s();
    d[0] = t1 - t0;
    d[1] = t2 - t1;
    return st;
}
#endif

/* ---------------------------------------------------------------------------------------------
 * Report */

typedef struct {
    int available; /* built with FLINT */
    int ran;       /* comparison done */
    int equal;     /* results identical */
    uint64_t q;
    row flint_row, hepa_row;
    double speedup; /* FLINT median / hepa median */
} flint_report;

typedef struct {
    const bench_options *o;
    char cpu[256];
    int avx512f;       /* the CPU has AVX-512F (hepa's host NTT uses it unless disabled) */
    int no_avx512_env; /* HEPA_NO_AVX512 is set to a value other than 0 */
    double timer_ns;   /* clock overhead per sample */
    hepa_backend backend_used;
    const char *backend_note;
    const uint64_t *moduli;
    row rows[8];
    size_t num_rows;
    flint_report fl;
} report;

/* The CPU targets, stated for n = 2^16. */
#define TARGET_NTT_US 1000.0
#define TARGET_SPEEDUP 12.0

static int ntt_target_applies(const report *r) {
    return r->o->n == 65536 && r->o->bits == 60;
}
static int flint_target_applies(const report *r) {
    return r->o->n == 65536 && r->fl.ran;
}

static void print_row(const row *w) {
    printf("  %-46s %5zu %8zu %12.2f %12.2f   %8.3f %s\n", w->label, w->limbs, w->runs,
           w->median_us, w->min_us, w->derived, w->derived_unit);
}

static void print_text(const report *r) {
    const bench_options *o = r->o;
    printf("hepa-bench  (hepa %d.%d.%d, commit %s)\n", HEPA_VERSION_MAJOR, HEPA_VERSION_MINOR,
           HEPA_VERSION_PATCH, HEPA_GIT_COMMIT);
    printf("  cpu      : %s, avx512f %s%s (timings on one thread)\n", r->cpu,
           r->avx512f ? "yes" : "no", r->no_avx512_env ? ", HEPA_NO_AVX512 set" : "");
    printf("  backend  : %s (requested %s%s%s)\n", backend_name(r->backend_used),
           backend_name(o->backend), r->backend_note ? "; " : "",
           r->backend_note ? r->backend_note : "");
    printf("  ring     : n = %zu (2^%u), %zu limb%s of %u bits\n", o->n, log2_size(o->n), o->limbs,
           o->limbs == 1 ? "" : "s", o->bits);
    printf("  moduli   :");
    for (size_t i = 0; i < o->limbs && i < 4; ++i)
        printf(" %" PRIu64, r->moduli[i]);
    if (o->limbs > 4) printf(" ... (%zu more)", o->limbs - 4);
    printf("\n");
    if (o->reps)
        printf("  timing   : CLOCK_MONOTONIC per call (overhead %.0f ns), %zu runs per row after "
               "warm-up\n",
               r->timer_ns, o->reps);
    else
        printf("  timing   : CLOCK_MONOTONIC per call (overhead %.0f ns), >= %d runs and >= %.2f s "
               "per row after warm-up\n",
               r->timer_ns, MIN_RUNS, o->min_time);
    if (r->backend_used == HEPA_BACKEND_CUDA)
        printf("  device   : ring rows are host wall time of the call + hepa_ring_sync (launches "
               "and, for hepa_negacyclic_mul, copies included)\n");
    printf("\n  %-46s %5s %8s %12s %12s   %s\n", "operation", "limbs", "runs", "median [us]",
           "min [us]", "derived (from median)");
    for (size_t i = 0; i < r->num_rows; ++i)
        print_row(&r->rows[i]);

    printf("\n");
    if (!r->fl.available) {
        printf("FLINT comparison: not built (FLINT not found when hepa was configured; install "
               "libflint-dev and reconfigure)\n");
    } else if (r->fl.ran) {
        printf("FLINT %s comparison: 1 limb, q = %" PRIu64 ", same random inputs, runs "
               "interleaved, results %s\n",
               FLINT_VERSION_STRING, r->fl.q, r->fl.equal ? "equal" : "DIFFER");
        print_row(&r->fl.flint_row);
        print_row(&r->fl.hepa_row);
        printf("  hepa_negacyclic_mul is %.2fx faster than FLINT nmod_poly_mul + fold (median / "
               "median)\n",
               r->fl.speedup);
    }

    printf("\nIssue targets (CPU, n = 65536):\n");
    if (ntt_target_applies(r))
        printf("  forward NTT, 1 limb, 60-bit q : %9.2f us   target <= %.0f us   %s\n",
               r->rows[0].median_us, TARGET_NTT_US,
               r->rows[0].median_us <= TARGET_NTT_US ? "met" : "NOT MET");
    else
        printf("  forward NTT, 1 limb, 60-bit q : not measured here (run --n 65536 --limbs 1 "
               "--bits 60)\n");
    if (flint_target_applies(r))
        printf("  negacyclic_mul vs FLINT       : %9.2fx     target >= %.0fx      %s\n",
               r->fl.speedup, TARGET_SPEEDUP, r->fl.speedup >= TARGET_SPEEDUP ? "met" : "NOT MET");
    else
        printf("  negacyclic_mul vs FLINT       : not measured here (needs --n 65536 and a "
               "FLINT build)\n");
}

static void json_row(const row *w, int last) {
    printf("    {\"name\": \"%s\", \"limbs\": %zu, \"runs\": %zu, \"median_us\": %.3f, "
           "\"min_us\": %.3f, \"%s\": %.4f}%s\n",
           w->key, w->limbs, w->runs, w->median_us, w->min_us,
           strcmp(w->derived_unit, "ns/butterfly") ? "ns_per_coeff" : "ns_per_butterfly",
           w->derived, last ? "" : ",");
}

static void print_json(const report *r) {
    const bench_options *o = r->o;
    printf("{\n  \"program\": \"hepa-bench\",\n  \"hepa_version\": \"%d.%d.%d\",\n",
           HEPA_VERSION_MAJOR, HEPA_VERSION_MINOR, HEPA_VERSION_PATCH);
    printf("  \"commit\": ");
    json_string(stdout, HEPA_GIT_COMMIT);
    printf(",\n  \"cpu\": ");
    json_string(stdout, r->cpu);
    printf(",\n  \"cpu_avx512f\": %s,\n  \"env_hepa_no_avx512\": %s", r->avx512f ? "true" : "false",
           r->no_avx512_env ? "true" : "false");
    printf(",\n  \"backend\": \"%s\",\n  \"backend_requested\": \"%s\",\n",
           backend_name(r->backend_used), backend_name(o->backend));
    printf("  \"n\": %zu,\n  \"limbs\": %zu,\n  \"bits\": %u,\n  \"moduli\": [", o->n, o->limbs,
           o->bits);
    for (size_t i = 0; i < o->limbs; ++i)
        printf("%s%" PRIu64, i ? ", " : "", r->moduli[i]);
    printf("],\n  \"ring_timing\": \"host wall clock of the call + hepa_ring_sync\",\n");
    printf("  \"timer_overhead_ns\": %.1f,\n  \"reps\": %zu,\n  \"min_time_s\": %.3f,\n  "
           "\"seed\": %" PRIu64 ",\n",
           r->timer_ns, o->reps, o->min_time, o->seed);
    printf("  \"results\": [\n");
    for (size_t i = 0; i < r->num_rows; ++i)
        json_row(&r->rows[i], i + 1 == r->num_rows);
    printf("  ],\n  \"flint\": ");
    if (!r->fl.ran) {
        printf("{\"available\": %s}", r->fl.available ? "true" : "false");
    } else {
        printf("{\"available\": true, \"version\": \"%s\", \"modulus\": %" PRIu64
               ", \"equal\": %s,\n    \"flint_median_us\": %.3f, \"flint_min_us\": %.3f, "
               "\"flint_runs\": %zu,\n    \"hepa_median_us\": %.3f, \"hepa_min_us\": %.3f, "
               "\"hepa_runs\": %zu,\n    \"speedup\": %.3f}",
               FLINT_VERSION_STRING, r->fl.q, r->fl.equal ? "true" : "false",
               r->fl.flint_row.median_us, r->fl.flint_row.min_us, r->fl.flint_row.runs,
               r->fl.hepa_row.median_us, r->fl.hepa_row.min_us, r->fl.hepa_row.runs, r->fl.speedup);
    }
    printf(",\n  \"targets\": {");
    int first = 1;
    if (ntt_target_applies(r)) {
        printf("\"ntt_forward_us_max\": %.1f, \"ntt_forward_met\": %s", TARGET_NTT_US,
               r->rows[0].median_us <= TARGET_NTT_US ? "true" : "false");
        first = 0;
    }
    if (flint_target_applies(r))
        printf("%s\"flint_speedup_min\": %.1f, \"flint_speedup_met\": %s", first ? "" : ", ",
               TARGET_SPEEDUP, r->fl.speedup >= TARGET_SPEEDUP ? "true" : "false");
    printf("}\n}\n");
}

/* ---------------------------------------------------------------------------------------------
 * Benchmarks per backend */

/* Fills the result rows for a ring of either backend: one limb on the host tables, then the
 * ring's operations (call + hepa_ring_sync). Returns an exit status. */
static int bench_ring(report *rep, const hepa_ring *ring, uint64_t *rng) {
    const bench_options *o = rep->o;
    const size_t n = o->n, L = o->limbs;
    const double butterflies = (double)(n / 2) * (double)log2_size(n);
    int rc = 0;
    hepa_ntt_tables *tables = NULL;
    hepa_poly *pa = NULL, *pb = NULL, *pc = NULL;
    uint64_t *a = NULL, *b = NULL, *c = NULL, *check = NULL;

    a = xmalloc(L * n, sizeof *a);
    b = xmalloc(L * n, sizeof *b);
    c = xmalloc(L * n, sizeof *c);
    check = xmalloc(L * n, sizeof *check);
    if (!a || !b || !c || !check) {
        rc = lib_error("allocating the inputs", HEPA_ERR_OUT_OF_MEMORY);
        goto done;
    }
    fill_random(a, ring, L, rng);
    fill_random(b, ring, L, rng);

    /* 1. one limb: the transforms on the tables of (n, q_0), checked and raw tiers */
    CHECK(hepa_ntt_tables_create(&tables, n, rep->moduli[0]));
    {
        ntt_ctx ctx = {tables, c};
        memcpy(c, a, n * sizeof *c);
        row *w = &rep->rows[rep->num_rows];
        w[0] = new_row("ntt_forward", "hepa_ntt_forward (host, 1 limb)", 1, "ns/butterfly");
        w[1] = new_row("ntt_inverse", "hepa_ntt_inverse (host, 1 limb)", 1, "ns/butterfly");
        CHECK(measure(o, step_ntt, &ctx, 2, w));
        if (memcmp(c, a, n * sizeof *c)) {
            fprintf(stderr, "%s: check failed: hepa_ntt_inverse(hepa_ntt_forward(a)) != a\n", prog);
            rc = 1;
            goto done;
        }
        w[2] = new_row("ntt_forward_raw", "_hepa_ntt_forward (host, 1 limb, raw tier)", 1,
                       "ns/butterfly");
        w[3] = new_row("ntt_inverse_raw", "_hepa_ntt_inverse (host, 1 limb, raw tier)", 1,
                       "ns/butterfly");
        CHECK(measure(o, step_ntt_raw, &ctx, 2, w + 2));
        if (memcmp(c, a, n * sizeof *c)) {
            fprintf(stderr, "%s: check failed: _hepa_ntt_inverse(_hepa_ntt_forward(a)) != a\n",
                    prog);
            rc = 1;
            goto done;
        }
        for (int k = 0; k < 4; ++k)
            w[k].derived = 1e3 * w[k].median_us / butterflies;
        rep->num_rows += 4;
    }

    /* 2. all limbs: hepa_poly_to_ntt / hepa_poly_from_ntt */
    CHECK(hepa_poly_create(&pa, ring, L));
    CHECK(hepa_poly_create(&pb, ring, L));
    CHECK(hepa_poly_create(&pc, ring, L));
    CHECK(hepa_poly_set(pa, a, HEPA_DOMAIN_COEFF));
    CHECK(hepa_poly_set(pb, b, HEPA_DOMAIN_COEFF));
    {
        poly_ntt_ctx ctx = {pa};
        row *w = &rep->rows[rep->num_rows];
        w[0] =
            new_row("poly_to_ntt", "hepa_poly_to_ntt (forward NTT, all limbs)", L, "ns/butterfly");
        w[1] = new_row("poly_from_ntt", "hepa_poly_from_ntt (inverse NTT, all limbs)", L,
                       "ns/butterfly");
        CHECK(measure(o, step_poly_ntt, &ctx, 2, w));
        CHECK(hepa_poly_get(pa, check));
        if (memcmp(check, a, L * n * sizeof *a)) {
            fprintf(stderr, "%s: check failed: hepa_poly_from_ntt(hepa_poly_to_ntt(a)) != a\n",
                    prog);
            rc = 1;
            goto done;
        }
        for (int k = 0; k < 2; ++k)
            w[k].derived = 1e3 * w[k].median_us / (butterflies * L);
        rep->num_rows += 2;
    }

    /* 3. pointwise product in the NTT domain */
    CHECK(hepa_poly_to_ntt(pa));
    CHECK(hepa_poly_to_ntt(pb));
    {
        poly_mul_ctx ctx = {pc, pa, pb};
        row *w = &rep->rows[rep->num_rows];
        w[0] = new_row("poly_mul_ntt", "hepa_poly_mul (NTT domain: pointwise)", L, "ns/coeff");
        CHECK(measure(o, step_poly_mul, &ctx, 1, w));
        w[0].derived = 1e3 * w[0].median_us / ((double)L * (double)n);
        rep->num_rows += 1;
    }

    /* 4. the one-call negacyclic product on host arrays */
    {
        negmul_ctx ctx = {ring, c, a, b};
        row *w = &rep->rows[rep->num_rows];
        w[0] = new_row("negacyclic_mul", "hepa_negacyclic_mul (host arrays)", L, "ns/coeff");
        CHECK(measure(o, step_negmul, &ctx, 1, w));
        w[0].derived = 1e3 * w[0].median_us / ((double)L * (double)n);
        rep->num_rows += 1;
        /* the poly route must agree: from_ntt(to_ntt(a) .* to_ntt(b)) */
        CHECK(hepa_poly_from_ntt(pc));
        CHECK(hepa_poly_get(pc, check));
        if (memcmp(check, c, L * n * sizeof *c)) {
            fprintf(stderr,
                    "%s: check failed: the hepa_poly route and hepa_negacyclic_mul "
                    "disagree\n",
                    prog);
            rc = 1;
            goto done;
        }
    }

done:
    hepa_poly_destroy(pa);
    hepa_poly_destroy(pb);
    hepa_poly_destroy(pc);
    hepa_ntt_tables_destroy(tables);
    free(a);
    free(b);
    free(c);
    free(check);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * --ks on the host backend (--backend cpu, or a build without CUDA): key switching, multiply +
 * relinearize and rotations, one at a time and hoisted, at n = 2^13 (8 Q primes, K = 2) and
 * 2^14 (16, K = 4), or at the --n given with the --limbs Q primes given and K = 2. Q: one
 * 60-bit prime then 40-bit ones; P: 60-bit primes (issue 6's shape). Wall time of each call,
 * one warm-up, median and minimum of --reps runs (default 10). The hoisted rotations' words are
 * checked against the one-at-a-time ones. */

enum { KSH_ROT = 8 }; /* rotations of one ciphertext */

typedef struct ksh_ctx {
    const hepa_ks *ks;
    const hepa_ksk *key;
    hepa_poly *c0, *c1, *x0, *x1, *o0, *o1, *h0[KSH_ROT], *h1[KSH_ROT], *w0[KSH_ROT], *w1[KSH_ROT];
    uint64_t g[KSH_ROT];
    const hepa_ksk *keys[KSH_ROT];
} ksh_ctx;

enum { KSH_SWITCH, KSH_MULRELIN, KSH_ROTATE, KSH_ROT_EACH, KSH_ROT_HOIST, KSH_OPS };

/* one rotation by hand, as examples/ckks does: σ_g on both, switch the second, add the first */
static hepa_status ksh_rotate(const ksh_ctx *c, hepa_poly *o0, hepa_poly *o1, uint64_t g) {
    hepa_status s = hepa_poly_automorphism(c->x0, c->c0, g);
    if (s == HEPA_OK) s = hepa_poly_automorphism(c->x1, c->c1, g);
    return s == HEPA_OK ? hepa_keyswitch_add(c->ks, o0, o1, c->x1, c->key, c->x0, NULL) : s;
}

static hepa_status ksh_run(const ksh_ctx *c, int op) {
    hepa_status s = HEPA_OK;
    switch (op) {
    case KSH_SWITCH: return hepa_keyswitch(c->ks, c->o0, c->o1, c->c1, c->key);
    case KSH_MULRELIN:
        return hepa_mul_relin(c->ks, c->o0, c->o1, c->c0, c->c1, c->c0, c->c1, c->key);
    case KSH_ROTATE: return ksh_rotate(c, c->o0, c->o1, 5);
    case KSH_ROT_EACH:
        for (int k = 0; k < KSH_ROT && s == HEPA_OK; ++k)
            s = ksh_rotate(c, c->w0[k], c->w1[k], c->g[k]);
        return s;
    default:
        return hepa_automorphism_hoisted(c->ks, c->h0, c->h1, c->c0, c->c1, c->g, c->keys,
                                         KSH_ROT);
    }
}

static int bench_ks_host_set(const bench_options *o, size_t n, size_t L, size_t K) {
    int rc = 0;
    const size_t M = L + K, reps = o->reps ? o->reps : 10;
    uint64_t q[HEPA_RING_MAX_MODULI], big[HEPA_RING_MAX_MODULI];
    hepa_ring *ring = NULL;
    hepa_ks *ks = NULL;
    hepa_rng *rng = NULL;
    hepa_poly *s = NULL, *s2 = NULL;
    hepa_ksk *key = NULL;
    ksh_ctx c;
    memset(&c, 0, sizeof c);
    hepa_poly **polys[4 + 4 * KSH_ROT] = {&c.c0, &c.c1, &c.o0, &c.o1};
    size_t np = 4;
    for (int k = 0; k < KSH_ROT; ++k)
        polys[np++] = &c.h0[k], polys[np++] = &c.h1[k], polys[np++] = &c.w0[k],
        polys[np++] = &c.w1[k];
    double *t = xmalloc(reps, sizeof *t);
    uint64_t *a = xmalloc(L * n, sizeof *a), *b = xmalloc(L * n, sizeof *b);
    if (!t || !a || !b) {
        rc = lib_error("allocating", HEPA_ERR_OUT_OF_MEMORY);
        goto done;
    }
    CHECK(hepa_primes_ntt(big, K + 1, 60, n));
    CHECK(hepa_primes_ntt(q + 1, L - 1, 40, n));
    q[0] = big[0];
    for (size_t k = 0; k < K; ++k)
        q[L + k] = big[1 + k];
    CHECK(hepa_ring_create(&ring, n, q, M, HEPA_BACKEND_CPU));
    CHECK(hepa_ks_create(&ks, ring, K, 0));
    const uint8_t seed[32] = {6};
    CHECK(hepa_rng_create(&rng, seed));
    CHECK(hepa_poly_create(&s, ring, M));
    CHECK(hepa_poly_create(&s2, ring, M));
    CHECK(hepa_sample_ternary(rng, s));
    CHECK(hepa_poly_to_ntt(s));
    CHECK(hepa_poly_mul(s2, s, s));
    CHECK(hepa_ksk_create(&key, ks, s2, s, rng)); /* (any key: every rotation costs the same) */
    c.ks = ks, c.key = key;
    CHECK(hepa_poly_create(&c.x0, ring, L));
    CHECK(hepa_poly_create(&c.x1, ring, L));
    for (size_t i = 0; i < np; ++i)
        CHECK(hepa_poly_create(polys[i], ring, L));
    CHECK(hepa_sample_uniform(rng, c.c0, HEPA_DOMAIN_NTT));
    CHECK(hepa_sample_uniform(rng, c.c1, HEPA_DOMAIN_NTT));
    for (int k = 0; k < KSH_ROT; ++k) /* rotations by 1 .. KSH_ROT slots */
        c.g[k] = k ? c.g[k - 1] * 5 % (2 * n) : 5, c.keys[k] = key;
    printf("\n### host backend: n = 2^%u, Q = %zu primes (60 + 40·%zu bits), P = %zu × 60 bits, "
           "dnum = %zu\n\n| operation | median ms | min ms |\n|---|---|---|\n",
           log2_size(n), L, L - 1, K, hepa_ks_num_digits(ks, L));
    static const char *const what[KSH_OPS] = {
        "key switch (hepa_keyswitch)", "multiply + relinearize (hepa_mul_relin)",
        "rotate (2 automorphisms, hepa_keyswitch_add)", "8 rotations of one ciphertext, each so",
        "8 rotations of one ciphertext, hoisted (hepa_automorphism_hoisted)"};
    for (int op = 0; op < KSH_OPS; ++op) {
        CHECK(ksh_run(&c, op)); /* warm-up */
        for (size_t r = 0; r < reps; ++r) {
            const double t0 = now_s();
            CHECK(ksh_run(&c, op));
            t[r] = now_s() - t0;
        }
        qsort(t, reps, sizeof *t, cmp_double);
        printf("| %s | %.2f | %.2f |\n", what[op], 1e3 * median_sorted(t, reps), 1e3 * t[0]);
    }
    for (int k = 0; k < KSH_ROT; ++k) { /* the two routes give the same words */
        for (int p = 0; p < 2; ++p) {
            CHECK(hepa_poly_get(p ? c.h1[k] : c.h0[k], a));
            CHECK(hepa_poly_get(p ? c.w1[k] : c.w0[k], b));
            if (memcmp(a, b, L * n * sizeof *a)) {
                fprintf(stderr, "%s: check failed: hoisted rotation %d differs (out%d)\n", prog,
                        k, p);
                rc = 1;
                goto done;
            }
        }
    }
done:
    for (size_t i = 0; i < np; ++i)
        hepa_poly_destroy(*polys[i]);
    hepa_poly_destroy(c.x0), hepa_poly_destroy(c.x1);
    hepa_poly_destroy(s), hepa_poly_destroy(s2);
    hepa_ksk_destroy(key);
    hepa_rng_destroy(rng);
    hepa_ks_destroy(ks);
    hepa_ring_destroy(ring);
    free(t), free(a), free(b);
    return rc;
}

static int bench_ks_host(const bench_options *o) {
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    printf("## hepa-bench --ks, host backend (hepa %d.%d.%d, commit %s)\n\ncpu: %s, one thread. "
           "Wall time of each call after one warm-up, median and minimum of %zu runs.\n",
           HEPA_VERSION_MAJOR, HEPA_VERSION_MINOR, HEPA_VERSION_PATCH, HEPA_GIT_COMMIT, cpu,
           o->reps ? o->reps : 10);
    if (o->n_set || o->limbs_set)
        return bench_ks_host_set(o, o->n, o->limbs_set ? o->limbs : 8, 2);
    return bench_ks_host_set(o, 8192, 8, 2) || bench_ks_host_set(o, 16384, 16, 4);
}

/* FLINT nmod_poly_mul + fold against hepa_negacyclic_mul on a one-limb ring with q_0, same
 * inputs, same run. Returns an exit status (1 when the results differ). */
static int bench_flint(report *rep, uint64_t *rng) {
#ifndef HEPA_BENCH_HAVE_FLINT
    (void)rng;
    rep->fl.available = 0;
    return 0;
#else
    const bench_options *o = rep->o;
    const size_t n = o->n;
    const uint64_t q = rep->moduli[0];
    int rc = 0;
    hepa_ring *ring1 = NULL;
    uint64_t *a = xmalloc(n, sizeof *a), *b = xmalloc(n, sizeof *b);
    uint64_t *out_f = xmalloc(n, sizeof *out_f), *out_h = xmalloc(n, sizeof *out_h);
    nmod_poly_t fa, fb, fr;
    nmod_poly_init(fa, q);
    nmod_poly_init(fb, q);
    nmod_poly_init(fr, q);
    rep->fl.available = 1;
    rep->fl.q = q;
    if (!a || !b || !out_f || !out_h) {
        rc = lib_error("allocating the FLINT inputs", HEPA_ERR_OUT_OF_MEMORY);
        goto done;
    }
    /* the comparison runs on the CPU backend: FLINT is a CPU library */
    CHECK(hepa_ring_create(&ring1, n, &q, 1, HEPA_BACKEND_CPU));
    fill_random(a, ring1, 1, rng);
    fill_random(b, ring1, 1, rng);
    for (size_t i = 0; i < n; ++i) {
        nmod_poly_set_coeff_ui(fa, (slong)i, (ulong)a[i]);
        nmod_poly_set_coeff_ui(fb, (slong)i, (ulong)b[i]);
    }
    {
        compare_ctx cctx = {{fr, fa, fb, out_f, n, q}, {ring1, out_h, a, b}};
        row both[2];
        both[0] = new_row("flint_nmod_poly_mul_fold", "FLINT nmod_poly_mul + fold mod x^n+1", 1,
                          "ns/coeff");
        both[1] = new_row("negacyclic_mul_1limb", "hepa_negacyclic_mul (cpu ring, 1 limb)", 1,
                          "ns/coeff");
        CHECK(measure(o, step_compare, &cctx, 2, both));
        rep->fl.flint_row = both[0];
        rep->fl.hepa_row = both[1];
        rep->fl.flint_row.derived = 1e3 * rep->fl.flint_row.median_us / (double)n;
        rep->fl.hepa_row.derived = 1e3 * rep->fl.hepa_row.median_us / (double)n;
        rep->fl.speedup = rep->fl.flint_row.median_us / rep->fl.hepa_row.median_us;
        rep->fl.equal = memcmp(out_f, out_h, n * sizeof *out_f) == 0;
        rep->fl.ran = 1;
        if (!rep->fl.equal) {
            size_t i = 0;
            while (out_f[i] == out_h[i])
                ++i;
            fprintf(stderr,
                    "%s: check failed: FLINT and hepa_negacyclic_mul differ (first at "
                    "coefficient %zu: FLINT %" PRIu64 ", hepa %" PRIu64 ")\n",
                    prog, i, out_f[i], out_h[i]);
            rc = 1;
        }
    }
done:
    nmod_poly_clear(fa);
    nmod_poly_clear(fb);
    nmod_poly_clear(fr);
    hepa_ring_destroy(ring1);
    free(a);
    free(b);
    free(out_f);
    free(out_h);
    return rc;
#endif
}

/* The device kernels timed with CUDA events (bench_gpu.c): the suite's sizes, except those given
 * with --n / --limbs / --bits (all three taken from o when only_given). Returns an exit status. */
static int run_gpu_suite(const bench_options *o, int only_given) {
#ifndef HEPA_BENCH_HAVE_GPU_SUITE
    (void)only_given;
    (void)o;
    fprintf(stderr,
            "%s: --gpu-suite needs a build with the CUDA backend (nvcc found when hepa "
            "was configured)\n",
            prog);
    return 1;
#else
    if (!hepa_cuda_available()) {
        fprintf(stderr, "%s: --gpu-suite: no usable GPU\n", prog);
        return 1;
    }
    size_t ns[6], n_count = 0;
    static const size_t Ls_default[] = {1, 8, 34, 64};
    if (o->n_set || only_given)
        ns[n_count++] = o->n;
    else
        for (unsigned l = 12; l <= 17; ++l)
            ns[n_count++] = (size_t)1 << l;
    const int one_L = o->limbs_set || only_given;
    const size_t *Ls = one_L ? &o->limbs : Ls_default;
    const size_t L_count = one_L ? 1 : sizeof Ls_default / sizeof *Ls_default;
    const unsigned bits = o->bits_set || only_given ? o->bits : 60;
    const size_t reps = o->reps ? o->reps : 60;
    fflush(stdout);
    return hepa_bench_gpu_suite(ns, n_count, Ls, L_count, bits, reps, o->json, HEPA_GIT_COMMIT) ? 1
                                                                                                : 0;
#endif
}

int main(int argc, char **argv) {
    bench_options o = {.n = 65536,
                       .limbs = 8,
                       .bits = 50,
                       .backend = HEPA_BACKEND_AUTO,
                       .json = 0,
                       .reps = 0,
                       .min_time = 0.5,
                       .seed = 1};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    rc = 0;
    if (o.gpu_suite) return run_gpu_suite(&o, 0);
    if (o.ks && (o.backend == HEPA_BACKEND_CPU || !hepa_cuda_available()))
        return bench_ks_host(&o);
    if (o.bp_suite || o.bp_compare || o.ckks || o.dft || o.ks) {
#ifdef HEPA_BENCH_HAVE_GPU_SUITE
        if (o.ks)
            return hepa_bench_ks(o.reps ? o.reps : 30, HEPA_GIT_COMMIT, o.n_set ? o.n : 0,
                                 o.limbs_set ? o.limbs : 0)
                       ? 1
                       : 0;
        if (o.dft) return hepa_bench_dft(o.reps ? o.reps : 20, HEPA_GIT_COMMIT) ? 1 : 0;
        if (o.ckks) return hepa_bench_ckks(o.reps ? o.reps : 30, HEPA_GIT_COMMIT) ? 1 : 0;
        if (o.bp_compare)
            return hepa_bench_bp_compare(o.reps ? o.reps : 20, o.json, HEPA_GIT_COMMIT) ? 1 : 0;
        return hepa_bench_bp_suite(o.reps ? o.reps : 30, o.json, HEPA_GIT_COMMIT) ? 1 : 0;
#else
        fprintf(stderr, "%s: --bp-suite, --bp-compare, --ckks, --dft and --ks need a build with the CUDA backend\n",
                prog);
        return 1;
#endif
    }

    report rep;
    memset(&rep, 0, sizeof rep);
    rep.o = &o;
    cpu_model(rep.cpu, sizeof rep.cpu);
    rep.avx512f = cpu_has_flag("avx512f");
    rep.timer_ns = timer_overhead_ns();
    const char *no_avx = getenv("HEPA_NO_AVX512");
    rep.no_avx512_env = no_avx && *no_avx && strcmp(no_avx, "0") != 0;
    uint64_t rng = o.seed;
    hepa_ring *ring = NULL;
    uint64_t *moduli = xmalloc(o.limbs, sizeof *moduli);
    if (!moduli) return lib_error("allocating the moduli", HEPA_ERR_OUT_OF_MEMORY);
    rep.moduli = moduli;

    hepa_status st = hepa_primes_ntt(moduli, o.limbs, o.bits, o.n);
    if (st != HEPA_OK) {
        fprintf(stderr, "%s: hepa_primes_ntt (%zu primes of %u bits, q = 1 mod 2*%zu) failed: %s\n",
                prog, o.limbs, o.bits, o.n, hepa_status_string(st));
        rc = 1;
        goto done;
    }
    st = hepa_ring_create(&ring, o.n, moduli, o.limbs, o.backend);
    if (st != HEPA_OK && o.backend == HEPA_BACKEND_AUTO &&
        (st == HEPA_ERR_UNSUPPORTED || st == HEPA_ERR_NO_DEVICE)) {
        /* AUTO is documented to fall back to the CPU by itself; if it does not, say so and
         * measure the CPU backend rather than nothing. */
        fprintf(stderr, "%s: warning: hepa_ring_create(AUTO) failed with %s; using the CPU\n", prog,
                hepa_status_string(st));
        rep.backend_note = "AUTO failed, fell back to cpu";
        st = hepa_ring_create(&ring, o.n, moduli, o.limbs, HEPA_BACKEND_CPU);
    }
    if (st != HEPA_OK) {
        fprintf(stderr, "%s: hepa_ring_create (n = %zu, %zu moduli, backend %s) failed: %s\n", prog,
                o.n, o.limbs, backend_name(o.backend), hepa_status_string(st));
        rc = 1;
        if (o.backend == HEPA_BACKEND_CUDA &&
            (st == HEPA_ERR_UNSUPPORTED || st == HEPA_ERR_NO_DEVICE))
            fprintf(stderr,
                    "%s: the CUDA ring backend is not available in this build or on "
                    "this machine; try --backend cpu\n",
                    prog);
        goto done;
    }
    rep.backend_used = hepa_ring_backend(ring);
    if (!rep.backend_note) {
        if (!hepa_cuda_available())
            rep.backend_note = "no usable GPU";
        else if (o.backend == HEPA_BACKEND_AUTO && rep.backend_used == HEPA_BACKEND_CPU)
            rep.backend_note = "a GPU is usable, but AUTO chose the CPU";
        else
            rep.backend_note = "a GPU is usable";
    }

    switch (rep.backend_used) {
    case HEPA_BACKEND_CPU:
    case HEPA_BACKEND_CUDA:
        /* GPU section to come: kernels timed with CUDA events on the ring's stream and reported
         * against the device's measured copy bandwidth (DESIGN.md). Until then device rings are
         * timed like host ones, as wall time of the call + hepa_ring_sync. */
        rc = bench_ring(&rep, ring, &rng);
        break;
    default:
        fprintf(stderr, "%s: the ring reports an unknown backend %d\n", prog,
                (int)rep.backend_used);
        rc = 1;
        break;
    }
    if (rc) goto done;

    rc = bench_flint(&rep, &rng);
    if (rc && !rep.fl.ran) goto done; /* library error: nothing to print */

    if (o.json) {
        print_json(&rep);
    } else {
        print_text(&rep);
        if (rep.backend_used == HEPA_BACKEND_CUDA && rc == 0) {
            /* the same sizes on the device, timed with CUDA events (--gpu-suite for all) */
            printf("\n");
            rc = run_gpu_suite(&o, 1);
        }
    }

done:
    hepa_ring_destroy(ring);
    free(moduli);
#ifdef HEPA_BENCH_HAVE_FLINT
    flint_cleanup();
#endif
    return rc;
}
