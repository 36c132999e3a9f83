#!/usr/bin/env bash
# scripts/gpu-check.sh — everything that needs a GPU, in one call: build for the GPU at hand,
# run the whole test suite (GPU tests included), the GPU tests under compute-sanitizer
# (memcheck with leak check, racecheck), and the GPU benchmarks. Logs go to OUTDIR.
#
#   bash scripts/gpu-check.sh [OUTDIR] [STEPS]
#
# OUTDIR defaults to $OUT (the device tool's output folder) or ./gpu-check-out; the logs also go
# into OUTDIR/0-logs.tar.gz. STEPS is a comma-separated subset of build,test,sanitize,bench
# (default: all). Environment:
#   HEPA_BUILD_DIR (default build-gpu), CMAKE_CUDA_ARCHITECTURES (default: 90),
#   HEPA_BENCH_ARGS (extra arguments for hepa-bench).
# On a GPU host without GMP/Criterion: run ../shared/device/make-devroot.sh on a machine with
# Debian's registry, carry .devroot, and `source .devroot/env.sh` first.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${1:-${OUT:-gpu-check-out}}
steps=${2:-build,test,sanitize,bench}
build=${HEPA_BUILD_DIR:-build-gpu}
arch=${CMAKE_CUDA_ARCHITECTURES:-90}
mkdir -p "$out"
status=0
has() { [[ ",$steps," == *",$1,"* ]]; }
run() { # run NAME CMD...: log to $out/NAME.log, remember failure
    local name=$1; shift
    echo "== $name: $*"
    if "$@" >"$out/$name.log" 2>&1; then echo "   ok"; else echo "   FAILED (rc=$?)"; status=1; fi
    tail -n 5 "$out/$name.log" | sed 's/^/   | /'
}

nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv \
    >"$out/gpu.txt" 2>&1 || true
cat "$out/gpu.txt"

if has build; then
    gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
    run configure cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES="$arch"
    run build cmake --build "$build" -j "$(nproc)"
fi
if has test; then
    run ctest ctest --test-dir "$build" --output-on-failure -j 4
fi
if has sanitize; then
    san=(compute-sanitizer --target-processes all --error-exitcode 1)
    for t in "$build"/tests/gpu/test_gpu_*; do
        [ -x "$t" ] || continue
        b=$(basename "$t")
        # test_gpu_oom only fills the device: slow under the sanitizers, nothing for them to check
        [ "$b" = test_gpu_oom ] && continue
        # quick sizes: the sanitizers slow kernels down 10-100x
        # HEPA_DFT_THREAD_COPY: see g_dft_thread_copy in src/device/dft_cuda.cu (memcheck misreports
        # the bulk copies between the blocks of a cluster; racecheck runs them as they are)
        run "memcheck-$b" env HEPA_TEST_QUICK=1 HEPA_DFT_THREAD_COPY=1 "${san[@]}" --tool memcheck --leak-check full \
            "$t" -j1
        # racecheck is the slow one: Criterion's -j4 runs the tests side by side, each in its
        # own process (on an H100, gpu_rns/keyswitch_small did not finish in 300 s before its
        # cases were split over four tests)
        run "racecheck-$b" env HEPA_TEST_QUICK=1 "${san[@]}" --tool racecheck \
            "$t" -j4
    done
fi
if has bench; then
    # shellcheck disable=SC2086
    run bench "$build"/bench/hepa-bench --gpu-suite ${HEPA_BENCH_ARGS:-}
    cat "$out/bench.log"
    run bench-dft "$build"/bench/hepa-bench --dft      # DFT plans next to cuFFT
    run bench-ckks "$build"/bench/hepa-bench --ckks    # CKKS encode / decode latency
    run bench-ks "$build"/bench/hepa-bench --ks        # multiply + relinearize, rescale, rotation
fi
# every log of this call in one archive as well, for a remote runner that brings back only a
# few files (named to sort first; this call's logs only, not the archive of an earlier one)
shopt -s nullglob
logs=("$out"/*.log "$out"/*.txt)
if ((${#logs[@]})); then
    tar -czf "$out/0-logs.tar.gz" -C "$out" -- "${logs[@]##*/}" || echo "   (no log archive)"
fi
exit $status
