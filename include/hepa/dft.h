/* hepa/dft.h — batched complex DFTs of power-of-two sizes, on the host (reference) and on the
 * device (plans, like cuFFT's).
 *
 * Convention (cuFFT's): forward X_t = Σ_k x_k·e^(-2πi·tk/n), inverse with e^(+2πi·tk/n), neither
 * normalised (inverse(forward(x)) = n·x). Vectors are interleaved complex doubles: element k of
 * vector b is (re, im) = (x[2(b·n + k)], x[2(b·n + k) + 1]) — the layout of C's double complex
 * and of cuDoubleComplex.
 *
 * Precision modes (chosen at plan creation) and the element type of the device buffers:
 *   HEPA_DFT_FP64    complex double (16 bytes: re, im): radix-16 on the CUDA cores in double
 *                    (the FP64 tensor cores measured 4.2x slower for a radix-16 stage on an
 *                    H100: bench/results/2026-11-24-h100-dft16-dmma.md).
 *   HEPA_DFT_FP16    complex half (4 bytes: re, im as IEEE binary16, i.e. __half2 / cuFFT's
 *                    CUDA_C_16F): radix-16 DFTs as FP16 matrix products on the tensor cores with
 *                    FP32 accumulation (seed 000), FP16 between stages. As with cuFFT half, the
 *                    caller keeps |output| <= 65504 (the DFT grows values up to n-fold).
 *   HEPA_DFT_FP16X2  complex float (8 bytes, cuFloatComplex): the same matrix products with every
 *                    operand split into a high and a scaled low FP16 part (three products, two
 *                    FP32 accumulators), FP32 between stages; each block scales its data by a
 *                    power of two first, so any finite float input works.
 *   HEPA_DFT_FP32    complex float (8 bytes, cuFloatComplex): FP64's radix-16 kernels on the CUDA
 *                    cores in float (cuFFT single's accuracy class, no tensor cores). The mode
 *                    to take for FP32-level results: as fast as cuFFT single or faster except at
 *                    2^14 (see Speed), where FP16X2 is slower still.
 *   Needs sm_80 or newer for the two tensor-core modes (HEPA_ERR_UNSUPPORTED below).
 * Measured relative L2 error (H100, d84bc68, FP64 at 676b860; inputs uniform in [-1, 1) rounded
 * to the type, against hepa_dft_host_ld of the same values; forward; tests/gpu/test_gpu_ckks.c
 * asserts the bounds for n = 2 ... 2^16 and 2^20, both directions):
 *   FP64    5.8e-17 (n = 4) ... 2.7e-16 (2^15) ... 2.9e-16 (2^20);   bound 1e-15
 *   FP16X2  3.0e-8  (n = 2) ... 2.2e-7  (2^15) ... 2.7e-7  (2^20);   bound 1e-6
 *   FP32    3.3e-8  (n = 2) ... 1.7e-7  (2^15) ... 1.7e-7  (2^20);   bound 1e-6  (703ef75)
 *   FP16    2.5e-4  (n = 4) ... 5.0e-4  (2^15) ... 6.0e-4  (2^20);   bound 2e-3
 * (cuFFT at 2^15 on the same inputs: 3.7e-16 double, 2.4e-7 single, 1.7e-3 half.)
 * Plans run one pass (one read and one write of the batch) while a vector fits a block's shared
 * memory (n <= 2^13 FP64, 2^14 FP32, FP16X2 and FP16) and two (four-step) above; batches of fewer
 * than 264 vectors take the four-step route from n = 2^13 (FP64) and 2^14 (FP32, FP16X2) so that
 * one vector spreads over many blocks. On GPUs with thread-block clusters (sm_90), plans of 2^14
 * ... 2^16 (FP16: 2^15, 2^16) whose batch holds more than 2^16 elements run one pass, a vector per
 * cluster (FP16X2 2^14 too, from 264 vectors, in place of its one-block pass); FP64 plans of
 * 2^14 ... 2^16 (FP32: 2^15, 2^16) there run both passes of a four-step in one launch instead,
 * the intermediate staying in L2 (one read and one write of the batch from DRAM); in place,
 * through a ring of about 16 MiB that the plan allocates (a few percent slower than out of place).
 * HEPA_DFT_NO_L2SQ=1 when a plan is created: those FP64 and FP32 plans run the cluster kernel that
 * devices which cannot run the L2 one get instead, for tests and comparisons. It is slower (H100,
 * GB/s, L2 kernel -> cluster kernel): FP64 2^14 2182 -> 1983, 2^15 2191 -> 1579, 2^16 2172 ->
 * 1214; FP32 2^15 2194 -> 848, 2^16 2169 -> 678 (below cuFFT single).
 * Speed (H100, 1 GiB batches, bench/results/): 0.61-1.05x cuFFT's for n = 2^10 ... 2^13 (FP32
 * 1.00x, FP64 0.99-1.05x, FP16X2 0.61-1.02x, FP16 0.79-0.92x); from 2^14 FP16 1.15-1.40x, FP16X2
 * 0.59-0.99x, FP32 0.94x at 2^14 and 1.22x / 1.58x at 2^15 / 2^16, FP64 1.38-1.49x.
 * Under compute-sanitizer memcheck, set HEPA_DFT_THREAD_COPY=1 before creating FP16/FP16X2 plans
 * of 2^14 ... 2^16: memcheck (2025.3.1) rejects the bulk copies between the blocks of a cluster
 * (and the results then come out wrong); this moves the same bytes by thread stores, about 2x
 * slower.
 */
