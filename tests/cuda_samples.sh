#!/usr/bin/env bash
# NVIDIA's CUDA samples on the simulator (not part of CI: it needs a checkout
# of github.com/NVIDIA/cuda-samples, which this repository never copies).
#
#   bash tests/cuda_samples.sh [--docs] [--rows] PATH/TO/cuda-samples [SAMPLE...]
#
# Runs each sample of Samples/0_Introduction, 2_Concepts_and_Techniques,
# 3_CUDA_Features and 6_Performance (or the ones named) whose sources lie in
# its own folder and that needs neither the driver API (nor NVRTC), graphics
# interop nor several GPUs or processes, as make sim-run would: INCLUDE is
# "Common <its folder>", the .cu that holds main (or, where main is in a host
# file, the first .cu) is CU and the folder's other .cu, .cpp and .c files are
# CU_ALSO, NVCCFLAGS is -arch=sm_80 (the compute capability the simulated
# device reports; the samples' own builds name several, 8.0 among them), and
# -rdc=true where the sample's CMakeLists.txt asks for separable compilation
# (as they do: dynamic parallelism needs it).
# nvcc's check of each .cu where nvcc is, the build for the simulator, then
# the program in its own folder. Prints one line per sample and, at the end,
# the table of docs/simulator.md ("NVIDIA's samples"): the sample's own
# verdict (its exit status: 0 passed, 2 waived, as the samples exit), the
# simulator's refusal and what it names, or the first error of a build that
# fails, each row with the date of its run: a sample not named keeps the row of
# its last run (out/cuda-samples/NAME.row). With --docs, the table also
# replaces the one between the markers "<!-- cuda_samples.sh table -->" and
# "<!-- end of table -->" in docs/simulator.md. With --rows it runs nothing: the
# table of the rows kept.
#   TIMEOUT=600      seconds a sample may run
#   NVCC=...         nvcc for the check (default: the Makefile's; NVCC= skips it)
set -u
docs= norun=
while :; do
    case ${1:-} in
        --docs) docs=y; shift ;;
        --rows) norun=y; shift ;;
        *) break ;;
    esac
done
checkout=${1:?usage: cuda_samples.sh [--docs] [--rows] PATH/TO/cuda-samples [SAMPLE...]}
shift
checkout=$(realpath -e "$checkout") || exit 2
[ -f "$checkout/Common/helper_cuda.h" ] || {
    echo "cuda_samples.sh: $checkout/Common/helper_cuda.h: not a cuda-samples checkout"; exit 2; }
repo=$(realpath "$(dirname "$0")/..")
timeout=${TIMEOUT:-600}
nvcc=${NVCC-$(command -v nvcc || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })}
arch=-arch=sm_80
out=$repo/out/cuda-samples
mkdir -p "$out"

# Arguments that keep a sample's work within what a CPU simulates in minutes
# (the table says so where one is used).
declare -A sample_args=(
    [globalToShmemAsyncCopy]="-wA=128 -hA=128 -wB=128 -hB=128"
)

# What leaves a sample out, found in its sources: the driver API or NVRTC,
# graphics interop, several GPUs or processes.
driver='\bcu(Init|Module[A-Z]|Ctx[A-Z]|Launch[A-Z]|DeviceGet|MemMap|MemCreate|MemAddress|LinkCreate)[A-Za-z]*\s*\(|nvrtc[A-Z]'
graphics='#\s*include\s*[<"](GL/|GLES|EGL/|vulkan|d3d|dxgi|GLFW)|cudaGraphics[A-Z]'
multi='cudaDevice(EnablePeerAccess|CanAccessPeer)|cudaIpc[A-Z]|MPI_Init'

