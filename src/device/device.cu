// src/device/device.cu — CUDA runtime glue: device discovery, per-ring stream and memory pool,
// table upload, copies, and the mapping of CUDA errors to hepa_status (with the CUDA message
// kept for hepa_last_error_message).
#include <cuda_runtime.h>

#include <mutex>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/internal.h"
#include "hepa/ring.h"
#include "ntt/internal.h"
#include "rns/internal.h"

extern "C" int hepa_device_count(void) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        // No driver, no device, or an insufficient driver: all mean "no usable GPU". These
        // errors are not sticky; clear them so later runtime calls do not report them.
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

extern "C" HEPA_API int hepa_cuda_available(void) { return hepa_device_count() > 0; }

extern "C" hepa_status _hepa_dev_status(int code, const char *where) {
    cudaError_t err = (cudaError_t)code;
    if (err == cudaSuccess) return HEPA_OK;
    _hepa_set_error_message("%s: %s (%s)", where, cudaGetErrorString(err), cudaGetErrorName(err));
    switch (err) {
    case cudaErrorMemoryAllocation: (void)cudaGetLastError(); return HEPA_ERR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: return HEPA_ERR_NO_DEVICE;
    default: return HEPA_ERR_DEVICE;
    }
}

extern "C" int _hepa_dev_pdl_capable(int device, int *pdl) {
    int major = 0;
    const cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    *pdl = e == cudaSuccess && major >= 9;
    return e;
}

extern "C" int _hepa_dev_allow_smem(const void *kernel, size_t bytes) {
    static std::mutex mu; // the read and the raise as one step (see device/internal.h)
    std::lock_guard<std::mutex> hold(mu);
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, kernel);
    if (e != cudaSuccess || (size_t)a.maxDynamicSharedSizeBytes >= bytes) return (int)e;
    return (int)cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)bytes);
}

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) return _hepa_dev_status(e_, #call);                             \
    } while (0)

static cudaStream_t stream_of(const hepa_ring *ring) { return (cudaStream_t)ring->dev->stream; }

// STREAMS of a ring's device state, the ring's own or a capture view's (_hepa_dev_view_create):
// the work stream, the helper stream at d->helper_prio, and the fork and join events. Whatever
// was created is in d, also on failure, for dev_streams_destroy (which takes NULL entries).
static cudaError_t dev_streams_create(hepa_ring_device *d) {
    cudaStream_t st = NULL, h = NULL;
    cudaError_t e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    d->stream = st;
    if (e == cudaSuccess)
        e = cudaStreamCreateWithPriority(&h, cudaStreamNonBlocking, d->helper_prio);
    d->helper = h;
    for (int k = 0; k < 2; ++k) {
        cudaEvent_t ev = NULL;
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
        d->fork_ev[k] = ev;
    }
    return e;
}
static void dev_streams_destroy(hepa_ring_device *d) {
    if (d->helper) cudaStreamDestroy((cudaStream_t)d->helper);
    for (int k = 0; k < 2; ++k)
        if (d->fork_ev[k]) cudaEventDestroy((cudaEvent_t)d->fork_ev[k]);
    if (d->stream) cudaStreamDestroy((cudaStream_t)d->stream);
}

