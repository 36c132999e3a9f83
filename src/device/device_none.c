/* src/device/device_none.c — stands in for the CUDA glue in a CPU-only build. */
#include "device/internal.h"
#include "hepa/ring.h"

int hepa_device_count(void) { return 0; }

HEPA_API int hepa_cuda_available(void) { return 0; }
