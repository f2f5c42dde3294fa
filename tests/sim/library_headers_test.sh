#!/usr/bin/env bash
# make test (where a CUDA toolkit's Thrust and CUB are): every public header of
# the toolkit's Thrust (thrust/*.h, thrust/iterator/*.h) and CUB (cub/*.cuh,
# cub/block, cub/warp, cub/device) is either the simulator's or refused.
#  - a header the simulator does not have: translating a program that
#    includes it fails with exactly one line, the library's refusal, never
#    reaching g++ (so never a raw compiler error from the simulator's headers);
#  - a header it has: the translator lets it through, and a program
#    including every one of them compiles;
#  - the simulator has no header under thrust/ or cub/ that the toolkit lacks
#    (but its own detail/ files), nor under cuda/ (libcu++), whose headers all
#    compile together.
# usage: library_headers_test.sh TOOLKIT_INCLUDE_DIR BUILD_ROOT
set -u
toolkit=${1:?usage: library_headers_test.sh TOOLKIT_INCLUDE_DIR BUILD_ROOT}
root=${2:?usage: library_headers_test.sh TOOLKIT_INCLUDE_DIR BUILD_ROOT}
cd "$(dirname "$0")/../.."
sim=lib/cudasim/include
cccl=$toolkit
[ -d "$toolkit/cccl/thrust" ] && cccl=$toolkit/cccl
if [ ! -d "$cccl/thrust" ] || [ ! -d "$cccl/cub" ]; then
    echo "== Thrust's and CUB's headers against the toolkit's: skipped, no Thrust and CUB under $toolkit"
    exit 0
fi
echo "== Thrust's and CUB's headers: the toolkit's each the simulator's or refused in one line"
mkdir -p "$root"
tmp=$(mktemp -d "$(realpath "$root")/library-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0 provided=0 refused=0
fail() { echo "FAIL $*"; failed=1; }

headers=$(cd "$cccl" && ls thrust/*.h thrust/iterator/*.h cub/*.cuh cub/block/*.cuh cub/warp/*.cuh \
                            cub/device/*.cuh 2>/dev/null)
all="$tmp/all.cu"
: > "$all"
for h in $headers; do
    case $h in thrust/*) library=Thrust ;; *) library=CUB ;; esac
    printf '#include <%s>\nint main(void) { return 0; }\n' "$h" > "$tmp/one.cu"
    perl lib/cudasim/translate/cu2sim.pl "$tmp/one.cu" > "$tmp/one.cpp" 2> "$tmp/one.err"
    status=$?
    if [ -f "$sim/$h" ]; then
        provided=$((provided + 1))
        [ $status = 0 ] || fail "<$h>: the simulator has it, and the translator refuses it: $(cat "$tmp/one.err")"
        echo "#include <$h>" >> "$all"
    else
        refused=$((refused + 1))
        lines=$(grep -c . "$tmp/one.err")
        if [ $status = 0 ] || [ "$lines" != 1 ] ||
           ! grep -q "error: #include <$h>: this part of $library is not in the CUDA simulator" "$tmp/one.err"; then
            fail "<$h>: the simulator lacks it; its translation must fail with one line, the refusal of" \
                 "$library; it said (status $status):"
            sed 's/^/      | /' "$tmp/one.err"
        fi
    fi
done
# Every provided header in one program: it must compile.
echo 'int main(void) { return 0; }' >> "$all"
if perl lib/cudasim/translate/cu2sim.pl "$all" > "$tmp/all.cpp" 2> "$tmp/all.err" &&
   ${CXX:-g++} -std=c++17 -fsyntax-only -Wall -Wextra -DCUDASIM_KERNEL_SOURCE -I"$sim" -Ilib/cudasim \
       -include lib/cudasim/exec/kernel.h "$tmp/all.cpp" > "$tmp/all.log" 2>&1; then
    :
else
    fail "a program including each of the $provided headers the simulator has does not compile:"
    sed 's/^/      | /' "$tmp/all.err" "$tmp/all.log" | head -20
fi
[ -s "$tmp/all.log" ] && { fail "it compiles with warnings:"; sed 's/^/      | /' "$tmp/all.log" | head -20; }
# No header of the simulator's that the toolkit does not have.
for h in $(cd "$sim" && find thrust cub -type f \( -name '*.h' -o -name '*.cuh' \) ! -path '*/detail/*' | sort) \
         $(cd "$sim" && find cuda -type f | sort); do
    [ -f "$cccl/$h" ] || fail "<$h>: the simulator has it and the toolkit does not (a name CUDA does not use)"
done
# Every libcu++ header the simulator has, in one program: it must compile.
for h in $(cd "$sim" && find cuda -type f | sort); do echo "#include <$h>"; done > "$tmp/libcu.cu"
echo 'int main(void) { return 0; }' >> "$tmp/libcu.cu"
if ! { perl lib/cudasim/translate/cu2sim.pl "$tmp/libcu.cu" > "$tmp/libcu.cpp" 2> "$tmp/libcu.err" &&
       ${CXX:-g++} -std=c++17 -fsyntax-only -Wall -Wextra -DCUDASIM_KERNEL_SOURCE -I"$sim" -Ilib/cudasim \
           -include lib/cudasim/exec/kernel.h "$tmp/libcu.cpp" > "$tmp/libcu.log" 2>&1; }; then
    fail "a program including each of the simulator's libcu++ headers does not compile:"
    sed 's/^/      | /' "$tmp/libcu.err" "$tmp/libcu.log" | head -20
fi
if [ $failed != 0 ]; then exit 1; fi
echo " ok   $provided headers the simulator has compile; $refused it lacks are refused, one line each"
