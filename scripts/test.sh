#!/usr/bin/env bash
# test.sh [--valgrind | --sanitize] — THE TEST COMMAND: installs what is missing, builds hepa,
# runs ctest.
#
#   bash scripts/test.sh              configure + build build/ (Release), run every test; then
#                                     the sanitizer stage below (skipped, saying so, where the
#                                     compiler cannot link -fsanitize=address,undefined)
#   bash scripts/test.sh --sanitize   only the sanitizer stage: a CPU-only build in build-san/
#                                     with AddressSanitizer and UndefinedBehaviorSanitizer
#                                     (-fno-sanitize-recover: any undefined behaviour fails its
#                                     test), then its ctest. check_install is left out there (its
#                                     consumer is not built with the sanitizer runtime); leaks
#                                     inside Criterion's test processes are printed but do not
#                                     fail a test (Criterion does not look at how its child
#                                     exited): --valgrind is the leak check
#   bash scripts/test.sh --valgrind   same build with the memcheck tests registered
#                                     (-DHEPA_TEST_MEMCHECK=ON), then only those: every test
#                                     executable under valgrind --leak-check=full with
#                                     HEPA_TEST_QUICK=1 (tests/memcheck.sh fails on any error or
#                                     leak in any process), and the example and a small
#                                     hepa-bench run under valgrind --error-exitcode=1
#
# Environment:
#   HEPA_BUILD_DIR      build directory (default: build/ in the repository)
#   HEPA_SAN_BUILD_DIR  the sanitizer stage's build directory (default: build-san/)
#   HEPA_TEST_SANITIZE  0: the default run skips the sanitizer stage
#   HEPA_CMAKE_ARGS     extra arguments for the configure step, e.g. "-DHEPA_ENABLE_CUDA=OFF"
#                       or "-DCMAKE_CUDA_ARCHITECTURES=90" (not passed to the sanitizer stage)
#
# Works without a GPU: the CUDA code is compiled when nvcc is found, and GPU tests report
# themselves as skipped when no GPU is usable. Exits nonzero when anything fails.
set -euo pipefail

usage() { sed -n '2,32p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

valgrind=0
sanitize=${HEPA_TEST_SANITIZE:-1} # 0 none, 1 after the main tests, 2 only
for arg in "$@"; do
    case "$arg" in
    --valgrind) valgrind=1 ;;
    --sanitize) sanitize=2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${HEPA_BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)

# A GPU host without GMP/Criterion and without a registry: .devroot/ (DESIGN.md) has them.
# Used only when the system's compiler finds no gmp.h of its own.
if [[ -f "$root/.devroot/env.sh" ]] &&
    ! printf '#include <gmp.h>\n' | "${CC:-cc}" -E -x c - >/dev/null 2>&1; then
    # shellcheck disable=SC1091
    source "$root/.devroot/env.sh"
fi

if ((valgrind)); then
    bash "$root/scripts/deps.sh" --valgrind
    command -v valgrind >/dev/null || { echo "test.sh: valgrind is not installed" >&2; exit 1; }
else
    bash "$root/scripts/deps.sh"
fi

# nvcc is often installed outside PATH
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
    export PATH="/usr/local/cuda/bin:$PATH"
fi

if ((valgrind)); then sanitize=0; fi

# configure_build LABEL DIR CMAKE_ARGS...: configures DIR from the repository and builds it
configure_build() {
    local label=$1 dir=$2
    shift 2
    local args=(-S "$root" -B "$dir" "$@")
    # the generator is fixed at the first configure; pass it only then
    if [[ ! -f "$dir/CMakeCache.txt" ]] && command -v ninja >/dev/null; then
        args+=(-G Ninja)
    fi
    echo "== ${label}configure $dir"
    cmake "${args[@]}"
    echo "== ${label}build ($jobs jobs)"
    cmake --build "$dir" --parallel "$jobs"
}

if ((sanitize != 2)); then
    cfg=(-DCMAKE_BUILD_TYPE=Release)
    if ((valgrind)); then
        cfg+=(-DHEPA_TEST_MEMCHECK=ON)
    fi
    if [[ -n "${HEPA_CMAKE_ARGS:-}" ]]; then
        read -r -a extra <<<"$HEPA_CMAKE_ARGS"
        cfg+=("${extra[@]}")
    fi
    configure_build "" "$build" "${cfg[@]}"

    if ((valgrind)); then
        export HEPA_TEST_QUICK=1
        echo "== ctest -L memcheck (test executables under valgrind, HEPA_TEST_QUICK=1)"
        ctest --test-dir "$build" --output-on-failure -L memcheck --parallel "$jobs"
        # shellcheck disable=SC2054 # the commas belong to the option's value
        vg=(valgrind -q --leak-check=full --error-exitcode=1
            --errors-for-leak-kinds=definite,indirect,possible)
        echo "== example and hepa-bench under valgrind"
        "${vg[@]}" "$build/examples/example-negacyclic-mul" >/dev/null
        "${vg[@]}" "$build/bench/hepa-bench" --backend cpu --n 256 --limbs 2 --reps 3 >/dev/null
    else
        echo "== ctest"
        # memcheck_* tests (registered when the build was configured with --valgrind) are slow
        ctest --test-dir "$build" --output-on-failure -LE memcheck --parallel "$jobs"
    fi
fi

# SANITIZER STAGE: the host code (references, CPU backend, argument checks) under ASan and UBSan.
# CPU-only, so it covers no device code (compute-sanitizer does: scripts/gpu-check.sh). About a
# minute to build and 20 s to test on 2 cores.
if ((sanitize)); then
    san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    probe=$(mktemp "${TMPDIR:-/tmp}/hepa-san.XXXXXX")
    # shellcheck disable=SC2086 # $san is a list of flags
    if printf 'int main(void) { return 0; }\n' |
        "${CC:-cc}" $san -x c - -o "$probe" >/dev/null 2>&1 && "$probe"; then
        rm -f "$probe"
        sbuild=${HEPA_SAN_BUILD_DIR:-$root/build-san}
        configure_build "sanitizer stage (CPU-only, ASan + UBSan): " "$sbuild" \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEPA_ENABLE_CUDA=OFF -DHEPA_BUILD_BENCH=OFF \
            "-DCMAKE_C_FLAGS=$san" "-DCMAKE_EXE_LINKER_FLAGS=$san" \
            "-DCMAKE_SHARED_LINKER_FLAGS=$san"
        echo "== sanitizer stage: ctest"
        UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir "$sbuild" --output-on-failure \
            -E check_install --parallel "$jobs"
    else
        rm -f "$probe"
        echo "== sanitizer stage skipped: ${CC:-cc} cannot build and run with $san"
    fi
fi
echo "test.sh: all tests passed"
