// src/ntt/bigprime_rns_cuda.cu — the RNS route to negacyclic products mod a big prime
// p = r^k + 1 (hepa_bp_rns_*, hepa/bigprime_cuda.h): the same products as hepa_bp_dev_poly_mul
// (bigprime_cuda.cu, the big-prime FFT route) computed through the GPU ring layer, for the
// comparison of seed 002 (bench: hepa-bench --bp-compare).
//
// The integer product. With a_j, b_j in [0, p) taken as integers, every coefficient of
// a·b mod (x^N + 1) over Z is c_j = Σ ±a_i·b_l, |c_j| < N·p^2. The plan picks the s largest
// 62-bit NTT primes q_i (q_i ≡ 1 mod 2N) with Q = Π q_i > 4·N·p^2, so c_j is determined by its
// residues mod Q as the representative in (-Q/4, Q/4). Then:
//   1. to_rns: a_j mod q_i = Σ_m d_m·(r^m mod q_i) mod q_i from the base-r digits d_m (d_m <= r,
//      the canonical form of p - 1 included), one Shoup product per digit;
//   2. the ring layer's negacyclic product in place (s limbs each; _hepa_dev_ntt_mul, the same
//      kernels as hepa_poly_mul on the GPU);
//   3. from_rns, exact CRT straight to Z/pZ: y_i = c_j·(Q/q_i)^(-1) mod q_i, then
//      c_j = Σ y_i·(Q/q_i) - β·Q with β = round(Σ y_i/q_i) (the sum is within 1/4 of the integer
//      β because |c_j| < Q/4; double precision errs by < s·2^-52), so
//      c_j mod p = Σ_i y_i·D_i - β·E with D_i = (Q/q_i) mod p and E = Q mod p as base-r digits:
//      k·s 64x64-bit products per coefficient, summed in 128-bit columns (L_m: low words,
//      H_m: high words, exact: s < 2^6 terms), turned into digit sums with 2^64 =
//      2^(64-w)·(r - sign·2^u) as in mul_cols_sums (bigprime_digits.cuh), then one normalize.
// Work: N·k·s Shoup products in, 3 NTT passes of s limbs, N·k·s wide products out.
#include <cuda_runtime.h>
#include <gmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/internal.h"
#include "hepa/bigprime.h"
#include "hepa/bigprime_cuda.h"
#include "hepa/primes.h"
#include "hepa/ring.h"
#include "ntt/bigprime_digits.cuh"
#include "rns/internal.h"

using namespace hepa_bp;

// Device constants, one allocation (see the layout in hepa_bp_rns_plan_create).
struct RnsConst {
    const uint64_t *q;     // s moduli
    const ulonglong2 *C;   // [i·k + m]: (r^m mod q_i, Shoup companion)
    const ulonglong2 *QI;  // [i]: ((Q/q_i)^(-1) mod q_i, Shoup companion)
    const double *inv_q;   // [i]: 1/q_i
    const uint64_t *D;     // [i·k + m]: digit m of (Q/q_i) mod p
    const uint64_t *E;     // [m]: digit m of Q mod p
    unsigned s;
};

struct hepa_bp_rns_plan {
    hepa_bp_dev_field df;
    size_t N;
    unsigned s;
    hepa_ring *ring;       // n = N, the s primes, CUDA backend
    void *consts;          // device allocation behind rc
    RnsConst rc;
    uint64_t *RA, *RB;     // s·N words each, limb-major
    void *ev_in, *ev_out;  // cudaEvent_t: the caller's stream -> ring stream -> caller's stream
};

namespace hepa_bigprime_rns_cuda {

// Residues of the N elements of x (digit-major) into out (limb-major, s·N words), in [0, q_i).
template <int K>
__global__ void to_rns_kernel(uint64_t *out, const uint64_t *x, size_t N, const RnsConst c) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < N; j += stride) {
        uint64_t d[K];
#pragma unroll
        for (int m = 0; m < K; ++m) d[m] = x[j + (size_t)m * N];
        for (unsigned i = 0; i < c.s; ++i) {
            const uint64_t q = __ldg(c.q + i), two_q = 2 * q;
            uint64_t acc = 0; // [0, 2q)
#pragma unroll
            for (int m = 0; m < K; ++m) {
                const ulonglong2 w = __ldg(c.C + i * K + m);
                acc += hepa_mul_shoup_lazy(d[m], w.x, w.y, q); // any 64-bit d: [0, 2q)
                acc = acc >= two_q ? acc - two_q : acc;
            }
            out[(size_t)i * N + j] = acc >= q ? acc - q : acc;
        }
    }
}

