// src/device/grid_sync.cuh — counts between the blocks of one launch, for kernels whose blocks
// take work items in order and wait for earlier items (the NTT's TWO PASSES IN ONE LAUNCH in
// src/ntt/ntt_cuda.cu, the DFT's L2 SQUARE in src/device/dft_cuda.cu). A block only ever waits for
// items handed out before its own, whose blocks are running, so no residency assumption is made.
// take_item, item_order and finish_item are the hand-out, the order and the reset of the counters
// (ctr[0]: items taken, ctr[1]: items finished), used by the DFT's kernels. ntt2_kernel keeps its
// own inline copy of the same order: with these helpers (same arithmetic; ptxas: no spills, 8
// bytes before in two instances) it measured slower, same call on an H100, two rounds, hot µs:
// 2^16/34 60-bit inverse 48.6-48.7 -> 50.5-50.7, 2^17/64 40-bit inverse 114.0-114.3 ->
// 115.6-116.1, forward 105.6 -> 106.8-107.0.
#ifndef HEPA_SRC_DEVICE_GRID_SYNC_CUH
#define HEPA_SRC_DEVICE_GRID_SYNC_CUH

namespace hepa_grid_sync {

// The counts between blocks, as cooperative groups' grid sync does them on sm_70 and later:
// signal_done (the whole block calls it when its stores are done, or for dft_l2sq's ring its
// loads consumed) has the barrier order the block's stores (loads) before thread 0's add with
// release semantics at GPU scope; wait_count (thread
// 0, then the block synchronizes) spins with acquire loads until *c >= need, after which those
// stores are visible to the block. Until 2c1f5e3 every thread fenced its own stores
// (__threadfence) before the barrier, which kept each first-pass block resident until all its
// stores were acknowledged. Same-call A/B on an H100 (two runs each, hot µs, cold alike):
// 2^17/64 40-bit forward 108.8-109.0 -> 107.0-107.1, inverse 117.3 -> 114.9-115.2; 60-bit
// 164.8 -> 162.5-162.6 and 169.7-169.8 -> 167.7-167.8; 2^16/34 60-bit forward 44.5-44.7 ->
// 44.2-44.4, inverse 49.6-49.7 -> 48.8 (thread 0's __threadfence + atomicAdd measured the same).
__device__ __forceinline__ void signal_done(unsigned *c) {
    __syncthreads();
    if (threadIdx.x == 0)
        asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(c) : "memory");
}
__device__ __forceinline__ void wait_count(const unsigned *c, unsigned need) {
    for (;;) {
        unsigned v;
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(c) : "memory");
        if (v >= need) return;
        __nanosleep(100);
    }
}

// The block's work item: the next value of the counter *c (thread 0 takes it, every thread gets
// it).
__device__ __forceinline__ unsigned take_item(unsigned *c) {
    __shared__ unsigned s_item;
    if (threadIdx.x == 0) s_item = atomicAdd(c, 1u);
    __syncthreads();
    return s_item;
}

// ITEM ORDER of a two-phase launch over Y units (limbs, vectors), each with T1 first-phase and T2
// second-phase items, unit y's second phase waiting for its first: item t (in the order taken)
// is item bx of unit y's first (second = 0) or second (1) phase. The first phases of units [0, D)
// come first, then for each s the first phase of unit D + s and the second of unit s, then the
// second phases of the last D units (1 <= D <= Y). So a unit's second phase is handed out about D
// units' worth of items after its first: D about one wave of blocks makes waits rare and keeps the
// data between the phases in L2.
__device__ __forceinline__ void item_order(unsigned t, unsigned Y, unsigned D, unsigned T1,
                                           unsigned T2, unsigned &second, unsigned &y,
                                           unsigned &bx) {
    if (t < D * T1) { // the first D units' first phases
        second = 0;
        y = t / T1;
        bx = t % T1;
    } else {
        const unsigned u = t - D * T1, mid = (Y - D) * (T1 + T2);
        if (u < mid) { // unit D + s's first phase, then unit s's second
            const unsigned s = u / (T1 + T2), r = u % (T1 + T2);
            second = r >= T1;
            y = second ? s : D + s;
            bx = second ? r - T1 : r;
        } else { // the last D units' second phases
            second = 1;
            y = Y - D + (u - mid) / T2;
            bx = (u - mid) % T2;
        }
    }
}

// The block is done with its item: the last of `total` blocks to get here (ctr[1] counts them)
// zeroes ctr[0 .. nzero) for the next launch (every other block has finished).
__device__ __forceinline__ void finish_item(unsigned *ctr, unsigned total, unsigned nzero) {
    __shared__ bool s_last;
    __syncthreads();
    if (threadIdx.x == 0) s_last = atomicAdd(&ctr[1], 1u) == total - 1;
    __syncthreads();
    if (s_last)
        for (unsigned i = threadIdx.x; i < nzero; i += blockDim.x)
            ctr[i] = 0;
}

} // namespace hepa_grid_sync
using namespace hepa_grid_sync;

#endif // HEPA_SRC_DEVICE_GRID_SYNC_CUH
