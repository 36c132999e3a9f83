#!/usr/bin/env bash
# deps.sh [--bench | --valgrind] — installs what hepa needs, on Debian/Ubuntu.
#
# Required: cmake (>= 3.20), ninja-build, gcc, g++, make, pkg-config, libgmp-dev,
#           libcriterion-dev (the tests); with --bench only what building the library and
#           hepa-bench needs: cmake, gcc, make, libgmp-dev (ninja-build optional).
# Optional: libflint-dev (the FLINT comparison in hepa-bench), valgrind (with --valgrind);
#           failing to install an optional package is not an error.
# A package counts as present when dpkg has it installed or when what it provides is already
# usable (the command is on PATH, the header is found by the C preprocessor, e.g. through CPATH
# from .devroot/env.sh), so nothing is installed twice.
# Idempotent and quiet: when everything is present it does nothing and prints nothing.
# apt-get update runs only when something is missing; sudo is used only when not root.
# CUDA is never installed here: the CUDA backend is built when nvcc is already present.
set -euo pipefail

required=(cmake ninja-build gcc g++ make pkg-config libgmp-dev libcriterion-dev)
optional=(libflint-dev)
case "${1:-}" in
"") ;;
--bench) required=(cmake gcc make libgmp-dev) optional=(ninja-build libflint-dev) ;;
--valgrind) optional+=(valgrind) ;;
*) echo "usage: deps.sh [--bench | --valgrind]" >&2; exit 2 ;;
esac

has_header() {
    local cc
    cc=$(command -v cc || command -v gcc || true)
    [[ -n "$cc" ]] && printf '#include <%s>\n' "$1" | "$cc" -E -x c - >/dev/null 2>&1
}

# present PACKAGE: 0 when the package, or what it provides, is already there
present() {
    if command -v dpkg-query >/dev/null &&
        [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]; then
        return 0
    fi
    case "$1" in
    ninja-build) command -v ninja >/dev/null ;;
    libgmp-dev) has_header gmp.h ;;
    libcriterion-dev) has_header criterion/criterion.h ;;
    libflint-dev) has_header flint/nmod_poly.h ;;
    *) command -v "$1" >/dev/null ;;
    esac
}

cmake_too_old() {
    local v
    v=$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
    [[ -n "$v" ]] || return 1
    read -r major minor <<<"$v"
    ((major < 3 || (major == 3 && minor < 20)))
}

missing_req=()
missing_opt=()
for p in "${required[@]}"; do present "$p" || missing_req+=("$p"); done
for p in "${optional[@]}"; do present "$p" || missing_opt+=("$p"); done

if ((${#missing_req[@]} + ${#missing_opt[@]} > 0)); then
    if ! command -v apt-get >/dev/null; then
        if ((${#missing_req[@]})); then
            echo "deps.sh: no apt-get here; please install: ${missing_req[*]}" >&2
            exit 1
        fi
        exit 0 # only optional ones missing
    fi

    sudo_cmd=()
    if [[ $(id -u) -ne 0 ]]; then
        if command -v sudo >/dev/null; then
            sudo_cmd=(sudo)
        else
            echo "deps.sh: missing ${missing_req[*]} ${missing_opt[*]}, and not root with no" \
                 "sudo to install them" >&2
            ((${#missing_req[@]} == 0)) && exit 0
            exit 1
        fi
    fi
    apt=(${sudo_cmd[@]+"${sudo_cmd[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get -y -q
         -o Dpkg::Use-Pty=0 --no-install-recommends)

    echo "deps.sh: installing ${missing_req[*]} ${missing_opt[*]}" >&2
    if ! ${sudo_cmd[@]+"${sudo_cmd[@]}"} apt-get update -q >/dev/null; then
        echo "deps.sh: apt-get update failed" >&2
        ((${#missing_req[@]} == 0)) && exit 0
        exit 1
    fi
    if ((${#missing_req[@]})); then
        "${apt[@]}" install "${missing_req[@]}" >/dev/null ||
            { echo "deps.sh: could not install ${missing_req[*]}" >&2; exit 1; }
    fi
    for p in ${missing_opt[@]+"${missing_opt[@]}"}; do
        if ! "${apt[@]}" install "$p" >/dev/null 2>&1; then
            echo "deps.sh: optional package $p could not be installed; continuing without it" >&2
        fi
    done
fi

if cmake_too_old; then
    echo "deps.sh: hepa needs CMake >= 3.20, found $(cmake --version | head -n 1)" \
         "(newer: 'pip install cmake' or Debian backports)" >&2
    exit 1
fi
