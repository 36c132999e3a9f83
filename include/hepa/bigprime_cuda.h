/* hepa/bigprime_cuda.h — vectors of big prime field elements (p = r^k + 1, hepa/bigprime.h) on a
 * CUDA device: upload, download, element-wise add, sub, neg, mul and multiplication by a power
 * of r, each bit-exact with the host raw functions (_hepa_bp_add, ...), and the FFT (bit-exact
 * with hepa_bp_fft).
 *
 * DEVICE LAYOUT (digit-major). A device vector of N elements is k·N 64-bit words; digit d of
 * element j is at x[j + d·N]. The 32 threads of a warp handle 32 consecutive elements, so each
 * digit load or store of a warp touches one contiguous 256-byte segment. The digits and the
 * canonical forms are those of the host (including p - 1 = r^k, stored as top digit r and the
 * other digits 0). Host vectors stay element-major (element j at h_x + j·k); upload and download
 * transpose between the two.
 *
 * SUPPORTED FIELDS. Upload and download work for every field. The arithmetic kernels are
 * compiled for k = 8 and k = 16 (P3, P4, and HEPA_BP_W59_K8, HEPA_BP_W58_K16 among the named
 * fields; any other r = 2^w ± 2^u with those k too); for any other k they return
 * HEPA_ERR_UNSUPPORTED.
 *
 * STREAMS. Every call takes a stream as `void *stream` (a cudaStream_t; NULL is the default
 * stream), as cuFFT's cufftSetStream does, so this header needs no CUDA header. Work is enqueued
 * on that stream and the calls do not synchronise, except hepa_bp_dev_download (stated there).
 * Device pointers are those of the current device (cudaSetDevice).
 *
 * TWO TIERS, as on the host.
 *   hepa_bp_dev_* (checked): f, the pointers and N are checked on the host (NULL, sizes that
 *     cannot exist, device pointers that are plain host memory: HEPA_ERR_INVALID_ARGUMENT; a
 *     field the kernels are not compiled for: HEPA_ERR_UNSUPPORTED) before anything is enqueued.
 *     The device contents themselves are not checked (that would need a synchronisation): inputs
 *     must be canonical, as left by hepa_bp_dev_upload or by these kernels; other words give an
 *     unspecified result (but no out-of-bounds access).
 *   _hepa_bp_dev_* (raw): take the field as a hepa_bp_dev_field by value (filled once by
 *     hepa_bp_dev_field_init), check nothing but k, and only launch.
 * In both, N = 0 enqueues nothing and returns HEPA_OK (the checked tier still rejects NULL
 * pointers first). The output may alias an input exactly (d_z == d_x and/or d_z == d_y), but
 * must not overlap it partially. Each output is written in full and canonical.
 *
 * ERRORS of the launching calls: HEPA_ERR_NO_DEVICE (no usable GPU, and always in a CPU-only
 * build, where every function here returns it), HEPA_ERR_DEVICE (a CUDA call or launch failed;
 * hepa_last_error_message says which). A launch failure leaves the output undefined; every
 * argument error is reported before anything is enqueued, with the outputs untouched.
 *
 * Including this header requires <gmp.h> (through hepa/bigprime.h). */
#ifndef HEPA_BIGPRIME_CUDA_H
#define HEPA_BIGPRIME_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/bigprime.h"
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The field constants the kernels need, passed to them by value (nothing of the field lives in
 * device memory). Filled by hepa_bp_dev_field_init; treat as read-only. */
typedef struct hepa_bp_dev_field {
    uint64_t r;            /* 2^w + sign·2^u */
    unsigned w, u;         /* as hepa_bp_field_w / _u */
    int sign;              /* +1 or -1 */
    unsigned k;            /* digits per element: 8 or 16 */
    unsigned split_rounds; /* shift-and-subtract rounds that split a digit product x_i·y_j into
                            * h·r + l with |l| < 2^(w+2) (depends on w, u, r only) */
} hepa_bp_dev_field;

