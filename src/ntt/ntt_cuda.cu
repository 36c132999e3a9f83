// src/ntt/ntt_cuda.cu — negacyclic NTT kernels for all live limbs of a polynomial, bit-exact
// with the host transforms (ntt_ref.c, ntt_host.c): same tables, same butterflies
// (hepa_butterfly_ct_lazy / hepa_butterfly_gs_lazy from hepa/modarith.h), same lazy ranges.
//
// Indexing. Element x of a limb (x in [0, n)) meets its partner x + 2^B at the stage that acts on
// bit B of the index (forward: B = log n - 1 down to 0; inverse: 0 up to log n - 1), with twiddle
// table entry (n >> (B+1)) + (x >> (B+1)) — the host loops' w[m + i] written in terms of x.
//
// Decomposition. A *tile* is a set of elements closed under the stages a kernel runs: all
// elements whose index agrees outside a window of GB bits. Each thread keeps 8 elements in
// registers ("slots": 3 index bits), the 32 lanes of a warp hold 5 more bits, the warps of a
// block the rest. A stage on a slot bit is a butterfly between two registers of one thread; a
// stage on a lane bit first swaps that lane bit with a slot bit through __shfl_xor_sync (each
// thread sends 4 of its 8 values to its partner; after the swap the pair lies in one thread,
// seed 000's warp-shuffle scheme without redundant butterflies); a stage on a warp bit first
// exchanges the tile through shared memory so that the needed bits become slot bits.
//   n <= 2^9:  ntt_small_kernel, one block per limb, one stage per __syncthreads (simple).
//   n in [2^10, 2^12]: one tile = one limb, one kernel, one read and one write of the data.
//   n in [2^13, 2^17]: two kernels (four-step style). Pass 1 (columns): the top log n - 8 bits,
//     tiles of 8 adjacent columns (64-byte rows, coalesced). Pass 2 (rows): the low 8 bits, one
//     warp per 256-element row, registers and shuffles only. Each pass reads and writes the
//     data once.
// Lazy ranges: forward values stay in [0, 4q) between passes and are reduced to [0, q) at the
// final store; inverse values stay in [0, 2q), the last stage folds in n^(-1), and the final
// store reduces to [0, q).
#include <cuda_runtime.h>

#include "device/internal.h"
#include "hepa/modarith.h"
#include "rns/internal.h"

