#!/usr/bin/env bash
# The student's path: make lesson37 PART=N IMPL=lessons runs part N as soon as the
# exercises of lessons 1..N are written (later lessons' may still be stubs), and
# stops at the first missing one of those, naming it, when one is not.
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
            if [ $status -eq 0 ] || ! grep -q "exercise $want\.[0-9]* .*not written yet" "$log"; then
                echo "student path: part $part with lesson $want's stubs should stop at one of" \
                     "its exercises (status $status):"
                tail -3 "$log"
                fail=1
            fi
        fi
    done
done
[ $fail = 0 ] && echo "student path: each part runs on the exercises of its own and earlier lessons"
exit $fail