// Element j of z (digit-major, canonical) = the centred CRT value of the residues c[i·N + j],
// reduced mod p (see the file comment).
template <int K>
__global__ void from_rns_kernel(uint64_t *z, const uint64_t *res, size_t N, const RnsConst c,
                                const hepa_bp_dev_field f) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < N; j += stride) {
        i128 L[K], H[K];
#pragma unroll
        for (int m = 0; m < K; ++m) L[m] = H[m] = 0;
        double frac = 0;
        for (unsigned i = 0; i < c.s; ++i) {
            const uint64_t q = __ldg(c.q + i);
            const ulonglong2 qi = __ldg(c.QI + i);
            const uint64_t y = hepa_mul_shoup(res[(size_t)i * N + j], qi.x, qi.y, q); // [0, q)
            frac += (double)y * __ldg(c.inv_q + i);
#pragma unroll
            for (int m = 0; m < K; ++m) {
                const u128 P = (u128)y * __ldg(c.D + i * K + m);
                L[m] += (i128)(uint64_t)P;
                H[m] += (i128)(uint64_t)(P >> 64);
            }
        }
        const i128 beta = (i128)(long long)floor(frac + 0.5); // in [0, s]
        const unsigned s1 = 64 - f.w + f.u, s2 = 64 - f.w;
        i128 t[K];
#pragma unroll
        for (int m = 0; m < K; ++m)
            t[m] = (f.sign > 0 ? L[m] - shl(H[m], s1) : L[m] + shl(H[m], s1)) -
                   beta * (i128)__ldg(c.E + m);
#pragma unroll
        for (int m = 0; m < K; ++m) {
            const i128 h = shl(H[m], s2);
            if (m + 1 < K)
                t[m + 1] += h;
            else
                t[0] -= h;
        }
        uint64_t out[K];
        normalize<K>(f, out, t);
#pragma unroll
        for (int m = 0; m < K; ++m) z[j + (size_t)m * N] = out[m];
    }
}

unsigned grid_for(size_t N, unsigned threads) {
    const size_t want = (N + threads - 1) / threads;
    return (unsigned)(want < 65536 ? want : 65536);
}

template <int K> void to_rns(const hepa_bp_rns_plan *p, uint64_t *out, const uint64_t *x,
                             cudaStream_t st) {
    to_rns_kernel<K><<<grid_for(p->N, 256), 256, 0, st>>>(out, x, p->N, p->rc);
}
template <int K> void from_rns(const hepa_bp_rns_plan *p, uint64_t *z, const uint64_t *res,
                               cudaStream_t st) {
    from_rns_kernel<K><<<grid_for(p->N, 128), 128, 0, st>>>(z, res, p->N, p->rc, p->df);
}

// The k base-r digits of v mod p (v >= 0).
hepa_status digits_mod_p(const hepa_bp_field *f, const mpz_t v, const mpz_t p, uint64_t *out) {
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, v, p);
    const hepa_status s = hepa_bp_from_mpz(f, out, t);
    mpz_clear(t);
    return s;
}

// z = v for a 64-bit v (mpz_set_ui takes an unsigned long, which may be 32 bits).
void set_u64(mpz_t z, uint64_t v) { mpz_import(z, 1, -1, sizeof v, 0, 0, &v); }

// v mod q (v >= 0).
uint64_t mpz_mod_u64(const mpz_t v, uint64_t q) {
    mpz_t t;
    mpz_init(t);
    set_u64(t, q);
    mpz_mod(t, v, t);
    uint64_t r = 0;
    mpz_export(&r, NULL, -1, sizeof r, 0, 0, t);
    mpz_clear(t);
    return r;
}

} // namespace hepa_bigprime_rns_cuda
using namespace hepa_bigprime_rns_cuda;

