// src/ntt/f64_arith.cuh — exact modular arithmetic in doubles for moduli q < 2^47 (FP64 LIMBS in
// ntt_cuda.cu has the derivation and the measurements), shared by the NTT kernels and the base
// conversion kernel (src/rns/rns_cuda.cu). qd = q as a double, qi = 1.0 / qd (correctly
// rounded). Values are signed integers held exactly in doubles.
// Every function also compiles for the host, with the same IEEE operations (round to nearest,
// products and sums not contracted, fma() where the device has __fma_rn), so that
// tests/gpu/test_f64_arith.cu checks these bounds on the CPU, in CI.
#ifndef HEPA_SRC_NTT_F64_ARITH_CUH
#define HEPA_SRC_NTT_F64_ARITH_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#define F64_HD static __host__ __device__ __forceinline__

// The device's rounded operations, and the same on the host (x86-64 and AArch64 doubles).
#ifdef __CUDA_ARCH__
#define F64_ADD(a, b) __dadd_rn(a, b)
#define F64_SUB(a, b) __dsub_rn(a, b)
#define F64_MUL(a, b) __dmul_rn(a, b)
#define F64_FMA(a, b, c) __fma_rn(a, b, c)
#else
#define F64_ADD(a, b) ((double)(a) + (double)(b))
#define F64_SUB(a, b) ((double)(a) - (double)(b))
#define F64_MUL(a, b) ((double)(a) * (double)(b))
#define F64_FMA(a, b, c) fma(a, b, c)
#endif

// a word's bits as a double and back (the FP64 path keeps doubles in the uint64_t registers)
F64_HD double dbl(uint64_t v) {
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)v);
#else
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
#endif
}
F64_HD uint64_t bits(double d) {
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(d);
#else
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return v;
#endif
}
// Exact for 0 <= v < 2^52: the double 2^52 + v has v as its mantissa.
F64_HD double u2d(uint64_t v) {
    return F64_SUB(dbl(v | 0x4330000000000000ull), 0x1p52);
}
// Exact for an integer-valued x in [0, 2^52): x + 2^52 is exact and its mantissa is x.
F64_HD uint64_t d2u(double x) {
    return bits(F64_ADD(x, 0x1p52)) & 0x000fffffffffffffull;
}
F64_HD double f64_round(double x) { // nearest integer, |x| < 2^51
    return F64_SUB(F64_ADD(x, 0x1.8p52), 0x1.8p52);
}
// round(x·qi) for |x·qi| < 2^51, rounded once: the FMA adds 1.5·2^52 to the exact product (the
// sum's unit in the last place is then 1), the SUB takes the constant off again
F64_HD double f64_quot(double x, double qi) {
    return F64_SUB(F64_FMA(x, qi, 0x1.8p52), 0x1.8p52);
}
// y·w - round(y·w / q)·q exactly, |result| < 0.91q, for |y| <= 13q and 0 <= w < q (FP64 LIMBS)
F64_HD double f64_mulmod_q(double y, double w, double qd, double qi) {
    const double h = F64_MUL(y, w), l = F64_FMA(y, w, -h);
    const double qt = f64_quot(h, qi);
    return F64_ADD(F64_FMA(-qt, qd, h), l);
}
// (Measured and not kept: the quotient from y·(w·qi) with w·qi made per twiddle, a chain one
// operation shorter for one MUL more. H100, NTT 2^16/34 forward hot 24.8 -> 25.4 µs,
// hepa_mul_relin 2^16/33 P = 2 629 -> 645; bench/results/2026-12-06-h100-f64-shoup-96374b2.md.)
// x - round(x / q)·q for an integer-valued |x| < 2^51·q: |result| <= q/2 + 1 for |x| < 2^53 (every
// integer the FP64 path holds), |result| <= 3q/4 up to 2^51·q. The quotient qt is
// f64_quot(x, qi), as in f64_mulmod_q: three FP64 operations where f64_round(x·qi) took four.
// |qt - x/q| <= 1/2 + |x|·2^-53 / q, and the last FMA is exact.
// H100, same call against the four-operation form, µs: inverse NTT 2^16/34 hot 27.5-27.6 ->
// 27.3-27.5, hepa_mul_relin 2^16/33 P = 1 910 -> 901-906, P = 2 637-638 -> 630-634
// (bench/results/2026-12-06-h100-f64-reduce-fma-b20fcdc.md).
#ifndef HEPA_F64_REDUCE_FMA
#define HEPA_F64_REDUCE_FMA 1 // 0: f64_round(x·qi), four operations (for A/Bs)
#endif
F64_HD double f64_reduce_q(double x, double qd, double qi) {
    if (HEPA_F64_REDUCE_FMA) return F64_FMA(-f64_quot(x, qi), qd, x);
    return F64_FMA(-f64_round(F64_MUL(x, qi)), qd, x);
}
// The sign fix-up: [0, q), as a double, from an integer-valued |x| < q (an f64_mulmod_q or
// f64_reduce_q result)
F64_HD double f64_nonneg_q(double x, double qd) {
    return x < 0 ? F64_ADD(x, qd) : x;
}
// [0, q) from such a value
F64_HD uint64_t f64_canonical_q(double x, double qd, double qi) {
    return d2u(f64_nonneg_q(f64_reduce_q(x, qd, qi), qd));
}
// [0, q) from an integer-valued |x| < q: the sign fix-up alone, as a word
F64_HD uint64_t f64_canonical_small_q(double x, double qd) {
    return d2u(f64_nonneg_q(x, qd));
}
// The FP64 route of base conversion's target sum (rns/conv_core.h): corr + Σ_k v_k·hat_k for a
// target t < 2^47 (qd, qi) whose sources are all below 2^47 and at most 13t (so v_k < 13t,
// f64_mulmod_q's bound). Each term is exact with |.| < 0.91t; with corr in [0, t) the result is
// an integer congruent to hepa_conv_target_ns's word, |.| < (1 + 0.91·NS)·t (below 5t for
// NS <= 4). Shared by the conversion kernel (rns_cuda.cu) and ModUp's fused column pass
// (modupn_cols_kernel, ntt_cuda.cu).
template <int NS>
F64_HD double f64_conv_sum(double corr, const double (&vd)[NS], const double (&hd)[NS], double qd,
                           double qi) {
    double s = corr;
#pragma unroll
    for (int k = 0; k < NS; ++k)
        s = F64_ADD(s, f64_mulmod_q(vd[k], hd[k], qd, qi));
    return s;
}

