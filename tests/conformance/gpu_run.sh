#!/usr/bin/env bash
# The conformance programs on a real GPU (make gpu-check runs this): each is
# built by nvcc as it stands and run. A correct program (one without
# NAME.report, or whose NAME.report holds only the simulator's summary line of
# checked and unchecked launches) must print exactly NAME.out, what the
# simulator prints too.
# A program with a planted bug is run under compute-sanitizer where there is
# one, so that its findings can be set beside the simulator's report; what it
# prints is shown, not compared (a GPU need not fault, or may hang, where the
# simulator stops).
# usage: gpu_run.sh [ARCHS]   (compute capabilities, such as "89 90"; default: nvcc's)
set -u
cd "$(dirname "$0")/../.."
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
SANITIZER=$(command -v compute-sanitizer || ls "$(dirname "$NVCC")"/compute-sanitizer 2>/dev/null)
gencode=()
for a in ${1:-}; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); done
out=out/conformance
mkdir -p "$out"
failed=0 count=0
for cu in tests/conformance/*.cu; do
    name=$(basename "${cu%.cu}")
    # (NAME.build: one the simulator must refuse; make test checks nvcc's verdict on it)
    [ -f "${cu%.cu}.build" ] && continue
    count=$((count + 1))
    incs=()
    if [ -f "${cu%.cu}.include" ]; then for d in $(cat "${cu%.cu}.include"); do incs+=(-I "$d"); done; fi
    if [ -f "${cu%.cu}.flags" ]; then for w in $(cat "${cu%.cu}.flags"); do incs+=("$w"); done; fi
    if ! "$NVCC" -std=c++17 -O2 -lineinfo "${gencode[@]}" "${incs[@]}" -o "$out/$name" "$cu" -lcublas -lcurand \
        2> "$out/$name.build"; then
        echo "FAIL $cu: nvcc refused it:"; sed 's/^/      /' "$out/$name.build"
        failed=$((failed + 1)); continue
    fi
    if [ -f "${cu%.cu}.report" ] && grep -qv '^cudasim: [0-9]* launch' "${cu%.cu}.report"; then
        { timeout 60 "$out/$name" > "$out/$name.out" 2> "$out/$name.err"; status=$?; } 2> /dev/null
        echo " bug  $cu: status $status; it printed:"; sed 's/^/      | /' "$out/$name.out"
        if [ -n "$SANITIZER" ]; then
            for tool in memcheck racecheck initcheck synccheck; do
                timeout 120 "$SANITIZER" --tool $tool "$out/$name" > "$out/$name.$tool" 2>&1
                grep -q "ERROR SUMMARY: 0 errors" "$out/$name.$tool" ||
                    { echo "      compute-sanitizer --tool $tool:"; grep -m 6 -E '=+ +(Invalid|Race|Uninitialized|Barrier|Error|ERROR)' "$out/$name.$tool" | sed 's/^/      | /'; }
            done
        fi
        continue
    fi
    { timeout 60 "$out/$name" > "$out/$name.out" 2> "$out/$name.err"; status=$?; } 2> /dev/null
    if [ $status = 0 ] && diff -u "${cu%.cu}.out" "$out/$name.out" > "$out/$name.diff"; then
        echo " ok   $cu"
    else
        echo "FAIL $cu: status $status, and what it printed differs from ${cu%.cu}.out:"
        sed 's/^/      /' "$out/$name.diff" "$out/$name.err"
        failed=$((failed + 1))
    fi
done
if [ $failed -ne 0 ]; then echo "$failed of $count conformance programs failed on the GPU"; exit 1; fi
echo "all $count conformance programs built with nvcc; the correct ones printed what the simulator prints"
