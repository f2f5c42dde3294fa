#!/usr/bin/env bash
# make gpu-deps: for a GPU machine that cannot install packages (no network),
# download here the Debian packages that building and testing need there,
# into .gpu-deps/ (git ignores it). Take that folder along to the GPU machine;
# make gpu-check finds it there, unpacks it under /tmp/wb-deps (never over the
# system's own files) and builds against it. It holds Check and its subunit,
# OpenBLAS (with the Fortran runtime it links), pkg-config and make: about 13 MB.
#
#   make gpu-deps                     here (Debian 12, with network)
#   make gpu-check                    there, with .gpu-deps/ beside the Makefile
#   (or bash tests/gpu_check.sh, where there is no make yet)
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES="check libsubunit-dev libsubunit0 libopenblas-pthread-dev libopenblas0-pthread
          libgfortran5 libquadmath0 pkgconf pkgconf-bin libpkgconf3 make
          libjansson-dev libjansson4 zlib1g-dev"
command -v apt-get >/dev/null 2>&1 || {
    echo "make gpu-deps: needs apt-get (Debian or Ubuntu) to download the packages"; exit 2; }
mkdir -p .gpu-deps
cd .gpu-deps
rm -f ./*.deb
# apt-get download needs no root, only the package lists (apt-get update once, as root).
if ! apt-get download $PACKAGES > download.log 2>&1; then
    cat download.log
    echo "make gpu-deps: the download failed; as root, run apt-get update once and try again"
    exit 1
fi
rm -f download.log
ls -1 ./*.deb | sed 's|^\./|  |'
echo "make gpu-deps: $(ls ./*.deb | wc -l) packages, $(du -sh . | cut -f1) in .gpu-deps/;" \
     "carry that folder to the GPU machine and run make gpu-check there"
