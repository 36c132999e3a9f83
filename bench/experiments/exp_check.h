/* bench/experiments/exp_check.h — the experiment drivers' check of a hepa call: print the call
 * and its status, exit 1. (hepa-bench has its own, with the run's context: bench/bench_gpu.c.) */
#ifndef HEPA_BENCH_EXPERIMENTS_EXP_CHECK_H
#define HEPA_BENCH_EXPERIMENTS_EXP_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "hepa/hepa.h"

#define HK(x)                                                                                      \
    do {                                                                                           \
        const hepa_status s_ = (x);                                                                \
        if (s_ != HEPA_OK) {                                                                       \
            fprintf(stderr, "%s: %s\n", #x, hepa_status_string(s_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