#ifndef HEPA_DFT_H
#define HEPA_DFT_H

#include <stddef.h>
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hepa_dft_mode {
    HEPA_DFT_FP64 = 0,
    HEPA_DFT_FP16 = 1,
    HEPA_DFT_FP16X2 = 2,
    HEPA_DFT_FP32 = 3
} hepa_dft_mode;

/* Smallest and largest transform size of a plan. */
#define HEPA_DFT_MIN_N ((size_t)2)
#define HEPA_DFT_MAX_N ((size_t)1 << 20)

/* Host reference, double precision: `batch` transforms of size n (a power of two, 1 <= n <=
 * 2^20) in place on x (2·n·batch doubles). Iterative radix-2 with twiddles rounded from long
 * double. Errors: HEPA_ERR_INVALID_ARGUMENT (NULL with n·batch > 0, n not a power of two or too
 * large), HEPA_ERR_OUT_OF_MEMORY. */
HEPA_API HEPA_NODISCARD hepa_status hepa_dft_host(double *x, size_t n, size_t batch, int inverse);

/* High-precision host reference, long double: as hepa_dft_host on x (2·n·batch long doubles).
 * Used by the tests to measure the error of the other paths. Same errors as hepa_dft_host. */
HEPA_API HEPA_NODISCARD hepa_status hepa_dft_host_ld(long double *x, size_t n, size_t batch,
                                                     int inverse);

typedef struct hepa_dft_plan hepa_dft_plan;

/* A device plan for `batch` transforms of size n on the current CUDA device: twiddle tables
 * uploaded and a scratch batch allocated once. n: power of two in [HEPA_DFT_MIN_N,
 * HEPA_DFT_MAX_N]; batch >= 1.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL out, bad n or batch, unknown mode),
 * HEPA_ERR_UNSUPPORTED (a tensor-core mode on a GPU older than sm_80; a CPU-only build), HEPA_ERR_NO_DEVICE,
 * HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_dft_plan_create(hepa_dft_plan **out, size_t n,
                                                          size_t batch, hepa_dft_mode mode);
HEPA_API void hepa_dft_plan_destroy(hepa_dft_plan *plan);

/* Raw tier: as hepa_dft_exec without any check (plan and pointers valid, device memory). */
HEPA_API HEPA_NODISCARD hepa_status _hepa_dft_exec(const hepa_dft_plan *plan, void *d_out,
                                                    const void *d_in, int inverse, void *stream);

/* Raw tier, for measurements: a plan with the four-step split forced (l1 = log2 of pass A's
 * size, 0 = one pass). HEPA_ERR_INVALID_ARGUMENT when the split does not fit the mode's block. */
HEPA_API HEPA_NODISCARD hepa_status _hepa_dft_plan_create_split(hepa_dft_plan **out, size_t n,
                                                                size_t batch, hepa_dft_mode mode,
                                                                unsigned l1);
/* Number of passes over the batch a plan makes (1 or 2). */
HEPA_API int _hepa_dft_plan_passes(const hepa_dft_plan *plan);
/* The kernel a plan runs, for tests and measurements: "l2sq" (both passes of a four-step in one
 * launch), "cluster" (one pass, a vector per thread-block cluster), "stockham" (one pass,
 * register-resident), "one-pass" (one pass through shared memory), "four-step" (two passes);
 * "none" in a build without CUDA. */
HEPA_API const char *_hepa_dft_plan_kernel(const hepa_dft_plan *plan);

/* d_out = DFT of d_in (both device, 16-byte aligned, n·batch elements of the plan's type;
 * d_out == d_in allowed, other overlaps not), forward (inverse = 0) or inverse, enqueued on
 * `stream` (a cudaStream_t; NULL = the default stream). The plan's scratch (and counters) make
 * concurrent executions of one plan unsafe.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, host memory, misaligned), HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_dft_exec(const hepa_dft_plan *plan, void *d_out,
                                                   const void *d_in, int inverse, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* HEPA_DFT_H */