namespace {

struct LimbTables {
    const uint64_t *w, *wp; // fwd/fwd_shoup or inv/inv_shoup
    uint64_t q;
};

__device__ __forceinline__ LimbTables limb_tables(const uint64_t *tables,
                                                  const hepa_dev_limb *limbs, int limb, size_t n,
                                                  bool inverse) {
    LimbTables t;
    const uint64_t *base = tables + 4 * n * (size_t)limb + (inverse ? 2 * n : 0);
    t.w = base;
    t.wp = base + n;
    t.q = limbs[limb].q;
    return t;
}

// Where the GB bits of a tile-local index e live: slot bit i holds e-bit ps[i]; lane bit CB + j
// holds e-bit pl[j]; the remaining e-bits are spread over the warp index in increasing order.
// The thread's own contribution (lanes and warps) is `base`; e(k) = base | deposit(k).
template <int GB, int CB> struct Mapping {
    static constexpr int LB = 5 - CB;      // lane bits that carry e-bits
    static constexpr int MB = GB - 3 - LB; // warp bits
    int ps[3];
    int pl[LB > 0 ? LB : 1];
    int base;

    __device__ __forceinline__ int e_of(int k) const {
        return base | ((k & 1) << ps[0]) | (((k >> 1) & 1) << ps[1]) | (((k >> 2) & 1) << ps[2]);
    }
    __device__ __forceinline__ int owner_mask() const { // e-bits held by slots or lanes
        int m = (1 << ps[0]) | (1 << ps[1]) | (1 << ps[2]);
#pragma unroll
        for (int j = 0; j < LB; ++j) m |= 1 << pl[j];
        return m;
    }
    // Recompute base from the lane and warp index for the current ps/pl.
    __device__ __forceinline__ void rebase(int lane, int warp) {
        int b = 0;
#pragma unroll
        for (int j = 0; j < LB; ++j) b |= ((lane >> (CB + j)) & 1) << pl[j];
        const int free_bits = ((1 << GB) - 1) & ~owner_mask();
        int wbit = 0;
#pragma unroll
        for (int bit = 0; bit < GB; ++bit)
            if ((free_bits >> bit) & 1) b |= ((warp >> wbit++) & 1) << bit;
        base = b;
    }
    __device__ __forceinline__ int slot_of(int bit) const {
        return ps[0] == bit ? 0 : ps[1] == bit ? 1 : ps[2] == bit ? 2 : -1;
    }
    __device__ __forceinline__ int lane_of(int bit) const {
#pragma unroll
        for (int j = 0; j < LB; ++j)
            if (pl[j] == bit) return j;
        return -1;
    }
};

// Swap slot bit I with lane bit CB + j (see the file comment). After the call, slot bit I
// holds the e-bit the lane held and vice versa.
template <int I, int GB, int CB>
__device__ __forceinline__ void swap_slot_lane(uint64_t (&v)[8], Mapping<GB, CB> &m, int j,
                                               int lane) {
    const int lb = CB + j;
    const int mine = (lane >> lb) & 1;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        if ((k >> I) & 1) continue;
        const int k1 = k | (1 << I);
        const uint64_t send = mine ? v[k] : v[k1];
        const uint64_t recv = __shfl_xor_sync(0xffffffffu, send, 1 << lb);
        if (mine)
            v[k] = recv;
        else
            v[k1] = recv;
    }
    const int slot_bit = m.ps[I], lane_bit = m.pl[j];
    // the lane bit's old e-bit leaves base; the lane now carries the slot's old e-bit
    m.base = (m.base & ~(1 << lane_bit)) | (mine << slot_bit);
    m.ps[I] = lane_bit;
    m.pl[j] = slot_bit;
}

template <int GB, int CB>
__device__ __forceinline__ void swap_slot_lane_rt(int i, uint64_t (&v)[8], Mapping<GB, CB> &m,
                                                  int j, int lane) {
    if (i == 0)
        swap_slot_lane<0>(v, m, j, lane);
    else if (i == 1)
        swap_slot_lane<1>(v, m, j, lane);
    else
        swap_slot_lane<2>(v, m, j, lane);
}

// One stage on slot bit I (tile-local e-bit ps[I], global bit gbit) for all 4 register pairs.
// gx0 = global index of the tile element with e = 0 (plus the thread's column); e_shift places e
// in the global index.
template <int I, bool INV, int GB, int CB>
__device__ __forceinline__ void stage_regs(uint64_t (&v)[8], const Mapping<GB, CB> &m,
                                           const LimbTables &t, size_t gx0, int e_shift,
                                           int gbit, int logn, bool scale_last,
                                           const hepa_dev_limb &lc) {
    const size_t n = (size_t)1 << logn;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        if ((k >> I) & 1) continue;
        const int k1 = k | (1 << I);
        const size_t gx = gx0 + ((size_t)m.e_of(k) << e_shift);
        const size_t idx = (n >> (gbit + 1)) + (gx >> (gbit + 1));
        if (!INV) {
            hepa_butterfly_ct_lazy(&v[k], &v[k1], __ldg(t.w + idx), __ldg(t.wp + idx), t.q);
        } else if (!scale_last) {
            hepa_butterfly_gs_lazy(&v[k], &v[k1], __ldg(t.w + idx), __ldg(t.wp + idx), t.q);
        } else {
            // last inverse stage: (x + y)·n^(-1), (x - y)·n^(-1)·w, both in [0, 2q)
            const uint64_t x = v[k], y = v[k1];
            v[k] = hepa_mul_shoup_lazy(x + y, lc.n_inv, lc.n_inv_shoup, t.q);
            v[k1] = hepa_mul_shoup_lazy(x - y + 2 * t.q, lc.n_inv_w, lc.n_inv_w_shoup, t.q);
        }
    }
}

