#!/usr/bin/env bash
# nvcc_check.sh: does this CUDA program compile for a GPU? make sim-run runs it
# (where nvcc is installed) before building the program for the simulator, so
# that what runs on the simulator also builds with the installed toolkit.
#
#   nvcc_check.sh --nvcc NVCC --cache DIR [--arch sm_XX] [--flag OPTION]... [-I DIR]... PROG.cu
#
# It compiles PROG.cu with nvcc, compile only (-c), for nvcc's default
# architecture or the one given, with the options given (--flag: one word
# each, make sim-run's NVCCFLAGS) and nvcc's --resource-usage, and keeps what
# nvcc made, by the content of everything the compile read:
#
#   DIR/<key>.o        the object (SASS and PTX for the architecture)
#   DIR/<key>.log      all nvcc printed: errors, warnings, and the resource
#                      usage of each kernel ("ptxas info : Used 39 registers...")
#   DIR/<key>.status   nvcc's exit status
#   DIR/<key0>.deps    the files the compile read (nvcc -MD), one a line
#   DIR/by-path/<PROG's absolute path without .cu>/<arch>.o|.log
#                      links to the last result for that program and
#                      architecture ("default" for nvcc's own), which is
#                      where other tools read the registers a kernel uses
#
# <key0> is a hash of nvcc's version, the options, CPATH and PROG's path;
# <key> adds the content of every file in <key0>.deps, so a rerun on unchanged
# files only hashes them (no nvcc), and an edited header is a new compile.
# nvcc's errors and warnings go to standard error (the resource usage only to
# the log). Exit status: 0 when nvcc accepts the program, 1 when it rejects
# it, 2 when this script is misused or nvcc cannot be run.
set -u
nvcc= cache= arch=
incs=() flags=()
while [ $# -gt 1 ]; do
    case $1 in
        --nvcc) nvcc=$2; shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        --arch) arch=$2; shift 2 ;;
        --flag) flags+=("$2"); shift 2 ;;
        -I) incs+=("-I$(realpath -m -- "$2")"); shift 2 ;;
        -I*) incs+=("-I$(realpath -m -- "${1#-I}")"); shift ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] && [ -n "$nvcc" ] && [ -n "$cache" ] || {
    echo "usage: nvcc_check.sh --nvcc NVCC --cache DIR [--arch sm_XX] [--flag OPTION]... [-I DIR]... PROG.cu" >&2
    exit 2
}
prog=$(realpath -e -- "$1") || exit 2
[ -x "$nvcc" ] || nvcc=$(command -v "$nvcc") || { echo "nvcc_check.sh: no nvcc at $nvcc" >&2; exit 2; }
case $arch in
    ''|default) arch=default; archflag=() ;;
    sm_[0-9]*|compute_[0-9]*) archflag=("-arch=$arch") ;;
    *) echo "nvcc_check.sh: --arch $arch: give sm_NN (sm_90, say) or default" >&2; exit 2 ;;
esac
mkdir -p "$cache" && cache=$(realpath -e -- "$cache") || exit 2

hash() { sha256sum | cut -c1-32; }
key0=$( { "$nvcc" --version; printf '%s\n' "$arch" "${incs[@]}" "${flags[@]/#/flag:}" "CPATH=${CPATH:-}" "$prog"; } | hash)
deps=$cache/$key0.deps

# Where nvcc runs, as nvcc prog.cu would in the program's folder: relative
# names in its list of files read are relative to it. But nvcc runs its own
# steps through sh, each path (and that folder) in double quotes, where a $,
# a ` or a " would be read as code: a path that is not plain (letters,
# digits and / . _ + @ , -) reaches nvcc as a copy of the program (nvcc
# resolves a link to it; the copy is made again each run) or a link to a
# folder under the cache, whose folder is then an -I, and nvcc runs there.
plain() { case $1 in ''|*[!A-Za-z0-9/._+@,-]*) return 1 ;; esac; }
alias_of() { printf '%s' "$cache/alias/$(printf '%s' "$1" | sha256sum | cut -c1-16)${2:-}"; }
src=$prog
if plain "$prog"; then
    cd "$(dirname "$prog")" || exit 2
else
    src=$(alias_of "$prog" .cu)
    mkdir -p "$cache/alias" && ln -sfn -- "$(dirname "$prog")" "$(alias_of "$(dirname "$prog")")" &&
        cp --remove-destination -- "$prog" "$src" && cd "$cache" || exit 2
    incs=("-I$(alias_of "$(dirname "$prog")")" "${incs[@]}")
fi
for i in "${!incs[@]}"; do
    dir=${incs[i]#-I}
    plain "$dir" && continue
    mkdir -p "$cache/alias" && ln -sfn -- "$dir" "$(alias_of "$dir")" || exit 2
    incs[i]=-I$(alias_of "$dir")
done

# The key of the last compile's inputs as they are now (empty when unknown).
content_key() {
    [ -s "$deps" ] || return 0
    { echo "$key0"; tr '\n' '\0' < "$deps" | xargs -0 sha256sum 2>/dev/null || echo missing; } | hash
}

# Print nvcc's messages, less the resource usage (kept in the log).
show() { grep -v -e '^ptxas info' -e '^    [0-9]* bytes stack frame' "$1" >&2; }

link_result() {
    local by=$cache/by-path${prog%.cu}
    mkdir -p "$by" && ln -sf "$cache/$1.o" "$by/$arch.o" && ln -sf "$cache/$1.log" "$by/$arch.log"
}

key=$(content_key)
if [ -n "$key" ] && [ -f "$cache/$key.status" ]; then
    status=$(cat "$cache/$key.status")
    [ "$status" = 0 ] || show "$cache/$key.log"
    link_result "$key"
    [ "$status" = 0 ] && exit 0 || exit 1
fi

tmp=$(mktemp -d "$cache/.tmp.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
"$nvcc" -c "${archflag[@]}" "${flags[@]}" --resource-usage "${incs[@]}" -MD -MF "$tmp/d" "$src" -o "$tmp/o" \
    > "$tmp/log" 2>&1
status=$?
show "$tmp/log"
# The files it read, from nvcc's make rule (target: dep dep \ ...).
if [ -s "$tmp/d" ]; then
    sed -e 's/^[^:]*://' -e 's/\\$//' "$tmp/d" | tr -s ' \t' '\n\n' | sed '/^$/d' | sort -u > "$tmp/deps"
fi
if [ -s "$tmp/deps" ]; then
    mv "$tmp/deps" "$deps"
    key=$(content_key)
    [ -f "$tmp/o" ] || : > "$tmp/o"
    mv "$tmp/o" "$cache/$key.o" && mv "$tmp/log" "$cache/$key.log" &&
        echo "$status" > "$cache/$key.status" && link_result "$key"
fi
[ "$status" = 0 ] && exit 0 || exit 1
