#!/usr/bin/env bash
# siboehm's SGEMM_CUDA on the simulator, its src/ as published (not part of CI: it
# needs a checkout of github.com/siboehm/SGEMM_CUDA, which this repository never
# copies).
#
#   bash tests/siboehm_sgemm.sh PATH/TO/SGEMM_CUDA
#
# 1. Its kernels through its own src/kernels.cuh, which includes the twelve kernel
#    headers (make sim-run CU=tests/siboehm/kernels_whole.cu INCLUDE=.../src): each
#    kernel runs once, launched as its runner launches it, and C must equal a host
#    reference to the last bit (tests/siboehm/sgemm_check.h). Kernel 12 uses
#    libcu++'s cuda::barrier and cuda::memcpy_async.
# 2. Its own program: make sim-run CU=sgemm.cu CU_ALSO=src/runner.cu INCLUDE=src
#    ARGS=KERNEL, as its CMakeLists builds it from those two files. The program
#    checks each size's result against cuBLAS's before timing it; its sizes go up to
#    4096, which a CPU simulates for hours, so it runs for TIMEOUT seconds and must
#    have passed the check at size 128 by then.
#   KERNELS="1 ..."  the kernels part 2 runs (default: 1 and 10)
#   TIMEOUT=120      seconds each run of part 2 may take
#   NVCC=...         nvcc for make sim-run's check (default: the Makefile's; NVCC= skips it)
set -u
checkout=${1:?usage: siboehm_sgemm.sh PATH/TO/SGEMM_CUDA}
checkout=$(realpath -e "$checkout") || exit 2
[ -f "$checkout/src/kernels.cuh" ] && [ -f "$checkout/sgemm.cu" ] || {
    echo "siboehm_sgemm.sh: $checkout: not an SGEMM_CUDA checkout (no src/kernels.cuh, sgemm.cu)"; exit 2; }
repo=$(realpath "$(dirname "$0")/..")
timeout=${TIMEOUT:-120}
out=$repo/out/siboehm
mkdir -p "$out"
failed=0
fail() { echo "FAIL $*"; failed=1; }
nvcc=()
[ -z "${NVCC+set}" ] || nvcc=(NVCC="$NVCC")
sim_run() { make --no-print-directory -C "$repo" sim-run "${nvcc[@]}" "$@"; }

# ---- 1. the kernels, against a host reference ------------------------------------
log=$out/kernels_whole.log
sim_run CU=tests/siboehm/kernels_whole.cu INCLUDE="$checkout/src" > "$log" 2>&1
status=$?
ok=$(grep -c '^kernel [0-9]*: ok' "$log")
if [ $status = 0 ] && [ "$ok" = 12 ]; then
    echo " ok   kernels 1 to 12 (kernels.cuh whole): each equals the host's result"
    grep '^kernel ' "$log" | sed 's/^/      /'
else
    fail "kernels: status $status, $ok of 12 equal the host's result; see $log"
    grep -E '^kernel |error|cudasim:' "$log" | head -20 | sed 's/^/      /'
fi

# ---- 2. its own program, sgemm.cu and src/runner.cu --------------------------------
for k in ${KERNELS:-1 10}; do
    log=$out/sgemm_$k.log
    (cd "$checkout" && timeout "$timeout" make --no-print-directory -C "$repo" sim-run "${nvcc[@]}" \
        CU=sgemm.cu CU_ALSO=src/runner.cu INCLUDE=src ARGS="$k") > "$log" 2>&1
    status=$?
    if grep -q "^Running kernel $k on device 0" "$log" && grep -q 'size: (128)' "$log" &&
         ! grep -q 'Failed to pass the correctness verification' "$log"; then
        sizes=$(grep -o 'size: ([0-9]*)' "$log" | grep -o '[0-9]*' | tr '\n' ' ')
        echo " ok   sgemm.cu + src/runner.cu, kernel $k: equal to cuBLAS at sizes ${sizes% }" \
            "$([ $status = 124 ] && echo "(stopped after ${timeout} s)")"
    else
        fail "sgemm.cu + src/runner.cu, kernel $k: status $status; see $log"
        grep -E 'error|cudasim:|Divergence|Failed|dimensions' "$log" | head -10 | sed 's/^/      /'
    fi
done
exit $failed