template <bool INV, int GB, int CB>
__device__ __forceinline__ void stage_regs_rt(int i, uint64_t (&v)[8], const Mapping<GB, CB> &m,
                                              const LimbTables &t, size_t gx0, int e_shift,
                                              int gbit, int logn, bool scale_last,
                                              const hepa_dev_limb &lc) {
    if (i == 0)
        stage_regs<0, INV>(v, m, t, gx0, e_shift, gbit, logn, scale_last, lc);
    else if (i == 1)
        stage_regs<1, INV>(v, m, t, gx0, e_shift, gbit, logn, scale_last, lc);
    else
        stage_regs<2, INV>(v, m, t, gx0, e_shift, gbit, logn, scale_last, lc);
}

// Exchange the tile through shared memory so that slots hold e-bits new_ps[0..2].
template <int GB, int CB>
__device__ __forceinline__ void smem_exchange(uint64_t (&v)[8], Mapping<GB, CB> &m,
                                              const int (&new_ps)[3], uint64_t *smem, int c,
                                              int lane, int warp) {
    constexpr int C = 1 << CB;
    __syncthreads(); // earlier reads of smem are done
#pragma unroll
    for (int k = 0; k < 8; ++k) smem[m.e_of(k) * C + c] = v[k];
    __syncthreads();
    m.ps[0] = new_ps[0];
    m.ps[1] = new_ps[1];
    m.ps[2] = new_ps[2];
    m.rebase(lane, warp);
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = smem[m.e_of(k) * C + c];
}

