/* src/ntt/internal.h — private layout of hepa_ntt_tables (shared by the host transforms and,
 * later, the code that uploads tables to the device). */
#ifndef HEPA_SRC_NTT_INTERNAL_H
#define HEPA_SRC_NTT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/modarith.h"
#include "hepa/ntt.h"

struct hepa_ntt_tables {
    size_t n;         /* power of two */
    unsigned log_n;   /* log2(n) */
    hepa_modulus mod; /* q with its Barrett constant */
    uint64_t psi;     /* primitive 2n-th root of unity */
    /* One allocation of 4n words: fwd, fwd_shoup, inv, inv_shoup (see hepa_ntt_table_view). */
    uint64_t *fwd, *fwd_shoup, *inv, *inv_shoup;
    uint64_t n_inv, n_inv_shoup;     /* n^(-1) mod q */
    uint64_t n_inv_w, n_inv_w_shoup; /* n^(-1) · inv[1], merged into the last inverse stage */
};

/* Bit reversal of the low `bits` bits of x. */
static inline size_t hepa_bitrev(size_t x, unsigned bits) {
    size_t r = 0;
    for (unsigned i = 0; i < bits; ++i) {
        r = (r << 1) | (x & 1);
        x >>= 1;
    }
    return r;
}

/* 1 when every a[i] < q. */
static inline int hepa_residues_ok(const uint64_t *a, size_t n, uint64_t q) {
    uint64_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad |= (uint64_t)(a[i] >= q);
    return bad == 0;
}

/* ---- AVX-512 stages (ntt_host_avx512.c), used by ntt_host.c after a runtime check --------- */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HEPA_HOST_AVX512 1
void _hepa_ntt_fwd_stage_avx512(uint64_t *a, size_t m, size_t half, const uint64_t *w,
                                const uint64_t *wp, uint64_t q);
void _hepa_ntt_inv_stage_avx512(uint64_t *a, size_t h, size_t half, const uint64_t *w,
                                const uint64_t *wp, uint64_t q);
void _hepa_ntt_inv_last_avx512(uint64_t *a, size_t half, uint64_t s, uint64_t sp, uint64_t sw,
                               uint64_t swp, uint64_t q);
void _hepa_ntt_fwd_short_avx512(uint64_t *a, size_t m, size_t half, const uint64_t *w,
                                const uint64_t *wp, uint64_t q);
void _hepa_ntt_inv_short_avx512(uint64_t *a, size_t h, size_t half, const uint64_t *w,
                                const uint64_t *wp, uint64_t q);
void _hepa_reduce_avx512(uint64_t *a, size_t n, uint64_t q, int from_4q);
#endif
/* 1 when the CPU runs the AVX-512 stages. */
int _hepa_cpu_has_avx512(void);
/* 1 when the host transforms use the AVX-512 stages: the CPU has them and the environment
 * variable HEPA_NO_AVX512 is unset (or "0"). Decided once per process. */
int _hepa_ntt_use_avx512(void);

#endif
