#!/usr/bin/env bash
# make sim-bench: what kernels cost on the simulator, beside the same work as a
# plain C loop (sim_bench.cu, sim_bench_ref.c). Run by hand, not by make test.
#
# One program, run several times:
#   checked    CUDASIM_CHECK=all: every access of every launch checked
#   profiled   CUDASIM_CHECK=all and CUDASIM_PROFILE: checked and counted
#              (these two in turn, ROUNDS times, default 3: a ratio of the two
#              comes from runs side by side, and its median and spread are
#              printed, since a shared machine's speed drifts by a third)
#   unchecked  CUDASIM_CHECK=0: no access checked (the path of a launch that
#              runs unchecked after its kernel's first clean ones: the kernel's
#              uninstrumented twin, its blocks on every core where they may)
#   1 thread   the same, its blocks one after another (CUDASIM_THREADS=1)
#   default    no setting, at the samples' own sizes (matrixMul's 301
#              launches, simpleStreams' ten passes): what a user waits for
# The others run each case's sampled work (fewer launches, a band of the
# 1024^3 products' rows) and print its time over the C loop's on the same
# work (the median of the rounds); the last prints seconds.
# usage: [ROUNDS=N] sim_bench.sh [CASE...]
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
rounds=${ROUNDS:-3}
case $rounds in ''|*[!0-9]*|0) echo "sim-bench: ROUNDS=$rounds: give a number of rounds, 1 or more"; exit 2 ;; esac
echo "building and running ($((2 * rounds + 3)) runs; a few minutes)" >&2
for r in $(seq "$rounds"); do
    run "checked.$r" CUDASIM_CHECK=all -- sample "$@"
    run "profiled.$r" CUDASIM_CHECK=all CUDASIM_PROFILE="$tmp/profile.csv" -- sample "$@"
done
run unchecked CUDASIM_CHECK=0 -- sample "$@"
run one CUDASIM_CHECK=0 CUDASIM_THREADS=1 -- sample "$@"
own=()
for c in matrixMul simpleStreams; do
    if [ $# -eq 0 ] || printf '%s\n' "$@" | grep -qx "$c"; then own+=("$c"); fi
done
[ ${#own[@]} -eq 0 ] || run default -- full "${own[@]}"
touch "$tmp/default"

echo
echo "The simulator's time over a plain C loop's on the same work (the loop on one CPU thread;"
echo "checked and profiled: the median of $rounds rounds, their ratio taken round by round;"
echo "the unchecked run's blocks on $(nproc) threads where they may, the 1-thread run's one after another):"
awk -v rounds="$rounds" -v dir="$tmp" '
    function load(file, key,   l, f) {
        while ((getline l < file) > 0) { split(l, f, " ")
            if (f[2] == "ns-per-thread-barrier") { sync[key] = f[3]; continue }
            r[key, f[1]] = f[7] / f[5]; c[f[1]] = f[5];
            n[f[1]] = f[3]; if (!(f[1] in seen)) { seen[f[1]] = 1; order[++k] = f[1] } }
    }
    function median(v, m,   i, j, t) { # v[1..m], sorted in place
        for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
    }
    BEGIN {
        for (i = 1; i <= rounds; i++) { load(dir "/checked." i, "c" i); load(dir "/profiled." i, "p" i) }
        load(dir "/unchecked", "u"); load(dir "/one", "o")
        printf "%-20s %9s %10s %10s %10s %10s %10s %18s %14s\n", "case", "launches", "C loop s", "checked",
               "unchecked", "1 thread", "profiled", "profiled/checked", "(min - max)"
        for (i = 1; i <= k; i++) { x = order[i]
            for (j = 1; j <= rounds; j++) { ch[j] = r["c" j, x]; pr[j] = r["p" j, x]; q[j] = pr[j] / ch[j] }
            mq = median(q, rounds)
            printf "%-20s %9d %10.4f %9.1fx %9.1fx %9.1fx %9.1fx %17.2fx %6.2f - %.2f\n", x, n[x], c[x],
                   median(ch, rounds), r["u", x], r["o", x], median(pr, rounds), mq, q[1], q[rounds]
        }
        if ("o" in sync)
            printf "\nA __syncthreads costs each thread %.0f ns checked, %.0f ns unchecked (one thread), " \
                   "%.0f ns profiled\n", sync["c1"], sync["o"], sync["p1"]
    }' /dev/null
if [ -s "$tmp/default" ]; then
    echo
    echo "At the samples' own sizes, with the default checks (a shape's first launches checked):"
    awk '{ printf "%-20s %9d launches %8.1f s (the C loop: %.2f s)\n", $1, $3, $7, $5 }' "$tmp/default"
fi