extern "C" hepa_status _hepa_dev_ring_init(hepa_ring *ring) {
    hepa_ring_device *d = (hepa_ring_device *)calloc(1, sizeof *d);
    if (!d) return HEPA_ERR_OUT_OF_MEMORY;
    ring->dev = d;
    const size_t n = ring->n, L = ring->num_moduli;
    hepa_status s = HEPA_OK;
    uint64_t *host_tables = NULL;
    hepa_dev_limb *host_limbs = NULL;
    size_t nf = 0, words = 0; // FP64 limbs, table words (declared before the gotos below)
    cudaMemPool_t pool = NULL;
#define TRY(call)                                                                              \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            s = _hepa_dev_status(e_, #call);                                                   \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)
    TRY(cudaGetDevice(&d->device));
    {
        TRY((cudaError_t)_hepa_dev_pdl_capable(d->device, &d->pdl));
        TRY(cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, d->device));
        TRY(cudaDeviceGetAttribute(&d->l2, cudaDevAttrL2CacheSize, d->device));
    }
    {
        // HELPER STREAM, of the highest priority: its blocks are scheduled first when both
        // streams have some waiting (key switching puts its short branch there)
        int least = 0, greatest = 0;
        TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        d->helper_prio = greatest;
        d->least_prio = least;
        TRY(dev_streams_create(d));
    }
    TRY(cudaDeviceGetDefaultMemPool(&pool, d->device));
    {
        // Keep freed blocks in the pool instead of returning them to the driver at every
        // synchronisation: later allocations of the same sizes are then free of driver calls.
        uint64_t threshold = UINT64_MAX;
        TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    }
    d->pool = pool;
    // FP64 limbs (q < HEPA_DEV_F64_BELOW) also get their twiddles as doubles and the row
    // factors, HEPA_DEV_F64_WORDS(n) words each after the L·4n words of pairs (see
    // hepa_dev_limb.tw64)
    for (size_t i = 0; i < L; ++i) nf += ring->moduli[i] < HEPA_DEV_F64_BELOW;
    words = 4 * n * L + HEPA_DEV_F64_WORDS(n) * nf;
    host_tables = (uint64_t *)malloc(words * sizeof *host_tables);
    host_limbs = (hepa_dev_limb *)malloc(L * sizeof *host_limbs);
    if (!host_tables || !host_limbs) {
        s = HEPA_ERR_OUT_OF_MEMORY;
        goto fail;
    }
    for (size_t i = 0, f = 0; i < L; ++i) {
        hepa_ntt_table_view v = hepa_ntt_tables_view(ring->ntt[i]);
        // interleave each twiddle with its Shoup companion: one 16-byte load per butterfly
        uint64_t *t = host_tables + 4 * n * i;
        for (size_t k = 0; k < n; ++k) {
            t[2 * k] = v.fwd[k];
            t[2 * k + 1] = v.fwd_shoup[k];
            t[2 * n + 2 * k] = v.inv[k];
            t[2 * n + 2 * k + 1] = v.inv_shoup[k];
        }
        hepa_dev_limb *l = &host_limbs[i];
        l->q = v.q;
        l->ratio_hi = ring->mods[i].ratio_hi;
        l->ratio_lo = ring->mods[i].ratio_lo;
        l->n_inv = v.n_inv;
        l->n_inv_shoup = v.n_inv_shoup;
        l->n_inv_w = v.n_inv_w;
        l->n_inv_w_shoup = v.n_inv_w_shoup;
        l->tw64 = 0;
        l->qd = l->qi = 0;
        if (v.q < HEPA_DEV_F64_BELOW) {
            d->f64 = 1;
            l->qd = (double)v.q; // exact below 2^53
            l->qi = 1.0 / l->qd; // IEEE double division: the correctly rounded 1/q
            l->tw64 = 4 * n * L + HEPA_DEV_F64_WORDS(n) * f++;
            double *w = (double *)(host_tables + l->tw64); // exact: the twiddles are below 2^47
            for (size_t k = 0; k < n; ++k) {
                w[k] = (double)v.fwd[k];
                w[n + k] = (double)v.inv[k];
            }
            // ROW FACTORS (see hepa_dev_limb.tw64 and ntt_cuda.cu, GENERATED ROW TWIDDLES):
            // per direction S[e] = the twiddle of staging entry e of row 0 and
            // R[8r + lg] = ρ_r^(2^(7 - lg)), ρ_r = ψ^(2·rev_(log n - 8)(r)) (ψ^(-1) for inv)
            const unsigned lb = ring->log_n;
            const size_t rows = n >> 8;
            for (int dir = 0; dir < 2 && lb >= 13; ++dir) {
                const uint64_t *tab = dir ? v.inv : v.fwd;
                double *S = w + 2 * n + (size_t)dir * (256 + 8 * rows), *R = S + 256;
                S[0] = 0;
                for (unsigned e = 1; e < 256; ++e) {
                    unsigned lg = 0;
                    while ((2u << lg) <= e)
                        ++lg;
                    S[e] = (double)tab[(n >> (8 - lg)) + e - (1u << lg)];
                }
                for (size_t r = 0; r < rows; ++r)
                    for (unsigned lg = 0; lg < 8; ++lg) // tab[k] = ψ^(±rev_(log n)(k))
                        R[8 * r + lg] =
                            (double)tab[hepa_bitrev(hepa_bitrev(r, lb - 8) << (8 - lg), lb)];
            }
        }
    }
    TRY(cudaMalloc((void **)&d->tables, words * sizeof *host_tables));
    TRY(cudaMalloc((void **)&d->limbs, L * sizeof *host_limbs));
    TRY(cudaMemcpy(d->tables, host_tables, words * sizeof *host_tables, cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(d->limbs, host_limbs, L * sizeof *host_limbs, cudaMemcpyHostToDevice));
    {
        uint32_t id[HEPA_RING_MAX_MODULI];
        for (size_t i = 0; i < HEPA_RING_MAX_MODULI; ++i) id[i] = (uint32_t)i;
        TRY(cudaMalloc((void **)&d->idmap, sizeof id));
        TRY(cudaMemcpy(d->idmap, id, sizeof id, cudaMemcpyHostToDevice));
    }
    TRY(cudaMalloc((void **)&d->sched, HEPA_DEV_SCHED_WORDS * sizeof *d->sched));
    TRY(cudaMemset(d->sched, 0, HEPA_DEV_SCHED_WORDS * sizeof *d->sched));
    {
        // the rescale constants of every level (see hepa_ring_device::rescale)
        const size_t B = 1 + 3 * L;
        uint64_t *h = (uint64_t *)calloc(L * B, sizeof *h);
        if (!h) {
            s = HEPA_ERR_OUT_OF_MEMORY;
            goto fail;
        }
        uint64_t inv[HEPA_RING_MAX_MODULI], inv_sh[HEPA_RING_MAX_MODULI],
            qmod[HEPA_RING_MAX_MODULI];
        for (size_t l = 2; l <= L; ++l) {
            uint64_t *b = h + (l - 1) * B;
            _hepa_rescale_consts(ring, l, inv, inv_sh, qmod);
            b[0] = ring->moduli[l - 1] / 2;
            for (size_t i = 0; i + 1 < l; ++i) {
                b[1 + 3 * i] = qmod[i];
                b[2 + 3 * i] = inv[i];
                b[3 + 3 * i] = inv_sh[i];
            }
        }
        cudaError_t e = cudaMalloc((void **)&d->rescale, L * B * sizeof *h);
        if (e == cudaSuccess)
            e = cudaMemcpy(d->rescale, h, L * B * sizeof *h, cudaMemcpyHostToDevice);
        free(h);
        TRY(e);
    }
    free(host_tables);
    free(host_limbs);
    return HEPA_OK;
fail:
#undef TRY
    free(host_tables);
    free(host_limbs);
    _hepa_dev_ring_free(ring);
    return s;
}

