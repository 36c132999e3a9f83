/* src/ntt/avx512_arith.h — the modular arithmetic of hepa/modarith.h on eight 64-bit lanes, for
 * the host's AVX-512 paths (ntt_host_avx512.c, rns/rns_avx512.c). Each helper computes, lane by
 * lane, exactly what its scalar counterpart computes. Include only under HEPA_HOST_AVX512 (x86-64
 * GCC or Clang); callers carry HEPA_AVX512 and run after _hepa_ntt_use_avx512(). */
#ifndef HEPA_SRC_NTT_AVX512_ARITH_H
#define HEPA_SRC_NTT_AVX512_ARITH_H
#include <immintrin.h>

#define HEPA_AVX512 __attribute__((target("avx512f,avx512dq")))

/* High 64 bits of a·b per lane; b1 = b >> 32 (precomputed: b is a broadcast twiddle). */
HEPA_AVX512 static inline __m512i mulhi64(__m512i a, __m512i b, __m512i b1) {
    const __m512i lo32 = _mm512_set1_epi64(0xffffffff);
    const __m512i a1 = _mm512_srli_epi64(a, 32);
    const __m512i p00 = _mm512_mul_epu32(a, b);
    const __m512i p01 = _mm512_mul_epu32(a, b1);
    const __m512i p10 = _mm512_mul_epu32(a1, b);
    const __m512i p11 = _mm512_mul_epu32(a1, b1);
    /* mid < 3·2^32: the carry into bit 64 of the full product */
    __m512i mid = _mm512_add_epi64(_mm512_srli_epi64(p00, 32), _mm512_and_si512(p01, lo32));
    mid = _mm512_add_epi64(mid, _mm512_and_si512(p10, lo32));
    __m512i hi = _mm512_add_epi64(p11, _mm512_srli_epi64(p01, 32));
    hi = _mm512_add_epi64(hi, _mm512_srli_epi64(p10, 32));
    return _mm512_add_epi64(hi, _mm512_srli_epi64(mid, 32));
}

/* a·w mod q in [0, 2q) (hepa_mul_shoup_lazy on 8 lanes). */
HEPA_AVX512 static inline __m512i shoup_lazy(__m512i a, __m512i w, __m512i wp, __m512i wp1,
                                             __m512i q) {
    const __m512i t = mulhi64(a, wp, wp1);
    return _mm512_sub_epi64(_mm512_mullo_epi64(a, w), _mm512_mullo_epi64(t, q));
}

/* x >= m ? x - m : x, per unsigned lane */
HEPA_AVX512 static inline __m512i csub(__m512i x, __m512i m) {
    return _mm512_min_epu64(x, _mm512_sub_epi64(x, m));
}

#endif
