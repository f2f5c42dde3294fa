#!/usr/bin/env bash
# The student's path: make lesson37 PART=N IMPL=lessons runs part N as soon as the
# exercises of lessons 1..N are written (later lessons' may still be stubs), and
# stops at the first missing one of those, naming it in its last line (and make's
# status is 0: no "Error" line of make's after it), when one is not. And make try
# EX=NN.N runs one exercise early: the kernel of 02.4 alone written trains Iris on
# the GPU (the simulator), a kernel that writes past the end is reported with its
# block, first thread and line in the student's file, and a C exercise runs with the
# answers for the lesson's others.
#
#   bash tests/student_path.sh [BUILD_ROOT]
set -uo pipefail
cd "$(dirname "$0")/.."
root=${1:-build}
work=$root/student-path
rm -rf "$work"
mkdir -p "$work"
lessons=$(ls -d lessons/[0-9][0-9]_*/ | xargs -n1 basename)
fail=0
for part in 1 2 3 4 5 6; do
    for case in written missing; do
        dir=$work/p$part-$case
        mkdir -p "$dir"
        for l in $lessons; do
            n=$((10#${l%%_*}))
            src=lessons
            if [ "$n" -lt "$part" ] || { [ "$n" -eq "$part" ] && [ $case = written ]; }; then
                src=solutions
            fi
            cp -r "$src/$l" "$dir/$l"
        done
        log=$work/p$part-$case.log
        # On the simulator, so that the GPU parts run (and need Lesson 02's kernel);
        # each part a short run.
        case $part in
            1) args="--epochs 2000" ;;
            2) args="--no-matmul --epochs 200" ;;
            4) args="--n 200 --width 64" ;;
            6) args="--quick --no-cost" ;;
            *) args="--quick" ;;
        esac
        make --no-print-directory lesson37 IMPL=lessons STUDENT_DIR="$dir" PART=$part SIM=1 \
            BUILD_ROOT="$root" ARGS="--quiet --no-plot $args" > "$log" 2>&1
        status=$?
        if [ $case = written ]; then
            if [ $status -ne 0 ]; then
                echo "student path: part $part fails with lessons 1..$part written:"
                tail -3 "$log"
                fail=1
            fi
        else
            want=$(printf '%02d' "$part")
            if [ $status -ne 0 ] || ! tail -1 "$log" | grep -q "exercise $want\.[0-9]* .*not written yet"; then
                echo "student path: part $part with lesson $want's stubs should stop at one of" \
                     "its exercises, in its last line, and make's status should be 0 (status $status):"
                tail -3 "$log"
                fail=1
            fi
        fi
    done
done

# make try: the stubs everywhere, but for the one exercise tried.
stubs() {
    local dir=$1
    rm -rf "$dir"
    for l in $lessons; do mkdir -p "$dir/$l"; cp lessons/$l/exercises.c* "$dir/$l/"; done
}
try() { # try NAME EX DIR: make try's log, its status in $status
    log=$work/try-$1.log
    make --no-print-directory try EX=$2 STUDENT_DIR="$3" BUILD_ROOT="$root" \
        ARGS="--quiet --no-plot" > "$log" 2>&1
    status=$?
}
dir=$work/try-kernel
stubs "$dir"
cp solutions/02_device_transfer/exercises.cu "$dir/02_device_transfer/"
try kernel 02.4 "$dir"
if [ $status -ne 0 ] || ! grep -q "Iris on the GPU" "$log" || grep -q "not written yet" "$log"; then
    echo "student path: make try EX=02.4 with only the kernel written should train Iris on the" \
         "GPU (status $status):"
    tail -3 "$log"
    fail=1
fi
# The off-by-one of `if (i <= n)`: the run stops with the simulator's report of the first
# thread past the end, at its line of the student's file.
sed -i 's/if (i < n)/if (i <= n)/' "$dir/02_device_transfer/exercises.cu"
line=$(grep -n 'y\[i\] = ' "$dir/02_device_transfer/exercises.cu" | head -1 | cut -d: -f1)
try kernel-bug 02.4 "$dir"
if [ $status -eq 0 ] || ! grep -q "exercise 02.4.*block ([0-9]*,0,0), thread ([0-9]*,0,0) at $dir/02_device_transfer/exercises.cu:$line" "$log"; then
    echo "student path: make try EX=02.4 with a kernel that writes past the end should fail with" \
         "the simulator's report of its thread and line ($dir/02_device_transfer/exercises.cu:$line):"
    tail -3 "$log"
    fail=1
fi
# A C exercise still a stub: the run reaches it (the lesson's others are the answers').
dir=$work/try-c
stubs "$dir"
try c-stub 01.4 "$dir"
if [ $status -ne 0 ] || ! tail -1 "$log" | grep -q "exercise 01.4 relu_forward() is not written yet"; then
    echo "student path: make try EX=01.4 on the stubs should run Part 1 up to 01.4 and stop there:"
    tail -3 "$log"
    fail=1
fi
[ $fail = 0 ] && echo "student path: each part runs on the exercises of its own and earlier lessons," \
    "and make try runs one exercise with the answers for the others"
exit $fail
