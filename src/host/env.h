/* src/host/env.h — the library's switches read from the environment (experiments, tests): a
 * variable counts as set when it is present, not empty and not "0"; a switch that is on by
 * default is turned off by "0" alone. C and CUDA C++ alike. */
#ifndef HEPA_SRC_HOST_ENV_H
#define HEPA_SRC_HOST_ENV_H

#include <stdlib.h>
#include <string.h>

/* 1 when the variable `name` is set to something other than "" or "0", else 0. */
static inline int _hepa_env_flag(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* 0 when the variable `name` is "0", else 1: a switch that is on by default (HEPA_KS_GRAPH). */
static inline int _hepa_env_on_unless_0(const char *name) {
    const char *v = getenv(name);
    return !(v && strcmp(v, "0") == 0);
}

#endif