/* *out = the device constants of f. Pure host computation; call it once per field and reuse the
 * result with the raw tier.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL), HEPA_ERR_UNSUPPORTED (k not 8 or 16),
 * HEPA_ERR_NO_DEVICE (CPU-only build). *out is written only on success. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_field_init(const hepa_bp_field *f,
                                                            hepa_bp_dev_field *out);

/* ---- transfers (any field) ------------------------------------------------------------------- */

/* d_x (k·N words, device, digit-major) = h_x (N elements, host, element-major).
 * Every element of h_x is checked with hepa_bp_is_valid first; any invalid element gives
 * HEPA_ERR_INVALID_ARGUMENT before anything is copied (d_x untouched).
 * How: one host pass checks and transposes h_x into a temporary host buffer, which is copied
 * with cudaMemcpyAsync on `stream` and freed by a host function enqueued after the copy
 * (cudaLaunchHostFunc). So h_x may be reused as soon as the call returns, and the call does not
 * wait for the device (the CUDA runtime may still stage the pageable copy synchronously).
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL; k·N words overflow a size_t; d_x plain host memory;
 * an invalid element), HEPA_ERR_OUT_OF_MEMORY (the temporary), HEPA_ERR_NO_DEVICE,
 * HEPA_ERR_DEVICE (d_x undefined). */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_upload(const hepa_bp_field *f, uint64_t *d_x,
                                                        const uint64_t *h_x, size_t N,
                                                        void *stream);

/* h_x (N elements, host, element-major) = d_x (k·N words, device, digit-major).
 * SYNCHRONISES `stream`: the digits are copied into a temporary host buffer on `stream`, the
 * call waits for the stream (so everything enqueued before on it is complete), then transposes
 * into h_x. h_x is written only on success. The digits are copied as they are (not validated).
 * N = 0 returns HEPA_OK without synchronising.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL; size overflow; d_x plain host memory),
 * HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_NO_DEVICE, HEPA_ERR_DEVICE (also an earlier asynchronous
 * failure on the stream, reported by the synchronisation). */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_download(const hepa_bp_field *f, uint64_t *h_x,
                                                          const uint64_t *d_x, size_t N,
                                                          void *stream);

/* ---- element-wise arithmetic, checked (k = 8 or 16) -------------------------------------------
 * For j < N: element j of d_z = (element j of d_x) op (element j of d_y), canonical; each the
 * same digits as the host raw function on the same element. All vectors are device,
 * digit-major, N elements (k·N words). Errors as in the header comment. */

/* z = x + y (as _hepa_bp_add). */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_add(const hepa_bp_field *f, uint64_t *d_z,
                                                     const uint64_t *d_x, const uint64_t *d_y,
                                                     size_t N, void *stream);
/* z = x - y (as _hepa_bp_sub). */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_sub(const hepa_bp_field *f, uint64_t *d_z,
                                                     const uint64_t *d_x, const uint64_t *d_y,
                                                     size_t N, void *stream);
/* z = -x (as _hepa_bp_neg). */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_neg(const hepa_bp_field *f, uint64_t *d_z,
                                                     const uint64_t *d_x, size_t N, void *stream);
/* z = x·y (the value of _hepa_bp_mul, computed by the digit algorithm of _hepa_bp_mul_digits:
 * negacyclic schoolbook over the digits, each 128-bit digit product split into base-r digits by
 * shifts, one signed carry chain, the carry out of the top folded back with r^k ≡ -1). */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_mul(const hepa_bp_field *f, uint64_t *d_z,
                                                     const uint64_t *d_x, const uint64_t *d_y,
                                                     size_t N, void *stream);
