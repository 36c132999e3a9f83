#!/usr/bin/env bash
# bench.sh [hepa-bench options] — THE MAIN JOB: installs what is missing, builds hepa in
# build/ (Release) and runs hepa-bench with the given options (none: n = 2^16, 8 primes of
# 50 bits, backend auto). Examples:
#   bash scripts/bench.sh
#   bash scripts/bench.sh --n 65536 --limbs 1 --bits 60     # the issue's CPU targets
#   bash scripts/bench.sh --json > bench/results/run.json
# Environment: HEPA_BUILD_DIR (default build/), HEPA_CMAKE_ARGS (extra configure arguments).
# Build messages go to stderr, so stdout carries only hepa-bench's output.
set -euo pipefail

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

bash "$root/scripts/deps.sh" --bench >&2

if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
    export PATH="/usr/local/cuda/bin:$PATH"
fi

cfg=(-S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHEPA_BUILD_BENCH=ON)
if [[ ! -f "$build/CMakeCache.txt" ]] && command -v ninja >/dev/null; then
    cfg+=(-G Ninja)
fi
if [[ -n "${HEPA_CMAKE_ARGS:-}" ]]; then
    read -r -a extra <<<"$HEPA_CMAKE_ARGS"
    cfg+=("${extra[@]}")
fi

cmake "${cfg[@]}" >&2
cmake --build "$build" --parallel "$jobs" --target hepa-bench >&2

exec "$build/bench/hepa-bench" "$@"
