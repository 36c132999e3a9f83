/* tests/gpu/gpu_main.c — the main of every GPU test program: without a usable CUDA device exit 77
 * (CTest's SKIP_RETURN_CODE: reported as skipped, not failed), else run the Criterion tests. */
#include <stdio.h>

#include <criterion/criterion.h>

#include "hepa/hepa.h"

int main(int argc, char **argv) {
    if (!hepa_cuda_available()) {
        fprintf(stderr, "SKIPPED: no usable CUDA device (GPU tests need one)\n");
        return 77;
    }
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true)) result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