// The tile kernel. Template: GB = tile bits, CB = log2(columns per tile) (lanes' low CB bits pick
// the column), TILES = tiles per block (only when the tile needs no shared memory), INV =
// inverse, FUSED = inverse pass that first multiplies two NTT-domain inputs pointwise.
// Runtime: the tile's global index is tile_base + c + (e << e_shift), with tile_base =
// tile * tile_stride. gbit_lo = global bit of tile e-bit 0. `first`/`last`: first or last pass
// of the transform (the last reduces to [0, q); the last inverse pass scales by n^(-1)).
template <int GB, int CB, int TILES, bool INV, bool FUSED>
__global__ void __launch_bounds__(TILES * (1 << (GB + CB - 3)))
    ntt_tile_kernel(uint64_t *out, const uint64_t *in, const uint64_t *in2,
                    const uint64_t *__restrict__ tables, const hepa_dev_limb *__restrict__ limbs,
                    int logn, int e_shift, size_t tile_stride, bool last) {
    extern __shared__ uint64_t smem[];
    constexpr int TPT = 1 << (GB + CB - 3); // threads per tile
    constexpr int C = 1 << CB;
    using Map = Mapping<GB, CB>;
    const size_t n = (size_t)1 << logn;
    const int limb = blockIdx.y;
    const int ltid = threadIdx.x % TPT;
    const int tile = blockIdx.x * TILES + threadIdx.x / TPT;
    const int lane = ltid & 31, warp = ltid >> 5;
    const int c = lane & (C - 1);
    const size_t off = (size_t)limb * n;
    const size_t gx0 = (size_t)tile * tile_stride + c;
    const LimbTables t = limb_tables(tables, limbs, limb, n, INV);
    const hepa_dev_limb lc = limbs[limb];
    const int gbit_lo = e_shift;

    Map m;
    m.ps[0] = GB - 3;
    m.ps[1] = GB - 2;
    m.ps[2] = GB - 1;
#pragma unroll
    for (int j = 0; j < Map::LB; ++j) m.pl[j] = j;
    m.rebase(lane, warp);

    uint64_t v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        const size_t gx = off + gx0 + ((size_t)m.e_of(k) << e_shift);
        if (FUSED) {
            const hepa_modulus mod = {lc.q, lc.ratio_hi, lc.ratio_lo};
            v[k] = hepa_mod_mul(in[gx], in2[gx], &mod); // [0, q)
        } else {
            v[k] = in[gx];
        }
    }

    // Stages: forward e-bits GB-1 .. 0, inverse 0 .. GB-1.
    int done = 0; // mask of processed e-bits
    for (int step = 0; step < GB; ++step) {
        const int b = INV ? step : GB - 1 - step;
        int i = m.slot_of(b);
        if (i < 0) {
            const int j = m.lane_of(b);
            if (j >= 0) {
                // swap with a slot whose bit is already processed, else the one needed last
                int pick = -1;
                for (int s = 0; s < 3; ++s)
                    if ((done >> m.ps[s]) & 1) pick = s;
                if (pick < 0) {
                    pick = 0;
                    for (int s = 1; s < 3; ++s)
                        if (INV ? m.ps[s] > m.ps[pick] : m.ps[s] < m.ps[pick]) pick = s;
                }
                swap_slot_lane_rt(pick, v, m, j, lane);
                i = pick;
            } else {
                // a warp bit: bring b and the next unprocessed warp bits (in stage order) into
                // the slots; fill the rest with processed bits so nothing pending leaves a slot
                int np[3], cnt = 0;
                const int owned = m.owner_mask();
                for (int s = step; s < GB && cnt < 3; ++s) {
                    const int bb = INV ? s : GB - 1 - s;
                    if (!((owned >> bb) & 1)) np[cnt++] = bb;
                }
                for (int s = 0; s < 3 && cnt < 3; ++s) {
                    const int bb = m.ps[s];
                    if ((done >> bb) & 1) np[cnt++] = bb;
                }
                for (int bb = 0; bb < GB && cnt < 3; ++bb)
                    if (((done >> bb) & 1) && !((owned >> bb) & 1)) np[cnt++] = bb;
                for (int s = 0; s < 3 && cnt < 3; ++s) { // unprocessed slot bits, last resort
                    const int bb = m.ps[s];
                    if (!((done >> bb) & 1)) np[cnt++] = bb;
                }
                smem_exchange(v, m, np, smem, c, lane, warp);
                i = m.slot_of(b);
            }
        }
        const bool scale_last = INV && last && (b + gbit_lo == logn - 1);
        stage_regs_rt<INV>(i, v, m, t, gx0, e_shift, b + gbit_lo, logn, scale_last, lc);
        done |= 1 << b;
    }

    // Back to the load mapping (lanes on the low e-bits) so the stores are coalesced.
    bool lanes_ok = true;
#pragma unroll
    for (int j = 0; j < Map::LB; ++j) lanes_ok &= (m.pl[j] == j);
    if (!lanes_ok) {
        if (Map::MB > 0) {
            // write with the current mapping, read back with the load mapping
            const Map cur = m;
            __syncthreads();
#pragma unroll
            for (int k = 0; k < 8; ++k) smem[cur.e_of(k) * C + c] = v[k];
            __syncthreads();
            m.ps[0] = GB - 3;
            m.ps[1] = GB - 2;
            m.ps[2] = GB - 1;
#pragma unroll
            for (int j = 0; j < Map::LB; ++j) m.pl[j] = j;
            m.rebase(lane, warp);
#pragma unroll
            for (int k = 0; k < 8; ++k) v[k] = smem[m.e_of(k) * C + c];
        } else {
            // registers and lanes only: move e-bit j into lane j by swaps through a slot
            for (int j = 0; j < Map::LB; ++j) {
                if (m.pl[j] == j) continue;
                int i = m.slot_of(j);
                if (i < 0) { // bit j sits in another lane: first bring it into slot 0
                    swap_slot_lane_rt(0, v, m, m.lane_of(j), lane);
                    i = 0;
                }
                swap_slot_lane_rt(i, v, m, j, lane);
            }
        }
    }

