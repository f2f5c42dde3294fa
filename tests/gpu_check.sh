#!/usr/bin/env bash
# make gpu-check: on a machine with a GPU, build for it, run every GPU test on
# the device (not the simulator) and every GPU demo and benchmark, and write a
# short report to out/gpu-check.txt (date, GPU, driver, toolkit, each step, its
# time and its result), ready to be quoted in the docs. It changes no GPU
# setting.
#
# Made to fit a short loan of a GPU machine in one call:
# - the most telling steps first (build, the GPU tests, Iris and the SGEMM
#   series, the time model's error per kernel, the benchmarks), each under its
#   own time limit, so a hang costs one step, not the run;
# - the simulator's tests are left out (CI runs them on every change);
# - with OUT set (a folder that comes back from the machine), the report and
#   the demos' CSV files are copied there after every step, so even a run cut
#   short returns what it found;
# - a machine that cannot install packages takes them from .gpu-deps/, made
#   beforehand with make gpu-deps (tests/gpu_deps.sh), unpacked under
#   /tmp/wb-deps (nothing of the system's is overwritten).
set -u
cd "$(dirname "$0")/.."
mkdir -p out
report=out/gpu-check.txt
status=0
t0=$(date +%s)
say() { echo "$*" | tee -a "$report"; }
send_back() { # the report and the demos' data, to $OUT when the caller set it
    [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ] || return 0
    cp "$report" "$OUT/" 2>/dev/null
    tar -czf "$OUT/gpu-check-data.tar.gz" out/*.csv out/experiments/*/metrics.csv \
        out/model-check/*.txt out/model-check/*.csv 2>/dev/null
    return 0
}
# What a program prints when it did not find the GPU after all (it still exits 0).
NO_GPU='skipped \(no CUDA device|skipped: no|GPU half: skipped|no usable NVIDIA driver|sections below are skipped'
step() { # step NAME SECONDS COMMAND...: run with a time limit, keep its output, record the result
    local name=$1 limit=$2; shift 2
    local start rc
    start=$(date +%s)
    say "== $name: $* (limit ${limit} s)"
    timeout --kill-after=10 "$limit" "$@" > out/gpu-check-step.log 2>&1
    rc=$?
    cat out/gpu-check-step.log >> "$report"
    if [ $rc = 0 ] && grep -qiE "$NO_GPU" out/gpu-check-step.log; then
        say "   $name: ran, but WITHOUT the GPU (its GPU parts say skipped; see above)"; status=1
    elif [ $rc = 0 ]; then
        say "   $name: ok in $(($(date +%s) - start)) s"
    elif [ $rc = 124 ] || [ $rc = 137 ]; then
        say "   $name: TIMED OUT after $limit s"; status=1
    else
        say "   $name: FAILED (status $rc) in $(($(date +%s) - start)) s"; status=1
    fi
    send_back
    return $rc
}

: > "$report"
say "GPU check, $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
if ! nvidia-smi -L > /dev/null 2>&1; then
    say "no GPU: nvidia-smi finds none; nothing to check here (make test covers the simulator)"
    # What can be checked without one: the time model's check builds (nvcc) and its
    # simulator half runs, at a small size.
    say "the time model's check, as a dry run (tests/gpu/model_check.sh):"
    bash tests/gpu/model_check.sh 16 2>&1 | tee -a "$report"
    send_back
    exit 2
fi
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader \
    | sed 's/^/GPU: /' | tee -a "$report"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$NVCC" --version | tail -2 | sed 's/^/nvcc: /' | tee -a "$report"
# The CUDA libraries, where the toolkit keeps them, in case the loader does not know them.
CUDA_HOME=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
for d in "$CUDA_HOME/lib64" "$CUDA_HOME/lib"; do
    [ -d "$d" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"
done

# ---- Check, OpenBLAS and pkg-config: the system's, or the ones in .gpu-deps/
have_deps() {
    command -v make >/dev/null 2>&1 && command -v pkg-config >/dev/null 2>&1 &&
        pkg-config --exists check openblas jansson zlib
}
if ! have_deps; then
    debs=$(ls .gpu-deps/*.deb 2>/dev/null)
    if [ -z "$debs" ]; then
        say "Check, OpenBLAS, jansson, zlib, pkg-config or make is missing here, and there is no .gpu-deps/ folder."
        say "On a machine with network run make gpu-deps, then bring .gpu-deps/ along."
        send_back
        exit 1
    fi
    R=/tmp/wb-deps
    rm -rf "$R" && mkdir -p "$R"
    for f in $debs; do # dpkg-deb where there is one, else the .deb's own layout (ar + tar)
        if command -v dpkg-deb >/dev/null 2>&1; then
            dpkg-deb -x "$f" "$R"
        else
            member=$(ar t "$f" | grep '^data\.tar')
            case $member in *.xz) z=-J ;; *.gz) z=-z ;; *.zst) z=--zstd ;; *) z= ;; esac
            ar p "$f" "$member" | tar -x $z -C "$R" -f -
        fi
    done
    L=$R/usr/lib/x86_64-linux-gnu
    export PATH="$R/usr/bin:$PATH"
    export PKG_CONFIG_SYSROOT_DIR=$R
    export PKG_CONFIG_LIBDIR=$L/pkgconfig:$L/openblas-pthread/pkgconfig
    export CPATH="$R/usr/include${CPATH:+:$CPATH}"
    export LIBRARY_PATH="$L:$L/openblas-pthread${LIBRARY_PATH:+:$LIBRARY_PATH}"
    # Our own folder for OpenBLAS and subunit; the Fortran runtime only where the
    # system has none (a system copy may be newer than Debian 12's).
    mkdir -p "$R/runtime"
    for lib in "$L"/libsubunit.so* "$L"/libpkgconf.so* "$L"/libjansson.so* \
               "$L"/openblas-pthread/libopenblas*.so*; do
        ln -sf "$lib" "$R/runtime/"
    done
    for lib in libgfortran.so.5 libquadmath.so.0; do
        ldconfig -p 2>/dev/null | grep -q "$lib " || ln -sf "$L/$lib" "$R/runtime/"
    done
    export LD_LIBRARY_PATH="$R/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    if have_deps; then say "Check, OpenBLAS, pkg-config, make: from .gpu-deps/ where missing (unpacked in $R)"
    else say "the packages in .gpu-deps/ did not provide Check, OpenBLAS and make"; send_back; exit 1; fi
fi

# Build only for the GPUs present: quicker than the full list. No gnuplot or
# Doxygen needed (no plots here), so make deps asks for nothing else.
archs=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | tr -d . | sort -u | xargs)
M=(make --no-print-directory GPU_ARCHS="$archs"
   DEPS_ALL="pkg-config check g++ libopenblas-dev libjansson-dev zlib1g-dev openmpi-bin libopenmpi-dev")
say "building for sm_${archs// / sm_} with $(nproc) jobs"
# STEPS="gpu-tests bench" reruns some steps only (the build always runs).
want() { [ -z "${STEPS:-}" ] || [[ " $STEPS " == *" $1 "* ]]; }
step build 300 "${M[@]}" -j"$(nproc)" build || { say "result: the build failed; see above"; send_back; exit 1; }
want gpu-tests && step gpu-tests 150 "${M[@]}" test-gpu
# The plain CUDA programs of tests/conformance, built by nvcc: the correct ones
# must print what they print on the simulator.
want conformance && step conformance 240 bash tests/conformance/gpu_run.sh "$archs"
want lesson-02 && step lesson-02 90 "${M[@]}" lesson37 PART=2 ARGS="--no-plot"
# The simulator's time model against this GPU, case by case, and its counters against
# Nsight Compute's where ncu is installed (tests/gpu/model_check.sh).
want model && step model 400 bash tests/gpu/model_check.sh
want bench && step bench 150 "${M[@]}" bench
# Lesson 03: every timing demo at full size.
want demos && step demos 150 "${M[@]}" demos ARGS="--no-plot"
# Lesson 05: the trainer, mixed precision and resuming, on the GPU.
want lesson-05 && step lesson-05 120 "${M[@]}" lesson37 PART=5 ARGS="--no-plot --device cuda"
# Lesson 06: data parallelism with NCCL between the GPUs, one rank per GPU.
gpus=$(nvidia-smi -L | grep -c '^GPU')
if want lesson-06; then
    if command -v mpirun >/dev/null 2>&1; then
        say "lesson-06: $gpus rank(s), one per GPU, NCCL between them$([ "$gpus" = 1 ] && echo " (one GPU: a group of one, the NCCL calls still run)")"
        step lesson-06 180 "${M[@]}" lesson37 PART=6 ARGS="--no-plot --device cuda --ranks $gpus"
        grep -q "equivalence: .*the same training" "$report" || { say "   lesson-06: no equivalence line"; status=1; }
    else
        say "lesson-06: skipped, no mpirun here (make deps as root installs Open MPI)"
    fi
fi
# Lesson 06's grading launches ranks with mpirun; without it, grade the others.
graded=$(command -v mpirun >/dev/null 2>&1 || echo "LESSON=01 02 03 04 05")
want grade && step grade 120 "${M[@]}" grade IMPL=solutions ${graded:+"$graded"}
! want grade || grep -q "Every exercise passes" "$report" || { say "   grade: the answers did not get full marks"; status=1; }
say "The CSV files of the demos are in out/03_*.csv (and in gpu-check-data.tar.gz)."
say "total: $(($(date +%s) - t0)) s; result: $([ $status = 0 ] && echo all passed || echo FAILURES above)"
rm -f out/gpu-check-step.log
send_back
exit $status
