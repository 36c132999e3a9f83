/* tests/test_ckks_scheme.c — the CKKS example (examples/ckks) on the CPU backend: encrypt,
 * decrypt, add, multiply + relinearize + rescale, rotate, within the example's noise bounds, and
 * its bad-input statuses (ckks_scheme_checks.h; the CUDA run is in tests/gpu/test_gpu_rns.c). */
#include "ckks_scheme_checks.h"

Test(ckks_scheme, cpu) { ckks_scheme_checks(HEPA_BACKEND_CPU); }
