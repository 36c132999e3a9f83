// src/device/pdl.cuh — programmatic dependent launch (PDL, sm_90 and later), shared by the
// kernels of src/ntt/ntt_cuda.cu and src/rns/rns_cuda.cu. A grid launched with programmatic
// stream serialization (launch_k with pdl, on a device whose hepa_ring_device::pdl is set) may be
// scheduled while the grid before it on the stream is still running. Every kernel so launched
// first waits for the grid before it to complete and its writes to be visible (pdl_wait:
// griddepcontrol.wait, before any global read or write of data another kernel produces or
// consumes), then lets the next grid be scheduled (pdl_trigger). Stream order therefore holds as
// without PDL; what is saved is the launch latency between dependent kernels, the next grid's
// blocks being resident when this one ends. Without the attribute (older devices, the
// launchers that do not ask for it) the wait returns at once. A block that exits without
// pdl_trigger triggers at its exit.
#ifndef HEPA_SRC_DEVICE_PDL_CUH
#define HEPA_SRC_DEVICE_PDL_CUH

#include <cuda_runtime.h>

#include "rns/internal.h" // hepa_ring (ring->dev->pdl)

namespace hepa_pdl {

__device__ __forceinline__ void pdl_wait() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_trigger() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// HELPER PRIORITY: a launch on the ring's helper stream carries ring->dev->helper_prio as its
// priority (a launch attribute, which overrides the stream's; in a captured graph it is the
// kernel node's priority, used where the graph is instantiated with
// cudaGraphInstantiateFlagUseNodePriority). Key switching lowers it for some shapes (keyswitch.c).
// Launches the kernel k, with programmatic stream serialization when pdl (the caller has checked
// that the device has it: compute capability 9.0 or later) and with priority *prio when prio is
// not NULL; the arguments must have the kernel's parameter types exactly.
template <typename... P, typename... A>
cudaError_t launch_attrs(bool pdl, const int *prio, void (*k)(P...), dim3 grid, unsigned threads,
                         size_t smem, cudaStream_t st, A... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    cudaLaunchAttribute at[2];
    unsigned na = 0;
    if (pdl) {
        at[na].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[na++].val.programmaticStreamSerializationAllowed = 1;
    }
    if (prio) {
        at[na].id = cudaLaunchAttributePriority;
        at[na++].val.priority = *prio;
    }
    cfg.attrs = at;
    cfg.numAttrs = na;
    return cudaLaunchKernelEx(&cfg, k, args...);
}
// The ring's launches: PDL when pdl and the ring's device has it, the helper priority on the
// helper stream.
template <typename... P, typename... A>
cudaError_t launch_k(bool pdl, const hepa_ring *ring, void (*k)(P...), dim3 grid, unsigned threads,
                     size_t smem, cudaStream_t st, A... args) {
    const bool helper = st == (cudaStream_t)ring->dev->helper;
    return launch_attrs(pdl && ring->dev->pdl, helper ? &ring->dev->helper_prio : NULL, k, grid,
                        threads, smem, st, args...);
}

} // namespace hepa_pdl
using namespace hepa_pdl;

#endif
