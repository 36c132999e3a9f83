/* tests/test_status.c — hepa_status_string. */
#include <string.h>

#include "test_util.h"
#include "hepa/status.h"

static const hepa_status all_status[] = {
    HEPA_OK,         HEPA_ERR_INVALID_ARGUMENT, HEPA_ERR_UNSUPPORTED, HEPA_ERR_OUT_OF_MEMORY,
    HEPA_ERR_NO_DEVICE, HEPA_ERR_DEVICE,        HEPA_ERR_MISMATCH,    HEPA_ERR_DOMAIN,
    HEPA_ERR_RANGE,
};
#define NUM_STATUS (sizeof all_status / sizeof all_status[0])

/* Every code has its own non-empty name, so a log line identifies the failure. */
Test(status, strings_distinct_and_non_null) {
    for (size_t i = 0; i < NUM_STATUS; ++i) {
        const char *s = hepa_status_string(all_status[i]);
        cr_assert(s != NULL, "hepa_status_string(%d) is NULL", (int)all_status[i]);
        cr_assert(strlen(s) > 0, "hepa_status_string(%d) is empty", (int)all_status[i]);
        for (size_t j = 0; j < i; ++j)
            cr_assert(strcmp(s, hepa_status_string(all_status[j])) != 0,
                      "status %d and %d share the string \"%s\"", (int)all_status[i],
                      (int)all_status[j], s);
    }
}

/* Values outside the enum still give a string (callers print whatever they received). */
Test(status, unknown_values) {
    const int unknown[] = {9, 99, 1234, -1, 0x7fffffff};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; ++i) {
        const char *s = hepa_status_string((hepa_status)unknown[i]);
        cr_assert(s != NULL, "hepa_status_string(%d) is NULL", unknown[i]);
        cr_assert(strlen(s) > 0, "hepa_status_string(%d) is empty", unknown[i]);
        /* It must not pretend to be a known status. */
        for (size_t j = 0; j < NUM_STATUS; ++j)
            cr_assert(strcmp(s, hepa_status_string(all_status[j])) != 0,
                      "unknown status %d named like status %d: \"%s\"", unknown[i],
                      (int)all_status[j], s);
    }
}

/* The header documents "HEPA_OK: success"-style names: each string names its enumerator. */
Test(status, strings_name_the_code) {
    static const char *names[] = {
        "HEPA_OK",           "HEPA_ERR_INVALID_ARGUMENT", "HEPA_ERR_UNSUPPORTED",
        "HEPA_ERR_OUT_OF_MEMORY", "HEPA_ERR_NO_DEVICE",   "HEPA_ERR_DEVICE",
        "HEPA_ERR_MISMATCH", "HEPA_ERR_DOMAIN",           "HEPA_ERR_RANGE",
    };
    for (size_t i = 0; i < NUM_STATUS; ++i) {
        const char *s = hepa_status_string(all_status[i]);
        cr_assert(s && strncmp(s, names[i], strlen(names[i])) == 0 &&
                      (s[strlen(names[i])] == ':' || s[strlen(names[i])] == '\0'),
                  "hepa_status_string(%d) = \"%s\" does not start with %s", (int)all_status[i],
                  s ? s : "(null)", names[i]);
    }
}
