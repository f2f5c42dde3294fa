#!/usr/bin/env bash
# make sim-bench: what kernels cost on the simulator, beside the same work as a
# plain C loop (sim_bench.cu, sim_bench_ref.c). Run by hand, not by make test.
#
# One program, run five times:
#   checked    CUDASIM_CHECK=all: every access of every launch checked
#   unchecked  CUDASIM_CHECK=0: no access checked (the path of a launch that
#              runs unchecked after its kernel's first clean ones: the kernel's
#              uninstrumented twin, its blocks on every core where they may)
#   1 thread   the same, its blocks one after another (CUDASIM_THREADS=1)
#   profiled   CUDASIM_CHECK=all and CUDASIM_PROFILE: checked and counted
#   default    no setting, at the samples' own sizes (matrixMul's 301
#              launches, simpleStreams' ten passes): what a user waits for
# The first four run each case's sampled work (fewer launches, a band of the
# 1024^3 products' rows) and print its time over the C loop's on the same
# work; the last prints seconds. usage: sim_bench.sh [CASE...]
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
also="tests/simbench/sim_bench_ref.c kernels/optim.cu kernels/sgemm.cu"
run() { # run NAME ENV... -- ARGS...
    local name=$1; shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local t0=$SECONDS
    env "${envs[@]}" CUDASIM_SUMMARY=0 make --no-print-directory sim-run CU=tests/simbench/sim_bench.cu \
        INCLUDE="kernels tests/simbench" CU_ALSO="$also" ARGS="$*" > "$tmp/$name.raw" 2> "$tmp/$name.err" ||
        { echo "sim-bench: the $name run failed:"; cat "$tmp/$name.err" "$tmp/$name.raw"; exit 1; }
    # (the program's lines, not make's, which builds it on the first run)
    grep -E '^[^ ]+ (launches|ns-per-thread-barrier) ' "$tmp/$name.raw" > "$tmp/$name"
    grep -q WRONG "$tmp/$name" && { echo "sim-bench: a wrong result in the $name run:"; cat "$tmp/$name"; exit 1; }
    echo "  $name run: $((SECONDS - t0)) s" >&2
}
echo "building and running (five runs; a few minutes)" >&2
run checked CUDASIM_CHECK=all -- sample "$@"
run unchecked CUDASIM_CHECK=0 -- sample "$@"
run one CUDASIM_CHECK=0 CUDASIM_THREADS=1 -- sample "$@"
run profiled CUDASIM_CHECK=all CUDASIM_PROFILE="$tmp/profile.csv" -- sample "$@"
own=()
for c in matrixMul simpleStreams; do
    if [ $# -eq 0 ] || printf '%s\n' "$@" | grep -qx "$c"; then own+=("$c"); fi
done
[ ${#own[@]} -eq 0 ] || run default -- full "${own[@]}"
touch "$tmp/default"

echo
echo "The simulator's time over a plain C loop's on the same work (the loop on one CPU thread;"
echo "the unchecked run's blocks on $(nproc) threads where they may, the 1-thread run's one after another):"
awk -v checked="$tmp/checked" -v unchecked="$tmp/unchecked" -v one="$tmp/one" -v profiled="$tmp/profiled" '
    function load(file, arr,   l, f) {
        while ((getline l < file) > 0) { split(l, f, " ")
            if (f[2] == "ns-per-thread-barrier") { sync[file] = f[3]; continue }
            arr[f[1]] = f[7] / f[5]; c[f[1]] = f[5];
            n[f[1]] = f[3]; if (!(f[1] in seen)) { seen[f[1]] = 1; order[++k] = f[1] } }
    }
    BEGIN {
        load(checked, ch); load(unchecked, un); load(one, on); load(profiled, pr)
        printf "%-20s %9s %10s %10s %10s %10s %10s %18s\n", "case", "launches", "C loop s", "checked",
               "unchecked", "1 thread", "profiled", "profiled/checked"
        for (i = 1; i <= k; i++) { x = order[i]
            printf "%-20s %9d %10.4f %9.1fx %9.1fx %9.1fx %9.1fx %17.2fx\n", x, n[x], c[x], ch[x], un[x],
                   on[x], pr[x], pr[x] / ch[x] }
        if (one in sync)
            printf "\nA __syncthreads costs each thread %.0f ns checked, %.0f ns unchecked (one thread), " \
                   "%.0f ns profiled\n", sync[checked], sync[one], sync[profiled]
    }' /dev/null
if [ -s "$tmp/default" ]; then
    echo
    echo "At the samples' own sizes, with the default checks (a shape's first launches checked):"
    awk '{ printf "%-20s %9d launches %8.1f s (the C loop: %.2f s)\n", $1, $3, $7, $5 }' "$tmp/default"
fi
