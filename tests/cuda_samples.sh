#!/usr/bin/env bash
# NVIDIA's CUDA samples on the simulator (not part of CI: it needs a checkout
# of github.com/NVIDIA/cuda-samples, which this repository never copies).
#
#   bash tests/cuda_samples.sh PATH/TO/cuda-samples [SAMPLE...]
#
# Runs each single-file sample (one .cu, with or without headers of its own)
# of Samples/0_Introduction, 2_Concepts_and_Techniques and 6_Performance, or
# the ones named, as make sim-run would with INCLUDE="Common <its folder>":
# nvcc's check where nvcc is, the build for the simulator, then the program
# in its own folder. Prints one line per sample and, at the end, the table of
# docs/simulator.md ("NVIDIA's samples"): the sample's own verdict (its exit
# status: 0 passed, 2 waived, as the samples exit), the simulator's refusal
# and what it names, or the first error of a build that fails.
#   TIMEOUT=600      seconds a sample may run
#   NVCC=...         nvcc for the check (default: the Makefile's; NVCC= skips it)
set -u
checkout=${1:?usage: cuda_samples.sh PATH/TO/cuda-samples [SAMPLE...]}
shift
checkout=$(realpath -e "$checkout") || exit 2
[ -f "$checkout/Common/helper_cuda.h" ] || {
    echo "cuda_samples.sh: $checkout/Common/helper_cuda.h: not a cuda-samples checkout"; exit 2; }
repo=$(realpath "$(dirname "$0")/..")
timeout=${TIMEOUT:-600}
nvcc=${NVCC-$(command -v nvcc || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })}
out=$repo/out/cuda-samples
mkdir -p "$out"

# Arguments that keep a sample's work within what a CPU simulates in minutes
# (the table says so where one is used).
declare -A sample_args=(
    [matrixMul]="-wA=128 -hA=128 -wB=128 -hB=128"
)

samples=()
for d in "$checkout"/Samples/{0_Introduction,2_Concepts_and_Techniques,6_Performance}/*/; do
    name=$(basename "$d")
    [ $# -eq 0 ] || printf '%s\n' "$@" | grep -qx "$name" || continue
    srcs=$(find "$d" -maxdepth 1 \( -name '*.cu' -o -name '*.cpp' -o -name '*.c' \) | wc -l)
    cus=$(find "$d" -maxdepth 1 -name '*.cu' | wc -l)
    [ "$srcs" = 1 ] && [ "$cus" = 1 ] && samples+=("$d")
done
[ ${#samples[@]} -gt 0 ] || { echo "cuda_samples.sh: no such single-file sample: $*"; exit 2; }

make --no-print-directory -C "$repo" build/rel/libcudasim.a > /dev/null || exit 2
table=()
for d in "${samples[@]}"; do
    d=${d%/}
    name=$(basename "$d")
    group=$(basename "$(dirname "$d")")
    cu=$(find "$d" -maxdepth 1 -name '*.cu')
    log=$out/$name.log
    target=build/rel/sim-run${cu%.cu}.sim
    bin=$repo/$target
    args=${sample_args[$name]:-}
    verdict= note=
    : > "$log"
    if [ -n "$nvcc" ] && ! bash "$repo/lib/cudasim/translate/nvcc_check.sh" --nvcc "$nvcc" \
            --cache "$repo/build/nvcc-check" -I "$checkout/Common" -I "$d" "$cu" >> "$log" 2>&1; then
        verdict="nvcc rejects it"; note=$(grep -m1 'error' "$log")
    elif ! make --no-print-directory -C "$repo" CU="$cu" INCLUDE="$checkout/Common $d" "$target" \
            >> "$log" 2>&1; then
        note=$(grep -m1 -E 'error:' "$log" | sed -e "s|^$checkout/||" -e 's/^.*error: //')
        refusal='the program needs|is not part of the CUDA simulator|is not in the CUDA simulator|cannot run on the CUDA simulator|not supported by the CUDA simulator|does not provide|static assertion failed: the simulator'
        if grep -qE "$refusal" "$log"; then
            verdict="refused"
            note=$(grep -E 'error:' "$log" | grep -E "$refusal" | sed 's/^.*error: //' |
                   sed -e 's/: the program needs /: needs /' -e 's/, which the CUDA simulator does not have.*//' \
                       -e 's/ is not part of the CUDA simulator.*/ (not in the simulator)/' \
                       -e 's/ is not in the CUDA simulator.*/ is not in the simulator/' \
                       -e 's/ cannot run on the CUDA simulator.*//' -e 's/ is not supported by the CUDA simulator.*//' \
                       -e 's/(lib\/cudasim\/include has those it does)//' |
                   sort -u | paste -sd ';' | sed 's/;/; /g')
        else
            verdict="does not compile"
        fi
    else
        start=$(date +%s%N)
        (cd "$d" && timeout "$timeout" "$bin" $args) >> "$log" 2>&1
        status=$?
        secs=$(( ($(date +%s%N) - start + 500000000) / 1000000000 ))
        case $status in
            0) verdict="passed" ;;
            2) verdict="waived" ;;
            124) verdict="timed out (${timeout} s)" ;;
            *) verdict="failed (exit $status)" ;;
        esac
        note="$secs s${args:+, ARGS=\"$args\"}: $(grep -v '^\s*$' "$log" | grep -v -e '^  \(CU2SIM\|CXX\|LD\)' -e 'warning:' | tail -1 | cut -c1-80)"
    fi
    printf '%-32s %-18s %s\n' "$group/$name" "$verdict" "$note"
    table+=("| $name | $group | $verdict | ${note//|/\\|} |")
done
echo
echo "| sample | folder | on the simulator | notes |"
echo "|---|---|---|---|"
printf '%s\n' "${table[@]}"
echo
echo "(logs: $out/NAME.log)"
