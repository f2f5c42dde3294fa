#!/usr/bin/env bash
# make gpu-check: on a machine with a GPU, build for it, run every GPU test on
# the device (not the simulator) and every GPU demo, and write a short report
# to out/gpu-check.txt (date, GPU, driver, toolkit, each step and its result),
# ready to be quoted in the docs. It changes no GPU setting.
set -u
cd "$(dirname "$0")/.."
mkdir -p out
report=out/gpu-check.txt
status=0
say() { echo "$*" | tee -a "$report"; }
step() { # step NAME COMMAND...: run, keep its output, record pass or fail
    local name=$1; shift
    say "== $name: $*"
    if "$@" >> "$report" 2>&1; then say "   $name: ok"; else say "   $name: FAILED"; status=1; fi
}

: > "$report"
say "GPU check, $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
if ! nvidia-smi -L > /dev/null 2>&1; then
    say "no GPU: nvidia-smi finds none; nothing to check here (make test covers the simulator)"
    exit 2
fi
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader \
    | sed 's/^/GPU: /' | tee -a "$report"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$NVCC" --version | tail -2 | sed 's/^/nvcc: /' | tee -a "$report"
# Build only for the GPUs present: quicker than the full list.
archs=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | tr -d . | sort -u | tr '\n' ' ')
say "building for sm_${archs// / sm_}"
step build make --no-print-directory build GPU_ARCHS="$archs"
step gpu-tests make --no-print-directory test GPU_ARCHS="$archs"
step lesson-02 make --no-print-directory lesson37 PART=2 GPU_ARCHS="$archs" ARGS="--no-plot"
# Lesson 03: every timing demo at full size (about a minute on a recent GPU).
step demos make --no-print-directory demos GPU_ARCHS="$archs" ARGS="--no-plot"
# Lesson 05: the trainer, mixed precision and resuming, on the GPU.
step lesson-05 make --no-print-directory lesson37 PART=5 GPU_ARCHS="$archs" \
    ARGS="--no-plot --device cuda"
step bench make --no-print-directory bench GPU_ARCHS="$archs"
step grade make --no-print-directory grade IMPL=solutions GPU_ARCHS="$archs"
grep -q "Every exercise passes" "$report" || { say "   grade: the answers did not get full marks"; status=1; }
say "(add each later lesson's GPU demos here as it lands)"
say "The CSV files of the demos are in out/03_*.csv."
say "result: $([ $status = 0 ] && echo all passed || echo FAILURES above)"
exit $status