#pragma unroll
    for (int k = 0; k < 8; ++k) {
        const size_t gx = off + gx0 + ((size_t)m.e_of(k) << e_shift);
        uint64_t x = v[k];
        if (last) x = INV ? hepa_reduce_2q(x, t.q) : hepa_reduce_4q(x, t.q);
        out[gx] = x;
    }
}

// n <= 2^9: one block per limb, n/2 threads, one butterfly per thread per stage, shared memory
// between stages. Also fuses the pointwise product for the inverse.
template <bool INV, bool FUSED>
__global__ void ntt_small_kernel(uint64_t *out, const uint64_t *in, const uint64_t *in2,
                                 const uint64_t *__restrict__ tables,
                                 const hepa_dev_limb *__restrict__ limbs, int logn) {
    extern __shared__ uint64_t smem[];
    const size_t n = (size_t)1 << logn;
    const int limb = blockIdx.y;
    const size_t off = (size_t)limb * n;
    const LimbTables t = limb_tables(tables, limbs, limb, n, INV);
    const hepa_dev_limb lc = limbs[limb];
    for (size_t x = threadIdx.x; x < n; x += blockDim.x) {
        if (FUSED) {
            const hepa_modulus mod = {lc.q, lc.ratio_hi, lc.ratio_lo};
            smem[x] = hepa_mod_mul(in[off + x], in2[off + x], &mod);
        } else {
            smem[x] = in[off + x];
        }
    }
    __syncthreads();
    const size_t p = threadIdx.x; // butterfly number in [0, n/2)
    for (int s = 0; s < logn; ++s) {
        const int bit = INV ? s : logn - 1 - s;
        const size_t lo = p & (((size_t)1 << bit) - 1);
        const size_t x = ((p >> bit) << (bit + 1)) | lo, y = x + ((size_t)1 << bit);
        const size_t idx = (n >> (bit + 1)) + (x >> (bit + 1));
        uint64_t a = smem[x], b = smem[y];
        if (!INV) {
            hepa_butterfly_ct_lazy(&a, &b, t.w[idx], t.wp[idx], t.q);
        } else if (bit < logn - 1) {
            hepa_butterfly_gs_lazy(&a, &b, t.w[idx], t.wp[idx], t.q);
        } else {
            const uint64_t u = a, w = b;
            a = hepa_mul_shoup_lazy(u + w, lc.n_inv, lc.n_inv_shoup, t.q);
            b = hepa_mul_shoup_lazy(u - w + 2 * t.q, lc.n_inv_w, lc.n_inv_w_shoup, t.q);
        }
        smem[x] = a;
        smem[y] = b;
        __syncthreads();
    }
    for (size_t x = threadIdx.x; x < n; x += blockDim.x)
        out[off + x] = INV ? hepa_reduce_2q(smem[x], t.q) : hepa_reduce_4q(smem[x], t.q);
}

template <int GB, int CB, int TILES, bool INV, bool FUSED>
cudaError_t launch_tile(uint64_t *out, const uint64_t *in, const uint64_t *in2,
                        const hepa_ring *ring, size_t level, int e_shift, size_t tile_stride,
                        size_t tiles, bool last, cudaStream_t st) {
    constexpr int TPT = 1 << (GB + CB - 3);
    constexpr int MB = GB - 3 - (5 - CB);
    const size_t smem = MB > 0 ? ((size_t)8 << (GB + CB)) : 0;
    auto kern = ntt_tile_kernel<GB, CB, TILES, INV, FUSED>;
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem);
        if (e != cudaSuccess) return e;
    }
    dim3 grid((unsigned)(tiles / TILES), (unsigned)level);
    kern<<<grid, TILES * TPT, smem, st>>>(out, in, in2, ring->dev->tables, ring->dev->limbs,
                                          (int)ring->log_n, e_shift, tile_stride, last);
    return cudaGetLastError();
}