// WIDE SOURCES: the same sum for a target t < 2^47 with 2^31 <= 13t when the sources may be up to
// 2^62 (v_k < 2^62; the 60-bit q_0 and special primes), where v_k·hat_k is not one exact FP64
// product: v_k = a·2^31 + b with a, b < 2^31 <= 13t, and hw_k = 2^31·hat_k mod t in [0, t)
// (f64_wide_hw), so v_k·hat_k = a·hw_k + b·hat_k mod t, two f64_mulmod_q of |.| < 0.91t each.
// The result is an integer congruent to hepa_conv_target_ns's word, |.| < corr + 1.82·NS·t.
// Splitting costs a shift, a mask and two exact conversions (u2d) per source.
constexpr uint64_t F64_WIDE_LOW = 0x7fffffffull; // the low 31 bits
F64_HD bool f64_wide_ok(uint64_t t) { // 2^31 <= 13t (165191050 = ceil(2^31 / 13)), t < 2^47
    return t >= 165191050ull && t < (1ull << 47);
}
// hw_k = 2^31·h mod t in [0, t) for 0 <= h < t, t as f64_wide_ok
F64_HD double f64_wide_hw(double h, double qd, double qi) {
    return f64_nonneg_q(f64_mulmod_q(0x1p31, h, qd, qi), qd);
}
template <int NS>
F64_HD double f64_conv_sum_wide(double corr, const uint64_t (&v)[NS], const double (&hd)[NS],
                                const double (&hw)[NS], double qd, double qi) {
    double s = corr;
#pragma unroll
    for (int k = 0; k < NS; ++k) {
        s = F64_ADD(s, f64_mulmod_q(u2d(v[k] >> 31), hw[k], qd, qi));
        s = F64_ADD(s, f64_mulmod_q(u2d(v[k] & F64_WIDE_LOW), hd[k], qd, qi));
    }
    return s;
}

#endif
