#!/usr/bin/env bash
# make test (where nvcc is installed): lib/cudasim/translate/nvcc_check.sh and the
# check make sim-run makes with it.
#  - a program nvcc rejects: exit 1, nvcc's error on standard error;
#  - a rerun of unchanged files does not run nvcc (the cache), an edited
#    header does; the result is kept where tools read it (by-path/, with the
#    registers each kernel uses);
#  - make sim-run refuses to run a program that nvcc rejects, although the
#    simulator would run it (a __device__ function called from host code:
#    __device__ means nothing to g++), and shows nvcc's error first.
# usage: nvcc_check_test.sh NVCC BUILD_ROOT
set -u
nvcc=${1:?usage: nvcc_check_test.sh NVCC BUILD_ROOT}
root=${2:?usage: nvcc_check_test.sh NVCC BUILD_ROOT}
cd "$(dirname "$0")/../.."
# A folder of its own that stays (make keeps the simulator's build of the
# program there from run to run); the cache of the first checks is new each run.
tmp=$(realpath -m "$root/nvcc-check-test")
rm -rf "$tmp/cache" "$tmp/runs"
mkdir -p "$tmp/prog"
failed=0
fail() { echo "FAIL nvcc_check: $*"; failed=1; }

# nvcc, counting its compiles (not its --version).
cat > "$tmp/nvcc" <<EOS
#!/bin/sh
[ "\$1" = --version ] || echo run >> "$tmp/runs"
exec "$nvcc" "\$@"
EOS
chmod +x "$tmp/nvcc"
runs() { wc -l < "$tmp/runs" 2>/dev/null || echo 0; }
check() { bash lib/cudasim/translate/nvcc_check.sh --nvcc "$tmp/nvcc" --cache "$tmp/cache" "$@"; }

printf '#define SCALE 2.0f\n' > "$tmp/prog/scale.h"
cat > "$tmp/prog/good.cu" <<'EOS'
#include <cstdio>
#include "scale.h"
__global__ void scale(float *x) { x[threadIdx.x] *= SCALE; }
int main(void) { scale<<<1, 32>>>(nullptr); printf("launched\n"); return 0; }
EOS
# (written only when it differs: make keeps its build by the file's date)
printf '%s\n' '#include <cstdio>' '__device__ float square(float x) { return x * x; }' \
    'int main(void) { printf("%.1f\n", square(3.0f)); return 0; }' > "$tmp/bad.new"
cmp -s "$tmp/bad.new" "$tmp/prog/bad.cu" || mv "$tmp/bad.new" "$tmp/prog/bad.cu"

check "$tmp/prog/good.cu" 2> "$tmp/err" || fail "nvcc rejects good.cu: $(cat "$tmp/err")"
[ "$(runs)" = 1 ] || fail "the first check ran nvcc $(runs) times, not once"
check "$tmp/prog/good.cu" 2> "$tmp/err" || fail "nvcc rejects good.cu the second time"
[ "$(runs)" = 1 ] || fail "a rerun on unchanged files ran nvcc again (the cache missed)"
log=$tmp/cache/by-path$tmp/prog/good/default.log
[ -f "$log" ] && [ -f "${log%.log}.o" ] || fail "no object and log at ${log%.log}.{o,log}"
grep -q "Used [0-9]* registers" "$log" 2>/dev/null ||
    fail "the kept log has no register count (nvcc --resource-usage)"
printf '#define SCALE 3.0f\n' > "$tmp/prog/scale.h"
check "$tmp/prog/good.cu" 2> "$tmp/err" || fail "nvcc rejects good.cu after the header's edit"
[ "$(runs)" = 2 ] || fail "an edited header did not make a new compile ($(runs) runs)"

check "$tmp/prog/bad.cu" 2> "$tmp/err"
status=$?
[ $status = 1 ] || fail "bad.cu: exit status $status, expected 1 (nvcc rejects it)"
grep -q 'bad.cu(3): error' "$tmp/err" || fail "bad.cu: nvcc's error is not shown: $(cat "$tmp/err")"
check "$tmp/prog/bad.cu" 2> /dev/null
[ $? = 1 ] || fail "bad.cu: a rerun does not reject it"
[ "$(runs)" = 3 ] || fail "a rerun of a rejected program ran nvcc again ($(runs) runs)"

make --no-print-directory sim-run CU="$tmp/prog/bad.cu" NVCC="$nvcc" BUILD_ROOT="$root" \
    > "$tmp/out" 2>&1
status=$?
[ $status != 0 ] || fail "make sim-run ran bad.cu, which nvcc rejects"
grep -q '^9\.0$' "$tmp/out" && fail "make sim-run ran bad.cu: it printed its result"
grep -q "make sim-run: nvcc rejects" "$tmp/out" || fail "make sim-run does not say that nvcc rejects bad.cu"
first=$(grep -n -m1 'error' "$tmp/out" | cut -d: -f1)
[ -n "$first" ] && sed -n "${first}p" "$tmp/out" | grep -q 'bad.cu(3): error' ||
    fail "make sim-run does not show nvcc's error first"
[ $failed = 0 ] && echo " ok   nvcc_check: rejects what nvcc rejects, caches by content, keeps the registers"
[ $failed = 0 ] || { echo "its output:"; sed 's/^/      | /' "$tmp/out"; }
exit $failed
