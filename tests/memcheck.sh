#!/bin/sh
# memcheck.sh VALGRIND TEST_EXE [criterion args...]
#
# Runs a Criterion test executable under valgrind memcheck and fails on any memory error or
# leak in any process. Criterion runs each test in a child process and reports the test's own
# result, not the child's exit status, so valgrind's --error-exitcode cannot be relied on; the
# per-process logs are inspected instead (with -q valgrind writes nothing unless it found
# something). "Possibly lost" blocks are not counted: Criterion's own IPC buffers show up as such
# in a test process that crashed, which is reported as a test failure anyway.
set -u
vg=$1
exe=$2
shift 2
logdir=$(mktemp -d "${TMPDIR:-/tmp}/hepa-memcheck.XXXXXX") || exit 2
HEPA_TEST_QUICK=${HEPA_TEST_QUICK:-1} "$vg" -q --trace-children=yes --leak-check=full \
    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
    --log-file="$logdir/vg.%p.log" "$exe" "$@"
rc=$?
bad=0
for f in "$logdir"/vg.*.log; do
    [ -s "$f" ] || continue
    bad=1
    echo "==== valgrind report $f"
    cat "$f"
done
rm -rf "$logdir"
if [ $rc -ne 0 ]; then
    echo "memcheck: $exe exited with status $rc"
    exit $rc
fi
if [ $bad -ne 0 ]; then
    echo "memcheck: valgrind reported errors or leaks"
    exit 1
fi
echo "memcheck: clean"
exit 0
