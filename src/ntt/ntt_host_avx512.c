/* src/ntt/ntt_host_avx512.c — AVX-512 versions of the fast host transforms' wide stages.
 *
 * Eight butterflies per instruction stream, computing exactly what the scalar Harvey butterflies
 * in hepa/modarith.h compute (same lazy ranges, bit-identical intermediate values): the 64×64
 * high product of the Shoup quotient is assembled from four 32×32 products (vpmuludq), the low
 * products use vpmullq (AVX512DQ), and "subtract 2q if >= 2q" is min(x, x - 2q) on unsigned
 * lanes (x - 2q wraps above x exactly when x < 2q).
 *
 * Only stages whose butterfly distance `half` is a multiple of 8 are vectorised; the caller runs
 * the others with the scalar code. Compiled for the target with function attributes, so the
 * rest of the library needs no -mavx512 flags; ntt_host.c calls these only after a runtime CPU
 * check. */
#include "ntt/internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "ntt/avx512_arith.h"

/* One forward stage: blocks of 2·half, block i uses twiddle w[m + i]. half % 8 == 0.
 * In/out [0, 4q). */
HEPA_AVX512 void _hepa_ntt_fwd_stage_avx512(uint64_t *a, size_t m, size_t half, const uint64_t *w,
                                            const uint64_t *wp, uint64_t q) {
    const __m512i vq = _mm512_set1_epi64((long long)q);
    const __m512i v2q = _mm512_set1_epi64((long long)(2 * q));
    for (size_t i = 0; i < m; ++i) {
        const __m512i vw = _mm512_set1_epi64((long long)w[m + i]);
        const __m512i vwp = _mm512_set1_epi64((long long)wp[m + i]);
        const __m512i vwp1 = _mm512_srli_epi64(vwp, 32);
        uint64_t *x = a + 2 * i * half, *y = x + half;
        for (size_t j = 0; j < half; j += 8) {
            __m512i X = _mm512_loadu_si512((const void *)(x + j));
            __m512i Y = _mm512_loadu_si512((const void *)(y + j));
            X = csub(X, v2q);
            const __m512i T = shoup_lazy(Y, vw, vwp, vwp1, vq);
            _mm512_storeu_si512((void *)(x + j), _mm512_add_epi64(X, T));
            _mm512_storeu_si512((void *)(y + j), _mm512_add_epi64(_mm512_sub_epi64(X, T), v2q));
        }
    }
}

/* One inverse stage: blocks of 2·half, block i uses twiddle w[h + i]. half % 8 == 0.
 * In/out [0, 2q). */
HEPA_AVX512 void _hepa_ntt_inv_stage_avx512(uint64_t *a, size_t h, size_t half, const uint64_t *w,
                                            const uint64_t *wp, uint64_t q) {
    const __m512i vq = _mm512_set1_epi64((long long)q);
    const __m512i v2q = _mm512_set1_epi64((long long)(2 * q));
    for (size_t i = 0; i < h; ++i) {
        const __m512i vw = _mm512_set1_epi64((long long)w[h + i]);
        const __m512i vwp = _mm512_set1_epi64((long long)wp[h + i]);
        const __m512i vwp1 = _mm512_srli_epi64(vwp, 32);
        uint64_t *x = a + 2 * i * half, *y = x + half;
        for (size_t j = 0; j < half; j += 8) {
            const __m512i X = _mm512_loadu_si512((const void *)(x + j));
            const __m512i Y = _mm512_loadu_si512((const void *)(y + j));
            _mm512_storeu_si512((void *)(x + j), csub(_mm512_add_epi64(X, Y), v2q));
            const __m512i D = _mm512_add_epi64(_mm512_sub_epi64(X, Y), v2q);
            _mm512_storeu_si512((void *)(y + j), shoup_lazy(D, vw, vwp, vwp1, vq));
        }
    }
}

/* The last inverse stage with n^(-1) merged: x' = (x+y)·s, y' = (x-y+2q)·sw. half % 8 == 0. */
HEPA_AVX512 void _hepa_ntt_inv_last_avx512(uint64_t *a, size_t half, uint64_t s, uint64_t sp,
                                           uint64_t sw, uint64_t swp, uint64_t q) {
    const __m512i vq = _mm512_set1_epi64((long long)q);
    const __m512i v2q = _mm512_set1_epi64((long long)(2 * q));
    const __m512i vs = _mm512_set1_epi64((long long)s), vsp = _mm512_set1_epi64((long long)sp);
    const __m512i vsw = _mm512_set1_epi64((long long)sw), vswp = _mm512_set1_epi64((long long)swp);
    const __m512i vsp1 = _mm512_srli_epi64(vsp, 32), vswp1 = _mm512_srli_epi64(vswp, 32);
    uint64_t *x = a, *y = a + half;
    for (size_t j = 0; j < half; j += 8) {
        const __m512i X = _mm512_loadu_si512((const void *)(x + j));
        const __m512i Y = _mm512_loadu_si512((const void *)(y + j));
        _mm512_storeu_si512((void *)(x + j), shoup_lazy(_mm512_add_epi64(X, Y), vs, vsp, vsp1, vq));
        const __m512i D = _mm512_add_epi64(_mm512_sub_epi64(X, Y), v2q);
        _mm512_storeu_si512((void *)(y + j), shoup_lazy(D, vsw, vswp, vswp1, vq));
    }
}

/* Index vectors for the short stages (half in {1, 2, 4}) over a window of 16 words = 8/half
 * blocks: X lane l is word (l/half)·2·half + l%half, Y lane l the same plus half; tw lane l
 * takes twiddle l/half of the window. back[p] says where word p of the window comes from
 * (X lane, or 8 + Y lane), for permutex2var(X, back, Y). */