extern "C" void _hepa_dev_ring_free(hepa_ring *ring) {
    hepa_ring_device *d = ring->dev;
    if (!d) return;
    if (d->stream) (void)cudaStreamSynchronize((cudaStream_t)d->stream);
    cudaFree(d->tables);
    cudaFree(d->limbs);
    cudaFree(d->idmap);
    cudaFree(d->sched);
    cudaFree(d->rescale);
    dev_streams_destroy(d);
    free(d);
    ring->dev = NULL;
}

extern "C" hepa_status _hepa_dev_fork(const hepa_ring *ring) {
    const hepa_ring_device *d = ring->dev;
    CHECK(cudaEventRecord((cudaEvent_t)d->fork_ev[0], (cudaStream_t)d->stream));
    CHECK(cudaStreamWaitEvent((cudaStream_t)d->helper, (cudaEvent_t)d->fork_ev[0], 0));
    return HEPA_OK;
}

extern "C" int _hepa_dev_capturing(const hepa_ring *ring) {
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    return cudaStreamIsCapturing((cudaStream_t)ring->dev->stream, &cs) == cudaSuccess &&
           cs == cudaStreamCaptureStatusActive;
}
extern "C" hepa_status _hepa_dev_view_create(const hepa_ring *ring, hepa_ring_device **out) {
    hepa_ring_device *v = (hepa_ring_device *)malloc(sizeof *v);
    if (!v) return HEPA_ERR_OUT_OF_MEMORY;
    *v = *ring->dev; // (the tables, pool and counters are the ring's: shared, not owned)
    const cudaError_t e = dev_streams_create(v);
    if (e != cudaSuccess) {
        _hepa_dev_view_destroy(v);
        return _hepa_dev_status(e, "capture view");
    }
    *out = v;
    return HEPA_OK;
}
extern "C" void _hepa_dev_view_destroy(hepa_ring_device *v) {
    if (!v) return;
    dev_streams_destroy(v);
    free(v);
}
extern "C" hepa_status _hepa_dev_graph_begin(const hepa_ring *view) {
    CHECK(cudaStreamBeginCapture(stream_of(view), cudaStreamCaptureModeThreadLocal));
    return HEPA_OK;
}
extern "C" hepa_status _hepa_dev_graph_end(const hepa_ring *view, const hepa_ring *ring,
                                           void **exec, int ok) {
    cudaGraph_t g = NULL;
    const cudaError_t ec = cudaStreamEndCapture(stream_of(view), &g);
    if (!ok || ec != cudaSuccess) {
        if (g) cudaGraphDestroy(g);
        return ec == cudaSuccess ? HEPA_OK : _hepa_dev_status(ec, "cudaStreamEndCapture");
    }
    cudaGraphExec_t x = (cudaGraphExec_t)*exec;
    if (x) {
        // (an update changes only later launches: one still running keeps its parameters)
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(x, g, &info) != cudaSuccess) {
            (void)cudaGetLastError(); // (not sticky) a new instantiation follows
            cudaGraphExecDestroy(x);
            x = NULL;
        }
    }
    cudaError_t e = cudaSuccess;
    if (!x) e = cudaGraphInstantiateWithFlags(&x, g, cudaGraphInstantiateFlagUseNodePriority);
    cudaGraphDestroy(g);
    *exec = e == cudaSuccess ? (void *)x : NULL;
    if (e != cudaSuccess) return _hepa_dev_status(e, "cudaGraphInstantiateWithFlags");
    CHECK(cudaGraphLaunch(x, stream_of(ring)));
    return HEPA_OK;
}
extern "C" void _hepa_dev_graph_free(void *exec) {
    if (exec) cudaGraphExecDestroy((cudaGraphExec_t)exec);
}

