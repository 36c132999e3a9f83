/* bench/experiments/dft_profile.c — a minimal driver for profiling one DFT plan under Nsight
 * Compute: forward executions of a plan over a 1 GiB batch (the size --dft measures), nothing else
 * on the GPU.
 *
 *   cc -O2 -I include -I/usr/local/cuda/include -o dftprof bench/experiments/dft_profile.c \
 *      -L build-gpu -lhepa -lcudart -L/usr/local/cuda/lib64 -Wl,-rpath,build-gpu
 *   ./dftprof fp16 13 30          (mode fp16 | fp16x2 | fp64, log2 n, timed runs: median, GB/s)
 *   ./dftprof fp64 16 30 ip       (in place: every execution transforms the input buffer)
 *   ncu -k regex:dft_ --launch-skip 3 --launch-count 1 --section ... ./dftprof fp16 13 0
 *
 * The input is every byte 0x3c (finite, moderate values in every mode); three executions warm up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "hepa/dft.h"

static int cmp_float(const void *a, const void *b) {
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s fp16|fp16x2|fp32|fp64 LOGN [REPS]\n", argv[0]);
        return 2;
    }
    const hepa_dft_mode mode = !strcmp(argv[1], "fp64")     ? HEPA_DFT_FP64
                               : !strcmp(argv[1], "fp32")   ? HEPA_DFT_FP32
                               : !strcmp(argv[1], "fp16x2") ? HEPA_DFT_FP16X2
                                                            : HEPA_DFT_FP16;
    const size_t elem = mode == HEPA_DFT_FP64 ? 16 : mode == HEPA_DFT_FP16 ? 4 : 8;
    const size_t n = (size_t)1 << atoi(argv[2]), batch = ((size_t)1 << 30) / (n * elem);
    const int reps = argc > 3 ? atoi(argv[3]) : 0, in_place = argc > 4 && !strcmp(argv[4], "ip");
    void *in, *out;
    if (cudaMalloc(&in, n * batch * elem)) return 1;
    if (in_place)
        out = in;
    else if (cudaMalloc(&out, n * batch * elem))
        return 1;
    cudaMemset(in, 0x3c, n * batch * elem);
    hepa_dft_plan *plan;
    if (hepa_dft_plan_create(&plan, n, batch, mode) != HEPA_OK) return 1;
    for (int r = 0; r < 3; ++r)
        if (hepa_dft_exec(plan, out, in, 0, NULL) != HEPA_OK) return 1;
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    printf("%s n = %zu, batch %zu, passes %d%s\n", argv[1], n, batch, _hepa_dft_plan_passes(plan),
           in_place ? ", in place" : "");
    if (reps > 0) {
        float *ms = malloc(sizeof *ms * (size_t)reps);
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        for (int r = 0; r < reps; ++r) {
            cudaEventRecord(a, 0);
            if (hepa_dft_exec(plan, out, in, 0, NULL) != HEPA_OK) return 1;
            cudaEventRecord(b, 0);
            cudaEventSynchronize(b);
            cudaEventElapsedTime(&ms[r], a, b);
        }
        qsort(ms, (size_t)reps, sizeof *ms, cmp_float);
        printf("median %.1f us, %.0f GB/s (one read + one write)\n", 1e3 * ms[reps / 2],
               2.0 * (double)(n * batch * elem) / (1e-3 * ms[reps / 2]) / 1e9);
        free(ms);
    }
    hepa_dft_plan_destroy(plan);
    cudaFree(in);
    if (!in_place) cudaFree(out);
    return 0;
}
