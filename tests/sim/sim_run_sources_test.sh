#!/usr/bin/env bash
# make test: make sim-run composes as nvcc does.
#  - CU_ALSO: a program of several sources (.cu translated as CU is, .cpp and .c compiled
#    as host code against the simulator's headers) is built and linked as one;
#  - LDLIBS and LDFLAGS add to the simulator's own libraries (-lcublas, which the
#    simulator stands for, is taken as said; a user's library is linked);
#  - NVCCFLAGS reaches the compile (-D) and the translation (--extended-lambda);
#  - an edit of a header pulled into the translation (a kernel header reached
#    through a header without CUDA) rebuilds the program;
#  - CU_ALSO naming no file, or a file nvcc would not compile, is one line each;
#  - where nvcc is (NVCC, the second argument), NVCCFLAGS reaches its check too.
# usage: sim_run_sources_test.sh BUILD_ROOT [NVCC]
set -u
unset MAKEFLAGS MFLAGS MAKELEVEL
root=${1:?usage: sim_run_sources_test.sh BUILD_ROOT [NVCC]}
nvcc=${2:-}
repo=$(realpath "$(dirname "$0")/../..")
root=$(realpath -m "$root")
# A folder of its own that stays: make keeps the program's build there.
work=$(realpath -m "$root/sim-run-sources-test")
mkdir -p "$work/prog/inc/kernels" "$work/lib"
failed=0
fail() { echo "FAIL sim-run CU_ALSO/LDLIBS/NVCCFLAGS: $*"; failed=1; }
put() { printf '%s\n' "$2" > "$1.new"; cmp -s "$1.new" "$1" && rm "$1.new" || mv "$1.new" "$1"; }
mk() { timeout 300 make --no-print-directory -C "$repo" sim-run BUILD_ROOT="$root" "$@"; }

put "$work/prog/inc/all.h" '// no CUDA here: the kernels, by their header
#include "kernels/twice.cuh"'
put "$work/prog/inc/kernels/twice.cuh" '#pragma once
#define FACTOR 2
__global__ void twice(float *x, int n) { __shared__ float s[32]; int i = threadIdx.x;
    s[i] = x[i]; __syncthreads(); if (i < n) x[i] = FACTOR * s[i] + OFFSET; }'
put "$work/prog/kernels.cu" '#include "inc/all.h"
void run_twice(float *x, int n) { twice<<<1, 32>>>(x, n); }'
put "$work/prog/host.cpp" '#include <cuda_runtime.h>
float host_sum(const float *d, int n) { float h[32], s = 0; cudaMemcpy(h, d, n * sizeof(float),
    cudaMemcpyDeviceToHost); for (int i = 0; i < n; i++) s += h[i]; return s; }'
put "$work/prog/label.c" '#include <cuda_runtime_api.h>
const char *label(void) { int v = 0; cudaRuntimeGetVersion(&v); return v >= 13000 ? "CUDA 13" : "older"; }'
put "$work/prog/main.cu" '#include <cstdio>
#include <cublas_v2.h>
void run_twice(float *x, int n);
float host_sum(const float *d, int n);
extern "C" const char *label(void);
extern "C" int extra(int);
int main(void) {
    float *d, h[32];
    for (int i = 0; i < 32; i++) h[i] = (float)i;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    run_twice(d, 32);
    auto f = [] __device__ (int v) { return v; };
    (void)f;
    cublasHandle_t handle;
    printf("%s, cublasCreate %d, sum %g, extra %d\n", label(), (int)cublasCreate(&handle),
           host_sum(d, 32), extra(20));
    return 0;
}'
# A user's own library, linked with LDFLAGS=-L... LDLIBS=-lextra.
put "$work/lib/extra.c" 'int extra(int x) { return x + 1; }'
cc -c "$work/lib/extra.c" -o "$work/lib/extra.o" && ar rcs "$work/lib/libextra.a" "$work/lib/extra.o" ||
    fail "could not make the test's library"

cd "$work/prog"
flags="-DOFFSET=0.5f --extended-lambda"
out=$(mk CU=main.cu CU_ALSO="kernels.cu host.cpp label.c" LDLIBS="-lcublas -lextra" LDFLAGS="-L$work/lib" \
    NVCCFLAGS="$flags" NVCC= 2>&1)
# 2 * (0 + ... + 31) + 32 * 0.5
grep -qx 'CUDA 13, cublasCreate 0, sum 1008, extra 21' <<< "$out" ||
    fail "main.cu with CU_ALSO, LDLIBS, LDFLAGS and NVCCFLAGS: $(tail -4 <<< "$out")"

# An edit of the kernel header reached through inc/all.h: rebuilt, run anew.
put "$work/prog/inc/kernels/twice.cuh" "$(sed 's/#define FACTOR 2/#define FACTOR 3/' "$work/prog/inc/kernels/twice.cuh")"
out=$(mk CU=main.cu CU_ALSO="kernels.cu host.cpp label.c" LDLIBS="-lcublas -lextra" LDFLAGS="-L$work/lib" \
    NVCCFLAGS="$flags" NVCC= 2>&1)
grep -qx 'CUDA 13, cublasCreate 0, sum 1504, extra 21' <<< "$out" ||
    fail "an edit of inc/kernels/twice.cuh (through inc/all.h) was not rebuilt: $(tail -3 <<< "$out")"
put "$work/prog/inc/kernels/twice.cuh" "$(sed 's/#define FACTOR 3/#define FACTOR 2/' "$work/prog/inc/kernels/twice.cuh")"

# Without --extended-lambda the translation refuses the lambda, as nvcc does.
out=$(mk CU=main.cu CU_ALSO="kernels.cu host.cpp label.c" LDLIBS="-lcublas -lextra" LDFLAGS="-L$work/lib" \
    NVCCFLAGS=-DOFFSET=0.5f NVCC= 2>&1) && fail "a __device__ lambda without --extended-lambda was built"
grep -q "main.cu:13: error: a lambda marked __device__ needs nvcc's --extended-lambda" <<< "$out" ||
    fail "no refusal of the lambda: $(grep -m2 error <<< "$out")"

out=$(mk CU=main.cu CU_ALSO="kernels.cu nowhere.cu" NVCC= 2>&1) && fail "CU_ALSO=nowhere.cu was accepted"
grep -qx "make sim-run: CU_ALSO: $work/prog/nowhere.cu: no such file" <<< "$out" ||
    fail "CU_ALSO=nowhere.cu: not one clear line: $out"
put "$work/prog/notes.txt" 'notes'
out=$(mk CU=main.cu CU_ALSO=notes.txt NVCC= 2>&1) && fail "CU_ALSO=notes.txt was accepted"
grep -q "CU_ALSO: $work/prog/notes.txt: give .cu, .cpp, .cc, .cxx or .c files" <<< "$out" ||
    fail "CU_ALSO=notes.txt: no clear error: $out"

if [ -n "$nvcc" ]; then
    out=$(mk CU=main.cu CU_ALSO="kernels.cu host.cpp label.c" LDLIBS="-lcublas -lextra" LDFLAGS="-L$work/lib" \
        NVCCFLAGS="$flags" NVCC="$nvcc" 2>&1)
    grep -qx 'CUDA 13, cublasCreate 0, sum 1008, extra 21' <<< "$out" ||
        fail "with nvcc's check (NVCCFLAGS given to it): $(tail -4 <<< "$out")"
fi

[ $failed = 0 ] && echo " ok   sim-run: CU_ALSO's sources linked as one program, LDLIBS and LDFLAGS added" \
    "to the simulator's, NVCCFLAGS given to g++, the translation${nvcc:+ and nvcc}"
exit $failed
