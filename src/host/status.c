/* src/host/status.c — names of status codes. */
#include <stdarg.h>
#include <stdio.h>

#include "device/internal.h"
#include "hepa/status.h"

/* Per-thread text behind hepa_last_error_message. */
static _Thread_local char last_error[256];

const char *hepa_last_error_message(void) { return last_error; }

void _hepa_set_error_message(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

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
    case HEPA_ERR_RANGE: return "HEPA_ERR_RANGE: value out of range (does not fit the modulus)";
    }
    return "unknown hepa_status";
}
