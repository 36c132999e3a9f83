// src/device/cluster.cuh — launching thread-block clusters (sm_90): the launch configuration and
// whether (and how many at once) the current device runs a kernel's clusters. Used by the DFT
// plans (dft_cuda.cu), the CKKS encoder (rns/ckks_cuda.cu) and key switching (ntt/ntt_cuda.cu).
#ifndef HEPA_SRC_DEVICE_CLUSTER_CUH
#define HEPA_SRC_DEVICE_CLUSTER_CUH

#include <cuda_runtime.h>
#include <stddef.h>

namespace {

// cluster_config: the launch of `clusters` clusters of `cluster` blocks of `threads` threads with
// `smem` bytes of dynamic shared memory each (cfg points at attr).
// cluster_kernel_active: how many such clusters of kernel k (compiled for sm_90) the current device
// runs at once, 0 where it cannot launch them; sets the kernel's shared-memory limit (and, above 8
// blocks, the non-portable cluster size) on the way. cluster_kernel_ok: whether it is above 0.
inline void cluster_config(unsigned clusters, unsigned cluster, unsigned threads, size_t smem,
                           cudaStream_t st, cudaLaunchConfig_t &cfg, cudaLaunchAttribute &attr) {
    cfg = {};
    cfg.gridDim = dim3(clusters * cluster);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
}
inline int cluster_kernel_active(const void *k, unsigned cluster, unsigned threads, size_t smem) {
    int dev = 0, ok = 0;
    cudaFuncAttributes a;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&ok, cudaDevAttrClusterLaunch, dev) != cudaSuccess ||
        cudaFuncGetAttributes(&a, k) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (!ok || a.ptxVersion < 90) return 0;
    if ((cluster > 8 && cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) ||
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cluster_config(1, cluster, threads, smem, 0, cfg, attr);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, k, &cfg) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return clusters > 0 ? clusters : 0;
}
inline bool cluster_kernel_ok(const void *k, unsigned cluster, unsigned threads, size_t smem) {
    return cluster_kernel_active(k, cluster, threads, smem) > 0;
}

} // namespace

#endif // HEPA_SRC_DEVICE_CLUSTER_CUH
