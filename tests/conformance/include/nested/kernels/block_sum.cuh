// A __shared__ array in a template __device__ function, and the template
// kernel that calls it (an include guard, not #pragma once).
#ifndef NESTED_BLOCK_SUM_CUH
#define NESTED_BLOCK_SUM_CUH

template <int THREADS>
__device__ float block_sum(float v)
{
    __shared__ float partial[THREADS / 32];
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    float sum = 0;
    for (int w = 0; w < THREADS / 32; w++) sum += partial[w];
    return sum;
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS) sums(const float *x, float *out)
{
    float total = block_sum<THREADS>(x[blockIdx.x * THREADS + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

#endif
