/* bench/experiments/ks_trace.c - where the eager hepa_mul_relin loses time against its CUDA graph
 * replay: a CUPTI kernel trace (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, GPU timestamps) of R
 * back-to-back eager calls, then R replays of one call captured from the ring's stream and
 * instantiated with cudaGraphInstantiateFlagUseNodePriority (README, Asynchrony: the way users
 * are told to instantiate). Nsight Systems does not work on the device machine (its report step
 * fails), so the trace is taken here. Ring as hepa-bench --ks: N = 2^LOG2_N, Q = one 60-bit
 * prime + L - 1 40-bit primes, P = K 60-bit primes, digit size K.
 *
 * For each mode it prints the median period (tensor start to the next call's tensor start), the
 * median span (tensor start to the call's last kernel end), and per kernel (its name, its stream
 * and its occurrence within the call) the median start and end after the call's tensor start
 * and the median duration, over the calls after the first 5. Mangled names: pipe through
 * c++filt.
 *
 *   cc -O2 -I include -I/usr/local/cuda/include -o kstrace bench/experiments/ks_trace.c \
 *      -L build -lhepa -L/usr/local/cuda/lib64 -lcudart -lcupti -Wl,-rpath,build
 *   ./kstrace 16 33 3 [R]
 *
 * Results: bench/results/2026-12-07-h100-ks-eager-graph-trace.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cupti.h>

#include "hepa/rns.h"

#include "exp_check.h" /* HK, CK, exp_ks_setup */

