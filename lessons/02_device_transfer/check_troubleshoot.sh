#!/usr/bin/env bash
# Lesson 02's troubleshooting table, checked: each cause that can be made on this
# machine is made (a variable, a fake nvidia-smi on PATH, a build without nvcc), and
# the part must print the message and the advice its README promises. Also the BLAS
# check: with OPENBLAS_CORETYPE=Prescott (the fallback OpenBLAS 0.3.21 picks on CPUs
# it does not know) the part must call it a fallback and time the CPU on a better one.
#
#   bash lessons/02_device_transfer/check_troubleshoot.sh      (BUILD_ROOT=... to choose)
#
# Causes that need a machine of their own (a real GPU, a broken driver, WSL) are
# skipped with a line saying why. Exit status 0 when every check that ran passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_ROOT=${BUILD_ROOT:-build/troubleshoot}
MAKE="make --no-print-directory -s"
fails=0 ran=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME LOG TEXT...: every TEXT must be in LOG.
expect() {
    local name=$1 log=$2
    shift 2
    ran=$((ran + 1))
    for text in "$@"; do
        if ! grep -qF -- "$text" "$log"; then
            echo "FAIL $name: no \"$text\" in the output:"
            sed 's/^/    /' "$log" | head -40
            fails=$((fails + 1))
            return
        fi
    done
    echo "ok   $name"
}
skip() { echo "skip $1: $2"; }

# A PATH without nvidia-smi (and without the real one, should the machine have it).
plain_path=/usr/local/bin:/usr/bin:/bin
have_driver=
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then
    have_driver=1
fi

