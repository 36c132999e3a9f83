// bench/experiments/host_api_cost.cu — what the CUDA runtime calls that hepa makes around each
// kernel launch cost on the host, so that the host's enqueue time of a call (hepa-bench --ks:
// "Host time to enqueue", with the number of kernels the call's graph holds) can be split into
// its parts. Each row: median over 21 rounds of the mean of 4096 calls, µs per call. Launches
// drain the stream every 256 calls (outside the timed part) so the launch queue never fills.
// Not part of the CMake build:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o hostcost bench/experiments/host_api_cost.cu && ./hostcost
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>
#include <mutex>
#include <vector>

__global__ void empty_kernel(unsigned long long *p, unsigned a, unsigned b) {
    extern __shared__ unsigned long long sm[];
    if (p && threadIdx.x == 0) p[blockIdx.x] = a + b + (unsigned long long)sm;
}

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                           \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

static double now_us() {
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// median over rounds of the mean µs per call of f(i), i = 0 .. calls-1; drain() between chunks
template <class F, class D> static double per_call(F f, D drain, int calls = 4096) {
    std::vector<double> r;
    for (int round = 0; round < 21; ++round) {
        double t = 0;
        for (int c0 = 0; c0 < calls; c0 += 256) {
            const double t0 = now_us();
            for (int i = c0; i < c0 + 256; ++i) f(i);
            t += now_us() - t0;
            drain();
        }
        r.push_back(t / calls);
    }
    std::sort(r.begin(), r.end());
    return r[r.size() / 2];
}

int main() {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t st, helper;
    int lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithPriority(&helper, cudaStreamNonBlocking, hi));
    cudaEvent_t ev;
    CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    unsigned long long *buf;
    CK(cudaMalloc(&buf, 1 << 20));
    CK(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
    auto drain = [&] { cudaStreamSynchronize(st); cudaStreamSynchronize(helper); };
    auto none = [] {};
    auto launch = [&](int na, cudaStream_t s, size_t smem) {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(132);
        cfg.blockDim = dim3(256);
        cfg.dynamicSmemBytes = smem;
        cfg.stream = s;
        cudaLaunchAttribute at[2];
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        at[1].id = cudaLaunchAttributePriority;
        at[1].val.priority = hi;
        cfg.attrs = at;
        cfg.numAttrs = na;
        return cudaLaunchKernelEx(&cfg, empty_kernel, buf, 1u, 2u);
    };
    std::mutex mu;
    struct Row {
        const char *what;
        double us;
    };
    std::vector<Row> rows;
    rows.push_back({"cudaFuncSetAttribute (max dynamic shared memory, same value)",
                    per_call([&](int) { cudaFuncSetAttribute(empty_kernel,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          96 * 1024); }, none)});
    rows.push_back({"cudaFuncGetAttributes", per_call([&](int) {
                        cudaFuncAttributes a;
                        cudaFuncGetAttributes(&a, empty_kernel);
                    }, none)});
    rows.push_back({"mutex + cudaFuncGetAttributes (as _hepa_dev_allow_smem when no raise)",
                    per_call([&](int) {
                        std::lock_guard<std::mutex> g(mu);
                        cudaFuncAttributes a;
                        cudaFuncGetAttributes(&a, empty_kernel);
                    }, none)});
    rows.push_back({"cudaStreamIsCapturing", per_call([&](int) {
                        cudaStreamCaptureStatus cs;
                        cudaStreamIsCapturing(st, &cs);
                    }, none)});
    rows.push_back({"cudaGetLastError", per_call([&](int) { (void)cudaGetLastError(); }, none)});
    rows.push_back({"cudaGetDevice", per_call([&](int) {
                        int d;
                        cudaGetDevice(&d);
                    }, none)});
    rows.push_back({"cudaSetDevice (the current one)",
                    per_call([&](int) { cudaSetDevice(0); }, none)});
    rows.push_back({"cudaEventRecord + cudaStreamWaitEvent (a fork or join)", per_call([&](int) {
                        cudaEventRecord(ev, st);
                        cudaStreamWaitEvent(helper, ev, 0);
                    }, drain)});
    rows.push_back({"cudaMallocAsync + cudaFreeAsync of 1 MiB (pool)", per_call([&](int) {
                        void *p;
                        cudaMallocAsync(&p, 1 << 20, st);
                        cudaFreeAsync(p, st);
                    }, drain)});
    rows.push_back({"kernel launch <<<>>>", per_call([&](int) {
                        empty_kernel<<<132, 256, 0, st>>>(buf, 1u, 2u);
                    }, drain)});
    rows.push_back({"cudaLaunchKernelEx, no attribute",
                    per_call([&](int) { launch(0, st, 0); }, drain)});
    rows.push_back({"cudaLaunchKernelEx, PDL attribute",
                    per_call([&](int) { launch(1, st, 0); }, drain)});
    rows.push_back({"cudaLaunchKernelEx, PDL + priority attributes, helper stream",
                    per_call([&](int) { launch(2, helper, 0); }, drain)});
    rows.push_back({"cudaLaunchKernelEx, PDL attribute, 64 KiB dynamic shared memory",
                    per_call([&](int) { launch(1, st, 64 * 1024); }, drain)});
    rows.push_back({"cudaFuncSetAttribute + cudaLaunchKernelEx (PDL, 64 KiB)", per_call([&](int) {
                        cudaFuncSetAttribute(empty_kernel,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             96 * 1024);
                        launch(1, st, 64 * 1024);
                    }, drain)});
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    printf("# Host cost of CUDA runtime calls (%s, CUDA runtime %d)\n\n| call | µs per call |\n"
           "|---|---|\n",
           prop.name, CUDART_VERSION);
    for (auto &r : rows) printf("| %s | %.3f |\n", r.what, r.us);
    return 0;
}
