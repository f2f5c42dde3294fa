#!/usr/bin/env bash
# make test-conformance (part of make test): run each program of
# tests/conformance, built for the simulator by make, and check it.
#   NAME.out     what it must print on standard output, exactly (what a GPU prints)
#   NAME.report  for a program with a planted bug: lines that must each appear
#                in the simulator's report on standard error, and optionally
#                `status N` (its exit status; 0 without the line). Without
#                this file the program must report nothing and exit 0.
#   NAME.profile the counters of each launch (check_profile.py): the program is
#                run again with CUDASIM_PROFILE, and its CSV must hold them.
# usage: run.sh BINDIR   (the programs are BINDIR/<absolute path of NAME>.sim)
set -u
cd "$(dirname "$0")/../.."
bindir=${1:?usage: run.sh BINDIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 count=0
for cu in tests/conformance/*.cu; do
    name=${cu%.cu}
    bin=$bindir$(realpath "$cu" | sed 's/\.cu$//').sim
    count=$((count + 1))
    problems=()
    if [ ! -x "$bin" ]; then
        echo "FAIL $cu: not built ($bin)"; failed=$((failed + 1)); continue
    fi
    { timeout 120 "$bin" > "$tmp/out" 2> "$tmp/err"; status=$?; } 2> /dev/null # (a crash is expected of one)
    want_status=0
    if [ ! -f "$name.out" ]; then
        problems+=("no $name.out to compare with")
    elif ! diff -u "$name.out" "$tmp/out" > "$tmp/diff"; then
        problems+=("standard output differs from $name.out:" "$(cat "$tmp/diff")")
    fi
    if [ -f "$name.report" ]; then
        while IFS= read -r line || [ -n "$line" ]; do
            case $line in
                ''|'#'*) ;;
                'status '*) want_status=${line#status } ;;
                *) grep -qF -- "$line" "$tmp/err" ||
                       problems+=("the report lacks: $line") ;;
            esac
        done < "$name.report"
    elif [ -s "$tmp/err" ]; then
        problems+=("a report where none was expected:" "$(cat "$tmp/err")")
    fi
    [ "$status" = "$want_status" ] || problems+=("exit status $status, expected $want_status")
    if [ -f "$name.profile" ]; then
        CUDASIM_PROFILE="$tmp/profile.csv" timeout 120 "$bin" > /dev/null 2> "$tmp/profile.err"
        python3 tests/conformance/check_profile.py "$name.profile" "$tmp/profile.csv" \
            > "$tmp/profile.diff" 2>&1 ||
            problems+=("its profile (CUDASIM_PROFILE) differs from $name.profile:" "$(cat "$tmp/profile.diff")")
    fi
    if [ ${#problems[@]} -eq 0 ]; then
        echo " ok   $cu"
    else
        echo "FAIL $cu"
        printf '      %s\n' "${problems[@]}"
        if [ -f "$name.report" ]; then echo "      its report:"; sed 's/^/      | /' "$tmp/err"; fi
        failed=$((failed + 1))
    fi
done
if [ $failed -ne 0 ]; then
    echo "$failed of $count conformance programs failed"
    exit 1
fi
echo "all $count conformance programs printed and reported what they should"
