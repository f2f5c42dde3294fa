#!/usr/bin/env bash
# Grade a folder of submissions: make grade-all SUBMISSIONS=DIR
#
# DIR holds one folder per student, laid out like lessons/:
#     DIR/alice/01_cpu_baseline/exercises.c
#     DIR/bob/01_cpu_baseline/exercises.c
# Each is graded with `make grade STUDENT_DIR=DIR/NAME`, into
# build/submissions/NAME/ (results.json, Check's XML, the tables in grade.txt);
# build/submissions/summary.csv lists student, score, max_score. A submission
# that does not compile, crashes or hangs scores what it earns and the run
# goes on. Student code runs on this machine: grade in a container or a VM.
set -u
dir=${1:?usage: grade_submissions.sh DIR}
out=${GRADE_ALL_OUT:-build/submissions}
[ -d "$dir" ] || { echo "grade_submissions: $dir is not a folder"; exit 2; }
mkdir -p "$out"
summary="$out/summary.csv"
echo "student,score,max_score" > "$summary"
n=0
for sub in "$dir"/*/; do
    name=$(basename "$sub")
    case "$name" in *[!A-Za-z0-9._-]*) echo "skipping $name: use letters, digits, . _ - only"; continue ;; esac
    mkdir -p "$out/$name"
    make --no-print-directory grade IMPL=lessons STUDENT_DIR="${sub%/}" GRADE_OUT="$out/$name" \
        > "$out/$name/grade.txt" 2>&1
    read -r score max < "$out/$name/score.txt" 2>/dev/null || { score=0; max=?; }
    echo "$name,$score,$max" >> "$summary"
    printf '  %-24s %s/%s\n' "$name" "$score" "$max"
    n=$((n + 1))
done
echo "Graded $n submissions: $summary"
