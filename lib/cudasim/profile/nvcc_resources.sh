#!/usr/bin/env bash
# nvcc_resources.sh GPU CACHE_DIR FILE.cu...: what nvcc says each kernel of
# the files needs (registers per thread, shared memory) for the architecture
# of GPU (a name of lib/cudasim/profile/gpus/, or a file of that form), compiled only
# (nothing is linked or run), and print the path of that output. The output
# is kept in CACHE_DIR under a hash of what nvcc read (the preprocessed
# sources), the architecture and nvcc's version, so a file is compiled again
# only when it or a header it includes changes. The simulator's profiler
# reads it (CUDASIM_NVCC_RESOURCES, lib/cudasim/profile/profile_nvcc.cpp).
# Without nvcc, or when it fails, prints nothing and exits 1: the register
# counts are then unknown, and the profile says so.
set -u
gpu=$1 cache=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || exit 1
case $gpu in
    */*|*.json) json=$gpu ;;
    *) json=$here/gpus/$gpu.json ;;
esac
cc=$(python3 -c 'import json,sys; print("%d" % round(json.load(open(sys.argv[1]))["compute_capability"]["value"] * 10))' "$json" 2>/dev/null) || exit 1
mkdir -p "$cache" || exit 1
key=$({ echo "sm_$cc"; "$nvcc" --version; for f in "$@"; do
          "$nvcc" -E -std=c++17 -arch=sm_"$cc" -I"$root" "$f" 2>/dev/null || cat "$f"; done; } |
      sha256sum | cut -c1-32)
out=$cache/$key.sm_$cc.txt
if [ ! -s "$out" ]; then
    for f in "$@"; do
        "$nvcc" -std=c++17 --resource-usage -arch=sm_"$cc" -I"$root" -c "$f" -o /dev/null 2>&1 || exit 1
    done > "$out.tmp" && mv "$out.tmp" "$out" || { rm -f "$out.tmp"; exit 1; }
fi
echo "$out"
