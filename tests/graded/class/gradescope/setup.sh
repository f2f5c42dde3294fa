#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image (Ubuntu or Debian).
# make grade needs: Check (the graded suites), g++ and perl (the CUDA simulator that
# runs the kernel exercises on a machine without a GPU), OpenBLAS, pkg-config, binutils,
# what lib links: jansson (JSON) and zlib (CRC-32), libseccomp (the sandbox's system-call
# filter), and Open MPI (Lesson 06's cases run
# as 2 and 3 ranks under mpirun).
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q make gcc g++ perl binutils check pkg-config libopenblas-dev \
    libjansson-dev zlib1g-dev openmpi-bin libopenmpi-dev libseccomp-dev
cd "$(dirname "$0")"
# Build what does not depend on a submission now, into the image, so that grading a
# submission compiles only its own files.
make --no-print-directory grader
