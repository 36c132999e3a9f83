/* bench/bench_gpu_main.c — temporary stand-alone driver for the GPU suite (until it is wired
 * into hepa-bench's option parser): hepa-bench-gpu [n_log_min n_log_max] */
#include <stdlib.h>
#include "bench_gpu.h"
#ifndef HEPA_GIT_COMMIT
#define HEPA_GIT_COMMIT "unknown"
#endif
int main(int argc, char **argv) {
    size_t ns[6], Ls[4] = {1, 8, 34, 64};
    int lo = argc > 1 ? atoi(argv[1]) : 12, hi = argc > 2 ? atoi(argv[2]) : 17, c = 0;
    for (int l = lo; l <= hi && c < 6; ++l) ns[c++] = (size_t)1 << l;
    return hepa_bench_gpu_suite(ns, (size_t)c, Ls, 4, 60, 60, 0, HEPA_GIT_COMMIT);
}
