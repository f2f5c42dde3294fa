#!/usr/bin/env bash
# make_vars.sh BUILD_ROOT [NVCC]: what a user types into make's variables is data.
#
# 1. Each variable with a form (LESSON, EX, PART, JOBS, SHARD, GRADEBOOK_COLUMNS, GPU, ...)
#    given a value that would run a command if a shell or make read it as code, on the
#    command line or in the environment: make stops before anything runs, with one line
#    naming the variable, its value escaped and its form, and the command never runs (no
#    marker file appears).
# 2. Paths (STUDENT_DIR, GRADE_OUT, GRADE_HIDE_ALSO, SUBMISSIONS, OUT) holding spaces,
#    quotes, $(...), backquotes, | & and \ reach the programs of make grade and make
#    grade-all as single arguments, exactly as typed (stand-ins for the grader's programs
#    record their arguments: nothing here grades).
# 3. make sim-run end to end with a program, an INCLUDE folder, a PROFILE and a GPU file
#    all in such folders: the program runs, the profile is written where PROFILE says, the
#    GPU file is read, ARGS stays shell words; a program of several sources (CU_ALSO) with
#    a library (LDFLAGS, LDLIBS) in such folders; again through nvcc's checks where nvcc
#    is, and lesson37 built with nvcc from a STUDENT_DIR of such a name.
set -u
root=${1:?usage: make_vars.sh BUILD_ROOT [NVCC]}
# The makes below are this test's own: not the variables of a make that runs it (make test
# SAN=1 would give them SAN=1, and override what the environment gives).
unset MAKEFLAGS MFLAGS MAKELEVEL
nvcc=${2:-}
repo=$(realpath "$(dirname "$0")/../..")
root=$(realpath -m "$root")
# A folder of its own that stays: make keeps the sim-run program's build by its path.
work=$(realpath -m "$root/make-vars-test")
mkdir -p "$work/bin" "$work/py" && cd "$work" || exit 2
failed=0
n=0
fail() { echo "FAIL make variables: $*"; failed=1; }
marker=$work/MARK
markers() { find "$work" "$repo" -maxdepth 4 -name MARK -newer "$work/start" 2>/dev/null | head -3; }
rm -f "$marker" "$repo/MARK" && touch "$work/start"
mk() { timeout 120 make --no-print-directory -C "$repo" BUILD_ROOT="$root" "$@"; }

# ---- 1. values of the wrong form ------------------------------------------------------
payloads=("x\";touch $marker;\"" "\$(shell touch $marker)" "\`touch $marker\`" "x'; touch $marker; '"
          "\$\$(touch $marker)" $'01\ntouch '"$marker" "01;touch $marker")
