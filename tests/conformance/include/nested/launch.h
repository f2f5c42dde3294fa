// Launches in macros: the kernel a macro's parameter, and a kernel's name
// pasted from the macro's arguments.
#pragma once

#define LAUNCH_1D(kernel, n, ...) kernel<<<((n) + 127) / 128, 128>>>(__VA_ARGS__)
#define LAUNCH_TYPED(name, T, n, ...) name##_##T<<<((n) + 127) / 128, 128>>>(__VA_ARGS__)

__global__ void fill_float(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 0.25f * i;
}

__global__ void fill_int(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = i % 7 - 3;
}
