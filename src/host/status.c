/* src/host/status.c — names of status codes. */
#include "hepa/status.h"

const char *hepa_status_string(hepa_status status) {
    switch (status) {
    case HEPA_OK: return "HEPA_OK: success";
    case HEPA_ERR_INVALID_ARGUMENT: return "HEPA_ERR_INVALID_ARGUMENT: invalid argument";
    case HEPA_ERR_UNSUPPORTED: return "HEPA_ERR_UNSUPPORTED: not supported by this build or backend";
    case HEPA_ERR_OUT_OF_MEMORY: return "HEPA_ERR_OUT_OF_MEMORY: out of memory";
    case HEPA_ERR_NO_DEVICE: return "HEPA_ERR_NO_DEVICE: no usable CUDA device";
    case HEPA_ERR_DEVICE: return "HEPA_ERR_DEVICE: CUDA error";
    case HEPA_ERR_MISMATCH: return "HEPA_ERR_MISMATCH: operands of different rings or levels";
    case HEPA_ERR_DOMAIN: return "HEPA_ERR_DOMAIN: operand in the wrong domain (coefficient/NTT)";
    }
    return "unknown hepa_status";
}
