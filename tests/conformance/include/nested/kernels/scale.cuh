// A kernel whose header includes a header of its own folder, and a kernel
// declared through a macro that stands for extern "C" __global__ void.
#pragma once
#include "scale_factor.h"

#define KERNEL extern "C" __global__ void

KERNEL scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= SCALE_FACTOR;
}