# refused VAR TARGET [MORE...]: each payload as VAR stops make at once, in one line.
refused() {
    local var=$1 target=$2 p out rc
    shift 2
    for p in "${payloads[@]}"; do
        for how in command environment; do
            n=$((n + 1))
            if [ $how = command ]; then out=$(mk "$target" "$@" "$var=$p" 2>&1)
            else out=$(env "$var=$p" timeout 120 make --no-print-directory -C "$repo" BUILD_ROOT="$root" \
                "$target" "$@" 2>&1); fi
            rc=$?
            if [ $rc != 2 ] || [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] ||
               [[ "$out" != *"*** $var=\""*"\": give "* ]] || [ -n "$(markers)" ]; then
                fail "make $target $var=$(printf %q "$p") ($how): status $rc, markers: $(markers), output:"
                printf '%s\n' "$out" | head -3
                rm -f $(markers)
            fi
        done
    done
}
refused LESSON grade
refused EX hint
refused PART lesson37
refused IMPL lesson37
refused JOBS grade-all SUBMISSIONS=x
refused SHARD grade-all SUBMISSIONS=x
refused GRADEBOOK_COLUMNS grade-report SUBMISSIONS=x
refused GPU sim-run CU=x.cu
refused SAN test
refused SIM demos
refused V build
refused ARCH build
refused FUZZ_TIME fuzz
refused GRADE_COMPILE_LIMIT grade
refused GRADE_UNCHECKED grade
refused GRADE_INTAKE_OPTS grade
refused GPU_ARCHS build
refused STUDENT_SRC grade
refused NVCC sim-run CU=x.cu
refused CUDA_HOME build
# NVCCFLAGS reaches nvcc, which hands each word to a shell in double quotes: the payloads
# with $ ` " or \ are refused (the others are plain words there, and reach it as such).
all_payloads=("${payloads[@]}")
payloads=()
for p in "${all_payloads[@]}"; do [[ $p == *[\$\`\"\\]* ]] && payloads+=("$p"); done
refused NVCCFLAGS sim-run CU=x.cu
payloads=("${all_payloads[@]}")
# The escape itself, and BUILD_ROOT (a folder make names targets by: no space in it).
out=$(mk help 'LESSON=x";id>MARK;"' 2>&1)
[[ "$out" == *'*** LESSON="x\";id>MARK;\"": give the two digits of a lesson'* ]] || fail "LESSON's escape: $out"
out=$(mk help "LESSON=$(printf 'a\033[2Jb\xff\xe2\x80\xae')" 2>&1)
[[ "$out" == *'LESSON="a\x1b[2Jb\xff\u202e"'* ]] || fail "LESSON's escape of controls: $out"
out=$(timeout 60 make --no-print-directory -C "$repo" help "BUILD_ROOT=my build" 2>&1)
[[ "$out" == *'*** BUILD_ROOT="my build": make names its targets by this folder'* ]] || fail "BUILD_ROOT: $out"
# Values of the right form pass.
out=$(mk help LESSON="01 02" EX=01.3 PART=3 JOBS=4 SHARD=2/4 GPU=t4 SAN=1 SIM=1 ARCH=x86-64-v3 \
    GRADEBOOK_COLUMNS='01=Lab 1 (4411),total=Day 37,id=' 2>&1) || fail "values of the right form refused: $out"

# ---- 2. paths through make grade and make grade-all -----------------------------------
# A stand-in records its arguments, one per line of NAME.args (a newline shown as \n).
record='#!/usr/bin/env bash
name=$(basename "$0")
for a in "$@"; do printf "%s\n" "${a//$'"'"'\n'"'"'/\\n}"; done > "'"$work"'/$name.args"'
printf '%s\n' "$record" > bin/driver
# intake: also hands in the files it was given, so that the lesson is compiled
printf '%s\n' "$record" 'while [ $# -gt 0 ]; do case $1 in --to) to=$2; shift 2;; --*) shift 2;;
  *) mkdir -p "$to/$(dirname "$1")" && : > "$to/$1"; shift;; esac; done' > bin/intake
# make: the compile of a lesson fails, naming the file as the compiler would
printf '%s\n' '#!/usr/bin/env bash' 'for a in "$@"; do case $a in STUDENT_SRC=*)
  echo "${a#STUDENT_SRC=}/01_cpu_baseline/exercises.c:1:1: error: stand-in"; exit 1;; esac; done' > bin/submake
# confine: runs the compile it is given, its output into --log (as tests/graded/sandbox/confine.c)
printf '%s\n' '#!/usr/bin/env bash' 'while [ $# -gt 0 ]; do case $1 in --log) log=$2; shift 2;;
  --) shift; break;; *) shift;; esac; done; "$@" > "$log" 2>&1' > bin/confine
printf '%s\n' "$record" > py/python3
chmod +x bin/* py/*
sdir="$work/stu dir |&\\1 \$(touch MARK) 'q' \"dq\" \`touch MARK\`"
gout="$work/out \$(touch MARK) 'q' ;x"
hide="$work/hide me \$(touch MARK)"
mkdir -p "$sdir" "$gout" "$hide"
rm -f ./*.args
out=$(mk grade IMPL=lessons LESSON=01 STUDENT_DIR="$sdir" GRADE_OUT="$gout" \
    GRADE_HIDE_ALSO="${hide// /\\ } /x" MAKE="$work/bin/submake" GRADE_INTAKE="$work/bin/intake" \
    GRADE_DRIVER="$work/bin/driver" GRADE_CONFINE="$work/bin/confine" 2>&1) ||
    fail "make grade with the stand-ins: $out"
# arg NAME OPTION: the argument after OPTION in what stand-in NAME got.
arg() { awk -v o="$2" 'p { print; exit } $0 == o { p = 1 }' "$work/$1.args" 2>/dev/null; }
[ "$(arg intake --from)" = "$sdir" ] || fail "intake got --from $(arg intake --from)"
[ "$(arg driver --out)" = "$gout" ] || fail "the driver got --out $(arg driver --out)"
[ "$(arg driver --files)" = "$sdir" ] || fail "the driver got --files $(arg driver --files)"
grep -qxF -- "$hide" driver.args && grep -qxF -- "$gout" driver.args ||
    fail "the driver's --hide lacks GRADE_HIDE_ALSO or GRADE_OUT: $(grep -A1 -e --hide driver.args | tr '\n' ' ')"
[ "$(cat "$gout/compile_01.log" 2>/dev/null)" = "$sdir/01_cpu_baseline/exercises.c:1:1: error: stand-in" ] ||
    fail "the compile log does not name the student's folder as typed: $(cat "$gout/compile_01.log" 2>&1)"
rm -f ./*.args
subs="$work/class \$(touch MARK) 'q'"
gaout="$work/graded \`touch MARK\` \"dq\""
cols='01=Lab "1" $(touch MARK),total=`touch MARK`;x'
out=$(PATH="$work/py:$PATH" mk grade-all SUBMISSIONS="$subs" OUT="$gaout" GRADEBOOK_COLUMNS="$cols" \
    JOBS=2 SHARD=1/2 LESSON=01 2>&1) || fail "make grade-all with a stand-in python3: $out"
grep -qxF -- "--submissions=$subs" python3.args && grep -qxF -- "--out=$gaout" python3.args &&
    grep -qxF -- "--columns=$cols" python3.args && [ "$(arg python3 --jobs)" = 2 ] &&
    [ "$(arg python3 --shard)" = 1/2 ] || fail "grade_all.py got: $(tr '\n' ' ' < python3.args)"
[ -z "$(markers)" ] || fail "a path's \$(...) or \`...\` ran: $(markers)"
rm -f $(markers)

# ---- 3. make sim-run, with every path odd -----------------------------------------------
d="my dir/it's \$(touch MARK) \`touch MARK\` ;x\"y"
mkdir -p "$d/inc dir"
put() { printf '%s\n' "$2" > "$1.new"; cmp -s "$1.new" "$1" && rm "$1.new" || mv "$1.new" "$1"; }
put "$d/scale.h" '#define SCALE 2.0f'
put "$d/inc dir/offset.h" '#define OFFSET 0.5f'
put "$d/p \$(touch MARK).cu" '#include <cstdio>
#include <cuda_runtime.h>
#include "scale.h"
#include <offset.h>
__global__ void k(float *x) { x[threadIdx.x] = SCALE * threadIdx.x + OFFSET; }
int main(int argc, char **argv) {
    float *d, h[4];
    cudaMalloc(&d, sizeof h);
    k<<<1, 4>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%.1f %.1f %.1f %.1f\n", h[0], h[1], h[2], h[3]);
    printf("args: %d:", argc - 1);
    for (int i = 1; i < argc; i++) printf(" [%s]", argv[i]);
    printf("\n");
    return 0;
}'
cp "$repo/lib/cudasim/profile/gpus/t4.json" "$d/my t4.json"
prof="$d/my 'prof' \$(touch MARK).csv"
inc=$(printf '%s' "$d/inc dir" | sed 's/[\\ ]/\\&/g')
for with in none "$nvcc"; do
    [ -n "$with" ] || continue
    [ "$with" = none ] && with=
    rm -f "$prof"
    out=$(mk sim-run CU="$d/p \$(touch MARK).cu" INCLUDE="$inc" PROFILE="$prof" GPU="$d/my t4.json" \
        ARGS="one 'two three'" NVCC="$with" 2>&1)
    rc=$?
    what="make sim-run${with:+ (with nvcc)}"
    [ $rc = 0 ] && grep -qx '0.5 2.5 4.5 6.5' <<< "$out" || fail "$what: status $rc, $(tail -4 <<< "$out")"
    grep -qxF 'args: 2: [one] [two three]' <<< "$out" || fail "$what: ARGS were not shell words: $(grep args: <<< "$out")"
    [ "$(grep -c '"k"' "$prof" 2>/dev/null)" = 1 ] || fail "$what: no profile row in PROFILE=$prof"
    grep -q 'occupancy and times for NVIDIA T4' <<< "$out" || fail "$what: the GPU file was not read"
    [ -z "$with" ] || grep -q 'registers per thread (nvcc --resource-usage, sm_75)' <<< "$out" ||
        fail "$what: nvcc's register counts were not read: $(grep -i register <<< "$out")"
    [ -z "$(markers)" ] || fail "$what: a path's \$(...) or \`...\` ran: $(markers)"
    rm -f $(markers)
done

# A program of several sources (CU_ALSO: a .cu and a .c), linked with a library of such a
# folder (LDFLAGS, LDLIBS), given nvcc's options (NVCCFLAGS), all paths odd.
put "$d/two \$(touch MARK).cu" '#include <cstdio>
int other(int);
extern "C" int host_part(int);
extern "C" int odd_lib(int);
int main(void) { printf("two: %d %d %d %d\n", other(1), host_part(2), odd_lib(3), TWO); return 0; }'
put "$d/o 'q' \$(touch MARK).cu" '__global__ void k(int *x) { *x += 10; }
int other(int v) { int *d; cudaMalloc(&d, sizeof v); cudaMemcpy(d, &v, sizeof v, cudaMemcpyHostToDevice);
    k<<<1, 1>>>(d); cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost); return v; }'
put "$d/h;x \`touch MARK\`.c" 'int host_part(int v) { return 100 + v; }'
mkdir -p "$d/lib dir"
printf '%s\n' 'int odd_lib(int v) { return 1000 + v; }' > "$work/odd_lib.c"
cc -c "$work/odd_lib.c" -o "$work/odd_lib.o" && ar rcs "$d/lib dir/libodd.a" "$work/odd_lib.o"
esc() { printf '%s' "$1" | sed 's/[\\ ]/\\&/g'; }
for with in none "$nvcc"; do
    [ -n "$with" ] || continue
    [ "$with" = none ] && with=
    out=$(mk sim-run CU="$d/two \$(touch MARK).cu" CU_ALSO="$(esc "$d/o 'q' \$(touch MARK).cu") $(esc "$d/h;x \`touch MARK\`.c")" \
        LDFLAGS="-L$(esc "$d/lib dir")" LDLIBS="-lodd -lcublas" NVCCFLAGS="-DTWO=2 -Xcompiler -O2,-Wall" NVCC="$with" 2>&1)
    what="make sim-run CU_ALSO=... LDFLAGS=... LDLIBS=...${with:+ (with nvcc)}"
    grep -qx 'two: 11 102 1003 2' <<< "$out" || fail "$what: $(tail -4 <<< "$out")"
    [ -z "$(markers)" ] || fail "$what: a path's \$(...) or \` ran: $(markers)"
    rm -f $(markers)
done

# A student's folder with such a name, built with nvcc (which resolves links and runs its
# steps through sh): make compiles a copy of the exercise files, and nothing of the name runs.
if [ -n "$nvcc" ]; then
    stu="$work/student \$(touch MARK) 'q'"
    rm -rf "$stu" && cp -r "$repo/lessons" "$stu"
    for f in "$stu"/*/exercises.cu; do echo "// $(date +%s%N)" >> "$f"; done # (compiled again)
    out=$(mk "$root/rel/lessons/lesson37" IMPL=lessons STUDENT_DIR="$stu" NVCC="$nvcc" 2>&1) ||
        fail "lesson37 IMPL=lessons from an odd STUDENT_DIR did not build: $(tail -3 <<< "$out")"
    grep -q 'NVCC .*student-src/.*/exercises.cu' <<< "$out" || fail "no CUDA exercise was compiled by nvcc: $(tail -3 <<< "$out")"
    [ -z "$(markers)" ] || fail "STUDENT_DIR's \$(...) ran in nvcc's shell: $(markers)"
    rm -f $(markers)
fi

[ $failed = 0 ] && echo " ok   make's variables: $n values of the wrong form refused in one line, none run;" \
    "paths with spaces, quotes, \$(...) and \` reach make grade, grade-all and sim-run as typed"
exit $failed
