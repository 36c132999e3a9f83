/* bench/experiments/dft_split.c — one pass vs the four-step split at the sizes where a DFT plan
 * could do either (the largest one-pass size of each mode, and the one below), 1 GiB batches,
 * forward, out of place, CUDA events, median of 20. Decides mode_sizes() in dft_cuda.cu.
 * Build (after the library): cc -O2 -Iinclude bench/experiments/dft_split.c -Lbuild-gpu -lhepa \
 *   -L$CUDA/lib64 -lcudart -Wl,-rpath,build-gpu -o dft_split */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "hepa/dft.h"

static int cmp(const void *a, const void *b) {
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(void) {
    const size_t bytes = (size_t)1 << 30;
    void *a, *b;
    if (cudaMalloc(&a, bytes) || cudaMalloc(&b, bytes)) return 1;
    cudaMemset(a, 0, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    static const struct { hepa_dft_mode m; const char *name; size_t elem; unsigned lg[2]; } cases[] = {
        {HEPA_DFT_FP16, "FP16", 4, {14, 15}},
        {HEPA_DFT_FP16X2, "FP16X2", 8, {13, 14}},
        {HEPA_DFT_FP64, "FP64", 16, {12, 13}},
    };
    printf("| mode | n | split l1 | median µs | GB/s |\n|---|---|---|---|---|\n");
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 2; ++k) {
            const unsigned lg = cases[c].lg[k];
            const size_t n = (size_t)1 << lg, batch = bytes / cases[c].elem / n;
            const unsigned splits[2] = {0, lg / 2};
            for (int s = 0; s < 2; ++s) {
                hepa_dft_plan *p;
                if (_hepa_dft_plan_create_split(&p, n, batch, cases[c].m, splits[s]) != HEPA_OK) {
                    printf("| %s | 2^%u | %u | (no such plan) | |\n", cases[c].name, lg, splits[s]);
                    continue;
                }
                float t[23];
                for (int i = 0; i < 23; ++i) {
                    cudaEventRecord(e0, 0);
                    if (hepa_dft_exec(p, b, a, 0, NULL) != HEPA_OK) return 1;
                    cudaEventRecord(e1, 0);
                    cudaEventSynchronize(e1);
                    cudaEventElapsedTime(&t[i], e0, e1);
                }
                qsort(t + 3, 20, sizeof *t, cmp);
                const double med = 0.5 * (t[12] + t[13]) * 1e-3;
                printf("| %s | 2^%u | %u | %.1f | %.0f |\n", cases[c].name, lg, splits[s],
                       med * 1e6, 2.0 * (double)bytes / med / 1e9);
                hepa_dft_plan_destroy(p);
            }
        }
    return 0;
}
