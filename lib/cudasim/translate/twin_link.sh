#!/usr/bin/env bash
# twin_link.sh OUT.so CXX INSTRUMENTED.o TWIN.o [INSTRUMENTED.o TWIN.o]...
#
# The kernels' uninstrumented twin (lib/cudasim/exec/twins.cpp): the twin objects
# of a program's translated files (each file compiled again without the
# instrumentation), linked into OUT.so beside the program, without their
# constructors, which the program's own copy runs. A file keeps no twin when
#   - its instrumented build makes volatile reads: a hand-written wait polls one,
#     and only the instrumented build watches a wait for spinning forever;
#   - a __device__ or __constant__ variable's box has internal linkage there (an
#     anonymous namespace), or a variable the translation left as written and
#     registered as it is (a static __managed__ one) is writable and of internal
#     linkage: the twin would reach a copy of its own.
# Linked in: the names of the functions whose launches may run their blocks on
# several cores (twin_parallel.pl). Without any twin, OUT.so is removed (no twin of an earlier build runs). A twin
# that does not link is left out with a line saying so: the build goes on.
set -u
out=$1 cxx=$2
shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
objs=()
while [ $# -ge 2 ]; do
    inst=$1 twin=$2
    shift 2
    if nm -u "$inst" | grep -q ' __tsan_volatile_read'; then continue; fi
    if nm "$twin" | grep -Eq ' [a-z] .*cudasim_vbox_'; then continue; fi
    # (INSTRUMENTED.cpp, the translation, registers those by their address)
    as_written=$(grep -o 'cudasim_register_variable((const void \*)__builtin_addressof([A-Za-z_][A-Za-z0-9_]*)' \
        "${inst%.o}.cpp" 2> /dev/null | sed 's/.*addressof(//; s/)$//' | sort -u)
    if [ -n "$as_written" ] &&
        nm -C "$twin" | awk '$2 ~ /^[bdgs]$/ { print $3 }' | sort -u | grep -qxF "$as_written"; then
        continue
    fi
    o="$tmp/${#objs[@]}.o"
    objcopy -R '.init_array*' -R '.fini_array*' -R '.ctors*' -R '.dtors*' \
        -R '.rela.init_array*' -R '.rela.fini_array*' "$twin" "$o" || exit 1
    objs+=("$o")
done
rm -f "$out"
[ ${#objs[@]} -gt 0 ] || exit 0
# The functions whose launches may run their blocks on several cores.
perl "$(dirname "$0")/twin_parallel.pl" "${objs[@]}" > "$tmp/parallel.c" &&
    $cxx -x c -fPIC -c "$tmp/parallel.c" -o "$tmp/parallel.o" || exit 1
if ! $cxx -shared -Wl,-Bsymbolic-functions -o "$out.tmp" "${objs[@]}" "$tmp/parallel.o" 2> "$tmp/log"; then
    echo "  (the kernels' uninstrumented twin did not link: every launch runs instrumented)" >&2
    sed 's/^/    /' "$tmp/log" | head -5 >&2
    rm -f "$out.tmp"
    exit 0
fi
mv "$out.tmp" "$out"
