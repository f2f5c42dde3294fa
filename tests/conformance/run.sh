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
#   NAME.build   for a program that must not build for the simulator (it
#                needs what the simulator refuses, or what CUDA removed): lines
#                that must each appear in the build's messages, optionally
#                `errors N` (how many lines say error:) and `nvcc rejects` or
#                `nvcc accepts` (what nvcc says of it, checked where NVCC is set,
#                with lib/cudasim/translate/nvcc_check.sh and its cache NVCC_CHECK_DIR).
#   NAME.include folders (from the repository's root) for its #include; the
#                Makefile passes them as make sim-run's INCLUDE.
#   NAME.flags   nvcc's options it needs (make sim-run's NVCCFLAGS: -arch=sm_80,
#                --extended-lambda), for its build and nvcc's check.
#   NAME.env     the simulator's settings it runs with, VAR=value words
#                (CUDASIM_MANAGED=windows: the platform it stands for); the
#                simulator's variables of the caller's environment never apply.
#   NAME.twin    the program is about the uninstrumented twin (a shared object
#                beside it, lib/cudasim/exec/twins.cpp): a build without one
#                (SAN=1) skips it, with a line saying so.
#   NAME.VARIANT.env  a further run with these settings, checked against
#                NAME.VARIANT.out and NAME.VARIANT.report (and .profile) as the
#                first run is against NAME's (one program, two platforms, say).
# usage: run.sh BINDIR   (the programs are BINDIR/<absolute path of NAME>.sim,
#                         the build messages BINDIR/<absolute path of NAME>.buildlog)
set -u
cd "$(dirname "$0")/../.."
bindir=${1:?usage: run.sh BINDIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 count=0
# A program that must not build: its messages, and nvcc's verdict.
check_build() {
    local cu=$1 name=${1%.cu} log errors=0 line want_errors= nvcc_want=
    log=$bindir$(realpath "$cu" | sed 's/\.cu$//').buildlog
    if [ ! -f "$log" ]; then problems+=("not built ($log)"); return; fi
    grep -q '^status 0$' "$log" && problems+=("it built for the simulator; it must not")
    errors=$(grep -c 'error:' "$log")
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            ''|'#'*) ;;
            'errors '*) want_errors=${line#errors } ;;
            'nvcc '*) nvcc_want=${line#nvcc } ;;
            *) grep -qF -- "$line" "$log" || problems+=("the build's messages lack: $line") ;;
        esac
    done < "$name.build"
    [ -z "$want_errors" ] || [ "$errors" = "$want_errors" ] ||
        problems+=("$errors lines say error:, expected $want_errors")
    if [ -n "$nvcc_want" ] && [ -n "${NVCC:-}" ]; then
        local incs=() got=accepts
        if [ -f "$name.include" ]; then for d in $(cat "$name.include"); do incs+=(-I "$d"); done; fi
        if [ -f "$name.flags" ]; then for w in $(cat "$name.flags"); do incs+=(--flag "$w"); done; fi
        bash lib/cudasim/translate/nvcc_check.sh --nvcc "$NVCC" --cache "${NVCC_CHECK_DIR:-build/nvcc-check}" \
            "${incs[@]}" "$cu" 2> "$tmp/nvcc" || got=rejects
        [ "$got" = "$nvcc_want" ] || problems+=("nvcc $got it, expected: nvcc $nvcc_want" "$(cat "$tmp/nvcc")")
    fi
    if [ ${#problems[@]} -ne 0 ]; then problems+=("its build said:" "$(sed 's/^/| /' "$log")"); fi
}

# One run of a built program: its settings from FILES.env (the simulator's
# variables of the caller's environment dropped, so that only these apply), its
# standard output against FILES.out, its report against FILES.report, its profile
# against FILES.profile (FILES: NAME or NAME.VARIANT); LABEL names the run.
check_run() {
    local files=$1 label=$2 settings=() unset=() status want_status=0 v
    problems=()
    for v in $(compgen -e | grep '^CUDASIM_'); do unset+=(-u "$v"); done
    if [ -f "$files.env" ]; then for w in $(cat "$files.env"); do settings+=("$w"); done; fi
    { env "${unset[@]}" "${settings[@]}" timeout 120 "$bin" > "$tmp/out" 2> "$tmp/err"; status=$?; } 2> /dev/null # (a crash is expected of one)
    if [ ! -f "$files.out" ]; then
        problems+=("no $files.out to compare with")
    elif ! diff -u "$files.out" "$tmp/out" > "$tmp/diff"; then
        problems+=("standard output differs from $files.out:" "$(cat "$tmp/diff")")
    fi
    if [ -f "$files.report" ]; then
        while IFS= read -r line || [ -n "$line" ]; do
            case $line in
                ''|'#'*) ;;
                'status '*) want_status=${line#status } ;;
                *) grep -qF -- "$line" "$tmp/err" ||
                       problems+=("the report lacks: $line") ;;
            esac
        done < "$files.report"
    elif [ -s "$tmp/err" ]; then
        problems+=("a report where none was expected:" "$(cat "$tmp/err")")
    fi
    [ "$status" = "$want_status" ] || problems+=("exit status $status, expected $want_status")
    if [ -f "$files.profile" ]; then
        env "${unset[@]}" "${settings[@]}" CUDASIM_PROFILE="$tmp/profile.csv" timeout 120 "$bin" > /dev/null 2> "$tmp/profile.err"
        python3 tests/conformance/check_profile.py "$files.profile" "$tmp/profile.csv" \
            > "$tmp/profile.diff" 2>&1 ||
            problems+=("its profile (CUDASIM_PROFILE) differs from $files.profile:" "$(cat "$tmp/profile.diff")")
    fi
    if [ ${#problems[@]} -eq 0 ]; then
        echo " ok   $label"
    else
        echo "FAIL $label"
        printf '      %s\n' "${problems[@]}"
        if [ -f "$files.report" ]; then echo "      its report:"; sed 's/^/      | /' "$tmp/err"; fi
        failed=$((failed + 1))
    fi
}

for cu in tests/conformance/*.cu; do
    name=${cu%.cu}
    bin=$bindir$(realpath "$cu" | sed 's/\.cu$//').sim
    count=$((count + 1))
    problems=()
    if [ -f "$name.build" ]; then
        check_build "$cu"
        if [ ${#problems[@]} -eq 0 ]; then
            echo " ok   $cu (refused, as it must be)"
        else
            echo "FAIL $cu"; printf '      %s\n' "${problems[@]}"; failed=$((failed + 1))
        fi
        continue
    fi
    if [ ! -x "$bin" ]; then
        echo "FAIL $cu: not built ($bin)"; failed=$((failed + 1)); continue
    fi
    if [ -f "$name.twin" ] && [ ! -f "${bin%.sim}.twin.so" ]; then
        echo " skip $cu: this build makes no uninstrumented twin (SAN=1)"; continue
    fi
    # The run with NAME's files, then one per variant: NAME.VARIANT.env with its own
    # NAME.VARIANT.out (and .report).
    check_run "$name" "$cu"
    for venv in "$name".*.env; do
        [ -f "$venv" ] || continue
        variant=${venv#"$name".}
        check_run "$name.${variant%.env}" "$cu ($(tr '\n' ' ' < "$venv" | sed 's/ *$//'))"
    done
done
if [ $failed -ne 0 ]; then
    echo "$failed runs of the $count conformance programs failed"
    exit 1
fi
echo "all $count conformance programs printed and reported what they should"
