/* hepa/dft.h — batched complex DFTs of power-of-two sizes, on the host (reference) and on the
 * device (plans, like cuFFT's).
 *
 * Convention (cuFFT's): forward X_t = Σ_k x_k·e^(-2πi·tk/n), inverse with e^(+2πi·tk/n), neither
 * normalised (inverse(forward(x)) = n·x). Vectors are interleaved complex doubles: element k of
 * vector b is (re, im) = (x[2(b·n + k)], x[2(b·n + k) + 1]) — the layout of C's double complex
 * and of cuDoubleComplex.
 *
 * Precision modes (chosen at plan creation):
 *   HEPA_DFT_FP64    double precision. Today on the CUDA cores (radix-16 Stockham passes, one
 *                    read and one write of the batch per pass); measured relative L2 error
 *                    against a long double reference: see README / bench/results.
 *   HEPA_DFT_FP16, HEPA_DFT_FP16X2   tensor-core modes (issue 4): not built yet; plan creation
 *                    returns HEPA_ERR_UNSUPPORTED.
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
    HEPA_DFT_FP16X2 = 2
} hepa_dft_mode;

/* Smallest and largest transform size of a plan. */
#define HEPA_DFT_MIN_N ((size_t)2)
#define HEPA_DFT_MAX_N ((size_t)1 << 20)

/* Host reference, double precision: `batch` transforms of size n (a power of two, 1 <= n <=
 * 2^20) in place on x (2·n·batch doubles). Iterative radix-2 with twiddles rounded from long
 * double. Errors: HEPA_ERR_INVALID_ARGUMENT (NULL with n·batch > 0, n not a power of two or too
 * large), HEPA_ERR_OUT_OF_MEMORY. */
HEPA_API HEPA_NODISCARD hepa_status hepa_dft_host(double *x, size_t n, size_t batch, int inverse);

typedef struct hepa_dft_plan hepa_dft_plan;

/* A device plan for `batch` transforms of size n on the current CUDA device: twiddle tables
 * uploaded and a scratch batch allocated once. n: power of two in [HEPA_DFT_MIN_N,
 * HEPA_DFT_MAX_N]; batch >= 1.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL out, bad n or batch, unknown mode),
 * HEPA_ERR_UNSUPPORTED (a mode not built yet; a CPU-only build), HEPA_ERR_NO_DEVICE,
 * HEPA_ERR_OUT_OF_MEMORY, HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_dft_plan_create(hepa_dft_plan **out, size_t n,
                                                          size_t batch, hepa_dft_mode mode);
HEPA_API void hepa_dft_plan_destroy(hepa_dft_plan *plan);

/* Raw tier: as hepa_dft_exec without any check (plan and pointers valid, device memory). */
HEPA_API HEPA_NODISCARD hepa_status _hepa_dft_exec(const hepa_dft_plan *plan, double *d_out,
                                                    const double *d_in, int inverse,
                                                    void *stream);

/* d_out = DFT of d_in (both device, 2·n·batch doubles; d_out == d_in allowed, other overlaps
 * not), forward (inverse = 0) or inverse, enqueued on `stream` (a cudaStream_t; NULL = the
 * default stream). The plan's scratch makes concurrent executions of one plan unsafe.
 * Errors: HEPA_ERR_INVALID_ARGUMENT (NULL, host memory), HEPA_ERR_DEVICE. */
HEPA_API HEPA_NODISCARD hepa_status hepa_dft_exec(const hepa_dft_plan *plan, double *d_out,
                                                   const double *d_in, int inverse, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* HEPA_DFT_H */
