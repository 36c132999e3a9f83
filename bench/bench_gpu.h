/* bench/bench_gpu.h — the GPU suite of hepa-bench (bench_gpu.c; built with the CUDA backend). */
#ifndef HEPA_BENCH_GPU_H
#define HEPA_BENCH_GPU_H
#include <stddef.h>

/* Runs the suite over every (n, L) pair; prints a Markdown table (or JSON) to stdout.
 * Returns 0 on success. */
int hepa_bench_gpu_suite(const size_t *ns, size_t n_count, const size_t *Ls, size_t L_count,
                         unsigned bits, size_t reps, int json, const char *commit);
/* Big-prime fields on the device (P3, P4): FFT forward/inverse for N = 2^10 .. 2^20 and the
 * element-wise product at N = 2^20, CUDA events, median of `reps`; prints a Markdown table (or
 * JSON). Returns 0 on success. */
int hepa_bench_bp_suite(size_t reps, int json, const char *commit);
/* Negacyclic products mod P3 and P4 for N = 2^10 .. 2^20, big-prime FFT route (plan) vs RNS
 * route (N <= HEPA_RING_MAX_N), outputs compared element by element, plus one big-prime FFT vs
 * the s small-prime NTTs it replaces. Markdown table (or JSON). Returns 0 when all agree. */
int hepa_bench_bp_compare(size_t reps, int json, const char *commit);
/* CKKS encode / decode latency (N = 2^16, 34 limbs of 60 bits, Δ = 2^40; slots on the device,
 * decode to device and to host memory), host wall time, median of `reps`. Markdown. */
int hepa_bench_ckks(size_t reps, const char *commit);
/* Batched DFT plans in every precision mode for n = 2^10 .. 2^16 (1 GiB batches) next to cuFFT of
 * the matching precision in the same run (when hepa-bench was built with cuFFT), and both
 * libraries' errors at n = 2^15. CUDA events, median of `reps`. Markdown. */
int hepa_bench_dft(size_t reps, const char *commit);
/* Ciphertext building blocks at issue 6's parameter sets (N, Q primes, P primes): multiply +
 * relinearize, tensor, key switch and its three steps, rescale, rotation; CUDA events, median of
 * `reps`, each against its byte floor. Markdown. */
/* only_n, only_l: run only the parameter sets with that N / that many Q primes (0: all) */
int hepa_bench_ks(size_t reps, const char *commit, size_t only_n, size_t only_l);
#endif
