/* hepa/status.h — status codes returned by every hepa call that can fail.
 *
 * Every fallible function returns a hepa_status; HEPA_OK (0) means success. Results go through
 * out-parameters. A call that fails leaves its outputs untouched unless its documentation says
 * the outputs are undefined on failure. */
#ifndef HEPA_STATUS_H
#define HEPA_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Marks functions whose status must not be ignored. */
#if defined(__GNUC__) || defined(__clang__)
#define HEPA_NODISCARD __attribute__((warn_unused_result))
#else
#define HEPA_NODISCARD
#endif

/* Symbol visibility for the shared library (the static library ignores it). */
#if defined(__GNUC__) || defined(__clang__)
#define HEPA_API __attribute__((visibility("default")))
#else
#define HEPA_API
#endif

typedef enum hepa_status {
    HEPA_OK = 0,                    /* success */
    HEPA_ERR_INVALID_ARGUMENT = 1,  /* NULL pointer, out-of-range size, bad modulus, ... */
    HEPA_ERR_UNSUPPORTED = 2,       /* valid request this build or backend cannot serve */
    HEPA_ERR_OUT_OF_MEMORY = 3,     /* host or device allocation failed */
    HEPA_ERR_NO_DEVICE = 4,         /* CUDA backend asked for, but no usable GPU */
    HEPA_ERR_DEVICE = 5,            /* a CUDA call failed (driver/runtime error) */
    HEPA_ERR_MISMATCH = 6,          /* operands from different rings, levels or domains */
    HEPA_ERR_DOMAIN = 7,            /* operand in the wrong domain (coefficient vs NTT) */
    HEPA_ERR_RANGE = 8,             /* a value does not fit (e.g. encoded coefficients >= Q/2) */
} hepa_status;

/* A short, static, human-readable name for a status ("HEPA_OK: success", ...). Never NULL;
 * unknown values give "unknown hepa_status". */
HEPA_API const char *hepa_status_string(hepa_status status);

/* Details of the most recent failure in this thread that has details: one from the CUDA runtime
 * (e.g. "cudaMallocFromPoolAsync: out of memory (cudaErrorMemoryAllocation)") or a reason the
 * library gives (e.g. why a DFT mode is unsupported on this backend); "" in a thread where there
 * has been none. Per thread; a failure without details leaves the text as it was. The text stays
 * valid until the next failing hepa call in the same thread. */
HEPA_API const char *hepa_last_error_message(void);

#ifdef __cplusplus
}
#endif
#endif /* HEPA_STATUS_H */