nvcc=$(command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
cuda_bin=$BUILD_ROOT/rel/solutions/lesson37
sim_bin=$BUILD_ROOT/rel-sim/solutions/lesson37
cpu_bin=$BUILD_ROOT/cpu/rel/solutions/lesson37

echo "== building the three flavours in $BUILD_ROOT (real CUDA if nvcc is here, the simulator, no CUDA)"
build() { # build LOG MAKE-ARGS...: quiet unless it fails
    local log=$1
    shift
    $MAKE "$@" > "$log" 2>&1 || { tail -30 "$log"; echo "the build failed"; exit 1; }
}
build "$tmp/build-sim.log" "$sim_bin" SIM=1 BUILD_ROOT="$BUILD_ROOT"
build "$tmp/build-cpu.log" "$cpu_bin" NVCC= BUILD_ROOT="$BUILD_ROOT/cpu"
if [ -n "$nvcc" ]; then build "$tmp/build-cuda.log" "$cuda_bin" BUILD_ROOT="$BUILD_ROOT"; fi

part2() { # part2 BINARY ARGS...: Lesson 02 without the slow sections
    local bin=$1
    shift
    "$bin" --part 2 --no-plot --out "$tmp/out" --no-blas-compare --n-cpu 64 --n-gpu 64 \
        --epochs 5 "$@" 2>&1
}

echo "== the causes"
# 1. A build without CUDA.
PATH=$plain_path part2 "$cpu_bin" --no-matmul > "$tmp/cpu.log"
expect "a build without CUDA" "$tmp/cpu.log" \
    "this build has no CUDA backend (nvcc was not found when it was built)" \
    "This program was built without CUDA" "make lesson37 PART=2 SIM=1"

# 2-4. No driver: nothing, a failing nvidia-smi, a driver older than the runtime.
if [ -z "$nvcc" ]; then
    skip "no driver" "nvcc is not here, so there is no real-CUDA build to ask"
elif [ -n "$have_driver" ]; then
    skip "no driver" "this machine has a working NVIDIA driver"
else
    PATH=$plain_path part2 "$cuda_bin" --no-matmul > "$tmp/nodriver.log"
    expect "no driver, no nvidia-smi" "$tmp/nodriver.log" \
        "nvidia-smi: not found" "no usable NVIDIA driver" "No NVIDIA driver is installed here"

    mkdir -p "$tmp/failing"
    cat > "$tmp/failing/nvidia-smi" <<'EOF'
#!/bin/sh
echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."
exit 9
EOF
    chmod +x "$tmp/failing/nvidia-smi"
    PATH=$tmp/failing:$plain_path part2 "$cuda_bin" --no-matmul > "$tmp/failing.log"
    expect "nvidia-smi installed but failing" "$tmp/failing.log" \
        "nvidia-smi: failed (exit status 9): NVIDIA-SMI has failed" \
        "kernel module is not loaded" "lsmod | grep nvidia"

    mkdir -p "$tmp/old"
    cat > "$tmp/old/nvidia-smi" <<'EOF'
#!/bin/sh
if [ "$1" = "-L" ]; then
    echo "GPU 0: NVIDIA GeForce RTX 3080 (UUID: GPU-00000000-0000-0000-0000-000000000000)"
    exit 0
fi
echo "+---------------------------------------------------------------------------------------+"
echo "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |"
echo "+---------------------------------------------------------------------------------------+"
EOF
    chmod +x "$tmp/old/nvidia-smi"
    PATH=$tmp/old:$plain_path part2 "$cuda_bin" --no-matmul > "$tmp/old.log"
    expect "a driver older than the runtime" "$tmp/old.log" \
        "nvidia-smi: driver 470.57.02, serving CUDA up to 11.4; 1 GPU" \
        "nvidia-smi works (driver 470.57.02, serving CUDA up to 11.4)" \
        "or build with a toolkit no newer than 11.4" "Since CUDA 11 any 11.x toolkit also runs"
fi

# 5. CUDA_VISIBLE_DEVICES naming no GPU (the simulator has one unless CUDASIM_DEVICES says more).
CUDASIM_DEVICES=1 CUDA_VISIBLE_DEVICES=3 PATH=$plain_path part2 "$sim_bin" --no-matmul > "$tmp/cvd.log"
expect "CUDA_VISIBLE_DEVICES hides every GPU" "$tmp/cvd.log" \
    'CUDA_VISIBLE_DEVICES="3" leaves none visible' 'CUDA_VISIBLE_DEVICES="3" hides every GPU'

# 6. The mapping the source gets wrong: CUDA_VISIBLE_DEVICES=2,0 on a four-GPU machine.
CUDASIM_DEVICES=4 CUDA_VISIBLE_DEVICES=2,0 PATH=$plain_path part2 "$sim_bin" --no-matmul \
    > "$tmp/map.log"
expect "CUDA_VISIBLE_DEVICES=2,0: cuda:0 is GPU 2" "$tmp/map.log" \
    "cuda:0 = the simulated machine's GPU 2" "cuda:1 = the simulated machine's GPU 0"

skip "WSL" "needs WSL; make test checks its detection (tests/unit/check_blas.c)"
skip "CUDA_VISIBLE_DEVICES set after CUDA started" "needs a real GPU (the simulator reads it at every call)"
skip "CUDA_DEVICE_ORDER" "needs a machine with two different GPUs"

echo "== the CPU's BLAS kernel"
# simd_level FILE: the widest of avx512f and avx2 on the first "flags" line of FILE (a
# /proc/cpuinfo), or "none". One word, whatever order the flags come in.
simd_level() {
    local flags
    flags=" $(grep -m1 '^flags' "$1" 2> /dev/null | cut -d: -f2-) "
    case "$flags" in
    *" avx512f "*) echo avx512f ;;
    *" avx2 "*) echo avx2 ;;
    *) echo none ;;
    esac
}
# The decision itself, on made-up cpuinfo files: an AVX-512 CPU lists avx2 too.
printf 'processor\t: 0\nflags\t\t: fpu sse2 avx avx2 bmi2 avx512f avx512dq avx512bw\n' > "$tmp/cpu512"
printf 'processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\n' > "$tmp/cpu2"
printf 'processor\t: 0\nFeatures\t: fp asimd evtstrm aes\n' > "$tmp/cpuarm"
printf 'flags\t\t: fpu sse2 avx avx512_vnni\n' > "$tmp/cpuvnni"
ran=$((ran + 1))
got="$(simd_level "$tmp/cpu512") $(simd_level "$tmp/cpu2") $(simd_level "$tmp/cpuarm")"
got="$got $(simd_level "$tmp/cpuvnni") $(simd_level "$tmp/missing")"
if [ "$got" = "avx512f avx2 none none none" ]; then
    echo "ok   the SIMD level of an AVX-512, an AVX2, an Arm and a partial CPU, and no file"
else
    echo "FAIL the SIMD levels are \"$got\", expected \"avx512f avx2 none none none\""
    fails=$((fails + 1))
fi
case "$(simd_level /proc/cpuinfo)" in
avx512f | avx2)
    OPENBLAS_CORETYPE=Prescott PATH=$plain_path "$cpu_bin" --part 2 --no-plot --out "$tmp/out" \
        --n-cpu 1000 > "$tmp/blas.log" 2>&1
    expect "a fallback kernel is named and replaced" "$tmp/blas.log" \
        '"Prescott" is a fallback here' "OPENBLAS_CORETYPE=Prescott is set in the environment" \
        "The CPU side below uses"
    if grep -q "CPU, OpenBLAS Prescott on" "$tmp/blas.log"; then
        echo "FAIL the CPU figure was taken on the fallback kernel"
        fails=$((fails + 1))
    fi
    ;;
*) skip "BLAS fallback" "not an x86 CPU with AVX2 or AVX-512" ;;
esac

echo "== $ran checks ran, $fails failed"
[ "$fails" -eq 0 ]
