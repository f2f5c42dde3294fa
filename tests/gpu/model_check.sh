#!/usr/bin/env bash
# The simulator's time model and counters against a GPU (make gpu-check runs
# this; without a GPU it is a dry run). Three things:
#  1. tests/gpu/model_check.cu on the simulator, with the time model of the GPU
#     here (its lib/cudasim/profile/gpus/ file; h100 when there is none for it): the
#     modelled time of each case;
#  2. the same program built by nvcc and, on a GPU, run: the measured time of
#     each case (CUDA events around kernels, the host's clock around launches,
#     syncs and copies); tests/gpu/model_check.py prints the model's error per
#     case, so the GPU's file can be checked and corrected in one place;
#  3. where Nsight Compute (ncu) is installed, the access patterns of
#     tests/conformance/profile_patterns.cu and texture_profile.cu under ncu: their
#     counters must be the ones the simulator gives (their NAME.profile).
# Without a GPU, 2 only compiles and 3 is skipped, each saying so.
# usage: model_check.sh [LOG2_N]   (the kernels' arrays: 2^LOG2_N floats, default 22)
set -u
cd "$(dirname "$0")/../.."
log2n=${1:-22}
out=out/model-check
mkdir -p "$out"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case $name in
    *H200*) gpu=h200 ;;
    *H100*) gpu=h100 ;;
    *A100*) gpu=a100 ;;
    *L4*) gpu=l4 ;;
    *T4*) gpu=t4 ;;
    *4090*) gpu=rtx4090 ;;
    *"4070 Laptop"*) gpu=rtx4070-laptop ;;
    *) gpu=h100 ;;
esac
if [ -n "$name" ]; then
    echo "GPU here: $name; its model: lib/cudasim/profile/gpus/$gpu.json"
else
    echo "no GPU here (a dry run): the model of lib/cudasim/profile/gpus/$gpu.json alone"
fi
status=0

# 1. modelled, on the simulator
if make -s --no-print-directory sim-run CU=tests/gpu/model_check.cu ARGS="$log2n" GPU=$gpu \
        > "$out/modelled.txt" 2> "$out/modelled.err"; then
    echo "modelled on the simulator: $out/modelled.txt"
else
    echo "FAILED: the simulator's run of tests/gpu/model_check.cu:"; tail -20 "$out/modelled.err"
    exit 1
fi

# 2. measured, with nvcc's build on the GPU
measured=
if [ ! -x "$NVCC" ]; then
    echo "measured: skipped, no nvcc here"
elif ! "$NVCC" -std=c++17 -O2 -o "$out/model_check" tests/gpu/model_check.cu 2> "$out/nvcc.log"; then
    echo "FAILED: nvcc refused tests/gpu/model_check.cu:"; cat "$out/nvcc.log"; status=1
elif [ -z "$name" ]; then
    echo "measured: skipped, no GPU here (nvcc built $out/model_check; make gpu-check on a GPU runs it)"
elif timeout 300 "$out/model_check" "$log2n" > "$out/measured.txt" 2> "$out/measured.err"; then
    measured=$out/measured.txt
else
    echo "FAILED: $out/model_check on the GPU:"; tail -5 "$out/measured.err"; status=1
fi
python3 tests/gpu/model_check.py "$out/modelled.txt" $measured || status=1

# 3. the counters under Nsight Compute: each conformance program with a NAME.profile
NCU=$(command -v ncu || ls "$(dirname "$NVCC")"/ncu 2>/dev/null)
for profile in tests/conformance/*.profile; do
    prog=$(basename "${profile%.profile}")
    if [ -z "$name" ] || [ -z "$NCU" ]; then
        echo "counters under ncu ($prog): skipped ($([ -z "$name" ] && echo "no GPU" || echo "no ncu") here)"
        continue
    fi
    metrics=$(sed -n 's/^columns: //p' "$profile" | tr ' ' ',')
    if "$NVCC" -std=c++17 -O2 -o "$out/$prog" "${profile%.profile}.cu" &&
       timeout 300 "$NCU" --csv --metrics "$metrics" "$out/$prog" > "$out/ncu-$prog.csv" 2> "$out/ncu-$prog.err"; then
        if python3 tests/conformance/check_profile.py --ncu "$profile" "$out/ncu-$prog.csv"; then
            echo "counters under ncu: every launch of $prog.cu as the simulator counts it"
        else
            echo "FAILED: ncu counts $prog.cu differently (above)"; status=1
        fi
    else
        echo "FAILED: ncu on $prog.cu:"; tail -5 "$out/ncu-$prog.err"; status=1
    fi
done
exit $status
