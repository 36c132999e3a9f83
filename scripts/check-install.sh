#!/usr/bin/env bash
# check-install.sh BUILD_DIR — checks that an installed hepa is usable from outside the tree.
#
# Installs the (already built) BUILD_DIR into a temporary prefix, then builds and runs
# examples/consumer against it twice:
#   1. CMake: find_package(hepa) + hepa::hepa (and hepa::hepa_static), CMAKE_PREFIX_PATH=prefix;
#   2. pkg-config: cc main.c $(pkg-config --cflags --libs hepa), run with LD_LIBRARY_PATH.
# Installs no packages (scripts/deps.sh does). Exit 0 on success. Run by ctest (check_install).
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
consumer="$root/examples/consumer"

for tool in cmake pkg-config; do
    command -v "$tool" >/dev/null || { echo "check-install: '$tool' not found (run scripts/deps.sh)" >&2; exit 1; }
done
cc=${CC:-cc}
command -v "$cc" >/dev/null || cc=gcc

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hepa-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"

echo "== cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }

# The library directory is lib/ or lib/<multiarch>/ depending on how the build was configured.
pcfile=$(find "$prefix" -name hepa.pc -path '*/pkgconfig/*' | head -n 1)
libso=$(find "$prefix" -name 'libhepa.so' | head -n 1)
[[ -n "$pcfile" ]] || { echo "check-install: hepa.pc was not installed" >&2; exit 1; }
[[ -n "$libso" ]] || { echo "check-install: libhepa.so was not installed" >&2; exit 1; }
[[ -f "$prefix/include/hepa/hepa.h" ]] || { echo "check-install: hepa/hepa.h was not installed" >&2; exit 1; }
libdir=$(dirname "$libso")

echo "== find_package(hepa): configure, build and run examples/consumer"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$consumer" -B "$tmp/consumer-build" ${gen[@]+"${gen[@]}"} -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/consumer-configure.log" 2>&1 ||
    { cat "$tmp/consumer-configure.log"; exit 1; }
failed=()
for app in app app_static; do # hepa::hepa, hepa::hepa_static
    if cmake --build "$tmp/consumer-build" --target "$app" >"$tmp/$app.log" 2>&1; then
        "$tmp/consumer-build/$app" || failed+=("$app (run)")
    else
        # the first distinct errors, not pages of repeated linker lines
        grep -E 'error|undefined reference' "$tmp/$app.log" | sed 's/^.*\(undefined reference\)/  \1/' |
            sort -u | head -n 10
        echo "check-install: linking the consumer against ${app/app/hepa::hepa} FAILED" >&2
        failed+=("$app (link)")
    fi
done

echo "== pkg-config hepa: build and run the same source"
# hepa.pc is relocatable (its prefix is relative to its own folder): no override needed.
PKG_CONFIG_PATH=$(dirname "$pcfile")
export PKG_CONFIG_PATH
pcflags=$(pkg-config --cflags --libs hepa)
echo "pkg-config --cflags --libs hepa: $pcflags"
# shellcheck disable=SC2086 # word splitting of the flags is intended
if "$cc" -std=c11 -Wall -Wextra -o "$tmp/app-pkgconfig" "$consumer/main.c" $pcflags; then
    LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/app-pkgconfig" ||
        failed+=("pkg-config (run)")
else
    failed+=("pkg-config (build)")
fi

if ((${#failed[@]})); then
    echo "check-install: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "check-install: OK"