#define CU(x)                                                                                      \
    do {                                                                                           \
        const CUptiResult e_ = (x);                                                                \
        if (e_ != CUPTI_SUCCESS) {                                                                 \
            const char *m_ = NULL;                                                                 \
            cuptiGetResultString(e_, &m_);                                                         \
            fprintf(stderr, "%s: %s\n", #x, m_ ? m_ : "?");                                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct {
    uint64_t start, end;
    uint32_t stream;
    char name[200];
} krec;

static krec *recs;
static size_t nrec, caprec;

static void CUPTIAPI buf_req(uint8_t **buf, size_t *size, size_t *maxrec) {
    *size = (size_t)8 << 20;
    *buf = aligned_alloc(8, *size);
    *maxrec = 0;
}

static void CUPTIAPI buf_done(CUcontext ctx, uint32_t sid, uint8_t *buf, size_t size,
                              size_t valid) {
    (void)ctx, (void)sid, (void)size;
    CUpti_Activity *a = NULL;
    while (cuptiActivityGetNextRecord(buf, valid, &a) == CUPTI_SUCCESS) {
        if (a->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
            a->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
        if (nrec == caprec) {
            caprec = caprec ? 2 * caprec : 4096;
            recs = realloc(recs, caprec * sizeof *recs);
            if (!recs) exit(1);
        }
        krec *r = &recs[nrec++];
        r->start = k->start, r->end = k->end, r->stream = k->streamId;
        snprintf(r->name, sizeof r->name, "%s", k->name ? k->name : "?");
    }
    free(buf);
}

static int cmp_u64(const void *a, const void *b) {
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}
static double med(int64_t *v, size_t k) {
    qsort(v, k, sizeof *v, cmp_u64);
    return k ? (k % 2 ? (double)v[k / 2] : 0.5 * (double)(v[k / 2 - 1] + v[k / 2])) : -1;
}

static int by_start(const void *a, const void *b) {
    const krec *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* the kernels of records [lo, hi) (sorted by start), cut into calls at each tensor_kernel */
static void report(const char *mode, size_t lo, size_t hi) {
    enum { MAXC = 256, MAXK = 64, SKIP = 5 };
    size_t cs[MAXC + 1], nc = 0;
    for (size_t i = lo; i < hi && nc < MAXC; ++i)
        if (strstr(recs[i].name, "tensor_kernel")) cs[nc++] = i;
    cs[nc] = hi;
    if (nc <= SKIP + 1) {
        printf("%s: only %zu calls found\n", mode, nc);
        return;
    }
    /* the kernel keys of call SKIP: name, stream and occurrence */
    const size_t k0 = cs[SKIP], nk = cs[SKIP + 1] - k0 < MAXK ? cs[SKIP + 1] - k0 : MAXK;
    static int64_t st[MAXK][MAXC], en[MAXK][MAXC], du[MAXK][MAXC], per[MAXC], span[MAXC];
    size_t got[MAXK] = {0}, np = 0, ns = 0;
    for (size_t c = SKIP; c < nc; ++c) {
        const uint64_t t0 = recs[cs[c]].start;
        uint64_t last = 0;
        for (size_t i = cs[c]; i < cs[c + 1]; ++i)
            if (recs[i].end > last) last = recs[i].end;
        if (c + 1 < nc) per[np++] = (int64_t)(recs[cs[c + 1]].start - t0);
        span[ns++] = (int64_t)(last - t0);
        for (size_t j = 0; j < nk; ++j) {
            size_t occ = 0; /* occurrence of key j in the reference call */
            for (size_t i = k0; i < k0 + j; ++i)
                occ += !strcmp(recs[i].name, recs[k0 + j].name);
            for (size_t i = cs[c]; i < cs[c + 1]; ++i) {
                if (strcmp(recs[i].name, recs[k0 + j].name)) continue;
                if (occ--) continue;
                st[j][got[j]] = (int64_t)(recs[i].start - t0);
                en[j][got[j]] = (int64_t)(recs[i].end - t0);
                du[j][got[j]] = (int64_t)(recs[i].end - recs[i].start);
                ++got[j];
                break;
            }
        }
    }
    printf("## %s: %zu calls (first %d skipped), median period %.1f us, span %.1f us\n", mode, nc,
           SKIP, med(per, np) / 1e3, med(span, ns) / 1e3);
    printf("| # | stream | start us | end us | duration us | calls | kernel "
           "|\n|---|---|---|---|---|---|---|\n");
    for (size_t j = 0; j < nk; ++j)
        printf("| %zu | %u | %.1f | %.1f | %.1f | %zu | %s |\n", j, recs[k0 + j].stream,
               med(st[j], got[j]) / 1e3, med(en[j], got[j]) / 1e3, med(du[j], got[j]) / 1e3, got[j],
               recs[k0 + j].name);
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s LOG2_N L K [R]  (e.g. 16 33 3 40)\n", argv[0]);
        return 2;
    }
    const size_t logn = strtoul(argv[1], NULL, 10), L = strtoul(argv[2], NULL, 10),
                 K = strtoul(argv[3], NULL, 10), R = argc == 5 ? strtoul(argv[4], NULL, 10) : 40;
    if (logn < 10 || logn > 17 || L < 2 || L > 64 || K < 1 || K > 8 || R < 8 || R > 200) {
        fprintf(stderr, "LOG2_N in [10, 17], L in [2, 64], K in [1, 8], R in [8, 200]\n");
        return 2;
    }
    exp_ks e;
    exp_ks_setup(&e, logn, L, K);
    hepa_ks *const ks = e.ks;
    const hepa_ksk *const key = e.key;
    hepa_poly **p = e.p;
    cudaStream_t st = (cudaStream_t)hepa_ring_cuda_stream(e.r);
    for (int w = 0; w < 3; ++w)
        HK(hepa_mul_relin(ks, p[4], p[5], p[0], p[1], p[2], p[3], key));
    HK(hepa_ring_sync(e.r));
    /* the graph, captured before tracing starts */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    HK(hepa_mul_relin(ks, p[4], p[5], p[0], p[1], p[2], p[3], key));
    CK(cudaStreamEndCapture(st, &graph));
    CK(cudaGraphInstantiateWithFlags(&exec, graph, cudaGraphInstantiateFlagUseNodePriority));
    for (int w = 0; w < 3; ++w)
        CK(cudaGraphLaunch(exec, st));
    CK(cudaStreamSynchronize(st));

    CU(cuptiActivityRegisterCallbacks(buf_req, buf_done));
    CU(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    for (size_t i = 0; i < R; ++i)
        HK(hepa_mul_relin(ks, p[4], p[5], p[0], p[1], p[2], p[3], key));
    HK(hepa_ring_sync(e.r));
    CK(cudaDeviceSynchronize());
    uint64_t tmid;
    CU(cuptiGetTimestamp(&tmid));
    for (size_t i = 0; i < R; ++i)
        CK(cudaGraphLaunch(exec, st));
    CK(cudaStreamSynchronize(st));
    CK(cudaDeviceSynchronize());
    CU(cuptiActivityFlushAll(1));
    CU(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));

    qsort(recs, nrec, sizeof *recs, by_start);
    size_t mid = 0;
    while (mid < nrec && recs[mid].start < tmid)
        ++mid;
    printf("# hepa_mul_relin at 2^%zu/%zu/P = %zu: %zu kernel records, %zu eager\n\n", logn, L, K,
           nrec, mid);
    report("eager", 0, mid);
    printf("\n");
    report("graph (node priorities)", mid, nrec);

    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    exp_ks_free(&e);
    free(recs);
    return 0;
}
