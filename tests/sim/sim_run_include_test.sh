#!/usr/bin/env bash
# make test: the folders make sim-run takes headers from.
#  - INCLUDE, relative to the folder make was started in, and CPATH are
#    searched (for "x.h" and <x.h>), as nvcc's -I and CPATH are;
#  - a folder on CPATH that holds a CUDA toolkit's headers is left out, so
#    that no toolkit header is mixed with the simulator's: one the simulator
#    does not provide is refused by name instead.
# usage: sim_run_include_test.sh BUILD_ROOT
set -u
root=${1:?usage: sim_run_include_test.sh BUILD_ROOT}
repo=$(realpath "$(dirname "$0")/../..")
root=$(realpath -m "$root")
# A folder of its own that stays: make keeps the program's build there.
work=$(realpath -m "$root/sim-run-include-test")
mkdir -p "$work/prog/inc" "$work/cpath" "$work/toolkit"
failed=0
fail() { echo "FAIL sim-run INCLUDE/CPATH: $*"; failed=1; }
# Files are written only when they differ (make goes by their dates).
put() { printf '%s\n' "$2" > "$1.new"; cmp -s "$1.new" "$1" && rm "$1.new" || mv "$1.new" "$1"; }

put "$work/prog/inc/scale.h" '#define SCALE 3.0f'
put "$work/cpath/offset.h" '__device__ inline float offset(float x) { return x + 0.5f; }'
put "$work/prog/prog.cu" '#include <cstdio>
#include <cuda_runtime.h>
#include "scale.h"
#include <offset.h>
__global__ void k(float *x) { x[threadIdx.x] = offset(SCALE * threadIdx.x); }
int main(void) {
    float *d, h[4];
    cudaMalloc(&d, sizeof h);
    k<<<1, 4>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%.1f %.1f %.1f %.1f\n", h[0], h[1], h[2], h[3]);
    return 0;
}'
# A toolkit's include folder (its cuda_runtime_api.h tells it), with a header
# the simulator does not provide.
put "$work/toolkit/cuda_runtime_api.h" '#error "a toolkit header was mixed in"'
put "$work/toolkit/cuda_fp8.h" '#error "a toolkit header was mixed in"'
put "$work/prog/fp8.cu" '#include <cuda_runtime.h>
#include <cuda_fp8.h>
int main(void) { return 0; }'

cd "$work/prog"
CPATH="$work/toolkit:$work/cpath" make --no-print-directory -C "$repo" sim-run CU=prog.cu INCLUDE=inc \
    NVCC= BUILD_ROOT="$root" > "$work/out" 2>&1 ||
    fail "prog.cu with INCLUDE=inc and CPATH did not build and run: $(tail -5 "$work/out")"
grep -q '^0.5 3.5 6.5 9.5$' "$work/out" || fail "prog.cu printed: $(tail -3 "$work/out")"
grep -q 'mixed in' "$work/out" && fail "a toolkit header on CPATH was mixed in"

CPATH="$work/toolkit" make --no-print-directory -C "$repo" sim-run CU=fp8.cu NVCC= \
    BUILD_ROOT="$root" > "$work/out" 2>&1 && fail "fp8.cu built"
grep -q 'fp8.cu:2: error: #include <cuda_fp8.h>: a header of the CUDA toolkit that the CUDA simulator does not provide' "$work/out" ||
    fail "fp8.cu: the refusal of <cuda_fp8.h> is missing: $(grep -m3 error "$work/out")"
grep -q 'mixed in' "$work/out" && fail "a toolkit header on CPATH was mixed in (fp8.cu)"

make --no-print-directory -C "$repo" sim-run CU=prog.cu INCLUDE=nowhere NVCC= \
    BUILD_ROOT="$root" > "$work/out" 2>&1 && fail "INCLUDE=nowhere was accepted"
grep -q "INCLUDE: $work/prog/nowhere: no such folder" "$work/out" ||
    fail "INCLUDE=nowhere: no clear error: $(tail -2 "$work/out")"

[ $failed = 0 ] && echo " ok   sim-run: INCLUDE and CPATH are searched, a toolkit's folder on CPATH is not"
exit $failed
