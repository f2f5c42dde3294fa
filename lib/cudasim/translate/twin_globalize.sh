#!/usr/bin/env bash
# twin_globalize.sh OBJECT KEY
#
# A kernel of internal linkage (static, in an anonymous namespace) has no name
# the program exports, so exec/twins.cpp could not find its uninstrumented
# twin. This gives each function of internal linkage of OBJECT (a translated
# file's object, or its twin) a global name of its own: the name it had,
# prefixed with cudasim_static_ and a number that KEY (the instrumented
# object's path, the same for both builds of one file) makes, so that two
# files' functions of one name stay apart. The code is untouched.
set -u
obj=$1 key=$2
unit=$(printf '%s' "$key" | md5sum | cut -c1-12)
syms=$(nm "$obj" | awk '$2 == "t" && ($3 ~ /^_ZL/ || $3 ~ /_GLOBAL__N_1/) && $3 !~ /\./ { print $3 }' | sort -u)
[ -n "$syms" ] || exit 0
args=() renames=()
for s in $syms; do
    args+=(--globalize-symbol="$s")
    renames+=(--redefine-sym "$s=cudasim_static_${unit}_$s")
done
if objcopy "${args[@]}" "$obj" "$obj.tmp1" && objcopy "${renames[@]}" "$obj.tmp1" "$obj.tmp2"; then
    rm -f "$obj.tmp1" && mv "$obj.tmp2" "$obj"
else
    rm -f "$obj" "$obj.tmp1" "$obj.tmp2" # (built again by the next make)
    exit 1
fi
