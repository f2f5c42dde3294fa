// __shared__ variables at namespace scope: the dynamic pool of the CUDA C++
// Programming Guide's example, carved into arrays of several types by a
// __device__ function, and a counter that two kernels each have their own of.
#pragma once

extern __shared__ float pool[];
__shared__ int hits;

// The block's first n shorts, then n floats, then n ints, all in pool.
__device__ void carve(int n, short **s, float **f, int **i)
{
    *s = (short *)pool;
    *f = (float *)&(*s)[2 * n]; // (4-byte aligned)
    *i = (int *)&(*f)[n];
}

__global__ void mix(const int *x, int *out)
{
    short *s;
    float *f;
    int *i;
    carve(blockDim.x, &s, &f, &i);
    int t = threadIdx.x;
    s[t] = (short)x[t];
    f[t] = 0.5f * x[t];
    i[t] = 2 * x[t];
    __syncthreads();
    int r = blockDim.x - 1 - t;
    out[t] = s[r] + (int)(2 * f[r]) + i[r];
}

__global__ void count_positive(const int *x, int *out)
{
    if (threadIdx.x == 0) hits = 0;
    __syncthreads();
    if (x[blockIdx.x * blockDim.x + threadIdx.x] > 0) atomicAdd(&hits, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = hits;
}

__global__ void count_negative(const int *x, int *out)
{
    if (threadIdx.x == 0) hits = 0;
    __syncthreads();
    if (x[blockIdx.x * blockDim.x + threadIdx.x] < 0) atomicAdd(&hits, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = hits;
}
