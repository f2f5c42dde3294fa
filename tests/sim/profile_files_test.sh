#!/usr/bin/env bash
# make test: the files the simulator's profiler writes and reads, named as a user may name
# them by mistake. CUDASIM_PROFILE (make's PROFILE) naming a FIFO with no reader, a link, a
# device, a read-only file or a folder is refused by name at the first launch, never waited
# on or written through, and the program ends with status 1 (its own status when that is
# not 0); a 0600 profile stays 0600; a save over ulimit -f is said, with status 1. The GPU
# file (CUDASIM_GPU, make's GPU) and nvcc's resource usage (CUDASIM_NVCC_RESOURCES) given a
# FIFO or a device are refused in one line, and the run goes on without them. Each run has
# a timeout: a hang fails here, it does not stop make test.
# usage: profile_files_test.sh BUILD_ROOT [NVCC]
set -u
root=${1:?usage: profile_files_test.sh BUILD_ROOT [NVCC]}
# The makes below are this test's own: not the variables of a make that runs it (make test
# SAN=1 would give them SAN=1, and override what the environment gives).
unset MAKEFLAGS MFLAGS MAKELEVEL
nvcc=${2:-}
repo=$(realpath "$(dirname "$0")/../..")
root=$(realpath -m "$root")
# A folder of its own that stays: make keeps the program's build there.
work=$(realpath -m "$root/profile-files-test")
mkdir -p "$work"
failed=0
fail() { echo "FAIL profiler files: $*"; failed=1; }
put() { printf '%s\n' "$2" > "$1.new"; cmp -s "$1.new" "$1" && rm "$1.new" || mv "$1.new" "$1"; }
# Twenty launches: a profile of about 5 KB. The status is the program's first argument.
put "$work/prog.cu" '#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void k(float *x) { x[threadIdx.x] += 1.0f; }
int main(int argc, char **argv) {
    float *d, h[4];
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0, sizeof h);
    for (int i = 0; i < 20; i++) k<<<1, 4>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("ran: %.1f\n", h[3]);
    return argc > 1 ? atoi(argv[1]) : 0;
}'
make --no-print-directory -C "$repo" sim-run CU="$work/prog.cu" NVCC= BUILD_ROOT="$root" \
    PROFILE="$work/first.csv" > "$work/out" 2>&1 || { fail "prog.cu did not build and run: $(tail -5 "$work/out")"; exit 1; }
bin=$(find "$root" -path "*/sim-run$work/prog.sim" -newer "$work/prog.cu" | head -1)
[ -x "$bin" ] || { fail "no program built for $work/prog.cu"; exit 1; }
[ "$(grep -c '"k"' "$work/first.csv")" = 20 ] || fail "a plain PROFILE did not get the 20 launches' rows"
cd "$work" || exit 1

# run WANT_STATUS WANT_TEXT ENV... [-- ARGS]: the program, with ENV, within 10 s.
run() {
    local want=$1 text=$2 out rc t0
    shift 2
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    t0=$SECONDS
    out=$(env "${envs[@]}" timeout 10 "$bin" "$@" 2>&1)
    rc=$?
    if [ "$rc" != "$want" ] || [[ "$out" != *"$text"* ]] || [[ "$out" != *"ran: 20.0"* ]]; then
        fail "${envs[*]} $*: status $rc after $((SECONDS - t0)) s (expected $want), output:"
        echo "$out" | tail -4
        echo "  expected it to hold: $text"
    fi
}

