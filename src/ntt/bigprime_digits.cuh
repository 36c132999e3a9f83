// src/ntt/bigprime_digits.cuh — what the big-prime device files (bigprime_cuda.cu,
// bigprime_rns_cuda.cu) share: the digit arithmetic of the field p = r^k + 1 (r = 2^w ± 2^u),
// compiled for host and device alike, bit-exact with src/host/bigprime.c, and the device-pointer
// check.
//
// Arithmetic, as on the host: each operation first forms k signed digit sums t_m with value
// Σ t_m·r^m ≡ the result, then normalize<K> (parallel carry rounds, then the host's
// bp_normalize) makes the canonical form: a signed carry chain in base r whose divisions by r
// are shift-and-subtract rounds (r = 2^w ± 2^u: v = e·2^w + low = e·r ∓ e·2^u + low), the
// carry c out of the top
// folded back as -c (r^k ≡ -1), then the last small carry by fold_small (the host's
// bp_fold_small). The canonical form of a residue is unique, so any correct computation of the
// digit sums gives the host's digits exactly.
//
// Multiplication: the negacyclic schoolbook product of the digit vectors (T^k ≡ -1), by Horner
// over the digits of x (mul_core_sums; mul_cols_sums below is the faster column-sum variant). Each
// 128-bit product P = x_i·y_j <= r^2 is split into P = h·r + l by split_rounds fixed rounds of the same
// shift-and-subtract step — a fixed count (computed on the host from w, u, r) instead of the
// host's loop "until l is in [0, r)", so that all threads run the same instructions: l is then
// only bounded, |l| < 2^(w+2), and h <= r + 16. That is all the digit sums need: each t_m
// collects 2k such terms (l at T^(i+j), h at T^(i+j+1), negated past T^k), |t_m| < 2^71, far
// inside the 2^120 that normalize accepts; normalize then does the exact division.
// 128-bit integers are __int128 (supported in device code by nvcc); v >> w on a negative value
// is an arithmetic shift (floor), as with GCC on the host.
#ifndef HEPA_SRC_NTT_BIGPRIME_DIGITS_CUH
#define HEPA_SRC_NTT_BIGPRIME_DIGITS_CUH
#include <stdint.h>

#include "device/internal.h"
#include "hepa/bigprime_cuda.h"

// (Device-pointer checks: _hepa_dev_check_ptr in device/internal.h.)

