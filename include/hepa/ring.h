/* hepa/ring.h — the ring context R_Q = Z_Q[x]/(x^n + 1), Q = q_0 q_1 ... q_{L-1}, and the
 * one-call negacyclic product on host arrays.
 *
 * A ring is built once (moduli validated, NTT tables precomputed), is immutable afterwards and
 * may be shared by threads. Polynomials (hepa/poly.h) refer to it and must not outlive it. */
#ifndef HEPA_RING_H
#define HEPA_RING_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a ring's polynomials live and its arithmetic runs. */
typedef enum {
    HEPA_BACKEND_AUTO = 0, /* the GPU when one is usable and supported, else the CPU */
    HEPA_BACKEND_CPU,      /* host memory, host code */
    HEPA_BACKEND_CUDA      /* device memory, CUDA kernels */
} hepa_backend;

typedef struct hepa_ring hepa_ring;

/* Smallest and largest ring degree n. */
#define HEPA_RING_MIN_N ((size_t)16)
#define HEPA_RING_MAX_N ((size_t)1 << 20)
/* Most RNS moduli in one ring. */
#define HEPA_RING_MAX_MODULI ((size_t)64)

/* Creates the ring of degree n with the given RNS moduli (copied; the caller keeps its array).
 * n: power of two in [16, 2^20]; 1 <= num_moduli <= 64; moduli pairwise distinct primes below
 * 2^62, each ≡ 1 (mod 2n).
 * backend: HEPA_BACKEND_CPU, HEPA_BACKEND_CUDA, or AUTO (CUDA if a GPU is usable and this build
 * has the CUDA backend, otherwise CPU; when a usable GPU is found but setting up the ring on it
 * fails, the error is returned rather than silently falling back). Query the choice with
 * hepa_ring_backend.
 * CUDA backend: the ring lives on the device that is current (cudaSetDevice) at creation; it
 * uploads its twiddle tables once, owns a non-blocking stream on which every operation of the
 * ring and its polynomials is enqueued in call order, and takes scratch and polynomial memory
 * from the device's stream-ordered memory pool.
 * Errors (nothing is created and *out is left untouched):
 *   HEPA_ERR_INVALID_ARGUMENT  out or moduli NULL, n or num_moduli out of range, a modulus not
 *                              prime, >= 2^62, not ≡ 1 mod 2n, or repeated; unknown backend
 *   HEPA_ERR_NO_DEVICE         HEPA_BACKEND_CUDA but no usable GPU (or a CPU-only build)
 *   HEPA_ERR_OUT_OF_MEMORY     host or device allocation failed
 *   HEPA_ERR_DEVICE            a CUDA call failed (see hepa_last_error_message) */
HEPA_API HEPA_NODISCARD hepa_status hepa_ring_create(hepa_ring **out, size_t n,
                                                      const uint64_t *moduli, size_t num_moduli,
                                                      hepa_backend backend);

/* Frees the ring. NULL is a no-op. Every polynomial of the ring must be destroyed first. */
HEPA_API void hepa_ring_destroy(hepa_ring *ring);

/* Accessors (ring must be non-NULL). */
HEPA_API size_t hepa_ring_n(const hepa_ring *ring);
HEPA_API size_t hepa_ring_num_moduli(const hepa_ring *ring);
/* The i-th modulus, i < num_moduli. */
HEPA_API uint64_t hepa_ring_modulus(const hepa_ring *ring, size_t i);
/* The backend actually in use (never AUTO). */
HEPA_API hepa_backend hepa_ring_backend(const hepa_ring *ring);

/* out = a*b in Z_Q[x]/(x^n+1). All three are host arrays of num_moduli*n words in
 * coefficient form, limb-major (limb i at +i*n), residues in [0, q_i). out may alias a or b
 * (or both).
 * On the CUDA backend the call uploads a and b, multiplies on the device and waits for the result
 * (it synchronises the ring's stream); the host<->device copies dominate its time (e.g. 2.6 ms
 * against 0.06 ms of device work at n = 2^16, L = 8 on an H100): keep data on the device with
 * hepa_poly for repeated work.
 * Errors: HEPA_ERR_INVALID_ARGUMENT for a NULL pointer or a residue >= its modulus (out is then
 * untouched); HEPA_ERR_OUT_OF_MEMORY if scratch cannot be allocated (out untouched);
 * HEPA_ERR_DEVICE if a CUDA call fails (out undefined). */
HEPA_API HEPA_NODISCARD hepa_status hepa_negacyclic_mul(const hepa_ring *ring, uint64_t *out,
                                                         const uint64_t *a, const uint64_t *b);

/* Waits until all work enqueued on the ring's stream is done (CUDA backend); HEPA_OK at once on
 * the CPU backend, whose calls complete before they return. A failure of earlier asynchronous
 * work is reported here (HEPA_ERR_DEVICE, with hepa_last_error_message). */
HEPA_API HEPA_NODISCARD hepa_status hepa_ring_sync(const hepa_ring *ring);

/* The CUDA stream (a cudaStream_t) on which the ring enqueues its device work, for ordering
 * your own kernels, copies and events with hepa's; NULL on the CPU backend. The ring owns it:
 * do not destroy it. Key switching from n = 2^16 also runs part of its work on a second stream
 * of the ring, forked from this one and joined back into it within the call (CUDA events), so
 * work before and after the call on this stream is ordered with all of it. Calls from several
 * host threads on one ring are safe: they all enqueue on this stream, in call order. The calls
 * that do not wait may be captured from this stream into a CUDA graph (any capture mode; key
 * switching's second stream joins the capture through its events) and the graph replayed; the
 * calls that wait (hepa_poly_get, hepa_ring_sync, CKKS encode, decode to host memory) may not.
 * Do not run a ring's work beside this stream, e.g. such a graph replayed on another stream
 * while this one is busy, or two replays at once: some NTT launches keep per-ring work counters
 * that assume one such launch at a time (src/ntt/ntt_cuda.cu, TWO PASSES IN ONE LAUNCH). */
HEPA_API void *hepa_ring_cuda_stream(const hepa_ring *ring);

/* 1 if this build contains the CUDA code and at least one GPU is usable, else 0. */
HEPA_API int hepa_cuda_available(void);

#ifdef __cplusplus
}
#endif
#endif /* HEPA_RING_H */
