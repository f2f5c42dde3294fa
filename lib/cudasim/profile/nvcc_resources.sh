#!/usr/bin/env bash
# nvcc_resources.sh GPU CACHE_DIR [-I DIR]... FILE.cu...: what nvcc says each kernel of
# the files needs (registers per thread, shared memory) for the architecture
# of GPU (a name of lib/cudasim/profile/gpus/, or a file of that form), compiled only
# (nothing is linked or run), and print the path of that output. The output
# is kept in CACHE_DIR under a hash of what nvcc read (the preprocessed
# sources), the architecture and nvcc's version, so a file is compiled again
# only when it or a header it includes changes. The simulator's profiler
# reads it (CUDASIM_NVCC_RESOURCES, lib/cudasim/profile/profile_nvcc.cpp).
# Without nvcc, or when it fails, prints nothing and exits 1: the register
# counts are then unknown, and the profile says so.
#
# Files are read and written as lib/core/fileio.h reads and saves them: the
# GPU file is read only if it is a regular file of at most 1 MiB (a FIFO or a
# device is refused by name, never waited on or read without end); the output
# is saved through a new file in CACHE_DIR renamed over its name, which must
# be a regular file if it is there (a link, a FIFO or a folder there is
# refused by name); a write that fails (a full disk, ulimit -f) is said on
# standard error, and the status is 1. nvcc runs its own steps through sh,
# each path (and the folder it runs in) in double quotes, so it runs in
# CACHE_DIR, and a file whose path holds anything but letters, digits and
# / . _ + @ , - reaches it as a copy in CACHE_DIR/alias (nvcc resolves
# links), never as text for that shell.
set -u
gpu=$1 cache=$2
shift 2
incs=()
while [ $# -gt 1 ] && [ "$1" = -I ]; do incs+=("$(realpath -m -- "$2")"); shift 2; done
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || exit 1
say() { echo "nvcc_resources.sh: $*" >&2; }
case $gpu in
    */*|*.json) json=$gpu ;;
    *) json=$here/gpus/$gpu.json ;;
esac
# The compute capability of the GPU file, read without blocking and within 1 MiB.
cc=$(python3 - "$json" <<'EOF'
import json, os, stat, sys
path = sys.argv[1]
kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
         (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
         (stat.S_ISBLK, "a block device"))
try:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
except OSError as e:
    sys.exit("%s: cannot open: %s" % (path, e.strerror))
st = os.fstat(fd)
if not stat.S_ISREG(st.st_mode):
    kind = next((w for t, w in kinds if t(st.st_mode)), "not a regular file")
    sys.exit("%s: cannot read it as a GPU file: it is %s, not a regular file" % (path, kind))
data = b""
while len(data) <= 1 << 20:
    chunk = os.read(fd, (1 << 20) + 1 - len(data))
    if not chunk:
        break
    data += chunk
if len(data) > 1 << 20:
    sys.exit("%s: more than the 1048576 bytes a GPU file may have (is it the right file?)" % path)
try:
    print("%d" % round(json.loads(data)["compute_capability"]["value"] * 10))
except (ValueError, KeyError, TypeError) as e:
    sys.exit("%s: no compute_capability in it (%s)" % (path, e))
EOF
) || exit 1
mkdir -p "$cache" || exit 1
cache=$(cd "$cache" && pwd) || exit 1

plain() { case $1 in ''|*[!A-Za-z0-9/._+@,-]*) return 1 ;; esac; }
# nvcc_on FILE ARGS...: nvcc on FILE, run in $cache. A FILE whose path is not plain is
# given as a copy of it in $cache/alias (nvcc resolves links), with its folder as -I, a
# link to it there (so "x.h" is found beside FILE).
nvcc_on() {
    local f=$1 dir src inc
    shift
    dir=$(cd "$(dirname -- "$f")" && pwd) || return 1
    src=$dir/$(basename -- "$f") inc=$dir
    if ! plain "$src"; then
        inc=$cache/alias/$(printf '%s' "$dir" | sha256sum | cut -c1-16)
        src=$cache/alias/$(printf '%s' "$src" | sha256sum | cut -c1-16).cu
        mkdir -p "$cache/alias" && ln -sfn -- "$dir" "$inc" && cp --remove-destination -- "$f" "$src" || return 1
    fi
    (cd "$cache" && "$nvcc" -std=c++17 -arch=sm_"$cc" -I"$root" -I"$inc" "${incflags[@]}" "$@" "$src")
}
# The -I folders, as nvcc can take them (a link under $cache/alias when not plain).
incflags=()
for d in "${incs[@]}"; do
    if ! plain "$d"; then
        link=$cache/alias/$(printf '%s' "$d" | sha256sum | cut -c1-16)
        mkdir -p "$cache/alias" && ln -sfn -- "$d" "$link" && d=$link || exit 1
    fi
    incflags+=("-I$d")
done
kind() {
    if [ -L "$1" ]; then echo "a symbolic link"; elif [ -d "$1" ]; then echo "a directory"
    elif [ -p "$1" ]; then echo "a FIFO (named pipe)"; else echo "not a regular file"; fi
}

key=$({ echo "sm_$cc"; "$nvcc" --version; for f in "$@"; do
          nvcc_on "$f" -E 2>/dev/null || cat -- "$f"; done; } |
      sha256sum | cut -c1-32)
out=$cache/$key.sm_$cc.txt
# What is at $out, if anything, must be a regular file: it is read, or replaced.
if [ -L "$out" ] || { [ -e "$out" ] && [ ! -f "$out" ]; }; then
    say "$out: cannot save nvcc's resource usage there: it is $(kind "$out"), not a regular file (remove it)"
    exit 1
fi
if [ ! -s "$out" ]; then
    tmp=$(mktemp "$out.tmp-XXXXXXXX") || { say "$cache: cannot create a file there"; exit 1; }
    trap 'rm -f "$tmp"' EXIT
    # (cat says when a write fails: a full disk, ulimit -f)
    { for f in "$@"; do nvcc_on "$f" --resource-usage -c -o /dev/null 2>&1 || exit 3; done; } |
        cat > "$tmp"
    st=("${PIPESTATUS[@]}")
    [ "${st[0]}" = 3 ] && exit 1
    [ "${st[0]}" = 0 ] && [ "${st[1]}" = 0 ] ||
        { say "$out: cannot save nvcc's resource usage: writing $tmp failed"; exit 1; }
    # (mktemp made it 0600: the cache is read by the user's programs only)
    sync -- "$tmp" && mv -T -- "$tmp" "$out" ||
        { say "$out: cannot save nvcc's resource usage: flushing or renaming $tmp failed"; exit 1; }
    trap - EXIT
fi
echo "$out"
