// A bug: the lanes of one warp wait at two different __syncthreads. Different
// warps may (a GPU takes them as one barrier), but the lanes of a warp must
// reach the same one: on a GPU this hangs or goes on with garbage.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void split(float *x)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = x[t];
    if (t % 32 < 16) {
        __syncthreads();
        x[t] = s[63 - t];
    } else {
        __syncthreads();
        x[t] = -s[63 - t];
    }
}

int main(void)
{
    float h[64], *d;
    for (int i = 0; i < 64; i++) h[i] = (float)i;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    split<<<1, 64>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    printf("split: %s\n", e == cudaSuccess ? "no error reported" : "the launch failed");
    return 0;
}
