#!/usr/bin/env bash
# make test-conformance (part of make test), where NVIDIA's toolkit is
# installed: the simulator's cuRAND against NVIDIA's own library. libcurand's
# host generator (no GPU needed) computes what curand_device.cu and
# curand_host.cu must print, exactly (--exact: floats in hex), and the
# simulator's XORWOW jumps are compared with the toolkit's tables. Without
# the toolkit it says so in one line: the expected outputs (NAME.out) were
# made this way.
# usage: curand_reference.sh BINDIR   (the programs are BINDIR/<absolute path of NAME>.sim)
set -u
cd "$(dirname "$0")/../.."
bindir=${1:?usage: curand_reference.sh BINDIR}
cuda=${CUDA_HOME:-/usr/local/cuda}
lib=$(ls -d "$cuda"/lib64 "$cuda"/lib 2>/dev/null | head -1)
if [ ! -f "$cuda/include/curand.h" ] || [ ! -f "$cuda/include/curand_precalc.h" ] ||
   ! ls "$lib"/libcurand.so* > /dev/null 2>&1; then
    echo "== cuRAND against NVIDIA's libcurand: skipped, no CUDA toolkit at $cuda (CUDA_HOME)"
    exit 0
fi
echo "== cuRAND against NVIDIA's libcurand (its host generator, on the CPU)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! ${CXX:-g++} -std=c++17 -O1 -I"$cuda/include" tests/conformance/curand_reference.cpp \
        lib/cudasim/libs/curand_xorwow.cpp -L"$lib" -Wl,-rpath,"$lib" -lcurand -o "$tmp/ref" 2> "$tmp/err"; then
    echo "FAIL the reference program does not build:"; sed 's/^/      /' "$tmp/err"; exit 1
fi
failed=0
for prog in device host; do
    bin=$bindir$(realpath tests/conformance/curand_$prog.cu | sed 's/\.cu$//').sim
    for mode in --exact ""; do
        "$tmp/ref" $prog $mode > "$tmp/want" || { echo "FAIL reference $prog $mode"; failed=1; continue; }
        if [ -z "$mode" ]; then
            got=tests/conformance/curand_$prog.out
        else
            "$bin" $mode > "$tmp/got" 2>&1; got=$tmp/got
        fi
        if diff -u "$tmp/want" "$got" > "$tmp/diff"; then
            echo " ok   curand_$prog ${mode:-(its .out)}: as libcurand"
        else
            echo "FAIL curand_$prog ${mode:-(its .out)} differs from libcurand:"; sed 's/^/      /' "$tmp/diff"
            failed=1
        fi
    done
done
if "$tmp/ref" tables > "$tmp/tables"; then echo " ok   $(cat "$tmp/tables")"
else echo "FAIL $(cat "$tmp/tables")"; failed=1; fi
exit $failed
