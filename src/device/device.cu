// src/device/device.cu — CUDA runtime glue: device discovery. (Contexts, streams, memory pools
// and error mapping arrive with the CUDA ring backend.)
#include <cuda_runtime.h>

#include "device/internal.h"
#include "hepa/ring.h"

extern "C" int hepa_device_count(void) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        // No driver, no device, or an insufficient driver: all mean "no usable GPU". Clear the
        // sticky-free error so later runtime calls do not report it.
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

extern "C" HEPA_API int hepa_cuda_available(void) { return hepa_device_count() > 0; }