extern "C" hepa_status hepa_bp_rns_plan_create(hepa_bp_rns_plan **out, const hepa_bp_field *f,
                                               size_t N) {
    if (!out || !f) return HEPA_ERR_INVALID_ARGUMENT;
    if (N == 0 || (N & (N - 1))) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_bp_dev_field df;
    hepa_status s = hepa_bp_dev_field_init(f, &df);
    if (s != HEPA_OK) return s;
    if (N < HEPA_RING_MIN_N || N > HEPA_RING_MAX_N) return HEPA_ERR_UNSUPPORTED;
    const unsigned k = df.k;

    // Q = product of the largest 62-bit NTT primes until Q > 4·N·p^2.
    uint64_t cand[HEPA_RING_MAX_MODULI];
    s = hepa_primes_ntt(cand, HEPA_RING_MAX_MODULI, 62, N);
    if (s != HEPA_OK) return s;
    mpz_t p, bound, Q, t, u;
    mpz_inits(p, bound, Q, t, u, NULL);
    s = hepa_bp_field_prime(f, p);
    unsigned ns = 0;
    if (s == HEPA_OK) {
        mpz_mul(bound, p, p);
        mpz_mul_ui(bound, bound, 4);
        set_u64(t, (uint64_t)N);
        mpz_mul(bound, bound, t);
        mpz_set_ui(Q, 1);
        while (ns < HEPA_RING_MAX_MODULI && mpz_cmp(Q, bound) <= 0) {
            set_u64(t, cand[ns++]);
            mpz_mul(Q, Q, t);
        }
        if (mpz_cmp(Q, bound) <= 0) s = HEPA_ERR_UNSUPPORTED; // needs more than 64 primes
    }
    hepa_bp_rns_plan *pl = NULL;
    if (s == HEPA_OK && !(pl = (hepa_bp_rns_plan *)calloc(1, sizeof *pl))) s = HEPA_ERR_OUT_OF_MEMORY;
    // host image of the constants: q | C | QI | inv_q | D | E, 8-byte words
    // nq rounded up to even: C and QI are read as 16-byte pairs and must be 16-byte aligned
    const size_t nq = (ns + 1) & ~(size_t)1, nC = 2 * (size_t)ns * k, nQI = 2 * (size_t)ns, ninv = ns,
                 nD = (size_t)ns * k, nE = k;
    const size_t words = nq + nC + nQI + ninv + nD + nE;
    uint64_t *img = s == HEPA_OK ? (uint64_t *)calloc(words, sizeof *img) : NULL;
    if (s == HEPA_OK && !img) s = HEPA_ERR_OUT_OF_MEMORY;
    if (s == HEPA_OK) {
        pl->df = df;
        pl->N = N;
        pl->s = ns;
        uint64_t *q = img, *C = q + nq, *QI = C + nC, *D = QI + nQI + ninv, *E = D + nD;
        double *inv_q = (double *)(QI + nQI);
        const uint64_t r = hepa_bp_field_r(f);
        for (unsigned i = 0; i < ns && s == HEPA_OK; ++i) {
            q[i] = cand[i];
            const hepa_modulus mod = hepa_modulus_make(q[i]);
            const uint64_t rq = hepa_mod_reduce64(r, &mod);
            uint64_t pw = 1;
            for (unsigned m = 0; m < k; ++m) {
                C[2 * (i * k + m)] = pw;
                C[2 * (i * k + m) + 1] = hepa_shoup_precompute(pw, q[i]);
                pw = hepa_mod_mul(pw, rq, &mod);
            }
            set_u64(t, q[i]);
            mpz_divexact(u, Q, t); // Q/q_i
            const uint64_t qhat = mpz_mod_u64(u, q[i]);
            const uint64_t qinv = hepa_mod_inv(qhat, q[i]);
            QI[2 * i] = qinv;
            QI[2 * i + 1] = hepa_shoup_precompute(qinv, q[i]);
            inv_q[i] = 1.0 / (double)q[i];
            s = digits_mod_p(f, u, p, D + (size_t)i * k);
        }
        if (s == HEPA_OK) s = digits_mod_p(f, Q, p, E);
    }
    mpz_clears(p, bound, Q, t, u, NULL);
    if (s == HEPA_OK) s = hepa_ring_create(&pl->ring, N, img, ns, HEPA_BACKEND_CUDA);
    if (s == HEPA_OK) {
        cudaError_t e = cudaMalloc(&pl->consts, words * sizeof *img);
        if (e == cudaSuccess)
            e = cudaMemcpy(pl->consts, img, words * sizeof *img, cudaMemcpyHostToDevice);
        if (e == cudaSuccess) e = cudaMalloc((void **)&pl->RA, 2 * (size_t)ns * N * sizeof(uint64_t));
        if (e == cudaSuccess) {
            pl->RB = pl->RA + (size_t)ns * N;
            cudaEvent_t a, b;
            e = cudaEventCreateWithFlags(&a, cudaEventDisableTiming);
            if (e == cudaSuccess) {
                pl->ev_in = a;
                e = cudaEventCreateWithFlags(&b, cudaEventDisableTiming);
                if (e == cudaSuccess) pl->ev_out = b;
            }
        }
        if (e != cudaSuccess) {
            s = _hepa_dev_status(e, "big-prime RNS plan");
            (void)cudaGetLastError();
        } else {
            const uint64_t *base = (const uint64_t *)pl->consts;
            pl->rc.q = base;
            pl->rc.C = (const ulonglong2 *)(base + nq);
            pl->rc.QI = (const ulonglong2 *)(base + nq + nC);
            pl->rc.inv_q = (const double *)(base + nq + nC + nQI);
            pl->rc.D = base + nq + nC + nQI + ninv;
            pl->rc.E = base + nq + nC + nQI + ninv + nD;
            pl->rc.s = ns;
        }
    }
    free(img);
    if (s != HEPA_OK) {
        hepa_bp_rns_plan_destroy(pl);
        return s;
    }
    *out = pl;
    return HEPA_OK;
}