// Runs the whole transform: (out, in, in2) as in the kernels; in2 only when FUSED.
template <bool INV, bool FUSED>
cudaError_t run_ntt(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *in,
                    const uint64_t *in2) {
    cudaStream_t st = (cudaStream_t)ring->dev->stream;
    const int logn = (int)ring->log_n;
    const size_t n = ring->n;
    if (logn <= 9) {
        dim3 grid(1, (unsigned)level);
        ntt_small_kernel<INV, FUSED><<<grid, (unsigned)(n / 2), n * sizeof(uint64_t), st>>>(
            out, in, in2, ring->dev->tables, ring->dev->limbs, logn);
        return cudaGetLastError();
    }
    switch (logn) {
    case 10: return launch_tile<10, 0, 1, INV, FUSED>(out, in, in2, ring, level, 0, n, 1, true, st);
    case 11: return launch_tile<11, 0, 1, INV, FUSED>(out, in, in2, ring, level, 0, n, 1, true, st);
    case 12: return launch_tile<12, 0, 1, INV, FUSED>(out, in, in2, ring, level, 0, n, 1, true, st);
    default: break;
    }
    // Two passes. Rows: 256 contiguous elements (low 8 bits), 4 rows per block. Columns: the
    // top logn - 8 bits, 8 adjacent columns per tile.
    const size_t rows = n >> 8, col_tiles = 256 / 8;
    cudaError_t e;
#define COLS(GB1, FUS, IN, IN2, LAST)                                                          \
    launch_tile<GB1, 3, 1, INV, FUS>(out, IN, IN2, ring, level, 8, 8, col_tiles, LAST, st)
#define ROWS(FUS, IN, IN2, LAST)                                                               \
    launch_tile<8, 0, 4, INV, FUS>(out, IN, IN2, ring, level, 0, 256, rows, LAST, st)
    if (!INV) {
        switch (logn) { // columns first, then rows
        case 13: e = COLS(5, false, in, nullptr, false); break;
        case 14: e = COLS(6, false, in, nullptr, false); break;
        case 15: e = COLS(7, false, in, nullptr, false); break;
        case 16: e = COLS(8, false, in, nullptr, false); break;
        default: e = COLS(9, false, in, nullptr, false); break;
        }
        if (e != cudaSuccess) return e;
        return ROWS(false, out, nullptr, true);
    }
    e = ROWS(FUSED, in, in2, false); // rows first (low bits), then columns
    if (e != cudaSuccess) return e;
    switch (logn) {
    case 13: return COLS(5, false, out, nullptr, true);
    case 14: return COLS(6, false, out, nullptr, true);
    case 15: return COLS(7, false, out, nullptr, true);
    case 16: return COLS(8, false, out, nullptr, true);
    default: return COLS(9, false, out, nullptr, true);
    }
#undef COLS
#undef ROWS
}

} // namespace

extern "C" hepa_status _hepa_dev_ntt_forward(const hepa_ring *ring, size_t level, uint64_t *out,
                                             const uint64_t *in) {
    return _hepa_dev_status(run_ntt<false, false>(ring, level, out, in, nullptr), "NTT forward");
}

extern "C" hepa_status _hepa_dev_ntt_inverse(const hepa_ring *ring, size_t level, uint64_t *out,
                                             const uint64_t *in) {
    return _hepa_dev_status(run_ntt<true, false>(ring, level, out, in, nullptr), "NTT inverse");
}

extern "C" hepa_status _hepa_dev_mul_inverse(const hepa_ring *ring, size_t level, uint64_t *out,
                                             const uint64_t *a, const uint64_t *b) {
    return _hepa_dev_status(run_ntt<true, true>(ring, level, out, a, b), "NTT mul+inverse");
}