/* z = x·r^i for 0 <= i < 2k (as _hepa_bp_mul_rpow: digit shift, wrapped digits negated; no
 * multiplication). i >= 2k is HEPA_ERR_INVALID_ARGUMENT. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_mul_rpow(const hepa_bp_field *f, uint64_t *d_z,
                                                          const uint64_t *d_x, size_t N,
                                                          unsigned i, void *stream);

/* ---- element-wise arithmetic, raw -------------------------------------------------------------
 * As the checked versions, with f replaced by its hepa_bp_dev_field. Nothing is checked except
 * df.k (HEPA_ERR_UNSUPPORTED unless 8 or 16); pointers must be valid device pointers of k·N
 * words, inputs canonical, and for mul_rpow i < 2k. N = 0 launches nothing. Returns the launch
 * status (HEPA_ERR_DEVICE / HEPA_ERR_NO_DEVICE on failure). */
HEPA_API HEPA_NODISCARD hepa_status _hepa_bp_dev_add(hepa_bp_dev_field df, uint64_t *d_z,
                                                      const uint64_t *d_x, const uint64_t *d_y,
                                                      size_t N, void *stream);
HEPA_API HEPA_NODISCARD hepa_status _hepa_bp_dev_sub(hepa_bp_dev_field df, uint64_t *d_z,
                                                      const uint64_t *d_x, const uint64_t *d_y,
                                                      size_t N, void *stream);
HEPA_API HEPA_NODISCARD hepa_status _hepa_bp_dev_neg(hepa_bp_dev_field df, uint64_t *d_z,
                                                      const uint64_t *d_x, size_t N, void *stream);
HEPA_API HEPA_NODISCARD hepa_status _hepa_bp_dev_mul(hepa_bp_dev_field df, uint64_t *d_z,
                                                      const uint64_t *d_x, const uint64_t *d_y,
                                                      size_t N, void *stream);
HEPA_API HEPA_NODISCARD hepa_status _hepa_bp_dev_mul_rpow(hepa_bp_dev_field df, uint64_t *d_z,
                                                           const uint64_t *d_x, size_t N,
                                                           unsigned i, void *stream);

/* ---- FFT (k = 8 or 16) ------------------------------------------------------------------------
 * In place on the device vector d_x (N elements, digit-major, k·N words): the DFT of
 * hepa_bp_fft, with the same convention and the same roots, and bit-exact with it:
 *   forward (inverse == 0):  X_j = Σ_i x_i·ω^(i·j),          ω = hepa_bp_root_of_unity(f, N)
 *   inverse (inverse != 0):  x_i = N^(-1)·Σ_j X_j·ω^(-i·j)
 * natural order in and out. Inputs must be canonical (not checked: see the header comment).
 *
 * SUPPORTED N: every power of two N with N | 2^v2 (hepa_bp_field_v2) and N <= 2^38, i.e. all
 * N = K^e·2^f (K = 2k; 0 <= f < log2 K), N = 1 included (a no-op). Memory permitting.
 *
 * HOW: a Stockham radix-K FFT, one kernel launch per level, ceil(log2 N / log2 K) levels (the
 * one radix 2^f < K level first); each level reads and writes the vector once. Inside a level the
 * K-point DFTs use only powers of r (digit rotations and negations, no general multiplication);
 * the twiddles between levels are general multiplications by powers of ω taken from a table of
 * max(N/K, 1) elements (two for the inverse, whose last level's table includes N^(-1)) that is
 * built on the device at each call from about 2·sqrt(N/K) seed powers computed on the host.
 * P3 at N = 2^20: 5 levels + the table (1/16 of the vector) per transform.
 *
 * RESOURCES: one workspace per call, allocated with cudaMallocAsync on `stream` and released
 * with cudaFreeAsync on it (the stream's memory pool): a scratch vector of N elements when
 * N > K, plus the tables (about N/K or 2N/K elements) and the seeds. The seeds travel through a
 * pageable host buffer copied with cudaMemcpyAsync and freed by a host function enqueued after
 * the copy (as hepa_bp_dev_upload). Nothing synchronises; everything is enqueued on `stream`.
 *
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL f or d_x; N = 0 or not a power of two, as
 * hepa_bp_fft; k·N words too many to exist; d_x plain host memory), HEPA_ERR_UNSUPPORTED (k not
 * 8 or 16; N does not divide 2^v2, or N > 2^38), HEPA_ERR_OUT_OF_MEMORY (host seeds or the
 * device workspace),
 * HEPA_ERR_NO_DEVICE, HEPA_ERR_DEVICE (a CUDA call or launch failed; d_x undefined).
 * Argument errors are reported before anything is enqueued, d_x untouched. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_fft(const hepa_bp_field *f, uint64_t *d_x,
                                                     size_t N, int inverse, void *stream);

/* ---- FFT plans and polynomial products (k = 8 or 16) -------------------------------------------
 * A plan holds everything a transform of size N needs, built once, like a cuFFT plan: the twiddle
 * tables of both directions (with N^(-1) folded into the inverse's), a scratch vector, two
 * spectrum vectors for products and, with HEPA_BP_PLAN_NEGACYCLIC, the twist tables ψ^i and
 * ψ^(-i) (ψ = hepa_bp_root_of_unity(f, 2N), ψ^N = -1). Executing a plan allocates nothing, copies
 * nothing from the host and does not synchronise: the per-call table building of
 * hepa_bp_dev_fft (~80 µs for P3, ~200 µs for P4 on an H100) is gone.
 * Device memory: (3 + 2·[negacyclic])·N + 3·max(N/K, 1) elements of k words (P3 at N = 2^20 and
 * negacyclic: 5·64 MiB + 12 MiB).
 * CONCURRENCY: a plan's scratch and spectrum vectors are shared by its calls, so calls on one plan
 * must be ordered (one stream, or events between streams), as for a cuFFT plan's work area.
 * Different plans are independent. The plan does not keep f: the field may be destroyed after
 * plan creation. */
