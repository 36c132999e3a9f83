// src/rns/poly_cuda.cu — element-wise ring operations on device limbs (the CUDA side of
// poly_host.c): add, sub, neg, pointwise multiply (Barrett), multiply by a per-limb scalar
// (Shoup). One thread per pair of words (16-byte loads and stores); limb = index / n.
#include <cuda_runtime.h>

#include "device/internal.h"
#include "hepa/modarith.h"
#include "rns/internal.h"

namespace hepa_poly_cuda {

struct Scalars {
    uint64_t s[HEPA_RING_MAX_MODULI], sp[HEPA_RING_MAX_MODULI];
};

template <hepa_ew_op OP>
__global__ void ew_kernel(uint64_t *out, const uint64_t *a, const uint64_t *b,
                          const hepa_dev_limb *__restrict__ limbs, int logn, size_t pairs,
                          const Scalars sc) {
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const size_t i = 2 * p;
    const int limb = (int)(i >> logn);
    const uint64_t q = limbs[limb].q;
    const ulonglong2 x = reinterpret_cast<const ulonglong2 *>(a)[p];
    ulonglong2 y = {0, 0}, r;
    if (OP == HEPA_EW_ADD || OP == HEPA_EW_SUB || OP == HEPA_EW_MUL)
        y = reinterpret_cast<const ulonglong2 *>(b)[p];
    if (OP == HEPA_EW_ADD) {
        r.x = hepa_mod_add(x.x, y.x, q);
        r.y = hepa_mod_add(x.y, y.y, q);
    } else if (OP == HEPA_EW_SUB) {
        r.x = hepa_mod_sub(x.x, y.x, q);
        r.y = hepa_mod_sub(x.y, y.y, q);
    } else if (OP == HEPA_EW_NEG) {
        r.x = hepa_mod_neg(x.x, q);
        r.y = hepa_mod_neg(x.y, q);
    } else if (OP == HEPA_EW_MUL) {
        const hepa_modulus m = {q, limbs[limb].ratio_hi, limbs[limb].ratio_lo};
        r.x = hepa_mod_mul(x.x, y.x, &m);
        r.y = hepa_mod_mul(x.y, y.y, &m);
    } else {
        const uint64_t s = sc.s[limb], sp = sc.sp[limb];
        r.x = hepa_mul_shoup(x.x, s, sp, q);
        r.y = hepa_mul_shoup(x.y, s, sp, q);
    }
    reinterpret_cast<ulonglong2 *>(out)[p] = r;
}

} // namespace hepa_poly_cuda
using namespace hepa_poly_cuda;

extern "C" hepa_status _hepa_dev_elementwise(const hepa_ring *ring, size_t level, hepa_ew_op op,
                                             uint64_t *out, const uint64_t *a, const uint64_t *b,
                                             const uint64_t *host_scalars) {
    Scalars sc;
    if (op == HEPA_EW_MUL_SCALAR)
        for (size_t i = 0; i < level; ++i) {
            sc.s[i] = host_scalars[i];
            sc.sp[i] = hepa_shoup_precompute(host_scalars[i], ring->moduli[i]);
        }
    const size_t pairs = level * ring->n / 2; // n >= 16: limbs never split a pair
    const unsigned threads = 256;
    const unsigned blocks = (unsigned)((pairs + threads - 1) / threads);
    cudaStream_t st = (cudaStream_t)ring->dev->stream;
    const hepa_dev_limb *limbs = ring->dev->limbs;
    const int logn = (int)ring->log_n;
    switch (op) {
    case HEPA_EW_ADD: ew_kernel<HEPA_EW_ADD><<<blocks, threads, 0, st>>>(out, a, b, limbs, logn, pairs, sc); break;
    case HEPA_EW_SUB: ew_kernel<HEPA_EW_SUB><<<blocks, threads, 0, st>>>(out, a, b, limbs, logn, pairs, sc); break;
    case HEPA_EW_NEG: ew_kernel<HEPA_EW_NEG><<<blocks, threads, 0, st>>>(out, a, b, limbs, logn, pairs, sc); break;
    case HEPA_EW_MUL: ew_kernel<HEPA_EW_MUL><<<blocks, threads, 0, st>>>(out, a, b, limbs, logn, pairs, sc); break;
    case HEPA_EW_MUL_SCALAR: ew_kernel<HEPA_EW_MUL_SCALAR><<<blocks, threads, 0, st>>>(out, a, b, limbs, logn, pairs, sc); break;
    }
    return _hepa_dev_status(cudaGetLastError(), "element-wise kernel");
}