typedef struct {
    __m512i gx, gy, tw, back_lo, back_hi;
} short_idx;

HEPA_AVX512 static short_idx short_indices(size_t half) {
    long long gx[8], gy[8], tw[8], back[16];
    for (int l = 0; l < 8; ++l) {
        long long b = l / (long long)half, o = l % (long long)half;
        gx[l] = b * 2 * (long long)half + o;
        gy[l] = gx[l] + (long long)half;
        tw[l] = b;
        back[gx[l]] = l;
        back[gy[l]] = 8 + l;
    }
    short_idx r;
    r.gx = _mm512_loadu_si512((const void *)gx);
    r.gy = _mm512_loadu_si512((const void *)gy);
    r.tw = _mm512_loadu_si512((const void *)tw);
    r.back_lo = _mm512_loadu_si512((const void *)back);
    r.back_hi = _mm512_loadu_si512((const void *)(back + 8));
    return r;
}

/* Forward stage with half in {1, 2, 4} (n >= 16): windows of 16 words, 8/half blocks each.
 * Twiddle loads read w[m + i .. m + i + 8), which stays inside the n-entry table because
 * m + i + 8 <= 2m <= n for the blocks of the last window. */
HEPA_AVX512 void _hepa_ntt_fwd_short_avx512(uint64_t *a, size_t m, size_t half, const uint64_t *w,
                                            const uint64_t *wp, uint64_t q) {
    const __m512i vq = _mm512_set1_epi64((long long)q);
    const __m512i v2q = _mm512_set1_epi64((long long)(2 * q));
    const short_idx ix = short_indices(half);
    const size_t blocks_per_window = 8 / half;
    for (size_t i = 0; i < m; i += blocks_per_window) {
        uint64_t *win = a + 2 * i * half;
        const __m512i v0 = _mm512_loadu_si512((const void *)win);
        const __m512i v1 = _mm512_loadu_si512((const void *)(win + 8));
        __m512i X = _mm512_permutex2var_epi64(v0, ix.gx, v1);
        const __m512i Y = _mm512_permutex2var_epi64(v0, ix.gy, v1);
        const __m512i vw = _mm512_permutexvar_epi64(ix.tw, _mm512_loadu_si512((const void *)(w + m + i)));
        const __m512i vwp = _mm512_permutexvar_epi64(ix.tw, _mm512_loadu_si512((const void *)(wp + m + i)));
        X = csub(X, v2q);
        const __m512i T = shoup_lazy(Y, vw, vwp, _mm512_srli_epi64(vwp, 32), vq);
        const __m512i Xo = _mm512_add_epi64(X, T);
        const __m512i Yo = _mm512_add_epi64(_mm512_sub_epi64(X, T), v2q);
        _mm512_storeu_si512((void *)win, _mm512_permutex2var_epi64(Xo, ix.back_lo, Yo));
        _mm512_storeu_si512((void *)(win + 8), _mm512_permutex2var_epi64(Xo, ix.back_hi, Yo));
    }
}

/* Inverse stage with half in {1, 2, 4} (n >= 16); twiddles w[h + i ..] (the
 * same bound as the forward case: h + i + 8 <= 2h <= n). */
HEPA_AVX512 void _hepa_ntt_inv_short_avx512(uint64_t *a, size_t h, size_t half, const uint64_t *w,
                                            const uint64_t *wp, uint64_t q) {
    const __m512i vq = _mm512_set1_epi64((long long)q);
    const __m512i v2q = _mm512_set1_epi64((long long)(2 * q));
    const short_idx ix = short_indices(half);
    const size_t blocks_per_window = 8 / half;
    for (size_t i = 0; i < h; i += blocks_per_window) {
        uint64_t *win = a + 2 * i * half;
        const __m512i v0 = _mm512_loadu_si512((const void *)win);
        const __m512i v1 = _mm512_loadu_si512((const void *)(win + 8));
        const __m512i X = _mm512_permutex2var_epi64(v0, ix.gx, v1);
        const __m512i Y = _mm512_permutex2var_epi64(v0, ix.gy, v1);
        const __m512i vw = _mm512_permutexvar_epi64(ix.tw, _mm512_loadu_si512((const void *)(w + h + i)));
        const __m512i vwp = _mm512_permutexvar_epi64(ix.tw, _mm512_loadu_si512((const void *)(wp + h + i)));
        const __m512i Xo = csub(_mm512_add_epi64(X, Y), v2q);
        const __m512i D = _mm512_add_epi64(_mm512_sub_epi64(X, Y), v2q);
        const __m512i Yo = shoup_lazy(D, vw, vwp, _mm512_srli_epi64(vwp, 32), vq);
        _mm512_storeu_si512((void *)win, _mm512_permutex2var_epi64(Xo, ix.back_lo, Yo));
        _mm512_storeu_si512((void *)(win + 8), _mm512_permutex2var_epi64(Xo, ix.back_hi, Yo));
    }
}

/* a[j] reduced from [0, 4q) (or [0, 2q)) to [0, q); n % 8 == 0. */
HEPA_AVX512 void _hepa_reduce_avx512(uint64_t *a, size_t n, uint64_t q, int from_4q) {
    const __m512i vq = _mm512_set1_epi64((long long)q);
    const __m512i v2q = _mm512_set1_epi64((long long)(2 * q));
    for (size_t j = 0; j < n; j += 8) {
        __m512i X = _mm512_loadu_si512((const void *)(a + j));
        if (from_4q) X = csub(X, v2q);
        _mm512_storeu_si512((void *)(a + j), csub(X, vq));
    }
}

int _hepa_cpu_has_avx512(void) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}

#else /* not x86-64 GCC/Clang: no vector path */

int _hepa_cpu_has_avx512(void) { return 0; }

#endif
