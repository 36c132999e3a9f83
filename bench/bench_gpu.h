/* bench/bench_gpu.h — the GPU suite of hepa-bench (bench_gpu.c; built with the CUDA backend). */
#ifndef HEPA_BENCH_GPU_H
#define HEPA_BENCH_GPU_H
#include <stddef.h>

/* Runs the suite over every (n, L) pair; prints a Markdown table (or JSON) to stdout.
 * Returns 0 on success. */
int hepa_bench_gpu_suite(const size_t *ns, size_t n_count, const size_t *Ls, size_t L_count,
                         unsigned bits, size_t reps, int json, const char *commit);
#endif
