// src/device/grid_sync.cuh — counts between the blocks of one launch, for kernels whose blocks
// take work items in order and wait for earlier items (the NTT's TWO PASSES IN ONE LAUNCH in
// src/ntt/ntt_cuda.cu, the DFT's L2 PAIR in src/device/dft_cuda.cu). A block only ever waits for
// items handed out before its own, whose blocks are running, so no residency assumption is made.
#ifndef HEPA_SRC_DEVICE_GRID_SYNC_CUH
#define HEPA_SRC_DEVICE_GRID_SYNC_CUH

namespace {

// The counts between blocks, as cooperative groups' grid sync does them on sm_70 and later:
// signal_done (the whole block calls it when its stores are done) has the barrier order the
// block's stores before thread 0's add with release semantics at GPU scope; wait_count (thread
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

} // namespace

#endif // HEPA_SRC_DEVICE_GRID_SYNC_CUH