all=() samples=()
for d in "$checkout"/Samples/{0_Introduction,2_Concepts_and_Techniques,3_CUDA_Features,6_Performance}/*/; do
    d=${d%/}
    ls "$d"/*.cu > /dev/null 2>&1 || continue
    files=$(find "$d" -maxdepth 1 -type f \( -name '*.cu' -o -name '*.cpp' -o -name '*.c' -o -name '*.h' \
            -o -name '*.cuh' -o -name '*.hpp' \))
    # shellcheck disable=SC2086
    grep -qE "$driver|$graphics|$multi" $files && continue
    all+=("$d")
    [ $# -eq 0 ] || printf '%s\n' "$@" | grep -qx "$(basename "$d")" || continue
    samples+=("$d")
done
[ -n "$norun" ] && samples=()
[ -n "$norun" ] || [ ${#samples[@]} -gt 0 ] || { echo "cuda_samples.sh: no such sample: $*"; exit 2; }

[ -n "$norun" ] || make --no-print-directory -C "$repo" build/rel/libcudasim.a > /dev/null || exit 2
for d in ${samples[@]+"${samples[@]}"}; do
    name=$(basename "$d")
    group=$(basename "$(dirname "$d")")
    mapfile -t srcs < <(find "$d" -maxdepth 1 -type f \( -name '*.cu' -o -name '*.cpp' -o -name '*.c' \) | sort)
    mapfile -t cus < <(printf '%s\n' "${srcs[@]}" | grep '\.cu$')
    cu=$(grep -lE '^\s*int\s+main\s*\(' "${cus[@]}" | head -1)
    cu=${cu:-${cus[0]}}
    also=$(printf '%s\n' "${srcs[@]}" | grep -vxF "$cu" | paste -sd ' ')
    log=$out/$name.log
    target=build/rel/sim-run${cu%.cu}.sim
    bin=$repo/$target
    args=${sample_args[$name]:-}
    # (relocatable device code, where the sample's own build asks for it: dynamic parallelism)
    flags=$arch
    grep -qsE '^[^#]*CUDA_SEPARABLE_COMPILATION ON' "$d/CMakeLists.txt" && flags="$arch -rdc=true"
    verdict= note= nvcc_ok=y
    : > "$log"
    if [ -n "$nvcc" ]; then
        for f in "${cus[@]}"; do
            bash "$repo/lib/cudasim/translate/nvcc_check.sh" --nvcc "$nvcc" --cache "$repo/build/nvcc-check" \
                $(printf -- '--flag %s ' $flags) -I "$checkout/Common" -I "$d" "$f" >> "$log" 2>&1 ||
                { nvcc_ok=; break; }
        done
    fi
    if [ -z "$nvcc_ok" ]; then
        verdict="nvcc rejects it"; note=$(grep -m1 'error' "$log" | sed -e "s|^$d/||" -e "s|^$checkout/||")
    elif ! make --no-print-directory -C "$repo" CU="$cu" CU_ALSO="$also" INCLUDE="$checkout/Common $d" \
            NVCCFLAGS="$flags" "$target" >> "$log" 2>&1; then
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
        note="$secs s${args:+, ARGS=\"$args\"}: $(grep -v '^\s*$' "$log" | grep -v -e '^  \(CU2SIM\|CXX\|CC\|LD\)' -e 'warning:' -e '^nvcc warning' | tail -1 |
              sed -e "s|$bin|$name|g" -e "s|$repo/||g" -e "s|$checkout/||g" | cut -c1-80)"
    fi
    printf '%-40s %-18s %s\n' "$group/$name" "$verdict" "$note"
    # (the note as Markdown's table and Doxygen take it: one line of plain text, its
    # #s escaped, which Doxygen would take for links)
    note=$(printf '%s' "$note" | tr -s '\t ' '  ' | tr -d '*<>&`\\' | sed -e 's/|/\\|/g' -e 's/#/\\#/g')
    echo "| $name | $group | $verdict | $(date -u +%Y-%m-%d) | $note |" > "$out/$name.row"
done
# The table: each sample's last result (a sample not named this time keeps the row of its
# last run, with that run's date).
table=()
for d in "${all[@]}"; do
    name=$(basename "$d")
    if [ -f "$out/$name.row" ]; then table+=("$(cat "$out/$name.row")")
    else table+=("| $name | $(basename "$(dirname "$d")") | not run | | |"); fi
done
count() { printf '%s\n' "${table[@]}" | awk -F' [|] ' -v v="$1" 'index($3, v) == 1' | wc -l; }
summary="Of the ${#table[@]} samples, $(count passed) pass by their own verdict, $(count waived) waive,
$(count failed) fail, $(count 'timed out') run out of the time given them, $(count refused) are refused, $(count 'does not compile') do not
compile and $(count 'nvcc rejects') are rejected by nvcc."
render() {
    echo "| sample | folder | on the simulator | run on | notes |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${table[@]}"
    echo
    echo "$summary"
}
echo
render
echo
echo "(logs: $out/NAME.log)"
if [ -n "$docs" ]; then
    doc=$repo/docs/simulator.md
    grep -q '^<!-- cuda_samples.sh table -->$' "$doc" && grep -q '^<!-- end of table -->$' "$doc" || {
        echo "cuda_samples.sh: $doc has no \"<!-- cuda_samples.sh table -->\" ... \"<!-- end of table -->\" markers"; exit 2; }
    render > "$out/table.md"
    perl -i -0pe 'BEGIN { open my $f, "<", shift @ARGV or die; local $/; $t = <$f> }
        s/^<!-- cuda_samples.sh table -->\n.*?^<!-- end of table -->$/<!-- cuda_samples.sh table -->\n$t<!-- end of table -->/ms' \
        "$out/table.md" "$doc"
    echo "(docs/simulator.md: table replaced)"
fi