namespace hepa_bp {

typedef __int128 i128;
typedef unsigned __int128 u128;

// The digit arithmetic compiles for the host too (so it can be exercised without a GPU).
#define HD __host__ __device__ __forceinline__

// Rounds of split() for P <= r^2 to reach |l| < 2^(w+2). After the first (unsigned) round
// |v| < 2^w + E·2^u with E = floor(r^2 / 2^w); a signed round takes |v| < M to
// |v| < 2^w + (floor(M / 2^w) + 1)·2^u, which decreases while M >= 2^(w+2) (it tends to about
// 2^w + 2^(u+1) <= 3·2^w). All in u128: E·2^u < 2^(2w+2+u-w) <= 2^127.
HD constexpr unsigned split_rounds_of(unsigned w, unsigned u, uint64_t r) {
    const u128 E = ((u128)r * r) >> w;
    const u128 target = (u128)1 << (w + 2);
    u128 M = ((u128)1 << w) + (E << u);
    unsigned rounds = 1;
    while (M >= target) {
        M = ((u128)1 << w) + (((M >> w) + 1) << u);
        ++rounds;
    }
    return rounds;
}

// The field as a type. Every function below takes the field as `const F &f` and reads f.r, f.w,
// f.u, f.sign, f.k and f.split_rounds: either a hepa_bp_dev_field (run-time values, any field the
// kernels support) or a CtField, whose members are compile-time constants, so that the shifts
// by w and u and the round counts fold into the instructions (the FFT and multiply kernels
// dispatch P3 to a CtField; see with_field in bigprime_cuda.cu).
template <unsigned KD, unsigned W, unsigned U, int SIGN> struct CtField {
    static constexpr uint64_t r = SIGN > 0 ? ((uint64_t)1 << W) + ((uint64_t)1 << U)
                                           : ((uint64_t)1 << W) - ((uint64_t)1 << U);
    static constexpr unsigned w = W, u = U, k = KD;
    static constexpr int sign = SIGN;
    static constexpr unsigned split_rounds = split_rounds_of(W, U, r);
    // Whether the run-time constants df describe this field.
    static bool matches(const hepa_bp_dev_field &df) {
        return df.k == k && df.w == w && df.u == u && df.sign == sign && df.r == r &&
               df.split_rounds == split_rounds;
    }
};
typedef CtField<8, 63, 34, 1> FieldP3;  // HEPA_BP_P3 = (2^63 + 2^34)^8 + 1
typedef CtField<16, 62, 36, 1> FieldP4; // HEPA_BP_P4 = (2^62 + 2^36)^16 + 1

// v · 2^s for a signed v, through unsigned arithmetic (a left shift of a negative value is
// undefined in C++17; the bits are the same).
HD i128 shl(i128 v, unsigned s) { return (i128)((u128)v << s); }

// Floor division by r without dividing: returns q = floor(v / r), *rem = v - q·r in [0, r).
// The host's bp_divrem; requires |v| < 2^127 - 2^(2w+1).
template <class F> HD i128 divrem(const F &f, i128 v, uint64_t &rem) {
    const i128 r = (i128)f.r, mask = ((i128)1 << f.w) - 1;
    i128 q = 0;
    if (f.sign > 0) { // r > 2^w: every v in [0, r) is done
        while (v < 0 || v >= r) {
            const i128 e = v >> f.w;
            v = (v & mask) - shl(e, f.u);
            q += e;
        }
    } else { // r < 2^w: stop in [0, 2^w), then at most one r too many
        while (v < 0 || v > mask) {
            const i128 e = v >> f.w;
            v = (v & mask) + shl(e, f.u);
            q += e;
        }
        if (v >= r) {
            v -= r;
            ++q;
        }
    }
    rem = (uint64_t)v;
    return q;
}

// P = h·r + l for P <= r^2 (a digit product), |l| < 2^(w+2) (see the file comment). The first
// round in unsigned arithmetic (P may not fit an i128): e < 2^(w+2), e·2^u < 2^127.
template <class F> HD void split(const F &f, u128 P, i128 &h, i128 &l) {
    const u128 e0 = P >> f.w;
    const i128 mask = ((i128)1 << f.w) - 1;
    const i128 eu = (i128)(e0 << f.u);
    i128 v = (i128)P & mask;
    v = f.sign > 0 ? v - eu : v + eu;
    i128 q = (i128)e0;
    for (unsigned round = 1; round < f.split_rounds; ++round) {
        const i128 e = v >> f.w;
        const i128 s = shl(e, f.u);
        v = (v & mask) + (f.sign > 0 ? -s : s);
        q += e;
    }
    h = q;
    l = v;
}

// z = canonical form of L - c (mod p), where z holds k digits in [0, r) with value L and
// c in [-2, 2] is a carry out of the top digit (c·r^k ≡ -c). The host's bp_fold_small.
template <int K, class F>
HD void fold_small(const F &f, uint64_t (&z)[K], int c) {
    const uint64_t r = f.r;
    if (c > 0) {
        bool small = z[0] < (uint64_t)c; // L < c ?
#pragma unroll
        for (int m = 1; m < K; ++m) small = small && z[m] == 0;
        if (small) { // L - c in {-2, -1}: + p = r^k + 1 gives r^k - 1 or r^k
            if (z[0] + 1 == (uint64_t)c) {
#pragma unroll
                for (int m = 0; m + 1 < K; ++m) z[m] = 0; // r^k = p - 1, the special form
                z[K - 1] = r;
            } else {
#pragma unroll
                for (int m = 0; m < K; ++m) z[m] = r - 1; // r^k - 1 = p - 2
            }
            return;
        }
        uint64_t b = (uint64_t)c; // borrow chain; stops below the top since L >= c
#pragma unroll
        for (int m = 0; m < K; ++m) {
            if (b) {
                if (z[m] >= b) {
                    z[m] -= b;
                    b = 0;
                } else {
                    z[m] = z[m] + (r - b);
                    b = 1;
                }
            }
        }
    } else if (c < 0) {
        uint64_t a = (uint64_t)(-c); // carry chain
#pragma unroll
        for (int m = 0; m < K; ++m) {
            if (a) {
                if (z[m] < r - a) {
                    z[m] += a;
                    a = 0;
                } else {
                    z[m] -= r - a;
                    a = 1;
                }
            }
        }
        if (a) { // carried out: r^k + L' with L' = z[0] in {0, 1}, ≡ L' - 1
            if (z[0] == 0)
                z[K - 1] = r;
            else
                z[0] = 0;
        }
    }
}

// Rounds of carry_round that take |t_m| < 2^bits to |t_m| < 2^(w+2): a round maps a bound
// 2^B to 2^w + 2^(B-w+u) + 2^(B-w) < 2^(max(w, B-w+u+1) + 1).
HD constexpr unsigned carry_rounds(unsigned w, unsigned u, unsigned bits) {
    unsigned n = 0;
    while (bits > w + 2 && n < 16) {
        const unsigned a = bits - w + u + 1;
        bits = (a > w ? a : w) + 1;
        ++n;
    }
    return n;
}

// One carry round on all places at once, leaving remainders in [C, C + 2^w): t_m - C =
// e_m·2^w + l_m (e_m = floor((t_m - C) / 2^w)), and 2^w = r - sign·2^u, so
// t_m ≡ C + l_m - sign·e_m·2^u with e_m carried to place m+1 (out of the top negated: r^k ≡ -1).
// The value mod p is unchanged; the places shrink by about w - u bits. No place waits for
// another, unlike the exact carry chain of normalize.
template <int K, class F> HD void carry_round(const F &f, i128 (&t)[K], i128 C = 0) {
    const i128 mask = ((i128)1 << f.w) - 1;
    i128 e[K];
#pragma unroll
    for (int m = 0; m < K; ++m) {
        const i128 v = t[m] - C;
        e[m] = v >> f.w;
        const i128 eu = shl(e[m], f.u);
        t[m] = f.sign > 0 ? (v & mask) + C - eu : (v & mask) + C + eu;
    }
#pragma unroll
    for (int m = 0; m < K; ++m) t[m] += m ? e[m - 1] : -e[K - 1];
}

// BALANCED DIGITS (the FFT's lazy form, bigprime_cuda.cu). Carry rounds with C = -2^(w-1)
// leave |t_m| <= bal_bound(w, u) = 2^(w-1) + max(2^(u+2), 2^(w-5)) < 2^63 (a signed word) once a
// round starts below about 2^(w+1); balanced_rounds gives the count from |t_m| < 2^bits. A round
// maps a bound M to 2^(w-1) + E·(2^u + 1) with E = floor(M / 2^w) + 1 (|l| <= 2^(w-1), |e| <= E),
// whose fixed point 2^(w-1) + 2·(2^u + 1) is below the bound. The 2^(w-5) slack is what the FFT
// can afford (its rotation form needs 2B < 2^64, and R·2B < 2^96 for the column sums) and saves a
// round: P3's digit sums after a multiply (< 2^mul_sums_bits(f) = 2^113) take 2 rounds instead of
// 3 (the second ends below 2^62 + 2^56), P4's 3 instead of 4.
HD constexpr u128 bal_bound(unsigned w, unsigned u) {
    return ((u128)1 << (w - 1)) + ((u128)1 << (u + 2 > w - 5 ? u + 2 : w - 5));
}
HD constexpr unsigned balanced_rounds(unsigned w, unsigned u, unsigned bits) {
    u128 M = (u128)1 << bits;
    unsigned n = 0;
    while (M > bal_bound(w, u) && n < 16) {
        M = ((u128)1 << (w - 1)) + ((M >> w) + 1) * (((u128)1 << u) + 1);
        ++n;
    }
    return n;
}
// t (|t_m| < 2^bits) -> balanced digits d (|d_m| <= bal_bound(w, u)), same value mod p. (For a
// CtField and a constant bits the round count folds to a constant and the rounds unroll.)
template <int K, class F> HD void balance(const F &f, int64_t (&d)[K], i128 (&t)[K], unsigned bits) {
    const unsigned rounds = balanced_rounds(f.w, f.u, bits);
    const i128 C = -((i128)1 << (f.w - 1));
#pragma unroll
    for (unsigned i = 0; i < rounds; ++i) carry_round<K>(f, t, C);
#pragma unroll
    for (int m = 0; m < K; ++m) d[m] = (int64_t)t[m];
}

// z = canonical form of Σ t_m·r^m (mod p), |t_m| < 2^BITS <= 2^120 (t is overwritten). The
// host's bp_normalize, after carry_rounds(w, u, BITS) parallel carry rounds (for a CtField, a
// compile-time count) that bring every place below 2^(w+2), so that the exact carry chain's
// divisions by r (divrem: loops of shift-and-subtract) need about one step each.
// Measured on an H100 (P3, N = 2^20 FFT, ncu): the rounds cut a level with twiddle multiplies
// from 120.0 to 102.5 M instructions and the first level from 46.4 to 36.8 M.
// Carry rounds before the chain: for a CtField only. With run-time constants (P4 and the other
// fields) the rounds measured slower on an H100 (P4 plan FFT, N = 2^20: 3088 µs without, 4224 µs
// with them).
template <class F> HD constexpr unsigned pre_rounds(const F &f, unsigned bits) {
    return carry_rounds(f.w, f.u, bits);
}
HD constexpr unsigned pre_rounds(const hepa_bp_dev_field &, unsigned) { return 0; }

template <int K, unsigned BITS = 120, class F>
HD void normalize(const F &f, uint64_t (&z)[K], i128 (&t)[K]) {
    const unsigned rounds = pre_rounds(f, BITS);
#pragma unroll
    for (unsigned i = 0; i < rounds; ++i) carry_round<K>(f, t, 0);
    i128 c;
    for (;;) {
        c = 0;
#pragma unroll
        for (int m = 0; m < K; ++m) {
            uint64_t d;
            c = divrem(f, t[m] + c, d);
            t[m] = d;
        }
        if (c >= -2 && c <= 2) break;
        t[0] -= c;
    }
#pragma unroll
    for (int m = 0; m < K; ++m) z[m] = (uint64_t)t[m];
    fold_small<K>(f, z, (int)c);
}

// out = x·y, the digits of y in registers (b), those of x read one at a time through xd(i)
// (a digit loader: global memory for the element-wise kernel, the twiddle table for the FFT).
template <int K, class F, class XDigits>
HD void mul_core_sums(const F &f, i128 (&t)[K], const XDigits &xd, const uint64_t (&b)[K]) {
    // Horner over the digits of x, from the top: t <- t·T + x_i·y (mod T^k + 1), where t·T moves
    // every sum up one place and brings the top one back negated (T^k ≡ -1). The end result is
    // the negacyclic schoolbook sum, term for term; a rolled loop over i (the digit x_i re-read
    // from memory, coalesced) keeps the code k times smaller than unrolling both loops (compile
    // time 6 s instead of 49 s per architecture) at the cost of k register moves per digit.
#pragma unroll
    for (int m = 0; m < K; ++m) t[m] = 0;
#pragma unroll 1
    for (int i = K - 1; i >= 0; --i) {
        const i128 top = t[K - 1];
#pragma unroll
        for (int m = K - 1; m > 0; --m) t[m] = t[m - 1];
        t[0] = -top;
        const uint64_t a = xd(i);
#pragma unroll
        for (int m = 0; m < K; ++m) {
            i128 h, l;
            split(f, (u128)a * b[m], h, l); // l at T^m, h at T^(m+1)
            t[m] += l;
            if (m + 1 < K)
                t[m + 1] += h;
            else
                t[0] -= h;
        }
    }
}

// acc += a·b (32x32 -> 64 bits), as one IMAD.WIDE.U32 with the 64-bit addend acc. Written as
// (uint64_t)a * b, nvcc emitted a 64x64-bit multiply (PTX mul.lo.s64) whose zero high words ptxas
// did not fold away. Written as PTX mad.wide.u32, ptxas split every chain of them into products
// with a zero addend plus 3-input IADD3 trees: about one ALU-pipe instruction per product, on the
// pipe that bounds the FFT levels. As mad.lo.cc.u32 + madc.hi.u32 (the carry ties the halves
// into one 64-bit add), ptxas keeps the chain in the IMAD.WIDE addends (sm_90 SASS of the P3
// level kernel: 2133 -> 1509 IADD3/IADD3.X). Same-call A/B on an H100, plan FFT N = 2^20: P3
// 646 -> 621 µs, P4 2312 -> 1935 µs.
HD void mad_wide(uint64_t &acc, uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    asm("{.reg .u32 l, h;\n\tmov.b64 {l, h}, %0;\n\tmad.lo.cc.u32 l, %1, %2, l;\n\t"
        "madc.hi.u32 h, %1, %2, h;\n\tmov.b64 %0, {l, h};}"
        : "+l"(acc)
        : "r"(a), "r"(b));
#else
    acc += (uint64_t)a * b;
#endif
}

// The digit sums of x·y like mul_core_sums, with fewer operations, for the fields with
// w >= u + 14 (mul_cols_ok; all the named ones). Column c of the negacyclic digit product,
//   C_c = Σ_(i+j=c) x_i·y_j - Σ_(i+j=c+k) x_i·y_j,
// is built from 32-bit halves of x (x_i = X0 + X1·2^32) and 21-bit limbs of y (y_j = Y0 +
// Y1·2^21 + Y2·2^42, Y2 < 2^22): every partial product X·Y < 2^54 is added to one of six
// 64-bit sums per sign by one 32x32+64-bit multiply-add (IMAD.WIDE.U32), with no carry to
// propagate (k <= 16 terms per sum: < 2^58). Then D = plus - minus (|D| < 2^58) and
// C_c = L_c + H_c·2^64 with L_c = D_00 + D_01·2^21 + D_02·2^42 + D_10·2^32 + D_11·2^53
// (|L_c| < 2^113) and H_c = D_12·2^10 (|H_c| < 2^68); 2^64 = 2^(64-w)·(r - sign·2^u) turns the
// column into digit sums, t_c += L_c - sign·H_c·2^(64-w+u) and t_(c+1) += H_c·2^(64-w) (the top
// one wrapping negated), |t_c| < 2^114 + 2^(133-w+u) <= 2^120, and normalize divides by r.
// Measured on an H100 against the earlier form (128-bit column sums of each 64x64-bit product's
// halves): P3 element-wise multiply at N = 2^20 143 -> 120 µs, an FFT level with twiddle
// multiplies 122.7 -> 120.0 M instructions (ncu); but P4 (k = 16, run-time constants, 255
// registers with spills) 408 -> 529 µs. Dropped: 21-bit limbs of both factors with signed
// multiply-adds (9 per digit pair into 5 sums per column, no plus/minus split): P3 forward FFT
// at N = 2^20 899 µs against 759 µs, P3 element-wise multiply 158 against 121 µs (all of these
// before mad_wide, f87e1ac).
template <class F> HD constexpr bool mul_cols_ok(const F &f) { return f.w >= f.u + 14u; }

// The limbs of mul_cols_sums (32-bit halves of x, 21-bit limbs of y) and its column c: D_q =
// plus_q - minus_q for the six limb-product sums (|D_q| < k·2^54), shared with mul_bal64.
template <int K> struct ColLimbs {
    uint32_t x0[K], x1[K], y0[K], y1[K], y2[K];
    template <class XDigits> HD void split(const XDigits &xd, const uint64_t (&b)[K]) {
#pragma unroll
        for (int i = 0; i < K; ++i) {
            const uint64_t a = xd(i);
            x0[i] = (uint32_t)a;
            x1[i] = (uint32_t)(a >> 32);
            y0[i] = (uint32_t)b[i] & 0x1FFFFFu;
            y1[i] = (uint32_t)(b[i] >> 21) & 0x1FFFFFu;
            y2[i] = (uint32_t)(b[i] >> 42);
        }
    }
    HD void column(int c, int64_t (&D)[6]) const {
        uint64_t P[6] = {0, 0, 0, 0, 0, 0}, M[6] = {0, 0, 0, 0, 0, 0};
#pragma unroll
        for (int i = 0; i < K; ++i) {
            const int j = i <= c ? c - i : c - i + K; // i + j = c, or c + k (negated)
            uint64_t(&A)[6] = i <= c ? P : M;
            mad_wide(A[0], x0[i], y0[j]);
            mad_wide(A[1], x0[i], y1[j]);
            mad_wide(A[2], x0[i], y2[j]);
            mad_wide(A[3], x1[i], y0[j]);
            mad_wide(A[4], x1[i], y1[j]);
            mad_wide(A[5], x1[i], y2[j]);
        }
#pragma unroll
        for (int q = 0; q < 6; ++q) D[q] = (int64_t)(P[q] - M[q]);
    }
};

template <int K, class F, class XDigits>
HD void mul_cols_sums(const F &f, i128 (&t)[K], const XDigits &xd, const uint64_t (&b)[K]) {
    ColLimbs<K> z;
    z.split(xd, b);
    const unsigned s1 = 64 - f.w + f.u, s2 = 64 - f.w;
#pragma unroll
    for (int c = 0; c < K; ++c)
        t[c] = 0;
#pragma unroll
    for (int c = 0; c < K; ++c) {
        int64_t D[6];
        z.column(c, D);
        const i128 L = (i128)D[0] + shl(D[1], 21) + shl(D[2], 42) + shl(D[3], 32) +
                       shl(D[4], 53);
        const i128 H = shl(D[5], 10);
        t[c] += f.sign > 0 ? L - shl(H, s1) : L + shl(H, s1);
        if (c + 1 < K)
            t[c + 1] += shl(H, s2);
        else
            t[0] -= shl(H, s2);
    }
}

// A bound on the digit sums of mul_tw_sums: |t_m| < 2^mul_sums_bits(f). mul_cols_sums: |L_c| <
// 2^111.1 (k <= 16) and the H_c terms below 2^(132-w+u) <= 2^120 (w - u >= 14, mul_cols_ok); for
// P3 and P4 (w - u >= 26) that is below 2^112. mul_core_sums: 2k terms below 2^(w+3) each.
template <class F> HD constexpr unsigned mul_sums_bits(const F &f) {
    return !mul_cols_ok(f) ? f.w + 8 : 133 - f.w + f.u < 113 ? 113 : 133 - f.w + f.u;
}

// Digit sums t with Σ t_m·r^m ≡ x·y, |t_m| < 2^120: mul_cols_sums where its bounds hold, else
// mul_core_sums. The digits of y may be any words below 2^64 where mul_cols_ok (mul_core_sums
// needs them <= r).
template <int K, class F, class XDigits>
HD void mul_tw_sums(const F &f, i128 (&t)[K], const XDigits &xd, const uint64_t (&b)[K]) {
    if (mul_cols_ok(f))
        mul_cols_sums<K>(f, t, xd, b);
    else
        mul_core_sums<K>(f, t, xd, b);
}

// out = x·y, canonical: the digit sums, then normalize.
template <int K, class F, class XDigits>
HD void mul_tw(const F &f, uint64_t (&out)[K], const XDigits &xd, const uint64_t (&b)[K]) {
    i128 t[K];
    mul_tw_sums<K>(f, t, xd, b);
    normalize<K>(f, out, t);
}

// MUL BAL64: x·y straight to balanced digits for P3 (w = 63, u = 34, k = 8), the FFT's twiddle
// multiply: the column sums of mul_cols_sums, then two carry rounds like balance's, but in 64-bit
// words instead of 128-bit ones (P3's FFT levels were bound by the ALU pipe, and the 128-bit
// recombination and rounds were about half of its instructions per element).
// Column c's digit sum (mul_cols_sums with w = 63, u = 34: H_c·2^64 = 2H_c·r - H_c·2^35) is
//   t_c = T_c + D5'_(c-1)·2^11,  T_c = D0 + D1·2^21 + D2·2^42 + D3·2^32 + D4·2^53 - D5·2^45,
// with D_q = plus_q - minus_q, |D_q| < 8·2^54 = 2^57 (so |T_c| < 2^110.01), and D5'_(-1) =
// -D5_(k-1) (r^k ≡ -1; likewise e'_(-1) = -e_(k-1) below). A carry round needs an integer e
// with |t - e·2^63| < 2^63, not the exact floor: then l = t - e·2^63 is exact in wrapping 64-bit
// arithmetic, and t ≡ l - e·2^34 + e·r (2^63 = r - 2^34) moves e to the next column.
//  1. e1 = round(A / 2^13), A = Σ of the terms of T_c shifted to units of 2^50 (floors: A·2^50
//     within (-4, 1)·2^50 of T_c, |A| < 2^60.1); l1 = T_c - e1·2^63 mod 2^64, so |l1| < 2^62 +
//     2^53 and |e1| < 2^47.1.
//  2. t2 = l1 - e1·2^34 + e1'_(c-1) + D5'_(c-1)·2^11 (|t2| < 2^81.1); A2 = the same in units of
//     2^29 (within (-3, 0]·2^29), e2 = round(A2 / 2^34), l2 = t2 - e2·2^63 mod 2^64: |l2| <
//     2^62 + 2^31, |e2| < 2^18.1 + 1.
//  3. d_c = l2 - e2·2^34 + e2'_(c-1): |d_c| < 2^62 + 2^52.1, inside bal_bound(63, 34) = 2^62 +
//     2^58, the same promise as balance (Σ d_c·r^c ≡ x·y).
// The digits of y may be any words below 2^64 (as for mul_cols_sums). tests/gpu/test_bp_digits.cu
// (host-side, runs in CI) compares it with mul_cols_sums + normalize on random and extreme words
// (the largest |d| it met: 2^62 + 2^49.9), and the GPU FFT tests compare the FFTs with the host.
template <class F> struct Bal64 {
    static constexpr bool ok = false;
};
template <> struct Bal64<FieldP3> {
    static constexpr bool ok = true;
};
HD int64_t wsum(uint64_t v) { return (int64_t)v; } // a wrapping 64-bit sum read as signed
template <class F, class XDigits>
HD void mul_bal64(const F &, int64_t (&d)[8], const XDigits &xd, const uint64_t (&b)[8]) {
    static_assert(F::w == 63 && F::u == 34 && F::k == 8 && F::sign > 0, "bounds derived for P3");
    constexpr int K = 8;
    ColLimbs<K> z;
    z.split(xd, b);
    int64_t l1[K], e1[K], d5[K];
#pragma unroll
    for (int c = 0; c < K; ++c) { // the column sums and round 1
        int64_t D[6];
        z.column(c, D);
        const int64_t A = (D[0] >> 50) + (D[1] >> 29) + (D[2] >> 8) + (D[3] >> 18) +
                          (int64_t)((uint64_t)D[4] << 3) - (D[5] >> 5);
        const int64_t e = (A + ((int64_t)1 << 12)) >> 13;
        e1[c] = e;
        d5[c] = D[5];
        l1[c] = wsum((uint64_t)D[0] + ((uint64_t)D[1] << 21) + ((uint64_t)D[2] << 42) +
                     ((uint64_t)D[3] << 32) + ((uint64_t)D[4] << 53) - ((uint64_t)D[5] << 45) -
                     ((uint64_t)e << 63));
    }
    int64_t l2[K], e2[K];
#pragma unroll
    for (int c = 0; c < K; ++c) { // round 2
        const int64_t ep = c ? e1[c - 1] : -e1[K - 1], dp = c ? d5[c - 1] : -d5[K - 1];
        const int64_t A2 =
            (l1[c] >> 29) - (int64_t)((uint64_t)e1[c] << 5) + (ep >> 29) + (dp >> 18);
        const int64_t e = (A2 + ((int64_t)1 << 33)) >> 34;
        e2[c] = e;
        l2[c] = wsum((uint64_t)l1[c] - ((uint64_t)e1[c] << 34) + (uint64_t)ep +
                     ((uint64_t)dp << 11) - ((uint64_t)e << 63));
    }
#pragma unroll
    for (int c = 0; c < K; ++c) {
        const int64_t ep = c ? e2[c - 1] : -e2[K - 1];
        d[c] = wsum((uint64_t)l2[c] - ((uint64_t)e2[c] << 34) + (uint64_t)ep);
    }
}

// Digit i of element j of a digit-major vector of n elements.
struct DigitsAt {
    const uint64_t *x;
    size_t j, n;
    HD uint64_t operator()(int i) const { return x[j + (size_t)i * n]; }
};

} // namespace hepa_bp
#endif