typedef struct hepa_bp_dev_plan hepa_bp_dev_plan;

/* The plan also supports negacyclic products (needs 2N | 2^v2). */
#define HEPA_BP_PLAN_NEGACYCLIC 1u

/* *plan = a plan for size N (a power of two with N | 2^v2, 2N | 2^v2 with
 * HEPA_BP_PLAN_NEGACYCLIC, N <= 2^38) of field f. Synchronous: builds the tables on a private
 * stream and waits for them, so the plan is ready for any stream when the call returns.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL; N = 0 or not a power of two; N·k words too many to
 * exist; unknown flag bits), HEPA_ERR_UNSUPPORTED (k not 8 or 16; N, or 2N for a negacyclic
 * plan, does not divide 2^v2; N > 2^38), HEPA_ERR_OUT_OF_MEMORY (host or device),
 * HEPA_ERR_NO_DEVICE, HEPA_ERR_DEVICE. *plan is written only on success. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_plan_create(hepa_bp_dev_plan **plan,
                                                             const hepa_bp_field *f, size_t N,
                                                             unsigned flags);
/* Frees the plan's device memory (cudaFree: waits for the device). NULL is a no-op. Work still
 * enqueued that uses the plan must be complete or ordered before it. */
HEPA_API void hepa_bp_dev_plan_destroy(hepa_bp_dev_plan *plan);
/* The plan's N (0 for NULL). */
HEPA_API size_t hepa_bp_dev_plan_size(const hepa_bp_dev_plan *plan);

