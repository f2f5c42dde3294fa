#!/usr/bin/env bash
# package.sh REFDIR ZIP: the Gradescope autograder package (make grader-package).
#
# The zip holds the workbook's tracked files except solutions/ (no answer, in any
# form), the reference runs' records (REFDIR/NN.records, as tests/graded/ref/),
# and at its top setup.sh and run_autograder, which Gradescope runs. Without
# solutions/ the Makefile grades each lesson with the student's own code for the
# other lessons and reads the reference values from tests/graded/ref/.
set -euo pipefail
refs=${1:?usage: package.sh REFDIR ZIP}
zip=${2:?usage: package.sh REFDIR ZIP}
cd "$(dirname "$0")/../../.."

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z | grep -zv '^solutions/' | xargs -0 cp --parents -t "$stage"
else
    find . -path ./build -prune -o -path ./out -prune -o -path ./solutions -prune -o \
        -path ./.git -prune -o -type f -print0 | xargs -0 cp --parents -t "$stage"
fi
mkdir -p "$stage/tests/graded/ref"
cp "$refs"/*.records "$stage/tests/graded/ref/"
cp tests/graded/class/gradescope/setup.sh tests/graded/class/gradescope/run_autograder "$stage/"
chmod +x "$stage/setup.sh" "$stage/run_autograder"

# Nothing of the answers may be in it.
answers=$( { [ -e "$stage/solutions" ] && echo solutions/; \
             grep -rl --include='*.c' --include='*.cu' 'reference answers' "$stage/lessons" \
               2>/dev/null | sed "s|^$stage/||" || true; } | tr '\n' ' ')
if [ -n "$answers" ]; then
    echo "grader-package: the package would hold answers in ${answers% }: an exercises file" \
         "that says 'reference answers' is a copy of solutions/; restore the stub" \
         "(git checkout -- FILE) and run make grader-package again" >&2
    exit 1
fi

mkdir -p "$(dirname "$zip")"
rm -f "$zip"
out=$(cd "$(dirname "$zip")" && pwd)/$(basename "$zip")
(cd "$stage" && python3 -m zipfile -c "$out" ./* >/dev/null 2>&1) ||
    (cd "$stage" && zip -qr "$out" .)
echo "Wrote $zip ($(du -k "$zip" | cut -f1) KB): upload it as the autograder of a Gradescope"
echo "assignment; docs/instructor_guide.md says how."