extern "C" void hepa_bp_rns_plan_destroy(hepa_bp_rns_plan *plan) {
    if (!plan) return;
    if (plan->ev_in) (void)cudaEventDestroy((cudaEvent_t)plan->ev_in);
    if (plan->ev_out) (void)cudaEventDestroy((cudaEvent_t)plan->ev_out);
    if (plan->RA) (void)cudaFree(plan->RA);
    if (plan->consts) (void)cudaFree(plan->consts);
    hepa_ring_destroy(plan->ring);
    free(plan);
}

extern "C" size_t hepa_bp_rns_plan_primes(const hepa_bp_rns_plan *plan) {
    return plan ? plan->s : 0;
}

extern "C" const uint64_t *hepa_bp_rns_plan_moduli(const hepa_bp_rns_plan *plan) {
    return plan ? plan->ring->moduli : NULL;
}

extern "C" hepa_status hepa_bp_rns_poly_mul(const hepa_bp_rns_plan *plan, uint64_t *d_z,
                                            const uint64_t *d_x, const uint64_t *d_y,
                                            void *stream) {
    if (!plan || !d_z || !d_x || !d_y) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_status st;
    if ((st = _hepa_dev_check_ptr(d_z, "RNS product output")) != HEPA_OK ||
        (st = _hepa_dev_check_ptr(d_x, "RNS product input x")) != HEPA_OK ||
        (d_y != d_x && (st = _hepa_dev_check_ptr(d_y, "RNS product input y")) != HEPA_OK))
        return st;
    const hepa_ring *ring = plan->ring;
    cudaStream_t us = (cudaStream_t)stream, rs = (cudaStream_t)ring->dev->stream;
    const size_t s = plan->s;
    cudaError_t e = cudaEventRecord((cudaEvent_t)plan->ev_in, us);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(rs, (cudaEvent_t)plan->ev_in, 0);
    if (e != cudaSuccess) return _hepa_dev_status(e, "big-prime RNS product (stream order)");
    const int k8 = plan->df.k == 8;
    const int square = d_y == d_x;
    if (k8) to_rns<8>(plan, plan->RA, d_x, rs); else to_rns<16>(plan, plan->RA, d_x, rs);
    if (!square) {
        if (k8) to_rns<8>(plan, plan->RB, d_y, rs); else to_rns<16>(plan, plan->RB, d_y, rs);
    }
    uint64_t *rb = square ? plan->RA : plan->RB;
    // the product in place (one forward transform for a square)
    st = _hepa_dev_ntt_mul(ring, s, plan->RA, plan->RA, rb, plan->RA, rb);
    if (st == HEPA_OK) {
        if (k8) from_rns<8>(plan, d_z, plan->RA, rs); else from_rns<16>(plan, d_z, plan->RA, rs);
        e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaEventRecord((cudaEvent_t)plan->ev_out, rs);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(us, (cudaEvent_t)plan->ev_out, 0);
        if (e != cudaSuccess) st = _hepa_dev_status(e, "big-prime RNS product");
    }
    return st;
}