/* d_out = the DFT of d_in (forward when inverse == 0, inverse otherwise), exactly as
 * hepa_bp_dev_fft (same convention, bit-exact), N elements digit-major. d_out == d_in runs in
 * place; otherwise d_in is only read (it must not overlap d_out partially). Enqueued on stream;
 * no allocation, no synchronisation.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL; plain host memory), HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_plan_fft(const hepa_bp_dev_plan *plan,
                                                          uint64_t *d_out, const uint64_t *d_in,
                                                          int inverse, void *stream);

/* d_z = d_x · d_y mod (x^N - 1) (negacyclic == 0) or mod (x^N + 1) (negacyclic != 0), the
 * polynomials given by their N coefficients in Z/pZ (coefficient of x^j = element j, device,
 * digit-major); the same values as the host's hepa_bp_poly_mul. d_z may alias d_x and/or d_y
 * exactly. Through the FFT with the work fused into its passes:
 *   forward(d_x ⊙ ψ^i) -> A and forward(d_y ⊙ ψ^i) -> B, the twist ψ^i (negacyclic only) applied
 *     as the first level loads its input (d_x == d_y transforms once);
 *   d_z = inverse(A ⊙ B), the pointwise product applied as the inverse's first level loads;
 *   negacyclic: d_z ⊙= ψ^(-i) (one more element-wise pass).
 * So a product is three transforms plus, for the negacyclic one, one element-wise pass.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL; plain host memory; negacyclic on a plan made without
 * HEPA_BP_PLAN_NEGACYCLIC), HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_dev_poly_mul(const hepa_bp_dev_plan *plan,
                                                          uint64_t *d_z, const uint64_t *d_x,
                                                          const uint64_t *d_y, int negacyclic,
                                                          void *stream);

/* ---- the RNS route (for comparison, seed 002) -------------------------------------------------
 * The negacyclic product of hepa_bp_dev_poly_mul computed the way an RNS library would: lift the
 * coefficients to integers in [0, p), multiply exactly over Z through s word-size NTT primes
 * (Q = q_1···q_s > 4·N·p^2, the largest 62-bit primes q ≡ 1 mod 2N) with the GPU ring layer
 * (hepa/ring.h: forward NTTs, pointwise product fused into the inverse NTT), then exact CRT
 * recombination on the device, straight to Z/pZ (src/ntt/bigprime_rns_cuda.cu says how). The
 * result is bit-exact with the big-prime FFT route. s = 17 for P3 and 33 for P4 at N = 2^16.
 * Sizes: 16 <= N <= HEPA_RING_MAX_N (the ring layer's range). Same concurrency rule as an FFT
 * plan: calls on one RNS plan must be ordered. The work runs on the plan's own ring stream,
 * ordered after the work already on `stream` and before the work enqueued on it later (events):
 * to the caller it behaves as if enqueued on `stream`. */
typedef struct hepa_bp_rns_plan hepa_bp_rns_plan;

/* *plan = an RNS plan for negacyclic products of N coefficients mod p (field f): picks the
 * primes, creates their ring (CUDA backend), two s·N-word buffers and the CRT constants
 * (computed with GMP). Synchronous. The plan does not keep f.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL; N = 0 or not a power of two), HEPA_ERR_UNSUPPORTED
 * (k not 8 or 16; N outside [16, HEPA_RING_MAX_N]; more than HEPA_RING_MAX_MODULI primes
 * needed), HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_NO_DEVICE, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_rns_plan_create(hepa_bp_rns_plan **plan,
                                                             const hepa_bp_field *f, size_t N);
/* Frees the plan (waits for the device). NULL is a no-op. */
HEPA_API void hepa_bp_rns_plan_destroy(hepa_bp_rns_plan *plan);
/* The number s of primes (0 for NULL) and the primes themselves (host array of s; NULL for
 * NULL), largest first. */
HEPA_API size_t hepa_bp_rns_plan_primes(const hepa_bp_rns_plan *plan);
HEPA_API const uint64_t *hepa_bp_rns_plan_moduli(const hepa_bp_rns_plan *plan);

/* d_z = d_x · d_y mod (x^N + 1) over Z/pZ, device digit-major vectors of N canonical elements,
 * the same digits as hepa_bp_dev_poly_mul(..., negacyclic = 1). d_z may alias d_x and/or d_y.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL; a pointer that is not device memory),
 * HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_bp_rns_poly_mul(const hepa_bp_rns_plan *plan,
                                                          uint64_t *d_z, const uint64_t *d_x,
                                                          const uint64_t *d_y, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* HEPA_BIGPRIME_CUDA_H */