# A FIFO with no reader: refused at once, left a FIFO.
rm -f fifo && mkfifo fifo
run 1 "fifo: cannot save: it is a FIFO (named pipe), not a regular file" CUDASIM_PROFILE=fifo
[ -p fifo ] || fail "the FIFO is not a FIFO any more"
# A link: the file it points to is left as it was.
echo precious > victim && ln -sfn victim link.csv
run 1 "link.csv: cannot save: it is a symbolic link" CUDASIM_PROFILE=link.csv
[ "$(cat victim)" = precious ] && [ -L link.csv ] || fail "the link's target was written"
run 1 "/dev/full: cannot save: it is a character device" CUDASIM_PROFILE=/dev/full
mkdir -p folder.csv
run 1 "folder.csv: cannot save: it is a directory" CUDASIM_PROFILE=folder.csv
# Read-only: refused and kept; a 0600 profile stays 0600.
echo old > ro.csv && chmod 0444 ro.csv
run 1 "ro.csv: cannot save the profile: the file is read-only for this user (mode 0444)" CUDASIM_PROFILE=ro.csv
[ "$(cat ro.csv)" = old ] || fail "the read-only profile was replaced"
echo old > private.csv && chmod 0600 private.csv
run 0 "one row per launch in private.csv" CUDASIM_PROFILE=private.csv
[ "$(stat -c %a private.csv)" = 600 ] || fail "a 0600 profile came back $(stat -c %a private.csv)"
grep -q '"k"' private.csv || fail "private.csv holds no rows"
# The program's own failure is its status; a refused profile does not hide it.
run 3 "cannot save: it is a FIFO" CUDASIM_PROFILE=fifo -- 3
# ulimit -f 4 (4 KiB): the save fails, is said, the old file stays (the program's own output
# goes to a pipe, $(...)'s, which the limit does not count).
echo old > big.csv
out=$( (ulimit -f 4; CUDASIM_PROFILE=big.csv timeout 10 "$bin") 2>&1)
rc=$?
[ "$rc" = 1 ] && [[ "$out" == *"big.csv: cannot save"*"File too large"* ]] ||
    fail "a profile over ulimit -f: status $rc, $(echo "$out" | tail -2)"
[ "$(cat big.csv)" = old ] || fail "a failed save changed big.csv"

# The GPU file and nvcc's resource usage: a FIFO or a device is refused, the run goes on.
run 0 "fifo: cannot read it as a GPU file: it is a FIFO (named pipe)" CUDASIM_PROFILE=p.csv CUDASIM_GPU=./fifo
run 0 "/dev/zero: cannot read it as a GPU file: it is a character device" CUDASIM_PROFILE=p.csv CUDASIM_GPU=/dev/zero
run 0 "fifo: cannot read it as a file of nvcc's resource usage: it is a FIFO" CUDASIM_PROFILE=p.csv \
    CUDASIM_NVCC_RESOURCES=fifo
# make's GPU= is checked before anything runs.
out=$(timeout 20 make --no-print-directory -C "$repo" sim-run CU="$work/prog.cu" NVCC= BUILD_ROOT="$root" \
    GPU="$work/fifo" 2>&1)
[ $? = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && [[ "$out" == *"GPU=\"$work/fifo\": give a GPU"* ]] ||
    fail "make sim-run GPU=FIFO: $out"

# nvcc_resources.sh, where nvcc is: the GPU file and its cache as files are read and saved.
if [ -n "$nvcc" ]; then
    res=$repo/lib/cudasim/profile/nvcc_resources.sh
    for gpu in ./fifo /dev/zero; do
        out=$(NVCC=$nvcc timeout 10 bash "$res" "$gpu" "$work/nvcc-res" "$work/prog.cu" 2>&1)
        [ $? = 1 ] && [[ "$out" == *"$gpu: cannot read it as a GPU file"* ]] ||
            fail "nvcc_resources.sh GPU=$gpu: $out"
    done
    out=$(NVCC=$nvcc timeout 60 bash "$res" t4 "$work/nvcc-res" "$work/prog.cu" 2>&1)
    if [ -f "$out" ] && grep -q 'Used [0-9]* registers' "$out"; then
        mv "$out" "$out.real" && ln -s "$work/victim" "$out"
        out2=$(NVCC=$nvcc timeout 60 bash "$res" t4 "$work/nvcc-res" "$work/prog.cu" 2>&1)
        [ $? = 1 ] && [[ "$out2" == *"$out: cannot save nvcc's resource usage there: it is a symbolic link"* ]] ||
            fail "nvcc_resources.sh with its cache file a link: $out2"
        [ "$(cat "$work/victim")" = precious ] || fail "nvcc_resources.sh wrote through a link"
        rm -f "$out" && mv "$out.real" "$out"
    else
        fail "nvcc_resources.sh t4: $out"
    fi
fi

[ $failed = 0 ] && echo " ok   the profiler's files: FIFOs, links, devices, read-only and full files refused by name," \
    "modes kept; the GPU file and nvcc's output read without blocking"
exit $failed
