/* src/device/internal.h — the CUDA runtime glue seen from C. In a CPU-only build these are
 * served by device_none.c. */
#ifndef HEPA_SRC_DEVICE_INTERNAL_H
#define HEPA_SRC_DEVICE_INTERNAL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (0 in a CPU-only build or when the driver reports none). */
int hepa_device_count(void);

#ifdef __cplusplus
}
#endif
#endif