extern "C" hepa_status _hepa_dev_join(const hepa_ring *ring) {
    const hepa_ring_device *d = ring->dev;
    CHECK(cudaEventRecord((cudaEvent_t)d->fork_ev[1], (cudaStream_t)d->helper));
    CHECK(cudaStreamWaitEvent((cudaStream_t)d->stream, (cudaEvent_t)d->fork_ev[1], 0));
    return HEPA_OK;
}

extern "C" hepa_status _hepa_dev_sync(const hepa_ring *ring) {
    CHECK(cudaStreamSynchronize(stream_of(ring)));
    return HEPA_OK;
}

extern "C" hepa_status _hepa_dev_alloc(const hepa_ring *ring, void **ptr, size_t bytes) {
    CHECK(cudaMallocFromPoolAsync(ptr, bytes, (cudaMemPool_t)ring->dev->pool, stream_of(ring)));
    return HEPA_OK;
}

extern "C" void _hepa_dev_free(const hepa_ring *ring, void *ptr) {
    if (ptr) (void)cudaFreeAsync(ptr, stream_of(ring));
}

extern "C" hepa_status _hepa_dev_copy(const hepa_ring *ring, void *dst, const void *src,
                                      size_t bytes, int kind) {
    static const cudaMemcpyKind kinds[3] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                            cudaMemcpyDeviceToDevice};
    CHECK(cudaMemcpyAsync(dst, src, bytes, kinds[kind], stream_of(ring)));
    return HEPA_OK;
}

extern "C" hepa_status _hepa_dev_memset(const hepa_ring *ring, void *dst, int value, size_t bytes) {
    CHECK(cudaMemsetAsync(dst, value, bytes, stream_of(ring)));
    return HEPA_OK;
}

extern "C" HEPA_API hepa_status hepa_host_alloc(void **out, size_t bytes) {
    if (!out || bytes == 0) return HEPA_ERR_INVALID_ARGUMENT;
    if (hepa_device_count() == 0) { // no GPU: ordinary memory serves every backend
        void *p = malloc(bytes);
        if (!p) return HEPA_ERR_OUT_OF_MEMORY;
        *out = p;
        return HEPA_OK;
    }
    void *p = NULL;
    // portable: pinned for every device and context
    cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        _hepa_set_error_message("cudaHostAlloc: %s", cudaGetErrorString(e));
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    *out = p;
    return HEPA_OK;
}

extern "C" HEPA_API void hepa_host_free(void *ptr) {
    if (!ptr) return;
    // memory from malloc (the no-GPU case) is not registered with CUDA
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, ptr) == cudaSuccess && a.type == cudaMemoryTypeHost) {
        cudaFreeHost(ptr);
    } else {
        (void)cudaGetLastError();
        free(ptr);
    }
}

extern "C" int _hepa_dev_is_pinned(const void *ptr) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

// Device-pointer checks of the calls that take raw device vectors (big-prime, DFT, CKKS).
extern "C" hepa_status _hepa_dev_check_ptr(const void *p, const char *what) {
    cudaPointerAttributes a;
    const cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e == cudaErrorInvalidValue) {
        (void)cudaGetLastError();
        _hepa_set_error_message("%s: not a pointer the CUDA runtime knows", what);
        return HEPA_ERR_INVALID_ARGUMENT;
    }
    if (e != cudaSuccess) {
        const hepa_status s = _hepa_dev_status(e, "cudaPointerGetAttributes");
        (void)cudaGetLastError();
        return s;
    }
    if (a.type == cudaMemoryTypeUnregistered) {
        _hepa_set_error_message("%s: host memory where device memory is needed", what);
        return HEPA_ERR_INVALID_ARGUMENT;
    }
    return HEPA_OK;
}

extern "C" int _hepa_dev_ptr_is_device(const void *p) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}
